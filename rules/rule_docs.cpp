#include "rules/rule_docs.h"

#include <vector>

#include "common/text.h"

namespace opmfu::rules {

namespace {

// How the docs name an input.
std::string_view InputKindPhrase(InputKind input) {
  switch (input) {
    case InputKind::kPython:
      return "Python scripts";
    case InputKind::kDynamicConfig:
      return "dynamic-profiler `profiler_config.json`";
    case InputKind::kKnownLauncher:
      return "known launchers' options";
    case InputKind::kLauncher:
      return "bash launchers";
    case InputKind::kFormulas:
      return "`_flops_formulas.py` registries";
  }
  return "?";
}

std::string ListOf(InputKinds inputs, bool phrases) {
  std::string out;
  for (const InputKind input : kAllInputKinds) {
    if (!inputs.Contains(input)) continue;
    out += (out.empty() ? "" : ", ") + std::string(phrases ? InputKindPhrase(input) : InputKindName(input));
  }
  return out;
}

std::string ReportedBy(const RuleInfo& rule) {
  std::vector<std::string> commands;
  const bool lint =
      rule.applies_to.Contains(InputKind::kPython) || rule.applies_to.Contains(InputKind::kDynamicConfig) ||
      rule.applies_to.Contains(InputKind::kKnownLauncher) || rule.applies_to.Contains(InputKind::kLauncher);
  if (lint) commands.emplace_back("`opmfu lint`");
  if (rule.applies_to.Contains(InputKind::kFormulas)) {
    commands.emplace_back("`opmfu registry check`");
    commands.emplace_back("`opmfu registry add`");
  }
  return Join(commands, ", ");
}

std::string FixText(const RuleInfo& rule) {
  std::string text(FixAvailabilityName(rule.fix));
  if (!rule.fix_note.empty()) text += ", " + std::string(rule.fix_note);
  return text;
}

}  // namespace

std::string RulePageHeader(const RuleInfo& rule) {
  std::string severity(SeverityName(rule.severity));
  if (!rule.severity_note.empty()) severity += " (" + std::string(rule.severity_note) + ")";
  return "# " + std::string(rule.id) + " " + std::string(rule.name) + "\n\n**Severity:** " + severity +
         " · **Reported by:** " + ReportedBy(rule) + " · **Applies to:** " + ListOf(rule.applies_to, true) +
         " · **Fix:** " + FixText(rule) + "\n";
}

std::optional<std::string> WithRulePageHeader(std::string_view page, const RuleInfo& rule) {
  // The header ends with the facts line, which comes within the first few lines.
  std::size_t line_start = 0;
  for (int line = 0; line < 6 && line_start < page.size(); ++line) {
    std::size_t line_end = page.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = page.size();
    if (page.substr(line_start, line_end - line_start).starts_with("**Severity:**")) {
      const std::size_t rest = line_end < page.size() ? line_end + 1 : line_end;
      return RulePageHeader(rule) + std::string(page.substr(rest));
    }
    line_start = line_end + 1;
  }
  return std::nullopt;
}

std::string RuleListMarkdown() {
  std::string out = "| Rule | Name | Severity | Applies to | Fix | What it finds |\n|---|---|---|---|---|---|\n";
  for (const RuleInfo& rule : AllRules()) {
    std::string summary;
    for (const char c : rule.summary) summary += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| [" + std::string(rule.id) + "](docs/rules/" + std::string(rule.id) + ".md) | " + std::string(rule.name) +
           " | " + std::string(SeverityName(rule.severity)) + " | " + ListOf(rule.applies_to, false) + " | " +
           std::string(FixAvailabilityName(rule.fix)) + " | " + summary + " |\n";
  }
  return out;
}

std::optional<std::string> WithRuleList(std::string_view readme) {
  const std::size_t begin = readme.find(kRuleListBegin);
  if (begin == std::string_view::npos) return std::nullopt;
  const std::size_t body = readme.find('\n', begin);
  const std::size_t end = readme.find(kRuleListEnd, begin);
  if (body == std::string_view::npos || end == std::string_view::npos || end < body) return std::nullopt;
  return std::string(readme.substr(0, body + 1)) + RuleListMarkdown() + std::string(readme.substr(end));
}

}  // namespace opmfu::rules
