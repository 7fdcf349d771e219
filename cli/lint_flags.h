#pragma once
// The flags of `opmfu lint`, ruff's CI conventions among them (docs/cli.md): no path means `.`,
// --exit-zero, --quiet/--silent, --exclude/--extend-exclude, --extend-select/--extend-ignore,
// --config FILE, --output-file.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "lint/lint.h"

namespace opmfu::cli {

struct LintFlags {
  DiagnosticFlags diagnostics;
  std::vector<std::string> paths;
  std::string stdin_filename = "-";
  bool statistics = false;
  std::string run;  ///< --run DIR
  bool fix = false;
  bool diff = false;
  bool unsafe_fixes = false;  ///< --fix and --diff apply the unsafe fixes too
  bool add_noqa = false;      ///< a `# noqa` on every finding's line, written in place
  unsigned jobs = 0;
  std::string root;
  bool verbose = false;
  // ruff's conventions
  bool exit_zero = false;  ///< findings do not fail the run (errors still exit 2)
  bool quiet = false;      ///< the findings and errors, nothing else
  bool silent = false;     ///< errors only (the exit code says the rest)
  std::vector<std::string> exclude;
  std::vector<std::string> extend_exclude;
  std::vector<std::string> extend_select;
  std::vector<std::string> extend_ignore;
  std::vector<std::string> config;  ///< each --config: a file, or an inline KEY = VALUE
  bool exclude_given = false;
  bool force_exclude = false;  ///< the excludes skip named paths too
  bool show_files = false;     ///< list the files lint would read, and stop
  bool show_settings = false;  ///< print the settings in force for the first path, and stop
};

/// --show-files or --show-settings (lint/show.h): what lint would read, or the settings in force for
/// the first of `paths`, on stdout; the exit code, or nullopt when neither flag is given.
std::optional<int> RunLintShow(const LintFlags& flags, const std::vector<std::string>& paths,
                               const lint::LintOptions& options);

/// Every `lint` option, with its help text.
void AddLintFlags(CLI::App& command, LintFlags& flags);

/// The lint options the flags give (rules, config, excludes, paths), after the shared diagnostic
/// flags were parsed into `parsed`. Usage errors: --config with --no-config, a missing --config file.
Result<lint::LintOptions> LintOptionsFrom(const LintFlags& flags, const DiagnosticFlags::Parsed& parsed,
                                          std::span<const RuleDescriptor> rules);

}  // namespace opmfu::cli
