#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "linter/profiler_settings.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

using linter::JsonEntry;
using python::Value;
using python::ValueKind;

// The table's row of a profiler_config.json key (keys are unique across the two levels).
const linter::ProfilerSettingSpec* RowOf(std::string_view key) {
  const linter::ProfilerSettingSpec* row = linter::FindJsonSetting(key, linter::JsonLevel::kTop);
  return row != nullptr ? row : linter::FindJsonSetting(key, linter::JsonLevel::kExperimental);
}

// Keys whose reset value leaves OperatorMFU empty; a reset of the others is a warning.
bool Decisive(std::string_view key) {
  const linter::ProfilerSettingSpec* row = RowOf(key);
  return row != nullptr && row->Shared().decisive;
}

Fix Replace(const TextLocation& where, std::string replacement, const std::string& was) {
  Fix fix;
  fix.safe = true;
  fix.edits.push_back({where.start_byte, where.end_byte, replacement});
  fix.message = "replace `" + was + "` with `" + replacement + "`";
  return fix;
}

std::string Json(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

void Report(LintCheckContext& context, const JsonEntry& entry, std::string message, std::string help,
            std::optional<std::string> replacement) {
  Diagnostic& d = context.ReportAt(entry.value_where, std::move(message), std::move(help));
  if (!Decisive(entry.key)) d.severity = std::min(d.severity, Severity::kWarning);
  if (replacement) d.fix = Replace(entry.value_where, *replacement, entry.value.Describe());
}

void CheckBoolean(LintCheckContext& context, const JsonEntry& entry) {
  if (entry.json_type == "true" || entry.json_type == "false") return;
  std::optional<std::string> replacement;
  if (entry.value.kind == ValueKind::kString) {
    const std::string lower = AsciiLower(entry.value.text);
    if (lower == "true" || lower == "false") replacement = lower;
  }
  // torch_npu resets it to its default.
  const linter::ProfilerSettingSpec* row = RowOf(entry.key);
  const std::string reset = row != nullptr ? std::string(linter::JsonDefault(*row).json) : "false";
  Report(context, entry,
         "`" + entry.key + "` is " + entry.value.Describe() + ", not a JSON boolean: torch_npu resets it to " + reset +
             (entry.key == "with_flops" ? ", so no FLOPs are recorded" : ""),
         "write `\"" + entry.key + "\": " + replacement.value_or("true") + "` (no quotes)", replacement);
}

void CheckProfilerLevel(LintCheckContext& context, const JsonEntry& entry) {
  std::optional<std::string> member;
  if (entry.value.kind == ValueKind::kString) {
    for (std::string_view level : RowOf(entry.key)->choices) {
      if (entry.value.text == level) return;  // `getattr(ProfilerLevel, v, v)` finds it
      if (AsciiLower(entry.value.text) == AsciiLower(level)) member = std::string(level);
    }
  }
  Report(context, entry,
         "`profiler_level` is " + entry.value.Describe() + ": torch_npu looks the name up in ProfilerLevel" +
             (member ? " (case-sensitive)" : "") + " and falls back to Level0",
         "write `\"profiler_level\": \"" + member.value_or("Level1") + "\"`",
         member ? std::optional(Json(*member)) : std::nullopt);
}

void CheckExportType(LintCheckContext& context, const JsonEntry& entry) {
  const linter::ProfilerSettingSpec& row = *RowOf(entry.key);
  const auto valid = [&](const Value& v) { return v.kind == ValueKind::kString && linter::IsChoice(row, v.text); };
  const Value& value = entry.value;
  const bool ok = valid(value) || (value.kind == ValueKind::kSequence && !value.items.empty() &&
                                   std::all_of(value.items.begin(), value.items.end(), valid));
  if (ok) return;
  // Lower-casing makes it valid: say so and fix it.
  std::optional<std::string> replacement;
  const auto lowered = [&](const Value& v) {
    return v.kind == ValueKind::kString && linter::IsChoice(row, AsciiLower(v.text));
  };
  if (lowered(value)) {
    replacement = Json(AsciiLower(value.text));
  } else if (value.kind == ValueKind::kSequence && !value.items.empty() &&
             std::all_of(value.items.begin(), value.items.end(), lowered)) {
    std::string list;
    for (const Value& item : value.items) list += (list.empty() ? "" : ", ") + Json(AsciiLower(item.text));
    replacement = "[" + list + "]";
  }
  Report(context, entry,
         "`export_type` is " + value.Describe() +
             ": torch_npu accepts only \"text\" and \"db\" (lower case), and falls back to text, so no DB is written",
         "write `\"export_type\": [\"db\"]` (or `[\"text\", \"db\"]`)", replacement);
}

void CheckActivities(LintCheckContext& context, const JsonEntry& entry) {
  if (entry.value.kind != ValueKind::kSequence) {
    Report(context, entry, "`activities` is " + entry.value.Describe() + ", not a list: torch_npu cannot read it",
           "write `\"activities\": [\"CPU\", \"NPU\"]`", std::nullopt);
    return;
  }
  // The entry holds the items as written (the site keeps only those torch_npu accepts).
  const linter::ProfilerSettingSpec& row = *RowOf(entry.key);
  for (const Value& item : entry.value.items) {
    const std::string name = item.kind == ValueKind::kString ? AsciiUpper(item.text) : std::string();
    if (linter::IsChoice(row, name)) continue;
    Diagnostic& d = context.ReportAt(
        entry.value_where,
        "`activities` has " + item.Describe() + ", which is not a ProfilerActivity: torch_npu drops it",
        "list only \"CPU\" and \"NPU\"");
    d.severity = std::min(d.severity, Severity::kWarning);
  }
}

}  // namespace

void CheckConfigValueReset(LintCheckContext& context) {
  const linter::DynamicConfig* config = context.facts.dynamic_config.get();
  if (config == nullptr || config->invalid) return;
  for (const JsonEntry& entry : config->top) {
    if (!linter::IsTopLevelKey(entry.key)) continue;  // OPM301
    if (linter::IsBooleanKey(entry.key)) CheckBoolean(context, entry);
    if (entry.key == "activities") CheckActivities(context, entry);
  }
  if (config->experimental_config && config->experimental_config->json_type != "object" &&
      config->experimental_config->json_type != "null") {
    context.ReportAt(config->experimental_config->value_where,
                     "`experimental_config` is " + config->experimental_config->value.Describe() +
                         ", not an object: every experimental setting keeps its default (Level0, text export, "
                         "no mstx)",
                     "write `\"experimental_config\": {...}` with the keys inside");
  }
  for (const JsonEntry& entry : config->experimental) {
    if (!linter::IsExperimentalKey(entry.key)) continue;
    if (linter::IsBooleanKey(entry.key)) CheckBoolean(context, entry);
    if (entry.key == "profiler_level") CheckProfilerLevel(context, entry);
    if (entry.key == "export_type") CheckExportType(context, entry);
  }
}

}  // namespace opmfu::rules
