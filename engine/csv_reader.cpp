#include "engine/csv_reader.h"

#include <cstring>
#include <limits>

namespace opmfu::engine {

namespace {

std::string_view TrimCsvBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

}  // namespace

Result<CsvReader> CsvReader::Open(const std::filesystem::path& path) {
  CsvReader reader;
  reader.path_ = path;
  reader.in_.open(path, std::ios::binary);
  if (!reader.in_) return Error::Input(path.string() + ": cannot open: " + std::strerror(errno));
  OPMFU_ASSIGN_OR_RETURN(bool any, reader.ReadRecord());
  if (!any) return Error::Input(path.string() + ": empty file: no header row");
  for (std::size_t i = 0; i < reader.field_count(); ++i) reader.header_.emplace_back(reader.Field(i));
  if (!reader.header_.empty() && reader.header_[0].rfind("\xEF\xBB\xBF", 0) == 0) reader.header_[0].erase(0, 3);
  for (std::string& name : reader.header_) name = std::string(TrimCsvBlanks(name));
  return reader;
}

std::optional<std::size_t> CsvReader::Column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::string CsvReader::Where() const { return path_.string() + ":" + std::to_string(record_line_) + ": "; }

Result<bool> CsvReader::Next() {
  OPMFU_ASSIGN_OR_RETURN(bool any, ReadRecord());
  if (!any) return false;
  if (spans_.size() != header_.size()) {
    return Error::Input(Where() + std::to_string(spans_.size()) + " fields where the header has " +
                        std::to_string(header_.size()) + " (a truncated or malformed row)");
  }
  return true;
}

bool CsvReader::ReadLine() {
  line_.clear();
  line_too_long_ = false;
  bool any = false;
  while (true) {
    if (buffer_begin_ == buffer_end_) {
      if (buffer_.empty()) buffer_.resize(std::size_t{1} << 20);
      in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
      buffer_begin_ = 0;
      buffer_end_ = static_cast<std::size_t>(in_.gcount());
      if (buffer_end_ == 0) return any;
    }
    any = true;
    const char* begin = buffer_.data() + buffer_begin_;
    const char* end = buffer_.data() + buffer_end_;
    const char* newline = static_cast<const char*>(std::memchr(begin, '\n', static_cast<std::size_t>(end - begin)));
    const char* stop = newline != nullptr ? newline : end;
    line_.append(begin, stop);
    buffer_begin_ += static_cast<std::size_t>(stop - begin) + (newline != nullptr ? 1 : 0);
    if (newline != nullptr) return true;
    if (line_.size() > kMaxRecordBytes) {
      line_too_long_ = true;
      return true;
    }
  }
}

Result<bool> CsvReader::ReadRecord() {
  record_.clear();
  spans_.clear();
  record_line_ = next_line_;
  std::size_t record_bytes = 0;
  std::size_t field_begin = 0;
  bool in_quotes = false;
  bool read_any = false;
  while (true) {
    if (!ReadLine()) {
      if (in_.bad()) return Error::Input(path_.string() + ":" + std::to_string(next_line_) + ": read error");
      if (in_quotes) {
        return Error::Input(path_.string() + ":" + std::to_string(record_line_) +
                            ": a quoted field that never closes (the file ends inside it)");
      }
      if (!read_any) return false;
      break;
    }
    ++next_line_;
    read_any = true;
    record_bytes += line_.size() + 1;
    if (line_too_long_ || record_bytes > kMaxRecordBytes) {
      return Error::Input(path_.string() + ":" + std::to_string(record_line_) + ": a record longer than " +
                          std::to_string(kMaxRecordBytes >> 20) + " MiB" +
                          (in_quotes ? " (a quoted field that never closes)" : " (not a CSV file?)"));
    }
    std::string_view text(line_);
    if (!in_quotes && !text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (!in_quotes && text.empty() && spans_.empty() && record_.empty()) {
      record_line_ = next_line_;  // a blank line between records
      read_any = false;
      continue;
    }
    // Runs of plain characters are copied at once; only quotes and commas are looked at.
    std::size_t i = 0;
    while (i < text.size()) {
      if (in_quotes) {
        const std::size_t quote = text.find('"', i);
        if (quote == std::string_view::npos) {
          record_.append(text.substr(i));
          break;
        }
        record_.append(text.substr(i, quote - i));
        if (quote + 1 < text.size() && text[quote + 1] == '"') {
          record_.push_back('"');
          i = quote + 2;
        } else {
          in_quotes = false;
          i = quote + 1;
        }
        continue;
      }
      std::size_t stop = i;
      while (stop < text.size() && text[stop] != ',' && text[stop] != '"') ++stop;
      record_.append(text.substr(i, stop - i));
      if (stop == text.size()) break;
      if (text[stop] == '"') {
        in_quotes = true;
      } else {
        spans_.emplace_back(field_begin, record_.size() - field_begin);
        field_begin = record_.size();
      }
      i = stop + 1;
    }
    if (!in_quotes) break;
    record_.push_back('\n');  // a line break inside a quoted field
  }
  if (record_.size() > field_begin && record_.back() == '\r') record_.pop_back();
  spans_.emplace_back(field_begin, record_.size() - field_begin);
  return true;
}

std::optional<std::int64_t> MicrosecondsToNs(std::string_view text) {
  text = TrimCsvBlanks(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t whole = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != '.'; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    if (whole > (kMax - 9) / 10) return std::nullopt;
    whole = whole * 10 + (text[i] - '0');
  }
  std::int64_t fraction = 0;
  int digits = 0;
  bool round_up = false;
  if (i < text.size()) {
    ++i;  // the point
    if (i == text.size() && i == 1) return std::nullopt;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      if (digits < 3) {
        fraction = fraction * 10 + (text[i] - '0');
      } else if (digits == 3) {
        round_up = text[i] >= '5';
      }
      ++digits;
    }
  }
  for (int d = digits; d < 3; ++d) fraction *= 10;
  if (whole > (kMax - 1000) / 1000) return std::nullopt;
  std::int64_t ns = whole * 1000 + fraction + (round_up ? 1 : 0);
  return negative ? -ns : ns;
}

}  // namespace opmfu::engine
