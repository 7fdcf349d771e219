#include "common/text_location.h"

#include <algorithm>
#include <cstring>

#include "common/text.h"

namespace opmfu {

SourcePosition TextSource::PositionOf(std::size_t byte_offset) const {
  const std::string_view all = *text;
  std::call_once(indexed, [&] {
    line_starts.push_back(0);
    for (const char* at = all.data(); const void* found = std::memchr(at, '\n', all.data() + all.size() - at);) {
      at = static_cast<const char*>(found) + 1;
      line_starts.push_back(static_cast<std::uint32_t>(at - all.data()));
    }
  });
  const std::size_t offset = std::min(byte_offset, all.size());
  // The last line start at or before `offset`: a newline at `offset` itself ends that line.
  const auto line = std::upper_bound(line_starts.begin(), line_starts.end(), offset) - 1;
  const std::string_view prefix = all.substr(*line, offset - *line);
  return {static_cast<int>(line - line_starts.begin()) + 1, CodePointCount(prefix, prefix.size()) + 1};
}

const std::string& TextLocation::file() const {
  static const std::string kNone;
  return source ? source->path : kNone;
}

SourceRange TextLocation::range() const {
  if (!source) return {};
  return {source->PositionOf(start_byte), source->PositionOf(end_byte)};
}

std::string_view TextLocation::snippet() const {
  return source ? LineInText(*source->text, start_byte) : std::string_view();
}

}  // namespace opmfu
