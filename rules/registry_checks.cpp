#include "rules/registry_checks.h"

#include <cstdlib>

namespace opmfu::rules {

Diagnostic& RuleCheckContext::Report(TSNode node, std::string message, std::string help) {
  Diagnostic diagnostic;
  diagnostic.rule_id = rule.id;
  diagnostic.rule_name = rule.name;
  diagnostic.severity = severity;
  diagnostic.file = file.path;
  diagnostic.range = file.tree.RangeOf(node);
  diagnostic.message = std::move(message);
  diagnostic.help = std::move(help);
  SetSnippet(diagnostic, file.tree.LineOf(ts_node_start_byte(node)));
  out.push_back(std::move(diagnostic));
  return out.back();
}

Diagnostic& RuleCheckContext::ReportAtByte(std::uint32_t offset, std::string message, std::string help) {
  const SourcePosition start = file.tree.PositionAt(offset);
  Diagnostic diagnostic;
  diagnostic.rule_id = rule.id;
  diagnostic.rule_name = rule.name;
  diagnostic.severity = severity;
  diagnostic.file = file.path;
  diagnostic.range = {start, {start.line, start.column + 1}};
  diagnostic.message = std::move(message);
  diagnostic.help = std::move(help);
  SetSnippet(diagnostic, file.tree.LineOf(offset));
  out.push_back(std::move(diagnostic));
  return out.back();
}

std::vector<Diagnostic> CheckFormulaFile(const registry::FormulaFile& file,
                                         const std::map<std::string, std::optional<Severity>>& effective) {
  // Body rules on a tree without bodies would report phantom findings: a programming error.
  if (file.tree.bodies_skipped()) std::abort();
  std::vector<Diagnostic> diagnostics =
      RunChecks<RegistryCheck, RuleCheckContext>(file, InputKind::kFormulas, effective);
  SortDiagnostics(diagnostics);
  return diagnostics;
}

}  // namespace opmfu::rules
