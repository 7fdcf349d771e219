// The .opmfu.yaml loader: any text as a config, validated against every lint rule, then used
// the way `opmfu lint` uses it (effective rules and exclusion for a file below it).
#include <cstddef>
#include <cstdint>

#include "common/config.h"
#include "lint/lint.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<opmfu::RuleDescriptor> rules = opmfu::lint::LintRuleDescriptors();
  auto config = opmfu::ParseConfigText("/project/.opmfu.yaml", opmfu::fuzz::AsText(data, size), rules);
  if (!config.ok()) return 0;
  (void)opmfu::EffectiveRules(*config, {}, rules, "/project/src/train.py");
  (void)opmfu::IsExcluded(*config, "/project/src/train.py");
  return 0;
}
