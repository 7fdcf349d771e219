#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckExportType(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    Diagnostic* found = ReportBadValues(
        context, site.export_type,
        [](const python::Value& v) {
          if (v.kind == python::ValueKind::kString || v.kind == python::ValueKind::kEnum) {
            if (v.text == "db") return Verdict::kGood;
            return v.text == "text" ? Verdict::kBad : Verdict::kSkip;  // other strings are reset: OPM109
          }
          if (v.kind == python::ValueKind::kSequence && v.container == "list" && !v.items.empty()) {
            bool db = false;
            for (const python::Value& item : v.items) {
              const bool text_like = item.kind == python::ValueKind::kString || item.kind == python::ValueKind::kEnum;
              if (!text_like || (item.text != "db" && item.text != "text")) return Verdict::kSkip;
              db = db || item.text == "db";
            }
            return db ? Verdict::kGood : Verdict::kBad;
          }
          return Verdict::kSkip;
        },
        [](const python::Value& v) {
          return "`export_type` is " + v.Describe() +
                 " (Text only): the ascend_pytorch_profiler DB that msprof-analyze reads is written only if the "
                 "installed CANN also exports a database for Text";
        },
        "pass `export_type=[torch_npu.profiler.ExportType.Text, torch_npu.profiler.ExportType.Db]` (or just Db)");
    // Written here: Db is added, spelled as the Text already there is; the Text export is kept.
    if (found == nullptr) continue;
    if (auto added = AddExperimentalConfigFix(context, site)) {
      found->fix = std::move(added);
      continue;
    }
    const python::Value* literal = EditableLiteral(context, site.export_type);
    if (literal == nullptr) continue;
    if (IsType(literal->node, "list") && ts_node_named_child_count(literal->node) > 0) {
      if (auto db = SpelledLike(context, ts_node_named_child(literal->node, 0), "Db")) {
        found->fix = AppendToListFix(context, literal->node, *db);
      }
    } else if (auto db = SpelledLike(context, literal->node, "Db")) {
      const std::string text(context.module().tree().Text(literal->node));
      found->fix = ReplaceLiteralFix(context, literal->node, "[" + text + ", " + *db + "]");
    }
  }
}

}  // namespace opmfu::rules
