#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckMalformedTarget(RuleCheckContext& context) {
  for (const registry::Registration& registration : context.file.registrations) {
    const auto target = registration.TargetText();
    if (!target) continue;
    if (auto problem = registry::TargetProblem(*target)) {
      context.Report(registration.target.node, "target '" + *target + "' " + *problem,
                     "write the importable module, one ':', then the attribute path, e.g. \"torch:mm\" or "
                     "\"torch.nn.functional:linear\"");
    }
  }
}

}  // namespace opmfu::rules
