#pragma once
// A place in a text file that findings can point at, for inputs read without a syntax tree kept
// alive per node (launchers, dynamic-profiler JSON, known-launcher YAML).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/diagnostic.h"

namespace opmfu {

/// A file's text, shared by every location in it (and with the file's syntax tree, if any).
struct TextSource {
  std::string path;
  std::shared_ptr<const std::string> text;
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
