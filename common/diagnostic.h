#pragma once
// One finding, wherever it comes from (lint rules, registry checks, analysis checks), and the
// rule metadata the output formats need. Formatting lives in diagnostic_format.h.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/text_edit.h"

namespace opmfu {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };

std::string_view SeverityName(Severity severity);  ///< "info", "warning", "error"
Result<Severity> ParseSeverity(std::string_view text);

/// 1-based line and column; columns count Unicode code points, not bytes.
struct SourcePosition {
  int line = 1;
  int column = 1;
  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
  friend auto operator<=>(const SourcePosition&, const SourcePosition&) = default;  // NOLINT(modernize-use-nullptr)
};

struct SourceRange {
  SourcePosition start;
  SourcePosition end;  ///< exclusive
};

/// The 1-based position (code-point column) of a byte offset in `text`.
SourcePosition PositionInText(std::string_view text, std::size_t byte_offset);
/// The whole line holding a byte offset, without its line break.
std::string_view LineInText(std::string_view text, std::size_t byte_offset);

/// A related place, e.g. one step of a value's provenance chain ("`level` (train.py:80)").
struct Note {
  std::string file;
  std::optional<SourcePosition> position;
  std::string message;
};

/// Puts `prefix` in front of a chain of notes. A step the chain already starts with, on the same
/// line (an alias read through its own binding: `P = torch_npu.profiler`, then `P.profile` and
/// `P.ProfilerLevel`), is kept once: the same hop twice says nothing more.
void PrependNotes(std::vector<Note>& chain, const std::vector<Note>& prefix);
/// Whether two notes are the same hop as a trace shows it: file, line and message.
bool SameHop(const Note& a, const Note& b);

/// A fix the tool can apply. `safe` fixes are applied by --fix; the others only shown.
struct Fix {
  std::string message;
  std::vector<TextEdit> edits;  ///< byte offsets into the diagnostic's file, or into `edit.file`
  bool safe = true;
};

struct Diagnostic {
  std::string rule_id;    ///< "OPM504"
  std::string rule_name;  ///< "formula-returns-float"
  Severity severity = Severity::kWarning;
  std::string file;  ///< as the user named it
  SourceRange range;
  std::string message;
  std::string help;              ///< what to do about it; may be empty
  std::string snippet;           ///< the source line at range.start, for the `full` format (SetSnippet cuts a long one)
  int snippet_first_column = 1;  ///< the column of the snippet's first character in its line
  std::vector<Note> notes;
  std::optional<Fix> fix;
};

/// Findings reported per file at most (docs/reliability.md, "Limits"): past it they are noise (a
/// generated file, an attack), and each costs memory and a line of output.
inline constexpr std::size_t kMaxFindingsPerFile = 1000;

/// Sets `d.snippet` from the whole source line at `d.range.start`: a line longer than a few hundred
/// characters is kept only around the finding, so findings on a one-line megabyte file do not
/// each carry a copy of it (30,000 of them were 12 GB).
void SetSnippet(Diagnostic& d, std::string_view line);

/// Stable output order: file, position, rule id.
void SortDiagnostics(std::vector<Diagnostic>& diagnostics);

/// What a formatter needs to know about a rule (SARIF `rules[]`, docs links).
struct RuleDescriptor {
  std::string id;
  std::string name;
  Severity default_severity = Severity::kWarning;
  std::string summary;
  std::string docs_path;  ///< relative to the repository, e.g. "docs/rules/OPM504.md"
};

/// Counts by severity, for summary lines and exit codes.
struct DiagnosticCounts {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  int fixable = 0;
  int hidden_fixes = 0;  ///< unsafe fixes: applied only when asked for (lint's --unsafe-fixes)
  int total() const { return errors + warnings + infos; }
};
DiagnosticCounts CountDiagnostics(const std::vector<Diagnostic>& diagnostics);

/// "Found 3 findings (2 errors, 1 warning)." or "No findings."
std::string SummaryLine(const DiagnosticCounts& counts);

}  // namespace opmfu
