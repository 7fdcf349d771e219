#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckDynamicProfilerNeverStarts(LintCheckContext& context) {
  const linter::DynamicConfig* config = context.facts.dynamic_config.get();
  if (config == nullptr || config->invalid || !config->top_is_object) return;
  const std::string help =
      "set `\"start_step\"` to the step to start at (a future step), or -1 to start at the next step";
  const linter::JsonEntry* start = config->Top("start_step");
  if (start == nullptr) {
    context.ReportAt(config->Start(),
                     "`start_step` is not set, and its default 0 means the dynamic profiler never starts", help);
    return;
  }
  if (start->value.kind == python::ValueKind::kInt && start->value.integer == 0) {
    context.ReportAt(start->where, "`start_step` is 0: the dynamic profiler never starts", help);
  }
}

}  // namespace opmfu::rules
