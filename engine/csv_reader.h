#pragma once
// A streaming reader of the CSV files torch_npu's Text export writes (kernel_details.csv,
// operator_details.csv): RFC 4180 quoting ("" inside a quoted field, fields spanning lines), CRLF
// or LF line ends, columns found by their header name. One record is held at a time, so a file of
// millions of rows needs no more memory than its longest record.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::engine {

class CsvReader {
 public:
  /// A record longer than this is refused (a file that is not CSV, or a quote that never closes).
  static constexpr std::size_t kMaxRecordBytes = std::size_t{64} << 20;

  /// Opens `path` and reads its header row. An empty file or an unreadable one is an Error naming it.
  static Result<CsvReader> Open(const std::filesystem::path& path);

  const std::vector<std::string>& header() const { return header_; }
  /// The index of the column whose header is `name` (surrounding blanks ignored), if any.
  std::optional<std::size_t> Column(std::string_view name) const;

  /// Reads the next record. False at the end of the file. A record with fewer or more fields than
  /// the header, or a quote that never closes, is an Error naming the file, the line and the cause.
  Result<bool> Next();
  std::size_t field_count() const { return spans_.size(); }
  /// Field `index` of the current record, unquoted.
  std::string_view Field(std::size_t index) const {
    return std::string_view(record_).substr(spans_[index].first, spans_[index].second);
  }
  /// The line the current record starts on (1 is the header).
  std::size_t line() const { return record_line_; }
  const std::filesystem::path& path() const { return path_; }
  /// "<file>:<line>: " for an error about the current record.
  std::string Where() const;

 private:
  CsvReader() = default;
  /// Reads one record into fields_; false at the end of the file.
  Result<bool> ReadRecord();
  /// The next line without its '\n' into line_; false at the end of the file. Stops, with
  /// line_too_long_ set, once a line passes kMaxRecordBytes (a multi-GB line is never held).
  bool ReadLine();

  std::filesystem::path path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  // The current record's fields, unquoted, one after another in record_; spans_ holds each
  // one's (offset, length). Both keep their capacity from record to record.
  std::string record_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
  std::string line_;
  std::vector<char> buffer_;
  std::size_t buffer_begin_ = 0;
  std::size_t buffer_end_ = 0;
  bool line_too_long_ = false;
  std::size_t next_line_ = 1;
  std::size_t record_line_ = 0;
};

/// A time or duration in microseconds as the Text export writes it ("1736408883704643.212", with
/// blanks or a trailing tab) to integer nanoseconds, exactly: digits after the third decimal are
/// rounded half away from zero. None for anything that is not a plain decimal number (NaN, "N/A",
/// an exponent, a number that does not fit).
std::optional<std::int64_t> MicrosecondsToNs(std::string_view text);

}  // namespace opmfu::engine
