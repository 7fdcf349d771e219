#pragma once
// `opmfu lint` end to end for a set of paths: find the files; read the bash launchers and the
// scripts they run; parse the Python files (on every core) with the launchers' arguments bound;
// trace their profiler settings, run the enabled rules, apply suppressions. The CLI only formats.
// The stages are one file each in lint/ (inputs, launcher_stage, import_following, python_stage,
// dynamic_config_stage, suppression_stage, merge); lint.cpp is the driver that calls them.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostic.h"
#include "common/file_reader.h"
#include "common/profiler_settings.h"

namespace opmfu::python {
class ModuleCache;
}  // namespace opmfu::python

namespace opmfu::lint {

struct LintOptions {
  RuleOverrides overrides;
  bool use_config = true;
  /// `--config FILE`: this file for every input, instead of the nearest one (use_config stays true).
  std::optional<std::filesystem::path> config_file;
  /// `--config 'KEY = VALUE'` (TOML, as ruff's): laid over the config in force, key by key.
  std::vector<std::string> config_settings;
  /// `--exclude` / `--extend-exclude`: globs relative to the working directory; files and folders
  /// they match are skipped in a directory walk (a file named on the command line is still linted).
  std::vector<std::string> exclude;
  /// `--exclude` given: the configs' `exclude` globs no longer apply (ruff: --exclude replaces them).
  bool exclude_replaces_config = false;
  /// `--force-exclude`: the excludes (--exclude's, and a Python file's config `exclude`) skip a path
  /// named on the command line too, as they skip one a directory walk finds.
  bool force_exclude = false;
  std::optional<std::string> stdin_source;  ///< the text of a `-` input
  std::string stdin_filename = "-";         ///< the name it is reported (and configured) under
  unsigned jobs = 0;                        ///< 0: one per core
  bool keep_sources = false;                ///< fill LintedFile::source (for --fix and --diff)
  bool unsafe_fixes = false;                ///< --fix and --diff apply the unsafe fixes too (ruff's --unsafe-fixes)
  /// Where Python imports are followed (modules outside it are not read). Default: the nearest
  /// directory with a .git above the launcher or script, else its directory.
  std::optional<std::string> root;
  /// The bash that confirms a launcher's syntax error (`bash -n`) before OPM001 is an error.
  /// Default: `bash` on PATH, else /bin/bash; "" means none (OPM001 is then only a warning).
  std::optional<std::string> bash;
  /// Fill LintReport::sites (for `lint --run`: the prediction held against a run's record).
  bool keep_settings = false;
  /// Where the files are read (the launchers, the scripts they run, Python modules named or followed,
  /// dynamic configs); nullptr: the disk. A directory named is always walked on disk.
  const FileReader* files = nullptr;
  /// What the run knows of its Python modules (parses, import scans, locations), shared by every
  /// file's tracing; set by LintPaths for its run. nullptr: each program finds its own.
  python::ModuleCache* module_cache = nullptr;
};

/// One MFU-relevant setting of a torch_npu profiler call as lint traced it, each possible value
/// spelled as torch_npu records it in profiler_info_<rank>.json (`true`, `Level1`, `db`,
/// `CPU,NPU`); `unknown` when some path's value cannot be told.
struct TracedSetting {
  SettingId id{};    ///< its row in common/profiler_settings.h, which says what the run records of it
  std::string name;  ///< "with_flops", "profiler_level", "export_type", "activities", ...
  std::vector<std::string> values;
  bool unknown = false;
};

/// A torch_npu profiler call (or its transfer_to_npu equivalent) and its traced settings.
struct TracedSite {
  std::string file;
  int line = 0;
  std::string callee;
  std::vector<TracedSetting> settings;
};

struct LintedFile {
  std::string path;
  std::string source;  ///< with LintOptions::keep_sources, for --fix and --diff
  bool parsed_cleanly = true;
  std::vector<Diagnostic> diagnostics;
};

struct LintReport {
  std::vector<LintedFile> files;             ///< in path order
  std::vector<Error> errors;                 ///< unreadable inputs, each one line naming the file
  std::vector<std::string> warnings;         ///< e.g. a `source`d file a launcher names that cannot be read
  std::vector<std::string> limits;           ///< a stated limit an input hit: one line each, naming file and limit
  std::size_t skipped_without_profiler = 0;  ///< found in directories, never parsed: nothing to check
  /// Why some of those were skipped unread (a file past the size limit): one line each, for --verbose.
  std::vector<std::string> skipped_notes;
  std::optional<Severity> config_fail_on;  ///< from the first config that sets it
  std::vector<TracedSite> sites;           ///< with LintOptions::keep_settings, in path order
};

/// Lints `paths` (files, directories, or "-"). Fails only for usage errors (a bad config); an
/// unreadable file is reported in LintReport::errors and the rest are still linted.
Result<LintReport> LintPaths(const std::vector<std::string>& paths, const LintOptions& options);

/// The rules `opmfu lint` can report, for selectors and SARIF.
std::vector<RuleDescriptor> LintRuleDescriptors();

}  // namespace opmfu::lint
