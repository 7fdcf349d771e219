#include "lint/stage.h"

namespace opmfu::lint {

Diagnostic MetaDiagnostic(const RuleInfo& rule, Severity severity, std::string file, SourceRange range,
                          std::string message, std::string snippet) {
  Diagnostic d;
  d.rule_id = rule.id;
  d.rule_name = rule.name;
  d.severity = severity;
  d.file = std::move(file);
  d.range = range;
  d.message = std::move(message);
  d.snippet = std::move(snippet);
  return d;
}

std::optional<Severity> Enabled(const Effective& effective, std::string_view id) {
  return EffectiveSeverity(*rules::FindRule(id), effective);
}

SharedEffective EffectiveRulesCache::For(const Config& config, const std::string& path) {
  if (!config.per_file_ignores.empty()) {
    return std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
  }
  SharedEffective& shared = by_config_[config.path.string()];
  if (!shared) shared = std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
  return shared;
}

}  // namespace opmfu::lint
