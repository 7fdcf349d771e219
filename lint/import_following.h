#pragma once
// Entry points lend their launches to the modules they import, which are linted too.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "lint/inputs.h"

namespace opmfu::lint {

/// Entry points (launched scripts, files named on the command line, files with a __main__ block)
/// lend their launches to the modules they import, which are linted too (found in a directory or
/// not): a profile(...) call in a helper module runs with the launcher's arguments. Adds the
/// modules reached to `inputs` and `by_identity` (canonical path -> index).
void FollowImports(std::vector<Input>& inputs, std::map<std::string, std::size_t>& by_identity,
                   const LintOptions& options);

}  // namespace opmfu::lint
