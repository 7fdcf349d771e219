#pragma once
// What `opmfu lint` would do, without linting (ruff's --show-files and --show-settings): the files
// it would read first for the paths given, and the settings in force for one of them.

#include <string>
#include <vector>

#include "common/result.h"
#include "lint/lint.h"

namespace opmfu::lint {

struct ShownFiles {
  /// The Python files, launchers and dynamic configs named or found in a directory walk that
  /// neither --exclude nor the config's `exclude` skips, sorted, each once; the standard input under
  /// its --stdin-filename. Scripts a launcher runs and modules followed are not listed.
  std::vector<std::string> files;
  std::vector<Error> errors;  ///< inputs that could not be read or listed, as LintReport::errors
};

/// The files `LintPaths(paths, options)` would start from. Fails for a bad config (a usage error).
Result<ShownFiles> FilesToLint(const std::vector<std::string>& paths, const LintOptions& options);

/// The settings in force for `path` as text, one `key: value` a line: the config file used (or
/// why none), its select, ignore, severity, fail-on, exclude and per-file-ignores beside the
/// command line's, then every lint rule with the severity it reports at in `path`, or `off`.
Result<std::string> ShowSettings(const std::string& path, const LintOptions& options);

}  // namespace opmfu::lint
