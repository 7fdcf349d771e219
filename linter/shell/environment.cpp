#include "linter/shell/environment.h"

namespace opmfu::linter::shell {

void AddAlternative(std::vector<Alternative>& into, Alternative alternative) {
  for (const Alternative& existing : into) {
    if (existing.unset == alternative.unset && SameWords(existing.words, alternative.words)) return;
  }
  if (into.size() < kMaxAlternatives) into.push_back(std::move(alternative));
}

std::vector<std::pair<const Words*, bool>> Environment::Lookup(std::string_view name) const {
  static const Words kNone;
  std::vector<std::pair<const Words*, bool>> out;
  const Variable* found = Find(name);
  if (found == nullptr || found->alternatives.empty()) {
    out.emplace_back(&kNone, true);
    return out;
  }
  for (const Alternative& alternative : found->alternatives) out.emplace_back(&alternative.words, alternative.unset);
  return out;
}

}  // namespace opmfu::linter::shell
