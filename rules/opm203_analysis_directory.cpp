#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckAnalysisDirectory(LauncherCheckContext& context) {
  for (const linter::ShellCommandFact& fact : context.launcher.facts.commands) {
    if (fact.kind != linter::ShellCommandFact::Kind::kAnalysisDirectory) continue;
    // Only the last segment decides, so a glob (`$D/*_ascend_pt`) or a run-time prefix
    // (`$(ls -td ... | head -n 1)/ASCEND_PROFILER_OUTPUT`) is judged as well.
    const std::string& path = fact.last_segment;
    const bool run_directory = path.ends_with("_ascend_pt");
    const bool output_directory = path.ends_with("ASCEND_PROFILER_OUTPUT");
    if (!run_directory && !output_directory) continue;
    context.ReportAt(fact.value.where,
                     "`" + fact.name + " -d " + fact.value.text + "` points at " +
                         (run_directory ? "one run's *_ascend_pt directory" : "an ASCEND_PROFILER_OUTPUT directory") +
                         ": -d must be the directory given to tensorboard_trace_handler, which holds every rank's "
                         "*_ascend_pt; other ranks are missed and the output lands inside the run",
                     "pass the parent directory of the *_ascend_pt directories");
  }
}

}  // namespace opmfu::rules
