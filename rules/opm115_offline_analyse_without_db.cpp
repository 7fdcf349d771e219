#include <algorithm>
#include <string>

#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

bool IsExportName(const python::Value& v) {
  return v.kind == python::ValueKind::kString || v.kind == python::ValueKind::kEnum;
}

// torch_npu's offline analyse takes a str or a list of "text"/"db" (ExportType members are those
// strings); anything else it resets to None with a warning, and then parses as the run recorded.
Verdict Classify(const python::Value& v) {
  if (IsExportName(v)) {
    if (v.text == "db") return Verdict::kGood;
    return v.text == "text" ? Verdict::kBad : Verdict::kSkip;
  }
  if (v.kind == python::ValueKind::kNone) return Verdict::kGood;  // the recorded type: OPM103's
  if (v.kind != python::ValueKind::kSequence || v.container != "list" || v.items.empty()) return Verdict::kSkip;
  bool db = false;
  for (const python::Value& item : v.items) {
    if (!IsExportName(item) || (item.text != "db" && item.text != "text")) return Verdict::kSkip;
    db = db || item.text == "db";
  }
  return db ? Verdict::kGood : Verdict::kBad;
}

// "db" spelled as the Text beside it is: a string in the same quotes, or the ExportType member
// through the same prefix.
std::optional<std::string> DbLike(const LintCheckContext& context, TSNode like) {
  if (IsType(like, "string")) {
    std::string text(context.module().tree().Text(like));
    const std::size_t at = text.find("text");
    if (at == std::string::npos) return std::nullopt;
    return text.replace(at, 4, "db");
  }
  return SpelledLike(context, like, "Db");
}

// None on every traced path: torch_npu's default, as if left out.
bool ParsesAsRecorded(const linter::TracedArgument& export_type) {
  return !export_type.values.empty() &&
         std::all_of(export_type.values.begin(), export_type.values.end(),
                     [](const python::Value& v) { return v.kind == python::ValueKind::kNone; });
}

// `analyse(path)` with no export_type parses to the export the run recorded. When this file
// builds the profiler, OPM103 checks that recording at its call; a file that only parses (the
// usual offline script) shows nothing of it, and torch_npu records Text alone by default.
void ReportParsedAsRecorded(LintCheckContext& context, const linter::OfflineAnalyseCall& call, bool left_out) {
  if (!context.facts.sites.empty() || !context.facts.dynamic_inits.empty()) return;
  Diagnostic& found = context.Report(
      call.call,
      std::string(left_out ? "the offline `analyse(...)` passes no `export_type`"
                           : "the offline `analyse(...)` passes `export_type=None`") +
          ", so it re-parses to the export the run recorded, which "
          "this file does not show: torch_npu records Text alone unless the profile call's `_ExperimentalConfig` sets "
          "`export_type` with Db, and from Text alone the ascend_pytorch_profiler DB msprof-analyze reads is written "
          "only if the installed CANN also exports a database",
      "pass `export_type=['text', 'db']` (torch_npu 7.1.0 and later take it), or lint the script that creates "
      "the profiler: OPM103 checks the recording there");
  if (!left_out) return;  // None written: the user's to replace
  TSNode arguments = ts_node_child_by_field_name(call.call, "arguments", 9);
  if (ts_node_is_null(arguments) || !IsType(arguments, "argument_list")) return;
  // Quoted as the call's first string is (`profiler_path="./prof"` gives "text", "db").
  char quote = 0;
  WalkTree(arguments, [&](TSNode node) {
    if (quote != 0) return false;
    if (!IsType(node, "string")) return true;
    const std::string_view written = context.module().tree().Text(node);
    if (const std::size_t at = written.find_first_of("'\""); at != std::string_view::npos) quote = written[at];
    return false;
  });
  if (quote == 0) quote = '\'';
  const std::string text = std::string("export_type=[") + quote + "text" + quote + ", " + quote + "db" + quote + "]";
  Fix fix;
  fix.safe = false;  // an analyse of torch_npu before 7.1.0 has no such parameter
  fix.edits.push_back(python::AppendItemEdit(context.module().tree(), arguments, text));
  fix.message = "add `" + text + "`";
  found.fix = std::move(fix);
}

}  // namespace

void CheckOfflineAnalyseWithoutDb(LintCheckContext& context) {
  for (const linter::OfflineAnalyseCall& call : context.facts.offline_analyses) {
    if (call.callee != "torch_npu.profiler.profiler.analyse") continue;
    if (!call.export_type || ParsesAsRecorded(*call.export_type)) {
      ReportParsedAsRecorded(context, call, !call.export_type);
      continue;
    }
    linter::Setting setting;
    setting.name = "export_type";
    setting.written = true;
    setting.call = call.call;
    setting.anchor = call.export_type->anchor();
    setting.values = call.export_type->values;
    Diagnostic* found = ReportBadValues(
        context, setting, Classify,
        [](const python::Value& v) {
          return "the offline `analyse(...)` re-parses with `export_type` " + v.Describe() +
                 " (Text only): the ascend_pytorch_profiler DB msprof-analyze reads is written only if the "
                 "installed CANN also exports a database for Text";
        },
        "pass `export_type=['text', 'db']` (or just 'db'; torch_npu 7.1.0 and later take it)");
    if (found == nullptr) continue;
    const python::Value* literal = EditableLiteral(context, setting);
    if (literal == nullptr) continue;
    if (IsType(literal->node, "list") && ts_node_named_child_count(literal->node) > 0) {
      if (auto db = DbLike(context, ts_node_named_child(literal->node, 0))) {
        found->fix = AppendToListFix(context, literal->node, *db);
      }
    } else if (auto db = DbLike(context, literal->node)) {
      const std::string text(context.module().tree().Text(literal->node));
      found->fix = ReplaceLiteralFix(context, literal->node, "[" + text + ", " + *db + "]");
    }
  }
}

}  // namespace opmfu::rules
