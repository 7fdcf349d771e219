#include "rules/meta_checks.h"

namespace opmfu::rules {

// A comment that looks like a directive but is not one suppresses nothing: say so where it is.
void CheckMalformedSuppression(MetaCheckContext& context) {
  const auto* use = std::get_if<SuppressionUse>(&context.facts);
  if (use == nullptr) return;
  for (const linter::MalformedDirective& bad : use->suppressions.malformed) {
    context.Report(use->path, bad.comment, bad.message, bad.line);
  }
}

}  // namespace opmfu::rules
