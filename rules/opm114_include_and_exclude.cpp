#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckIncludeAndExclude(LintCheckContext& context) {
  const auto non_empty_list = [](const linter::Setting& setting) {
    return setting.written && std::any_of(setting.values.begin(), setting.values.end(), [](const python::Value& v) {
             return v.kind == python::ValueKind::kSequence && !v.items.empty();
           });
  };
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    if (!non_empty_list(site.mstx_domain_include) || !non_empty_list(site.mstx_domain_exclude)) continue;
    context.Report(site.mstx_domain_exclude,
                   "both `mstx_domain_include` and `mstx_domain_exclude` are set: torch_npu ignores the exclude list",
                   "keep only one of the two lists");
  }
}

}  // namespace opmfu::rules
