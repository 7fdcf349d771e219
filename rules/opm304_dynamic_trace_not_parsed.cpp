#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckDynamicTraceNotParsed(LintCheckContext& context) {
  const linter::DynamicConfig* config = context.facts.dynamic_config.get();
  if (config == nullptr || config->invalid || !config->top_is_object) return;
  const std::string help =
      "set `\"analyse\": true`, or run torch_npu.profiler.profiler.analyse(DIR, export_type=\"db\") on the output "
      "before msprof-analyze";
  const linter::JsonEntry* analyse = config->Top("analyse");
  if (analyse == nullptr) {
    context.ReportAt(config->Start(),
                     "`analyse` is not set, and its default false leaves raw data only: there is no DB for "
                     "msprof-analyze until it is parsed offline",
                     help);
    return;
  }
  if (analyse->value.kind == python::ValueKind::kBool && !analyse->value.boolean) {
    context.ReportAt(analyse->where,
                     "`analyse` is false: the dynamic profiler leaves raw data only, with no DB for msprof-analyze "
                     "until it is parsed offline",
                     help);
    return;
  }
  const linter::JsonEntry* is_rank = config->Top("is_rank");
  const linter::JsonEntry* async_mode = config->Top("async_mode");
  if (analyse->value.is_true() && is_rank != nullptr && is_rank->value.is_true() &&
      (async_mode == nullptr || !async_mode->value.is_true())) {
    context.ReportAt(is_rank->where,
                     "`is_rank` is true without `async_mode`, which turns `analyse` off: raw data only, with no DB "
                     "for msprof-analyze",
                     "also set `\"async_mode\": true`, or parse the output offline before msprof-analyze");
  }
}

}  // namespace opmfu::rules
