#pragma once
// The inputs of a lint run: the paths named and found in named directories, sorted into Python
// files, launchers and dynamic-profiler configs, each file once; and how a found path is named.

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lint/lint.h"
#include "linter/bash_launcher.h"
#include "python/module.h"

namespace opmfu::lint {

struct Input {
  std::string path;
  bool from_directory = false;  ///< may be skipped when it cannot matter
  bool from_stdin = false;
  bool named = false;                    ///< named on the command line (not found in a walk, launched or imported)
  std::vector<linter::Launch> launches;  ///< the launcher commands that run it
  /// The invocations of the launches of a script that imports this module (bound, but not its own
  /// command line), shared by every module that script reaches; null when none.
  std::shared_ptr<const std::vector<python::ScriptInvocation>> inherited;
  /// The program this module belongs to: the entry script whose imports reach it (itself if none).
  std::optional<std::string> entry;
  std::optional<std::string> source;  ///< read ahead (to find entry points), moved into the lint
  bool cannot_matter = false;         ///< found in a directory, read ahead, and mentions no profiler
};

Input MakeInput(std::string path, bool from_directory, bool from_stdin = false);

/// A path found by opmfu (a followed import, a launched script) as the user would write it.
std::string DisplayPath(const std::string& found);

/// The canonical path that names one file however it was reached (the path itself if that fails).
std::string Identity(const FileReader& files, const std::string& path);

/// A file that mentions none of the profiler's names cannot configure a torch_npu profiler.
bool CanMatter(std::string_view source);
/// The words CanMatter looks for.
inline constexpr std::string_view kMentionsOfTheProfilerWords[] = {"profiler", "torch_npu"};
inline constexpr std::span<const std::string_view> kMentionsOfTheProfiler = kMentionsOfTheProfilerWords;

/// The project root imports are followed below (see LintOptions::root).
std::filesystem::path ProjectRoot(const LintOptions& options, const std::filesystem::path& start);

/// Where the program of an input starts: its entry script's directory, or the launcher's.
std::filesystem::path RootStart(const Input& input);

/// Where an input's program lies, each path canonical and lexically normal.
struct ProgramPaths {
  std::filesystem::path self;   ///< the input's file
  std::filesystem::path entry;  ///< the script that runs it (`self` when none)
  std::filesystem::path root;   ///< the project root imports are followed below
};

/// Resolves an input's program paths without throwing (this runs on worker threads); fails with
/// one line naming the path that cannot be resolved and why (a symlink loop, a name too long).
Result<ProgramPaths> ResolveProgramPaths(const Input& input, const LintOptions& options);

inline constexpr std::string_view kDynamicConfigName = "profiler_config.json";

struct CollectedInputs {
  std::vector<Input> python;
  std::vector<std::string> launchers;  ///< sorted
  std::vector<std::string> json;
  std::optional<Input> stdin_input;
  std::set<std::string> walked;  ///< the launchers and json files a directory walk found (not named)
};

/// Walks `paths` (files, directories, "-"); a path that cannot be read or listed is an error in
/// `report`, and the rest are still collected. With LintOptions::force_exclude a path named that
/// --exclude matches is left out.
CollectedInputs CollectInputs(const std::vector<std::string>& paths, const LintOptions& options, LintReport& report);

/// Whether the config's `exclude` skips `input` (its config being `config`): one a walk found, or with
/// --force-exclude one named, unless --exclude replaced the config's globs.
bool ExcludedByConfig(const Input& input, const Config& config, const LintOptions& options);

/// Leaves out of `inputs.launchers` and `inputs.json` the ones their config's `exclude` skips, by
/// the rule ExcludedByConfig gives Python files (docs/configuration.md: "paths lint will skip").
/// `config_for(path)` is the lookup the caller uses, a Result<Config>.
template <typename ConfigFor>
Status DropExcludedByConfig(CollectedInputs& inputs, const LintOptions& options, ConfigFor&& config_for) {
  for (std::vector<std::string>* paths : {&inputs.launchers, &inputs.json}) {
    std::vector<std::string> kept;
    for (std::string& path : *paths) {
      const bool walked = inputs.walked.contains(path);
      if (walked || options.force_exclude) {
        OPMFU_ASSIGN_OR_RETURN(Config config, config_for(path));
        Input input;
        input.path = path;
        input.from_directory = walked;
        input.named = !walked;
        if (ExcludedByConfig(input, config, options)) continue;
      }
      kept.push_back(std::move(path));
    }
    *paths = std::move(kept);
  }
  return Ok();
}

}  // namespace opmfu::lint
