#include "cli/lint_flags.h"

#include <algorithm>
#include <filesystem>

namespace opmfu::cli {

void AddLintFlags(CLI::App& command, LintFlags& flags) {
  command
      .add_option("PATH", flags.paths,
                  "Python scripts, bash launchers, directories (recursively: *.py, *.sh), or - for stdin "
                  "(default: ., as ruff)")
      ->check(NonEmptyPath());
  flags.diagnostics.Add(command);
  command.add_option("--stdin-filename", flags.stdin_filename, "the name to report stdin under (and find config by)");
  command.add_flag("--statistics", flags.statistics, "print the number of findings per rule instead of the findings");
  command.add_flag("--fix", flags.fix, "apply the safe fixes in place (files that did not parse are left alone)");
  command.add_flag("--diff", flags.diff, "print the safe fixes as a unified diff and change nothing");
  command.add_flag("--add-noqa", flags.add_noqa,
                   "add a `# noqa: OPMnnn` on the line of every finding, in place (to adopt opmfu on old code)");
  command.add_flag("--unsafe-fixes", flags.unsafe_fixes,
                   "with --fix or --diff, apply the unsafe fixes too (a fix that may change what other code does)");
  command.add_option("--run", flags.run,
                     "a profiling directory of a run of the linted code: compare the traced settings with what "
                     "its profiler_info_<rank>.json recorded (exit 1 when no traced call agrees)");
  command.add_option("-j,--jobs", flags.jobs, "files linted at once (default: one per core)");
  command.add_flag("-v,--verbose", flags.verbose,
                   "list each file a launcher names that could not be followed (default: a count)");
  command
      .add_option("--root", flags.root,
                  "follow Python imports only below DIR (default: the nearest directory with a .git above the "
                  "launcher or script, else its directory)")
      ->check(CLI::ExistingDirectory);
  command.add_flag("--exit-zero", flags.exit_zero, "exit 0 even when there are findings (errors still exit 2)");
  CLI::Option* quiet = command.add_flag("-q,--quiet", flags.quiet, "print the findings, nothing else (no summary)");
  command
      .add_flag("-s,--silent", flags.silent, "print nothing but errors; the exit code says whether there are findings")
      ->excludes(quiet);
  command
      .add_option("--exclude", flags.exclude,
                  "skip these globs in directory walks (relative to the working directory), instead of the "
                  "config's exclude")
      ->delimiter(',')
      ->allow_extra_args(false);
  command.add_option("--extend-exclude", flags.extend_exclude, "skip these globs too, beside the config's exclude")
      ->delimiter(',')
      ->allow_extra_args(false);
  command.add_flag("--force-exclude", flags.force_exclude,
                   "apply the excludes to paths named on the command line too (as a pre-commit hook wants)");
  command.add_option("--extend-select", flags.extend_select, "add these rules to the selection in force")
      ->delimiter(',')
      ->allow_extra_args(false);
  command.add_option("--extend-ignore", flags.extend_ignore, "skip these rules too (the same as --ignore)")
      ->delimiter(',')
      ->allow_extra_args(false);
  CLI::Option* show_files = command.add_flag(
      "--show-files", flags.show_files,
      "print the files lint would read (named, or found and not excluded), one per line, and lint nothing");
  command
      .add_flag("--show-settings", flags.show_settings,
                "print the settings in force for the first PATH (config file, selection, severities, excludes, "
                "per-file ignores, each rule's level), and lint nothing")
      ->excludes(show_files);
  command
      .add_option("--config", flags.config,
                  "use this config file (.opmfu.yaml format, or TOML: pyproject.toml's [tool.opmfu]) for every "
                  "input instead of the nearest one; or, as ruff, a TOML setting laid over the config in force "
                  "('lint.select = [\"OPM1\"]'); repeatable; command-line flags still win")
      ->allow_extra_args(false);  // one value per --config: the paths after it are inputs
}

Result<lint::LintOptions> LintOptionsFrom(const LintFlags& flags, const DiagnosticFlags::Parsed& parsed,
                                          std::span<const RuleDescriptor> rules) {
  lint::LintOptions options;
  options.overrides = parsed.overrides;
  for (const std::string& selector : flags.extend_select) OPMFU_RETURN_IF_ERROR(ValidateSelector(selector, rules));
  for (const std::string& selector : flags.extend_ignore) OPMFU_RETURN_IF_ERROR(ValidateSelector(selector, rules));
  options.overrides.extend_select = flags.extend_select;
  options.overrides.ignore.insert(options.overrides.ignore.end(), flags.extend_ignore.begin(),
                                  flags.extend_ignore.end());
  if (flags.add_noqa && (flags.fix || flags.diff)) {
    return Error::Usage("--add-noqa writes directives and --fix/--diff fixes: give one of them");
  }
  if (flags.add_noqa && (std::find(flags.paths.begin(), flags.paths.end(), "-") != flags.paths.end() ||
                         (flags.paths.empty() && flags.stdin_filename != "-"))) {
    return Error::Usage("--add-noqa edits files in place, so not the standard input");
  }
  options.use_config = !flags.diagnostics.no_config;
  for (const std::string& given : flags.config) {
    if (flags.diagnostics.no_config) return Error::Usage("--config and --no-config contradict each other");
    std::error_code ec;
    if (std::filesystem::is_regular_file(given, ec)) {
      if (options.config_file) {
        return Error::Usage("--config " + given + ": a second config file (" + options.config_file->string() +
                            " is given already); configs are not merged");
      }
      options.config_file = given;
    } else if (given.find('=') != std::string::npos) {
      options.config_settings.push_back(given);  // ruff's inline form: KEY = VALUE, in TOML
    } else {
      return Error::Usage("--config " + given + ": no such file (and not a KEY = VALUE setting)");
    }
  }
  options.exclude = flags.exclude;
  options.exclude.insert(options.exclude.end(), flags.extend_exclude.begin(), flags.extend_exclude.end());
  options.exclude_replaces_config = flags.exclude_given;
  options.force_exclude = flags.force_exclude;
  options.stdin_filename = flags.stdin_filename;
  options.jobs = flags.jobs;
  if (!flags.root.empty()) options.root = flags.root;
  options.keep_sources = flags.fix || flags.diff || flags.add_noqa || parsed.format == OutputFormat::kRdjson;
  options.keep_settings = !flags.run.empty();
  options.unsafe_fixes = flags.unsafe_fixes;
  return options;
}

}  // namespace opmfu::cli
