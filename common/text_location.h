#pragma once
// A place in a text file that findings can point at, for inputs read without a syntax tree kept
// alive per node (launchers, dynamic-profiler JSON, known-launcher YAML).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"

namespace opmfu {

/// A file's text, shared by every location in it (and with the file's syntax tree, if any).
/// Built in place (`std::make_shared<const TextSource>(path, text)`): it owns a once-only index.
struct TextSource {
  TextSource(std::string file_path, std::shared_ptr<const std::string> file_text)
      : path(std::move(file_path)), text(std::move(file_text)) {}

  std::string path;
  std::shared_ptr<const std::string> text;

  /// The line and column of a byte offset, as PositionInText says, from an index of line starts
  /// built on first use (a launcher asks for the position of every word it passes on).
  SourcePosition PositionOf(std::size_t byte_offset) const;

  mutable std::once_flag indexed{};
  mutable std::vector<std::uint32_t> line_starts{};  ///< byte offset of each line's first byte
};

/// Where a word or value was written. Cheap to copy (a launcher makes many words); the range and
/// the source line are worked out only when a finding needs them.
struct TextLocation {
  std::shared_ptr<const TextSource> source;
  std::uint32_t start_byte = 0;
  std::uint32_t end_byte = 0;

  bool valid() const { return source != nullptr; }
  const std::string& file() const;
  SourceRange range() const;
  std::string_view snippet() const;  ///< the source line of the start (a view into the source)
};

}  // namespace opmfu
