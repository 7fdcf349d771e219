#pragma once
// An assignment (`V=x`, `V+=x`, `A=(a b)`, `export V=x`, the `V=x` before a command): its value
// expanded in the environment, then written to it.

#include "common/tree_sitter.h"
#include "linter/shell/environment.h"
#include "linter/shell/frame.h"

namespace opmfu::linter::shell {

/// Assigns a variable_assignment node of the frame's text in `env` (a layer of it, for a prefix).
void Assign(TSNode assignment, const Frame& frame, Environment& env, bool exported);

}  // namespace opmfu::linter::shell
