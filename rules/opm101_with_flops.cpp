#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckWithFlops(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;  // OPM110 speaks for the others
    bool every_path = false;
    Diagnostic* found = ReportBadValues(
        context, site.with_flops,
        [](const python::Value& v) {
          if (v.kind != python::ValueKind::kBool) return Verdict::kSkip;  // a reset value: OPM109
          return v.boolean ? Verdict::kGood : Verdict::kBad;
        },
        [](const python::Value& v) {
          return "`with_flops` is " + v.Describe() + ", so torch_npu installs no FLOPs hooks and records no FLOPs";
        },
        "pass `with_flops=True` to torch_npu.profiler.profile", &every_path);
    if (found != nullptr && every_path) found->fix = SetSettingFix(context, site.with_flops, "True");
  }
}

}  // namespace opmfu::rules
