#pragma once
// Files compiled into the binary: the examples (examples/train.sh, train.py, _flops_formulas.py)
// and the rule pages (docs/rules/OPM*.md).

#include <string_view>
#include <vector>

namespace opmfu::cli {

struct EmbeddedFile {
  std::string_view name;
  std::string_view content;
};

const std::vector<EmbeddedFile>& EmbeddedExampleFiles();
const std::vector<EmbeddedFile>& EmbeddedRulePages();

}  // namespace opmfu::cli
