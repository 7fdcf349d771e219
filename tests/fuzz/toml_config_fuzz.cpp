// The TOML config reader (issue 47): any text as a pyproject.toml's [tool.opmfu] or as a
// `--config X.toml` of opmfu's own (the first byte chooses), through the depth and key bounds,
// toml++ and the config validation, then used as lint uses it. The bounds must hold whatever
// toml++ is given: a file they pass never overflows the stack or takes quadratic time.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/config.h"
#include "lint/lint.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<opmfu::RuleDescriptor> rules = opmfu::lint::LintRuleDescriptors();
  if (size == 0) return 0;
  const char* name = data[0] % 2 == 0 ? "/project/pyproject.toml" : "/project/opmfu.toml";
  auto config = opmfu::ParseConfigText(name, opmfu::fuzz::AsText(data + 1, size - 1), rules);
  if (!config.ok()) return 0;
  (void)opmfu::EffectiveRules(*config, {}, rules, "/project/src/train.py");
  (void)opmfu::IsExcluded(*config, "/project/src/train.py");
  return 0;
}
