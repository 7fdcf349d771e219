#pragma once
// Renders diagnostics in the formats users' editors and CI systems read.

#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/text_sink.h"

namespace opmfu {

enum class OutputFormat {
  kFull,     ///< rustc/ruff style: header, source line with caret, help, notes
  kConcise,  ///< path:line:col: OPM504 message
  kGcc,      ///< path:line:col: error: message [OPM504]  (Vim/Emacs compile mode)
  kJson,     ///< array of objects (ruff-like field names)
  kSarif,    ///< SARIF 2.1.0 log (GitHub code scanning)
  kGithub,   ///< GitHub Actions workflow commands (::error file=...::)
  kGitlab,   ///< GitLab Code Quality report (artifacts: reports: codequality:), as ruff's `gitlab`
};

/// Names accepted by --output-format, in help order.
const std::vector<std::string>& OutputFormatNames();
Result<OutputFormat> ParseOutputFormat(std::string_view name);

struct FormatOptions {
  std::string tool_version;
  /// Rules to describe in SARIF `rules[]` (all rules that can report, not only those that did).
  std::vector<RuleDescriptor> rules;
  /// Prefix for documentation links, e.g. a repository URL; empty gives relative doc paths.
  std::string docs_base;
  bool color = false;
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

std::string FormatDiagnostics(const std::vector<Diagnostic>& diagnostics, OutputFormat format,
                              const FormatOptions& options);

}  // namespace opmfu
