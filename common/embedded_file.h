#pragma once
// A file compiled into the binary (cmake/embed_files.cmake generates the tables).

#include <string_view>

namespace opmfu {

struct EmbeddedFile {
  std::string_view name;
  std::string_view content;
};

}  // namespace opmfu
