#include "lint/show.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "common/config.h"
#include "common/text.h"
#include "lint/inputs.h"

namespace opmfu::lint {

namespace {

namespace fs = std::filesystem;

// The config that applies to `path`, found as LintPaths finds it, and where it came from.
struct FoundConfig {
  Config config;
  std::string origin;
};

Result<FoundConfig> ConfigOf(const std::string& path, bool from_stdin, const LintOptions& options,
                             std::span<const RuleDescriptor> rules) {
  if (!options.use_config) return FoundConfig{Config{}, "none (--no-config)"};
  if (options.config_file) {
    OPMFU_ASSIGN_OR_RETURN(Config config, LoadConfigFile(*options.config_file, rules, options.config_settings));
    return FoundConfig{std::move(config), options.config_file->string() + " (--config)"};
  }
  std::error_code ec;
  const fs::path where = from_stdin ? fs::current_path(ec) / path : fs::path(path);
  const std::optional<fs::path> found = FindConfigFile(where);
  const std::string settings = options.config_settings.empty() ? "" : ", with the --config settings";
  if (!found) {
    OPMFU_ASSIGN_OR_RETURN(Config config, ConfigFor(where, rules, options.config_settings));
    return FoundConfig{std::move(config), "none found (the defaults: every rule at its own severity)" + settings};
  }
  OPMFU_ASSIGN_OR_RETURN(Config config, LoadConfigFile(*found, rules, options.config_settings));
  return FoundConfig{std::move(config), found->string() + settings};
}

std::string ListOf(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? ", " : "") + EscapeControlCharacters(item);
  return out + "]";
}

std::string SeveritiesOf(const std::vector<std::pair<std::string, Severity>>& entries) {
  std::string out = "{";
  for (const auto& [selector, level] : entries) {
    out += (out.size() > 1 ? ", " : "") + EscapeControlCharacters(selector) + ": " + std::string(SeverityName(level));
  }
  return out + "}";
}

}  // namespace

Result<ShownFiles> FilesToLint(const std::vector<std::string>& paths, const LintOptions& options) {
  const std::vector<RuleDescriptor> rules = LintRuleDescriptors();
  LintReport report;
  CollectedInputs inputs = CollectInputs(paths, options, report);
  ShownFiles shown;
  if (inputs.stdin_input) shown.files.push_back(inputs.stdin_input->path);
  for (const Input& input : inputs.python) {
    // As LintPaths skips them: a file a walk found (or, with --force-exclude, one named) under the
    // config's `exclude`, unless --exclude replaced it.
    if (input.from_directory || input.named) {
      OPMFU_ASSIGN_OR_RETURN(FoundConfig found, ConfigOf(input.path, false, options, rules));
      if (ExcludedByConfig(input, found.config, options)) continue;
    }
    shown.files.push_back(input.path);
  }
  OPMFU_RETURN_IF_ERROR(DropExcludedByConfig(inputs, options, [&](const std::string& path) -> Result<Config> {
    OPMFU_ASSIGN_OR_RETURN(FoundConfig found, ConfigOf(path, false, options, rules));
    return found.config;
  }));
  shown.files.insert(shown.files.end(), inputs.launchers.begin(), inputs.launchers.end());
  shown.files.insert(shown.files.end(), inputs.json.begin(), inputs.json.end());
  std::sort(shown.files.begin(), shown.files.end());
  shown.files.erase(std::unique(shown.files.begin(), shown.files.end()), shown.files.end());
  shown.errors = std::move(report.errors);
  return shown;
}

Result<std::string> ShowSettings(const std::string& path, const LintOptions& options) {
  const std::vector<RuleDescriptor> rules = LintRuleDescriptors();
  const bool from_stdin = path == "-";
  const std::string shown_path = from_stdin ? options.stdin_filename : path;
  OPMFU_ASSIGN_OR_RETURN(FoundConfig found, ConfigOf(shown_path, from_stdin, options, rules));
  const Config& config = found.config;
  const RuleOverrides& flags = options.overrides;
  std::string out =
      "settings for: " + EscapeControlCharacters(shown_path) + (from_stdin ? " (the standard input)" : "") + "\n";
  out += "config file: " + EscapeControlCharacters(found.origin) + "\n";
  const bool flag_select = !flags.select.empty();
  out += "select: " + ListOf(flag_select ? flags.select : config.select) +
         (flag_select             ? " (--select)"
          : config.select.empty() ? " (every rule)"
                                  : " (config)") +
         "\n";
  out += "extend-select: " + ListOf(flags.extend_select) + "\n";
  out += "ignore (config): " + ListOf(config.ignore) + "\n";
  out += "ignore (command line): " + ListOf(flags.ignore) + "\n";
  out += "severity (config): " + SeveritiesOf(config.severity) + "\n";
  out += "severity (command line, wins): " + SeveritiesOf(flags.severity) + "\n";
  out += "fail-on (config): " + std::string(config.fail_on ? SeverityName(*config.fail_on) : "not set") + "\n";
  const std::string base = config.path.empty() ? std::string() : config.path.parent_path().string();
  out += "exclude (config, relative to " + (base.empty() ? std::string(".") : EscapeControlCharacters(base)) +
         "): " + ListOf(config.exclude) + (options.exclude_replaces_config ? " (replaced by --exclude)" : "") + "\n";
  out += "exclude (command line, relative to the working directory): " + ListOf(options.exclude) + "\n";
  out += "per-file-ignores (config):";
  if (config.per_file_ignores.empty()) out += " {}";
  out += "\n";
  for (const auto& [glob, selectors] : config.per_file_ignores) {
    out += "  " + EscapeControlCharacters(glob) + ": " + ListOf(selectors) + "\n";
  }
  out += "rules for " + EscapeControlCharacters(shown_path) + ":\n";
  const auto effective = EffectiveRules(config, flags, rules, shown_path);
  for (const RuleDescriptor& rule : rules) {
    const auto found_rule = effective.find(rule.id);
    const std::optional<Severity> level = found_rule == effective.end() ? rule.default_severity : found_rule->second;
    out += "  " + rule.id + " " + rule.name + ": " + (level ? std::string(SeverityName(*level)) : "off") + "\n";
  }
  return out;
}

}  // namespace opmfu::lint
