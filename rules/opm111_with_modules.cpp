#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckWithModules(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    if (!site.with_modules.written) continue;
    const bool on = std::any_of(site.with_modules.values.begin(), site.with_modules.values.end(),
                                [](const python::Value& v) { return v.is_true(); });
    if (!on) continue;
    context.Report(site.with_modules, "`with_modules=True` records Python call stacks; it does not produce ModuleMFU",
                   "for ModuleMFU, wrap modules in torch_npu.npu.mstx.range_start/range_end(..., domain=\"Module\")");
  }
}

}  // namespace opmfu::rules
