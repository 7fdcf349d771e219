#include "lint/stage.h"

namespace opmfu::lint {

SharedEffective EffectiveRulesCache::For(const Config& config, const std::string& path) {
  if (!config.per_file_ignores.empty()) {
    return std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
  }
  SharedEffective& shared = by_config_[config.path.string()];
  if (!shared) shared = std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
  return shared;
}

}  // namespace opmfu::lint
