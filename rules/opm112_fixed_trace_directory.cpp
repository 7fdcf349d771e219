#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckFixedTraceDirectory(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    for (const linter::TraceHandlerCall& handler : site.trace_handlers) {
      const auto& directory = handler.dir_name;
      // A part formatted at run time (a timestamp, a rank) varies: not fixed.
      if (!directory || !handler.fixed_directory) continue;
      const std::string& fixed = *handler.fixed_directory;
      std::string message = "the trace directory is always '" + fixed +
                            "': repeated runs add *_ascend_pt directories side by side, and msprof-analyze keeps "
                            "only the newest one per rank";
      if (handler.existing_runs > 0) {
        message += "; it already holds " + std::to_string(handler.existing_runs) + " *_ascend_pt directories";
      }
      context.Report(directory->anchor(), std::move(message),
                     "give each run its own directory, e.g. f\"./prof/{time.strftime('%Y%m%d-%H%M%S')}\"");
    }
  }
}

}  // namespace opmfu::rules
