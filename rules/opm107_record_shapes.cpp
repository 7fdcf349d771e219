#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckRecordShapes(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    bool every_path = false;
    Diagnostic* found = ReportBadValues(
        context, site.record_shapes,
        [](const python::Value& v) {
          if (v.kind != python::ValueKind::kBool) return Verdict::kSkip;
          return v.boolean ? Verdict::kGood : Verdict::kBad;
        },
        [](const python::Value& v) {
          return "`record_shapes` is " + v.Describe() +
                 ": OperatorMFU rows will have no input and output shapes to tell kernels apart";
        },
        "pass `record_shapes=True`", &every_path);
    if (found != nullptr && every_path) {
      found->fix = SetSettingFix(context, site.record_shapes, "True");
    }
  }
}

}  // namespace opmfu::rules
