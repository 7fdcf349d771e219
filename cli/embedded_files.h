#pragma once
// Files compiled into the binary: the examples (examples/train.sh, train.py, _flops_formulas.py)
// and the rule pages (docs/rules/OPM*.md).

#include <vector>

#include "common/embedded_file.h"

namespace opmfu::cli {

const std::vector<EmbeddedFile>& EmbeddedExampleFiles();
const std::vector<EmbeddedFile>& EmbeddedRulePages();

}  // namespace opmfu::cli
