#include "rules/meta_checks.h"

#include <algorithm>

namespace opmfu::rules {

Diagnostic& MetaCheckContext::Report(const std::string& file, SourceRange range, std::string message,
                                     std::string snippet, Severity at_most) {
  Diagnostic d;
  d.rule_id = rule.id;
  d.rule_name = rule.name;
  d.severity = std::min(severity, at_most);
  d.file = file;
  d.range = range;
  d.message = std::move(message);
  d.snippet = std::move(snippet);
  out.push_back(std::move(d));
  return out.back();
}

std::vector<Diagnostic> CheckMeta(const MetaFacts& facts,
                                  const std::map<std::string, std::optional<Severity>>& effective) {
  std::vector<Diagnostic> findings;
  for (const RuleInfo& rule : AllRules()) {
    const auto* check = std::get_if<MetaCheck>(&rule.check);
    const MetaCheck meta = check != nullptr ? *check : rule.meta;
    if (meta.run == nullptr) continue;
    const std::optional<Severity> severity = EffectiveSeverity(rule, effective);
    if (!severity) continue;
    MetaCheckContext context{facts, rule, *severity, findings};
    meta.run(context);
  }
  return findings;
}

}  // namespace opmfu::rules
