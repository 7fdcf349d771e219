#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckSchedule(LintCheckContext& context) {
  const python::PythonModule& module = context.module();
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    for (const python::Value* schedule : CallsTo(site.schedule, "schedule")) {
      if (auto active = module.FindArgument(schedule->node, "active", 1)) {
        for (const python::Value& value : active->values) {
          if (value.kind == python::ValueKind::kInt && value.integer <= 0) {
            context.Report(ts_node_is_null(active->keyword) ? active->node : active->keyword,
                           "`active` is " + value.Describe() + ": the schedule never records a step",
                           "record at least one step: `active=1` or more");
            break;
          }
        }
      }
      auto repeat = module.FindArgument(schedule->node, "repeat", 3);
      if (!repeat) {
        context.Report(schedule->node,
                       "the schedule has no `repeat`, which defaults to 0: it cycles until training ends and writes a "
                       "*_ascend_pt directory per cycle",
                       "pass `repeat=1`");
        continue;
      }
      for (const python::Value& value : repeat->values) {
        if (value.kind == python::ValueKind::kInt && value.integer != 1) {
          context.Report(ts_node_is_null(repeat->keyword) ? repeat->node : repeat->keyword,
                         "`repeat` is " + value.Describe() +
                             ": each cycle writes its own *_ascend_pt directory, and msprof-analyze keeps only the "
                             "newest per rank",
                         "pass `repeat=1`");
          break;
        }
      }
    }
  }
}

}  // namespace opmfu::rules
