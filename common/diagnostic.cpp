#include "common/diagnostic.h"

#include "common/text.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace opmfu {

SourcePosition PositionInText(std::string_view text, std::size_t byte_offset) {
  const std::size_t offset = std::min(byte_offset, text.size());
  // memchr from line to line: several times faster than counting byte by byte, and findings
  // near the end of large files ask for positions often.
  int line = 0;
  for (const char* at = text.data(); const void* found = std::memchr(at, '\n', text.data() + offset - at);) {
    ++line;
    at = static_cast<const char*>(found) + 1;
  }
  const std::size_t before = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t start = before == std::string_view::npos ? 0 : before + 1;
  const std::string_view prefix = text.substr(start, offset - start);
  return {line + 1, CodePointCount(prefix, prefix.size()) + 1};
}

std::string_view LineInText(std::string_view text, std::size_t byte_offset) {
  const std::size_t offset = std::min(byte_offset, text.size());
  const std::size_t before = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t start = before == std::string_view::npos ? 0 : before + 1;
  std::size_t end = text.find('\n', offset);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(start, end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

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
  const auto less = [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.file, a.range.start, a.rule_id) < std::tie(b.file, b.range.start, b.rule_id);
  };
  // Usually in order already (each file's findings are sorted, the files come in path order); a
  // stable sort would still take a buffer as large as every finding (170 MB for 541,000).
  if (!std::is_sorted(diagnostics.begin(), diagnostics.end(), less))
    std::stable_sort(diagnostics.begin(), diagnostics.end(), less);
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
    if (diagnostic.fix) ++(diagnostic.fix->safe ? counts.fixable : counts.hidden_fixes);
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
  if (counts.hidden_fixes) {
    line += "; " + std::to_string(counts.hidden_fixes) + (counts.hidden_fixes == 1 ? " hidden fix" : " hidden fixes") +
            " can be enabled with --unsafe-fixes";
  }
  return line + ".";
}

bool SameHop(const Note& a, const Note& b) {
  const bool same_line =
      a.position.has_value() == b.position.has_value() && (!a.position || a.position->line == b.position->line);
  return same_line && a.message == b.message && a.file == b.file;
}

void PrependNotes(std::vector<Note>& chain, const std::vector<Note>& prefix) {
  auto end = prefix.end();
  if (!prefix.empty() && !chain.empty() && SameHop(prefix.back(), chain.front())) --end;
  chain.insert(chain.begin(), prefix.begin(), end);
}

}  // namespace opmfu
