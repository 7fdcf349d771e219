#include "rules/meta_checks.h"

namespace opmfu::rules {

void CheckPastALimit(MetaCheckContext& context) {
  const auto* past = std::get_if<PastALimit>(&context.facts);
  if (past == nullptr) return;
  context
      .Report(past->file, past->range,
              past->cause + " (a limit of opmfu): what lies past it was not checked for MFU collection", past->snippet)
      .help = "see docs/reliability.md, \"Limits\"; split the file, or raise the limit where it says how";
}

}  // namespace opmfu::rules
