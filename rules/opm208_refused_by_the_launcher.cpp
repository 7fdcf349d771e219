#include <string>

#include "rules/lint_checks.h"

namespace opmfu::rules {

// A known launcher whose profiling is on, given a variable its package refuses beside it: the
// description says what the package then does (vllm-ascend raises RuntimeError for
// MSMONITOR_USE_DAEMON=1 with its torch profiler configured).
void CheckRefusedByTheLauncher(LintCheckContext& context) {
  for (const linter::KnownRefusedVariable& refused : context.facts.refused_variables) {
    context.ReportAt(refused.value.where,
                     "`" + refused.name + "=" + refused.value.text + "` is set for a " + context.facts.known_launcher +
                         " launch whose profiler is on: " + refused.why,
                     "use one or the other: unset " + refused.name +
                         " for the profiled launch, or profile through msMonitor alone (no profiler option or "
                         "variable, and a `dyno nputrace` request: OPM207)");
  }
}

}  // namespace opmfu::rules
