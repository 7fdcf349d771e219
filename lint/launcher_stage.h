#pragma once
// One bash launcher: read and evaluate it, find the scripts its launches run, run the launcher
// rules and the known-launcher checks, confirm a syntax error with bash; then keep only what the
// later stages use.

#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "lint/stage.h"
#include "linter/known_launchers.h"
#include "linter/suppressions.h"
#include "rules/lint_checks.h"

namespace opmfu::lint {

struct LauncherState {
  rules::LauncherLint lint;
  SharedEffective effective;
  std::vector<Diagnostic> diagnostics;
  // Read while the tree exists; the tree itself is dropped early (a thousand launchers' trees
  // held at once cost more than everything else).
  linter::Suppressions suppressions;
  bool parsed_cleanly = true;
  std::string source;
  bool configures_profiler = false;  ///< a launch exports PROF_CONFIG_PATH or profiles a known launcher
};

/// Reads, evaluates and checks one launcher; its tree is dropped before returning.
Result<LauncherState> ReadLauncherState(const FileReader& files, const std::string& path, SharedEffective effective,
                                        bool keep_source,
                                        const std::vector<const linter::KnownLauncher*>& known_launchers,
                                        const std::optional<std::string>& bash);

/// PROF_CONFIG_PATH in a launch's environment: torch_npu's dynamic profiler reads the config in
/// that directory. Found configs are added to `configs`; a missing one is OPM004 at the word.
void FindLaunchConfigs(const FileReader& files, LauncherState& state, std::vector<std::string>& configs);

}  // namespace opmfu::lint
