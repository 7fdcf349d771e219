#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckSchedule(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    for (const linter::ScheduleCall& schedule : site.schedule_calls) {
      if (const auto& active = schedule.active) {
        for (const python::Value& value : active->values) {
          if (value.kind == python::ValueKind::kInt && value.integer <= 0) {
            context.Report(active->anchor(), "`active` is " + value.Describe() + ": the schedule never records a step",
                           "record at least one step: `active=1` or more");
            break;
          }
        }
      }
      const auto& repeat = schedule.repeat;
      if (!repeat) {
        context.Report(schedule.call,
                       "the schedule has no `repeat`, which defaults to 0: it cycles until training ends and writes a "
                       "*_ascend_pt directory per cycle",
                       "pass `repeat=1`");
        continue;
      }
      for (const python::Value& value : repeat->values) {
        if (value.kind == python::ValueKind::kInt && value.integer != 1) {
          context.Report(repeat->anchor(),
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
