#pragma once
// `.opmfu.yaml`: rule selection and severities, per-file ignores, excludes, and analysis options.
// The nearest file found upward from an input applies to it; unknown keys and rule ids are errors.

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"

namespace opmfu {

inline constexpr const char* kConfigFileName = ".opmfu.yaml";

/// Options for `opmfu analyze` that a project may fix in its config (CLI flags override them).
struct AnalyzeConfig {
  std::optional<int> jobs;
  std::optional<std::string> export_type;  ///< db, text, csv or json
};

struct Config {
  std::filesystem::path path;                              ///< the file it came from; empty for built-in defaults
  std::vector<std::string> select;                         ///< rule selectors; empty means every rule
  std::vector<std::string> extend_select;                  ///< added to `select` (the config's `extend-select`)
  std::vector<std::string> ignore;                         ///< `ignore` and `extend-ignore`
  std::vector<std::pair<std::string, Severity>> severity;  ///< selector -> severity override
  std::vector<std::pair<std::string, std::vector<std::string>>> per_file_ignores;  ///< glob -> selectors
  std::vector<std::string> exclude;  ///< globs, relative to the config file's directory
  std::optional<Severity> fail_on;
  AnalyzeConfig analyze;
  /// Known-launcher descriptions to add to the built-in ones (docs/launchers.md), resolved
  /// against the config file's directory.
  std::vector<std::filesystem::path> launchers;
};

/// Loads and validates one config file against the known rules: YAML (`.opmfu.yaml`), or by its
/// `.toml` extension `[tool.opmfu]` of a pyproject.toml (another .toml file: its top level).
/// `inline_settings` (ruff's `--config 'KEY = VALUE'`: TOML, `lint.select = ["OPM1"]`) are laid
/// over the file's keys, each replacing the file's own (in `lint` or at the top level).
Result<Config> LoadConfigFile(const std::filesystem::path& path, std::span<const RuleDescriptor> rules,
                              std::span<const std::string> inline_settings = {});
/// The same, for text already read (`path` names it in errors and anchors relative paths; empty,
/// with empty text, for the inline settings alone, relative to the working directory).
Result<Config> ParseConfigText(const std::filesystem::path& path, const std::string& text,
                               std::span<const RuleDescriptor> rules,
                               std::span<const std::string> inline_settings = {});

/// The nearest config in the input's directory or above, if any: in each directory `.opmfu.yaml`,
/// else a `pyproject.toml` with a `[tool.opmfu]` table (the files are not merged).
std::optional<std::filesystem::path> FindConfigFile(const std::filesystem::path& input);

/// Config for an input: the nearest file's, or the defaults when there is none.
Result<Config> ConfigFor(const std::filesystem::path& input, std::span<const RuleDescriptor> rules,
                         std::span<const std::string> inline_settings = {});

/// Selectors: "ALL", a rule id ("OPM504"), an id prefix ("OPM5", "OPM50") or a rule name.
bool SelectorMatches(std::string_view selector, const RuleDescriptor& rule);
/// Usage error with a "did you mean" when the selector names no rule.
Status ValidateSelector(std::string_view selector, std::span<const RuleDescriptor> rules);

/// Overrides given on the command line; they win over the config file.
struct RuleOverrides {
  std::vector<std::string> select;
  std::vector<std::string> extend_select;  ///< added to the selection in force (ruff's --extend-select)
  std::vector<std::string> ignore;
  std::vector<std::pair<std::string, Severity>> severity;
};

/// For each rule id, the severity it reports at, or nullopt when it is off for `file`.
std::map<std::string, std::optional<Severity>> EffectiveRules(const Config& config, const RuleOverrides& overrides,
                                                              std::span<const RuleDescriptor> rules,
                                                              const std::filesystem::path& file);

/// True when one of the config's `exclude` globs matches `file` (relative to the config's directory).
bool IsExcluded(const Config& config, const std::filesystem::path& file);
/// True when one of `globs` matches `file` relative to `base` (a glob without '/' also matches the
/// file name alone, as .gitignore does).
bool MatchesAnyGlob(std::span<const std::string> globs, const std::filesystem::path& base,
                    const std::filesystem::path& file);

/// Parses "OPM104=error" (the --severity flag).
Result<std::pair<std::string, Severity>> ParseSeverityOverride(std::string_view text);

}  // namespace opmfu
