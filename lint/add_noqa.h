#pragma once
// `opmfu lint --add-noqa`, as ruff's: every finding of a linted file gets a `# noqa: OPMnnn` at the
// end of the line it is reported on (of a command continued with `\`, its last line), so that old
// code can adopt the linter and only new findings fail CI. A line that cannot take a trailing
// comment without changing what the file means is left alone: a line inside a multi-line string or
// heredoc, a line whose comment is another opmfu directive, a JSON config. The checks of the
// linting itself (a syntax error, a suppression, a limit, "nothing was checked") are not hidden by
// a noqa, so they get none.

#include <cstddef>
#include <vector>

#include "lint/fix.h"
#include "lint/lint.h"

namespace opmfu::lint {

struct NoqaEdits {
  std::vector<FixedFile> files;   ///< the files given directives, with their new text, in path order
  std::size_t directives = 0;     ///< lines given a new `# noqa` or more codes in one they had
  std::size_t left_reported = 0;  ///< findings no directive can cover (they are still reported)
};

/// The directives for every finding of `report` (linted with LintOptions::keep_sources) in a file
/// that parsed cleanly, each file once however many names it was reached by. Nothing
/// is written: WriteFixes writes the files.
NoqaEdits AddNoqaDirectives(const LintReport& report, const LintOptions& options);

}  // namespace opmfu::lint
