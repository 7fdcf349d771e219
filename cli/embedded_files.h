#pragma once
// Example files compiled into the binary (examples/train.sh, train.py, _flops_formulas.py).

#include <string_view>
#include <vector>

namespace opmfu::cli {

struct EmbeddedFile {
  std::string_view name;
  std::string_view content;
};

const std::vector<EmbeddedFile>& EmbeddedExampleFiles();

}  // namespace opmfu::cli
