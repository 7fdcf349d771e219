#pragma once
// Renders diagnostics in the formats users' editors and CI systems read.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/text_sink.h"

namespace opmfu {

enum class OutputFormat {
  kFull,       ///< rustc/ruff style: header, source line with caret, help, notes
  kConcise,    ///< path:line:col: OPM504 message
  kGcc,        ///< path:line:col: error: message [OPM504]  (Vim/Emacs compile mode)
  kJson,       ///< array of objects (ruff-like field names)
  kSarif,      ///< SARIF 2.1.0 log (GitHub code scanning)
  kGithub,     ///< GitHub Actions workflow commands (::error file=...::)
  kGitlab,     ///< GitLab Code Quality report (artifacts: reports: codequality:), as ruff's `gitlab`
  kJunit,      ///< JUnit XML: a test suite per file, a failed test case per finding
  kRdjson,     ///< reviewdog's Diagnostic Format (rdjson), safe fixes as suggestions
  kJsonLines,  ///< the `json` objects, one per line
  kPylint,     ///< path:line: [OPM504] message  (pylint's parseable format)
  kGrouped,    ///< the findings under their file's name, one line each
  kAzure,      ///< Azure Pipelines logging commands (##vso[task.logissue ...])
};

/// Names accepted by --output-format, in help order.
const std::vector<std::string>& OutputFormatNames();
Result<OutputFormat> ParseOutputFormat(std::string_view name);
/// The formats a person reads in a terminal or a log (full, concise, gcc, pylint, grouped): a
/// summary line on stderr goes with them. The others are documents or commands a program reads.
bool IsTerminalFormat(OutputFormat format);

struct FormatOptions {
  std::string tool_version;
  /// Rules to describe in SARIF `rules[]` (all rules that can report, not only those that did).
  std::vector<RuleDescriptor> rules;
  /// Prefix for documentation links, e.g. a repository URL; empty gives relative doc paths.
  std::string docs_base;
  bool color = false;
  /// The text of a file the findings name, for rdjson's suggestions (fix edits are byte offsets,
  /// reviewdog wants lines and columns). Unset, or no text for a file: no suggestions for it.
  std::function<const std::string*(std::string_view file)> source;
};

/// What a snippet shows of a source line: the line itself, or for a long line (over 160 code
/// points) a window of that many around the finding, with an ellipsis where it was cut. `start`
/// and `width` are the caret's column (1-based, in code points) and length inside `text`.
struct SnippetWindow {
  std::string text;
  int start = 1;
  int width = 1;
};
SnippetWindow WindowSnippet(std::string_view line, int start_column, int width);

/// The whole rendering; machine formats are complete documents even for zero diagnostics.
/// Renders `diagnostics` into `out` piece by piece (the caller flushes it).
void WriteDiagnostics(const std::vector<Diagnostic>& diagnostics, OutputFormat format, const FormatOptions& options,
                      TextSink& out);

/// The count per rule (`--statistics`): a tab-separated table, or with `kJson` an array a program can
/// read (`[{"code": "OPM101", "name": ..., "count": 3}]`, as ruff's).
std::string FormatStatistics(const std::vector<Diagnostic>& diagnostics, OutputFormat format);

std::string FormatDiagnostics(const std::vector<Diagnostic>& diagnostics, OutputFormat format,
                              const FormatOptions& options);

}  // namespace opmfu
