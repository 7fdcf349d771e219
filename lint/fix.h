#pragma once
// `opmfu lint --fix` and `--diff`: the safe fixes are applied in memory, pass after pass, each
// pass a fresh lint of the text the previous one left, until no safe fix is left (a fix can bring
// another finding to light: the same setting missing at a second config, say). The findings
// kept are the last pass's, so they are what a fresh lint of the fixed files reports, and the
// diff is exactly what --fix writes.

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/text_edit.h"
#include "lint/lint.h"

namespace opmfu::lint {

/// At most this many passes; a fix that keeps bringing new ones stops here, with its findings kept.
inline constexpr int kMaxFixPasses = 10;

struct FixedFile {
  std::string path;
  std::string original;  ///< as first read: writing is refused if the disk no longer holds it
  std::string fixed;
  std::size_t findings = 0;  ///< findings whose fixes were applied to it, over all passes
  /// The piped text (`lint -`): WriteFixes leaves it alone; `--fix` prints it, `--diff` diffs it.
  bool standard_input = false;
};

struct FixResult {
  LintReport report;             ///< the lint of the fixed text
  std::vector<FixedFile> files;  ///< the files whose text changed, in path order
  int passes = 0;                ///< lints that applied fixes
  bool settled = true;           ///< false: kMaxFixPasses passes and safe fixes still pending
  /// One line per file whose fixes were not applied because the fixed text would not compile.
  std::vector<std::string> withheld;
};

/// Why the fixed text of `path` must not be written: for a Python file, a syntax error or a
/// function with two parameters of one name (both of which Python refuses to compile); nullopt
/// when it may be. The message names the file and says that its fixes were not applied.
std::optional<std::string> FixedTextProblem(const std::string& path, const std::string& text);

/// The edits of the safe fixes among `found`, in order.
std::vector<TextEdit> SafeFixEdits(const std::vector<Diagnostic>& found);

/// Applies every safe fix of `first` (the lint of `paths` with `options`, sources kept) to the
/// files that parsed cleanly, except the standard input, and lints again until no safe fix is
/// left. Nothing is written.
Result<FixResult> FixInMemory(const std::vector<std::string>& paths, const LintOptions& options, LintReport first);

/// Writes every fixed file in place, through symlinks, keeping mode and owner; refuses a file the
/// disk no longer holds as it was read (an editor saved it meanwhile), writing nothing of it.
Status WriteFixes(std::span<const FixedFile> files);

/// The unified diff of every fixed file, from its original text to its fixed one.
std::string FixDiff(std::span<const FixedFile> files);

/// The text of each file of `report` whose safe fixes --fix applies (one that parsed cleanly), by
/// the name its findings give it, for the formats that carry fixes as edits (FormatOptions::source,
/// rdjson's suggestions); null for another name. The report must be linted with
/// LintOptions::keep_sources, and outlive the lookup.
std::function<const std::string*(std::string_view file)> FixableSources(const LintReport& report);

}  // namespace opmfu::lint
