#pragma once
// The end of a run: every file's outcome into the report, findings located in launchers onto
// them (once each), suppressions of launchers applied, files in path order, and OPM010 when no
// linted file configures a profiler.

#include <set>
#include <string>
#include <vector>

#include "lint/launcher_stage.h"
#include "lint/stage.h"

namespace opmfu::lint {

/// `followed`: files reached only by following a launch or an import; `first_effective`: the rules in force
/// for the first input (nullptr: none), which decide OPM010; `any_profiler_call`: whether a launcher configures
/// a profiler.
void MergeOutcomes(const FileReader& files, std::vector<FileOutcome>& outcomes, std::vector<LauncherState>& launchers,
                   const std::set<std::string>& followed, const Effective* first_effective, bool any_profiler_call,
                   LintReport& report);

}  // namespace opmfu::lint
