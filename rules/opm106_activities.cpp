#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckActivities(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    const auto has = [](const python::Value& v, std::string_view activity) {
      return std::any_of(v.items.begin(), v.items.end(), [&](const python::Value& item) {
        return item.kind == python::ValueKind::kEnum && item.container == "ProfilerActivity" && item.text == activity;
      });
    };
    const auto valid = [](const python::Value& v) {
      return std::all_of(v.items.begin(), v.items.end(), [](const python::Value& item) {
        return item.kind == python::ValueKind::kEnum && item.container == "ProfilerActivity" && item.text != "CUDA";
      });
    };
    Diagnostic* found = ReportBadValues(
        context, site.activities,
        [&](const python::Value& v) {
          if (v.kind == python::ValueKind::kNone) return Verdict::kGood;  // the default: CPU and NPU
          if (v.kind != python::ValueKind::kSequence || !valid(v) || v.items.empty()) return Verdict::kSkip;
          return has(v, "CPU") && has(v, "NPU") ? Verdict::kGood : Verdict::kBad;
        },
        [&](const python::Value& v) {
          if (!has(v, "CPU")) {
            return "`activities` is " + v.Describe() +
                   " without ProfilerActivity.CPU: no PYTORCH_API table, so no op-to-kernel links and no MFU rows";
          }
          return "`activities` is " + v.Describe() + " without ProfilerActivity.NPU: no kernels and no MSTX ranges";
        },
        "pass `activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU]`");
    // A list written here gets the activity it lacks, spelled as its other items are.
    const python::Value* literal = EditableLiteral(context, site.activities);
    if (found == nullptr || literal == nullptr || !IsType(literal->node, "list") || literal->items.empty()) continue;
    const TSNode like = ts_node_named_child(literal->node, 0);
    if (auto item = SpelledLike(context, like, has(*literal, "CPU") ? "NPU" : "CPU")) {
      found->fix = AppendToListFix(context, literal->node, *item);
    }
  }
}

}  // namespace opmfu::rules
