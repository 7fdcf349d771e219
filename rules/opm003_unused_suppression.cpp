#include <algorithm>

#include "rules/meta_checks.h"

namespace opmfu::rules {

void CheckUnusedSuppression(MetaCheckContext& context) {
  const auto* use = std::get_if<SuppressionUse>(&context.facts);
  if (use == nullptr) return;
  for (const linter::Suppression& s : use->suppressions.entries) {
    // Only when every rule it names ran: a suppression for a disabled rule is not evidence.
    const bool all_ran = std::all_of(s.codes.begin(), s.codes.end(), [&](const std::string& id) {
      const RuleInfo* rule = FindRule(id);
      return rule != nullptr && EffectiveSeverity(*rule, use->effective).has_value();
    });
    if (s.used || !all_ran) continue;
    std::string codes;
    for (const std::string& id : s.codes) codes += (codes.empty() ? "" : ", ") + id;
    context.Report(use->path, s.comment, "unused suppression: no " + codes + " finding here", s.line).help =
        "remove the comment, or move it to the line the finding is reported on";
  }
}

}  // namespace opmfu::rules
