#include "common/text.h"
#include "linter/profiler_settings.h"
#include "rules/lint_checks.h"

#include <cctype>

namespace opmfu::rules {

namespace {

using python::Value;
using python::ValueKind;

struct Reset {
  std::string message;
  std::string replacement;  ///< a literal that means what was meant; empty when unclear
  bool harmless = false;    ///< the value torch_npu falls back to still works for MFU
};

std::string Quoted(const SyntaxTree& tree, const Value& original, std::string_view text) {
  char quote = '"';
  if (!ts_node_is_null(original.node) && IsType(original.node, "string")) quote = tree.Text(original.node).back();
  return std::string(1, quote) + std::string(text) + quote;
}

std::optional<Reset> BoolReset(std::string_view name, const Value& v) {
  if (v.kind == ValueKind::kBool || IsOpaque(v)) return std::nullopt;
  Reset reset;
  reset.message =
      "`" + std::string(name) + "` is " + v.Describe() + ", not a bool: torch_npu warns and uses False instead";
  const std::string lowered = AsciiLower(v.text);
  if (v.kind == ValueKind::kString && (lowered == "true" || lowered == "1" || lowered == "yes"))
    reset.replacement = "True";
  if (v.kind == ValueKind::kInt) reset.replacement = v.integer != 0 ? "True" : "False";
  // A setting MFU does not hang on (record_shapes, with_modules) still works when reset.
  const linter::ProfilerSettingSpec* row = linter::FindProfilerSetting(name);
  reset.harmless = row != nullptr && !row->Shared().decisive;
  return reset;
}

std::optional<Reset> LevelReset(const SyntaxTree& tree, const Value& v) {
  if (IsOpaque(v)) return std::nullopt;
  const linter::ProfilerSettingSpec& row = *linter::FindProfilerSetting("profiler_level");
  const bool text = v.kind == ValueKind::kString || v.kind == ValueKind::kEnum;
  if (text && linter::IsChoice(row, v.text)) return std::nullopt;
  Reset reset;
  reset.message = "`profiler_level` is " + v.Describe() +
                  ", which is not a ProfilerLevel (they are case-sensitive): torch_npu warns and uses Level0, "
                  "which is below what MFU needs";
  const std::string lowered = AsciiLower(v.text);
  for (std::string_view level : row.choices) {
    if (v.kind == ValueKind::kString && lowered == AsciiLower(level)) reset.replacement = Quoted(tree, v, level);
  }
  return reset;
}

std::optional<Reset> ExportReset(const SyntaxTree& tree, const Value& v) {
  if (IsOpaque(v)) return std::nullopt;
  const linter::ProfilerSettingSpec& row = *linter::FindProfilerSetting("export_type");
  const auto valid_member = [&](const Value& item) {
    return (item.kind == ValueKind::kString || item.kind == ValueKind::kEnum) && linter::IsChoice(row, item.text);
  };
  if ((v.kind == ValueKind::kString || v.kind == ValueKind::kEnum) && valid_member(v)) return std::nullopt;
  if (v.kind == ValueKind::kSequence && v.container == "list" && !v.items.empty() &&
      std::all_of(v.items.begin(), v.items.end(), valid_member)) {
    return std::nullopt;
  }
  Reset reset;
  if (v.kind == ValueKind::kString) {
    reset.message = "`export_type` is " + v.Describe() +
                    ": only lowercase 'text' and 'db' are accepted, so "
                    "torch_npu warns and exports Text only";
    const std::string lowered = AsciiLower(v.text);
    if (linter::IsChoice(row, lowered)) reset.replacement = Quoted(tree, v, lowered);
  } else if (v.kind == ValueKind::kSequence && v.container != "list") {
    reset.message = "`export_type` is a " + v.container + " " + v.Describe() +
                    ": torch_npu accepts a str or a list, so it warns and exports Text only";
    if (std::all_of(v.items.begin(), v.items.end(), valid_member) && IsType(v.node, "tuple")) {
      std::string inner(tree.Text(v.node));
      inner = inner.substr(1, inner.size() - 2);
      while (!inner.empty() && (inner.back() == ',' || inner.back() == ' ')) inner.pop_back();
      reset.replacement = "[" + inner + "]";
    }
  } else {
    reset.message = "`export_type` is " + v.Describe() + ": torch_npu warns and exports Text only";
  }
  // Text only is what OPM103 warns about: opmfu reads it, msprof-analyze needs the DB.
  reset.harmless = !row.Shared().decisive;
  return reset;
}

std::optional<Reset> ActivitiesReset(const Value& v) {
  if (IsOpaque(v) || v.kind == ValueKind::kNone) return std::nullopt;
  // An empty list is taken as "not given", without a warning: the default CPU and NPU set.
  if (v.kind == ValueKind::kSequence && v.items.empty()) return std::nullopt;
  const bool valid =
      v.kind == ValueKind::kSequence && !v.items.empty() &&
      std::all_of(v.items.begin(), v.items.end(), [](const Value& item) {
        return item.kind == ValueKind::kEnum && item.container == "ProfilerActivity" && item.text != "CUDA";
      });
  if (valid) return std::nullopt;
  Reset reset;
  reset.message = "`activities` is " + v.Describe() +
                  ": torch_npu accepts only ProfilerActivity.CPU and .NPU, so it warns and uses its default set";
  reset.harmless = true;
  return reset;
}

std::optional<Reset> DomainListReset(std::string_view name, const Value& v) {
  if (IsOpaque(v) || v.kind == ValueKind::kNone) return std::nullopt;
  const bool valid =
      v.kind == ValueKind::kSequence && v.container == "list" &&
      std::all_of(v.items.begin(), v.items.end(), [](const Value& item) { return item.kind == ValueKind::kString; });
  if (valid) return std::nullopt;
  Reset reset;
  reset.message = "`" + std::string(name) + "` is " + v.Describe() +
                  ": torch_npu accepts only a list of str, so it warns and uses []";
  reset.harmless = true;
  return reset;
}

}  // namespace

void CheckSilentReset(LintCheckContext& context) {
  const SyntaxTree& tree = context.module().tree();
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    const auto check = [&](const linter::Setting& setting, const auto& classify) {
      if (!setting.written) return;
      // The first value torch_npu resets, and on how many of the traced paths one is reset: only
      // some paths (`acts = []` then conditional appends) make it a warning, or a note when the
      // reset is harmless anyway.
      const Value* first = nullptr;
      std::optional<Reset> first_reset;
      std::size_t reset_paths = 0;
      for (const Value& value : setting.values) {
        std::optional<Reset> reset = classify(value);
        if (!reset) continue;
        ++reset_paths;
        if (first == nullptr) {
          first = &value;
          first_reset = std::move(reset);
        }
      }
      if (first == nullptr) return;
      const bool partial = reset_paths < setting.values.size();
      std::string message = first_reset->message;
      if (partial) {
        message = "on " + std::to_string(reset_paths) + " of " + std::to_string(setting.values.size()) +
                  " traced paths, " + message;
      }
      if (!first->chain.empty()) message += ": " + RenderChain(first->chain);
      Diagnostic& d = context.Report(setting.anchor, std::move(message),
                                     first_reset->replacement.empty() ? "write a value torch_npu accepts"
                                                                      : "write `" + first_reset->replacement + "`");
      d.notes = first->chain;
      if (partial) d.severity = std::min(d.severity, first_reset->harmless ? Severity::kInfo : Severity::kWarning);
      if (first_reset->harmless) d.severity = std::min(d.severity, Severity::kWarning);
      if (!first_reset->replacement.empty() && setting.values.size() == 1)
        d.fix = SetSettingFix(context, setting, first_reset->replacement);
    };
    for (const linter::Setting* setting :
         {&site.with_flops, &site.record_shapes, &site.with_modules, &site.mstx, &site.msprof_tx}) {
      check(*setting, [&](const Value& v) { return BoolReset(setting->name, v); });
    }
    check(site.profiler_level, [&](const Value& v) { return LevelReset(tree, v); });
    check(site.export_type, [&](const Value& v) { return ExportReset(tree, v); });
    check(site.activities, [&](const Value& v) { return ActivitiesReset(v); });
    check(site.mstx_domain_include, [&](const Value& v) { return DomainListReset("mstx_domain_include", v); });
    check(site.mstx_domain_exclude, [&](const Value& v) { return DomainListReset("mstx_domain_exclude", v); });
  }
}

}  // namespace opmfu::rules
