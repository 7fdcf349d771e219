#include "rules/lint_checks.h"

#include <filesystem>

namespace opmfu::rules {

namespace fs = std::filesystem;

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
      // Relative paths are resolved against the script's directory, where runs usually start.
      const fs::path base = fs::path(context.module().path()).parent_path();
      const fs::path path = fs::path(fixed).is_absolute() ? fs::path(fixed) : base / fixed;
      std::error_code ec;
      std::size_t existing = 0;
      if (fs::is_directory(path, ec)) {
        for (fs::directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
             it.increment(ec)) {
          if (it->path().filename().string().ends_with("_ascend_pt")) ++existing;
        }
      }
      if (existing > 0) message += "; it already holds " + std::to_string(existing) + " *_ascend_pt directories";
      context.Report(directory->anchor(), std::move(message),
                     "give each run its own directory, e.g. f\"./prof/{time.strftime('%Y%m%d-%H%M%S')}\"");
    }
  }
}

}  // namespace opmfu::rules
