#include "engine/trace_view_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

namespace opmfu::engine {

namespace fs = std::filesystem;
namespace od = simdjson::ondemand;

namespace {

// The line and column of a byte offset, counted again from the start of the file: only an error
// needs them, so the common path counts nothing.
std::pair<std::uint64_t, std::uint64_t> Position(const fs::path& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buffer(std::size_t{1} << 20);
  std::uint64_t line = 1;
  std::uint64_t column = 1;
  for (std::uint64_t seen = 0; seen < offset;) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto count = static_cast<std::uint64_t>(in.gcount());
    if (count == 0) break;
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(count, offset - seen));
    for (std::size_t i = 0; i < take; ++i) {
      column = buffer[i] == '\n' ? 1 : column + 1;
      line += buffer[i] == '\n' ? 1 : 0;
    }
    seen += take;
  }
  return {line, column};
}

std::string_view TrimJsonBlanks(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// Parses windows of whole events ("[" event, event, ... "]") with one reused simdjson parser.
class EventParser {
 public:
  explicit EventParser(const std::function<void(const TraceEvent&)>& on_event) : on_event_(on_event) {}
  std::size_t events() const { return events_; }
  /// The events the last Parse gave before it failed: a second parse of the same window skips
  /// them, so no event is given twice.
  void SkipGiven() { skip_ = given_; }

  // `data` holds `size` bytes and at least SIMDJSON_PADDING readable bytes after them. On an
  // error, `error_at` is the byte of `data` it was found at.
  simdjson::error_code Parse(const char* data, std::size_t size, std::size_t allocated, std::size_t& error_at) {
    error_at = 0;
    given_ = 0;
    od::document document;
    simdjson::error_code error = parser_.iterate(data, size, allocated).get(document);
    if (error) return error;
    od::array events;
    error = document.get_array().get(events);
    if (!error) error = ReadEvents(events);
    // A window ends at its list's ']': anything after it (brackets that do not pair) is an error.
    const char* after = nullptr;
    if (!error && !document.current_location().get(after)) error = simdjson::TRAILING_CONTENT;
    if (error) {
      const char* at = nullptr;
      if (!document.current_location().get(at) && at >= data && at <= data + size) {
        error_at = static_cast<std::size_t>(at - data);
      }
    }
    return error;
  }

 private:
  simdjson::error_code ReadEvents(od::array events) {
    for (auto element : events) {
      od::value value;
      if (auto error = element.get(value)) return error;
      od::json_type type;
      if (auto error = value.type().get(type)) return error;
      if (type != od::json_type::object) continue;  // not an event: skipped
      od::object object;
      if (auto error = value.get_object().get(object)) return error;
      if (auto error = ReadEvent(object)) return error;
    }
    return simdjson::SUCCESS;
  }

  // A member's value as text: a string unescaped, a number as written, anything else empty.
  simdjson::error_code Text(od::value value, std::string_view& text) {
    od::json_type type;
    if (auto error = value.type().get(type)) return error;
    if (type == od::json_type::string) return value.get_string().get(text);
    if (type == od::json_type::number) {
      text = TrimJsonBlanks(value.raw_json_token());
      return simdjson::SUCCESS;
    }
    text = {};
    return simdjson::SUCCESS;  // skipped by the object's iteration
  }

  simdjson::error_code Id(od::value value, std::int64_t& id, std::uint64_t* as_unsigned = nullptr) {
    od::json_type type;
    if (auto error = value.type().get(type)) return error;
    if (type == od::json_type::number) {
      od::number_type number;
      if (auto error = value.get_number_type().get(number)) return error;
      if (number == od::number_type::unsigned_integer) {
        std::uint64_t u = 0;
        if (auto error = value.get_uint64().get(u)) return error;
        id = static_cast<std::int64_t>(u);
        if (as_unsigned != nullptr) *as_unsigned = u;
        return simdjson::SUCCESS;
      }
      if (number == od::number_type::signed_integer) {
        if (auto error = value.get_int64().get(id)) return error;
        if (as_unsigned != nullptr) *as_unsigned = static_cast<std::uint64_t>(id);
        return simdjson::SUCCESS;
      }
    }
    std::string_view text;
    if (auto error = Text(value, text)) return error;
    auto [it, added] = string_ids_.try_emplace(std::string(text), -static_cast<std::int64_t>(string_ids_.size()) - 1);
    id = it->second;
    if (as_unsigned != nullptr) *as_unsigned = static_cast<std::uint64_t>(id);
    return simdjson::SUCCESS;
  }

  simdjson::error_code ReadArgs(od::object args, TraceEvent& event) {
    for (auto field : args) {
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) return error;
      od::value value;
      if (auto error = field.value().get(value)) return error;
      if (key == "domain") {
        event.has_domain = true;
        if (auto error = Text(value, event.domain)) return error;
      } else if (key == "name") {
        if (auto error = Text(value, event.args_name)) return error;
      } else if (key == "task type") {
        event.has_task_type = true;
      } else if (key == "MHz") {
        std::string_view text;
        if (auto error = Text(value, text)) return error;
        const std::string copy(text);
        char* end = nullptr;
        const double mhz = std::strtod(copy.c_str(), &end);
        if (end != copy.c_str()) event.mhz = mhz;
      }
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code ReadEvent(od::object object) {
    TraceEvent event;
    for (auto field : object) {
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) return error;
      od::value value;
      if (auto error = field.value().get(value)) return error;
      simdjson::error_code error = simdjson::SUCCESS;
      if (key == "ph") {
        error = Text(value, event.ph);
      } else if (key == "name") {
        error = Text(value, event.name);
      } else if (key == "cat") {
        error = Text(value, event.cat);
      } else if (key == "ts") {
        error = Text(value, event.ts);
      } else if (key == "dur") {
        error = Text(value, event.dur);
      } else if (key == "pid") {
        error = Id(value, event.pid);
      } else if (key == "tid") {
        error = Id(value, event.tid);
      } else if (key == "id") {
        std::int64_t id = 0;
        error = Id(value, id, &event.id);
      } else if (key == "args") {
        od::json_type type;
        error = value.type().get(type);
        if (!error && type == od::json_type::object) {
          od::object args;
          error = value.get_object().get(args);
          if (!error) error = ReadArgs(args, event);
        }
      }
      if (error) return error;
    }
    ++given_;
    if (skip_ > 0) {
      --skip_;
      return simdjson::SUCCESS;
    }
    ++events_;
    on_event_(event);
    return simdjson::SUCCESS;
  }

  const std::function<void(const TraceEvent&)>& on_event_;
  od::parser parser_;
  std::unordered_map<std::string, std::int64_t> string_ids_;
  std::size_t events_ = 0;
  std::size_t given_ = 0;
  std::size_t skip_ = 0;
};

// Cuts the file into windows of whole events. It follows only what the cut needs: whether a byte
// is inside a string, and the bracket depth; simdjson then parses (and validates) every window.
// The list's own '[' stays at buffer_[0]; a window is buffer_[0, cut) with the ',' at `cut`
// turned into the closing ']'.
class TraceWindows {
 public:
  TraceWindows(const fs::path& path, EventParser& parser, std::size_t chunk)
      : path_(path), parser_(parser), chunk_(std::max<std::size_t>(chunk, 1)) {}

  Status Run() {
    in_.open(path_, std::ios::binary);
    if (!in_) return Error::Input(path_.string() + ": cannot open: " + std::strerror(errno));
    while (true) {
      const bool more = Read();
      if (in_.bad()) return Error::Input(path_.string() + ": read error");
      if (!more || !FastCut()) OPMFU_RETURN_IF_ERROR(Scan());
      if (done_) return Ok();
      if (!more) return Truncated();
    }
  }

 private:
  // Appends the next chunk after the bytes held; false at the end of the file.
  bool Read() {
    if (buffer_.size() < size_ + chunk_ + simdjson::SIMDJSON_PADDING) {
      buffer_.resize(size_ + chunk_ + simdjson::SIMDJSON_PADDING);
    }
    in_.read(buffer_.data() + size_, static_cast<std::streamsize>(chunk_));
    const auto got = static_cast<std::size_t>(in_.gcount());
    size_ += got;
    std::fill_n(buffer_.data() + size_, simdjson::SIMDJSON_PADDING, ' ');
    return got > 0;
  }

  Status Fail(std::uint64_t offset, const std::string& cause) const {
    const auto [line, column] = Position(path_, offset);
    return Error::Input(path_.string() + ": parse error at line " + std::to_string(line) + ", column " +
                        std::to_string(column) + ": " + cause);
  }

  Status Truncated() const {
    const std::uint64_t end = base_ + size_;
    if (!started_) return Fail(end, "not a list of trace events (the file holds no '[')");
    return Fail(end, in_string_ ? "the file ends inside a string (a truncated trace)"
                                : "the file ends before the list of events closes (a truncated trace)");
  }

  // Finds where the list starts: the first '[' of the file, or the one after "traceEvents":.
  Status Start(std::size_t& i) {
    for (; i < size_; ++i) {
      const char c = buffer_[i];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
      if (i + 3 <= size_ && std::memcmp(buffer_.data() + i, "\xEF\xBB\xBF", 3) == 0 && base_ + i == 0) {
        i += 2;
        continue;
      }
      if (c == '[') {
        started_ = true;
        depth_ = 1;
        list_depth_ = 1;
        Discard(i);
        i = 1;
        return Ok();
      }
      if (c != '{') return Fail(base_ + i, "not a list of trace events (a trace is a JSON list)");
      // An object: its traceEvents member is the list; the rest is scanned past.
      const char* key = "\"traceEvents\"";
      const char* end = buffer_.data() + size_;
      const char* found = std::search(static_cast<const char*>(buffer_.data() + i), end, key, key + std::strlen(key));
      if (found == end) return Ok();  // read more
      const char* open = std::find(found, end, '[');
      if (open == end) return Ok();
      started_ = true;
      object_form_ = true;
      depth_ = 2;
      list_depth_ = 2;
      Discard(static_cast<std::size_t>(open - buffer_.data()));
      i = 1;
      return Ok();
    }
    return Ok();
  }

  // Drops buffer_[0, count) (already parsed or before the list).
  void Discard(std::size_t count) {
    std::memmove(buffer_.data(), buffer_.data() + count, size_ - count);
    size_ -= count;
    base_ += count;
    scanned_ = scanned_ > count ? scanned_ - count : 0;
    string_start_ = string_start_ > count ? string_start_ - count : 0;
  }

  Status ParseWindow(std::size_t close) {
    const char saved = buffer_[close];
    buffer_[close] = ']';
    std::size_t error_at = 0;
    const simdjson::error_code error = parser_.Parse(buffer_.data(), close + 1, buffer_.size(), error_at);
    buffer_[close] = saved;
    if (error) return Fail(base_ + error_at, simdjson::error_message(error));
    return Ok();
  }

  Status Scan();

  Status StringTooLong() const {
    return Error::Input(path_.string() + ":" + std::to_string(Position(path_, base_ + string_start_).first) +
                        ": a JSON string longer than " + std::to_string(kMaxTraceString >> 20) +
                        " MiB (not a trace written by torch_npu, or a quote that never closes)");
  }

  // The common case without following every byte: the window is cut before the last "}, {" of
  // the bytes held, and simdjson parses it. A cut there that is not between two events of the
  // list (inside a string, or between two objects nested in an event) leaves the window with an
  // open string or unpaired brackets, which simdjson refuses; then Scan finds the cut.
  bool FastCut() {
    if (!started_ || list_closed_) return false;
    const char* data = buffer_.data();
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    for (std::size_t p = size_; p-- > 2;) {
      if (data[p] != '{') continue;
      std::size_t q = p - 1;
      while (q > 1 && blank(data[q])) --q;
      if (data[q] != ',') continue;
      std::size_t r = q - 1;
      while (r > 0 && blank(data[r])) --r;
      if (data[r] != '}') continue;
      std::size_t error_at = 0;
      const char saved = buffer_[q];
      buffer_[q] = ']';
      const simdjson::error_code error = parser_.Parse(buffer_.data(), q + 1, buffer_.size(), error_at);
      buffer_[q] = saved;
      if (error) {
        parser_.SkipGiven();
        return false;
      }
      Discard(q);
      buffer_[0] = '[';
      // What Scan follows starts again at the cut: between two events, outside any string.
      scanned_ = 1;
      depth_ = list_depth_;
      in_string_ = false;
      return true;
    }
    return false;
  }

  // What follows the list must be blanks, to the end of the file.
  Status AfterList(std::size_t from) {
    done_ = true;
    do {
      for (std::size_t t = from; t < size_; ++t) {
        const char c = buffer_[t];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
          return Fail(base_ + t, "content after the list of trace events");
      }
      Discard(size_);
      from = 0;
    } while (Read());
    return Ok();
  }

  fs::path path_;
  EventParser& parser_;
  std::size_t chunk_;
  std::ifstream in_;
  std::vector<char> buffer_;
  std::size_t size_ = 0;          // bytes held
  std::uint64_t base_ = 0;        // the file offset of buffer_[0]
  std::size_t scanned_ = 0;       // bytes of buffer_ already followed
  std::size_t string_start_ = 0;  // the opening quote of the string being read
  bool started_ = false;
  bool object_form_ = false;
  bool list_closed_ = false;
  bool done_ = false;
  bool in_string_ = false;
  int depth_ = 0;
  int list_depth_ = 0;
};

Status TraceWindows::Scan() {
  std::size_t i = scanned_;
  if (!started_) {
    OPMFU_RETURN_IF_ERROR(Start(i));
    if (!started_) {
      if (size_ > kMaxTraceString) return Fail(base_, "no list of trace events in the first 64 MiB");
      scanned_ = 0;
      return Ok();
    }
  }
  std::size_t cut = 0;  // the last ',' between two events of the list
  const char* data = buffer_.data();
  while (i < size_) {
    if (in_string_) {
      const void* quote = std::memchr(data + i, '"', size_ - i);
      if (quote == nullptr) {
        i = size_;
        break;
      }
      const std::size_t q = static_cast<std::size_t>(static_cast<const char*>(quote) - data);
      std::size_t backslashes = 0;
      while (q - backslashes > string_start_ + 1 && data[q - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) {
        in_string_ = false;
        if (q - string_start_ > kMaxTraceString) return StringTooLong();
      }
      i = q + 1;
      continue;
    }
    const char c = data[i];
    if (c == '"') {
      in_string_ = true;
      string_start_ = i;
    } else if (c == '[' || c == '{') {
      ++depth_;
    } else if (c == ']' || c == '}') {
      if (--depth_ == list_depth_ - 1 && !list_closed_) {
        list_closed_ = true;
        OPMFU_RETURN_IF_ERROR(ParseWindow(i));
        if (!object_form_) return AfterList(i + 1);
      }
      if (depth_ == 0 && object_form_) {
        done_ = true;
        return Ok();
      }
    } else if (c == ',' && depth_ == list_depth_ && !list_closed_) {
      cut = i;
    }
    ++i;
  }
  scanned_ = i;
  if (in_string_ && size_ - string_start_ > kMaxTraceString) return StringTooLong();
  if (list_closed_) {
    Discard(size_);  // the object form after its list: nothing more is read from it
    return Ok();
  }
  if (cut > 0) {
    OPMFU_RETURN_IF_ERROR(ParseWindow(cut));
    Discard(cut);
    buffer_[0] = '[';  // the cut ',' becomes the next window's opening bracket
  } else if (size_ > kMaxTraceString + chunk_) {
    return Fail(base_, "a trace event longer than " + std::to_string(kMaxTraceString >> 20) + " MiB");
  }
  return Ok();
}

}  // namespace

Result<std::size_t> ReadTraceEvents(const fs::path& path, const std::function<void(const TraceEvent&)>& on_event,
                                    std::size_t chunk_bytes) {
  EventParser parser(on_event);
  TraceWindows windows(path, parser, chunk_bytes);
  OPMFU_RETURN_IF_ERROR(windows.Run());
  return parser.events();
}

}  // namespace opmfu::engine
