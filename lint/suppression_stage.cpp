#include "lint/suppression_stage.h"

#include <algorithm>

#include "rules/lint_checks.h"

namespace opmfu::lint {

linter::Suppressions ReadFileSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments) {
  return linter::ReadSuppressions(tree, comments, [](std::string_view code) {
    const RuleInfo* rule = rules::FindRule(code);
    return rule != nullptr ? std::string(rule->id) : std::string();
  });
}

// Applies a file's suppression comments to its findings, then reports malformed (OPM002) and
// unused (OPM003) ones.
void Suppress(linter::Suppressions& suppressions, const std::string& path, const Effective& effective,
              std::vector<Diagnostic>& diagnostics) {
  rules::SortAndDeduplicate(diagnostics);
  linter::ApplySuppressions(suppressions, diagnostics);
  if (auto severity = Enabled(effective, "OPM002")) {
    for (const linter::MalformedDirective& bad : suppressions.malformed) {
      diagnostics.push_back(
          MetaDiagnostic(*rules::FindRule("OPM002"), *severity, path, bad.comment, bad.message, bad.line));
    }
  }
  if (auto severity = Enabled(effective, "OPM003")) {
    for (const linter::Suppression& s : suppressions.entries) {
      // Only when every rule it names ran: a suppression for a disabled rule is not evidence.
      const bool all_ran = std::all_of(s.codes.begin(), s.codes.end(),
                                       [&](const std::string& id) { return Enabled(effective, id).has_value(); });
      if (s.used || !all_ran) continue;
      std::string codes;
      for (const std::string& id : s.codes) codes += (codes.empty() ? "" : ", ") + id;
      Diagnostic d = MetaDiagnostic(*rules::FindRule("OPM003"), *severity, path, s.comment,
                                    "unused suppression: no " + codes + " finding here", s.line);
      d.help = "remove the comment, or move it to the line the finding is reported on";
      diagnostics.push_back(std::move(d));
    }
  }
  rules::SortAndDeduplicate(diagnostics);
}

}  // namespace opmfu::lint
