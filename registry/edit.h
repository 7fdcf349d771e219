#pragma once
// `opmfu registry add`: inserting one decorated formula into a formulas file, leaving every other
// byte as it was.

#include <string>

#include "common/result.h"
#include "common/text_edit.h"
#include "registry/formulas.h"

namespace opmfu::registry {

struct PlannedAddition {
  TextEdit edit;           ///< one insertion into the formulas file
  std::string new_source;  ///< the formulas file with the edit applied
  std::string function_name;
  int decorator_line = 0;   ///< 1-based line of the new decorator in new_source
  int function_line = 0;    ///< 1-based line of the new `def` in new_source
  int source_def_line = 0;  ///< 1-based line of the `def` in the --from file
  int inserted_line_count = 0;
};

/// Plans the insertion of the single function in `candidate` (the --from file) under `target`.
/// Refuses, with the reason, a formulas or candidate file that did not parse cleanly, a malformed
/// or already registered target, a candidate that is not exactly one plain function (imports the
/// formulas file lacks, other decorators, top-level code), and a function name already taken.
/// The result is re-parsed to prove it adds exactly that one registration.
Result<PlannedAddition> PlanAddition(const FormulaFile& formulas, const FormulaFile& candidate,
                                     const std::string& target);

/// Writes `plan` into the formulas file it was planned on (atomically), first copying the file as
/// it was to `<path>.bak`. Refuses, writing nothing, when the disk no longer holds the text
/// `formulas` was read from (an editor saved it meanwhile). Returns the backup's path.
Result<std::string> WriteAddition(const FormulaFile& formulas, const PlannedAddition& plan);

}  // namespace opmfu::registry
