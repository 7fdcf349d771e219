#pragma once
// `opmfu registry check` (and its --fix/--diff): the registry rules over formulas files, with
// each file's `.opmfu.yaml`, and the safe fixes applied in memory pass after pass as `lint --fix`
// does, so the findings kept are what a fresh check of the fixed text reports.

#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostic.h"
#include "common/result.h"
#include "lint/fix.h"
#include "registry/edit.h"
#include "registry/formulas.h"

namespace opmfu::lint {

struct FormulaCheckOptions {
  RuleOverrides overrides;  ///< --select, --ignore, --severity
  bool use_config = true;   ///< false: --no-config
  bool fix = false;         ///< apply the safe fixes in memory (FormulaCheckReport::fixed)
};

struct FormulaCheckReport {
  std::vector<Diagnostic> diagnostics;  ///< every file's findings, in the order the files were named
  std::vector<Error> file_errors;       ///< files that could not be read; the others were still checked
  std::optional<Error> stopped;         ///< a `.opmfu.yaml` that could not be read ends the run here
  std::optional<Severity> fail_on;      ///< the `fail_on:` of the last configuration that sets one
  std::vector<FixedFile> fixed;         ///< with `fix`: the files whose text the fixes changed
  bool settled = true;                  ///< false: kMaxFixPasses passes and safe fixes still pending
  std::vector<std::string> withheld;    ///< files whose fixes would not compile (FixedTextProblem)
};

/// Checks each formulas file with the registry rules. Nothing is written.
FormulaCheckReport CheckFormulaFiles(const std::vector<std::string>& paths, const FormulaCheckOptions& options);

/// `registry add`: the warnings and errors the registry rules report on the function `plan`
/// inserts into `edited` (the formulas file with the addition), moved back to where the user wrote
/// it, `from_path`, without fixes (their offsets point into the formulas file).
std::vector<Diagnostic> FindingsOnAddition(const registry::FormulaFile& edited, const registry::PlannedAddition& plan,
                                           const std::string& from_path);

}  // namespace opmfu::lint
