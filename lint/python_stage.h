#pragma once
// One Python file: parse it with its program's modules attached, trace its profiler calls, run the
// lint rules, apply its suppressions.

#include "lint/inputs.h"
#include "lint/stage.h"

namespace opmfu::lint {

/// Lints one Python input (its read-ahead source is moved out of it).
FileOutcome LintPython(Input& input, const LintOptions& options, const Effective& effective);

}  // namespace opmfu::lint
