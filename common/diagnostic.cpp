#include "common/diagnostic.h"

#include <algorithm>
#include <tuple>

namespace opmfu {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

Result<Severity> ParseSeverity(std::string_view text) {
  if (text == "info") return Severity::kInfo;
  if (text == "warning") return Severity::kWarning;
  if (text == "error") return Severity::kError;
  return Error::Usage("unknown severity '" + std::string(text) + "' (expected error, warning or info)");
}

void SortDiagnostics(std::vector<Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.file, a.range.start, a.rule_id) < std::tie(b.file, b.range.start, b.rule_id);
  });
}

DiagnosticCounts CountDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  DiagnosticCounts counts;
  for (const Diagnostic& diagnostic : diagnostics) {
    switch (diagnostic.severity) {
      case Severity::kError:
        ++counts.errors;
        break;
      case Severity::kWarning:
        ++counts.warnings;
        break;
      case Severity::kInfo:
        ++counts.infos;
        break;
    }
    if (diagnostic.fix && diagnostic.fix->safe) ++counts.fixable;
  }
  return counts;
}

std::string SummaryLine(const DiagnosticCounts& counts) {
  if (counts.total() == 0) return "No findings.";
  const auto plural = [](int n, std::string_view word) {
    return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
  };
  std::vector<std::string> parts;
  if (counts.errors) parts.push_back(plural(counts.errors, "error"));
  if (counts.warnings) parts.push_back(plural(counts.warnings, "warning"));
  if (counts.infos) parts.push_back(std::to_string(counts.infos) + " info");
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  std::string line = "Found " + plural(counts.total(), "finding") + " (" + joined + ")";
  if (counts.fixable) line += "; " + std::to_string(counts.fixable) + " fixable with --fix";
  return line + ".";
}

}  // namespace opmfu
