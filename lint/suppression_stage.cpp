#include "lint/suppression_stage.h"

#include <iterator>

#include "rules/lint_checks.h"
#include "rules/meta_checks.h"

namespace opmfu::lint {

linter::Suppressions ReadFileSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments) {
  return linter::ReadSuppressions(tree, comments, [](std::string_view code) {
    const rules::RuleInfo* rule = rules::FindRule(code);
    return rule != nullptr ? std::string(rule->id) : std::string();
  });
}

void Suppress(linter::Suppressions& suppressions, const std::string& path, const Effective& effective,
              std::vector<Diagnostic>& diagnostics) {
  rules::SortAndDeduplicate(diagnostics);
  // Only the findings in this file: another file's lines are numbered by its own text.
  std::vector<Diagnostic> elsewhere;
  std::erase_if(diagnostics, [&](Diagnostic& d) {
    if (d.file == path) return false;
    elsewhere.push_back(std::move(d));
    return true;
  });
  linter::ApplySuppressions(suppressions, diagnostics);
  for (Diagnostic& d : rules::CheckMeta(rules::SuppressionUse{path, suppressions, effective}, effective)) {
    diagnostics.push_back(std::move(d));
  }
  std::move(elsewhere.begin(), elsewhere.end(), std::back_inserter(diagnostics));
  rules::SortAndDeduplicate(diagnostics);
}

}  // namespace opmfu::lint
