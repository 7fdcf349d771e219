#include "common/config.h"

#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "common/config_toml.h"
#include "common/file_io.h"
#include "common/text.h"

namespace opmfu {

namespace fs = std::filesystem;

namespace {

// The lint settings, at the top level or in a `lint` table (ruff's `[tool.ruff.lint]`). The
// `extend-` forms add to their key (one config file is read, never merged, so they add to what
// the same file gives, or to the defaults).
const std::vector<std::string> kLintKeys = {
    "select",  "extend-select",  "ignore",  "extend-ignore", "severity", "per-file-ignores", "extend-per-file-ignores",
    "exclude", "extend-exclude", "fail-on", "launchers"};
const std::vector<std::string> kTopLevelKeys = {"select",
                                                "extend-select",
                                                "ignore",
                                                "extend-ignore",
                                                "severity",
                                                "per-file-ignores",
                                                "extend-per-file-ignores",
                                                "exclude",
                                                "extend-exclude",
                                                "fail-on",
                                                "analyze",
                                                "launchers",
                                                "lint"};
const std::vector<std::string> kAnalyzeKeys = {"jobs", "export-type"};
const std::vector<std::string> kExportTypes = {"db", "text", "csv", "json"};

// Config errors carry the file and the 1-based position yaml-cpp reports.
class ConfigReader {
 public:
  // `where`: the file as errors name it (`pyproject.toml [tool.opmfu]`).
  ConfigReader(fs::path path, std::span<const RuleDescriptor> rules, std::string where)
      : path_(std::move(path)), rules_(rules), where_(std::move(where)) {}

  Error At(const YAML::Node& node, const std::string& message) const {
    const YAML::Mark mark = node.Mark();
    std::string where = where_;
    if (!mark.is_null()) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    return Error::Usage(where + ": " + message);
  }

  Result<std::string> Scalar(const YAML::Node& node, std::string_view what) const {
    if (!node.IsScalar()) return At(node, std::string(what) + " must be a single value");
    return node.Scalar();
  }

  Result<std::vector<std::string>> Selectors(const YAML::Node& node, std::string_view key) const {
    std::vector<std::string> out;
    const auto add = [&](const YAML::Node& item) -> Status {
      OPMFU_ASSIGN_OR_RETURN(std::string selector, Scalar(item, "a rule selector"));
      if (Status valid = ValidateSelector(selector, rules_); !valid.ok()) {
        return At(item, "'" + std::string(key) + "': " + valid.error().message);
      }
      out.push_back(selector);
      return Ok();
    };
    if (node.IsScalar()) {
      OPMFU_RETURN_IF_ERROR(add(node));
    } else if (node.IsSequence()) {
      for (const YAML::Node& item : node) OPMFU_RETURN_IF_ERROR(add(item));
    } else {
      return At(node, "'" + std::string(key) + "' must be a list of rule ids or names");
    }
    return out;
  }

  Result<std::vector<std::string>> Strings(const YAML::Node& node, std::string_view key) const {
    if (!node.IsSequence()) return At(node, "'" + std::string(key) + "' must be a list");
    std::vector<std::string> out;
    for (const YAML::Node& item : node) {
      OPMFU_ASSIGN_OR_RETURN(std::string value, Scalar(item, "an entry of '" + std::string(key) + "'"));
      out.push_back(value);
    }
    return out;
  }

  Result<Severity> SeverityValue(const YAML::Node& node) const {
    OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(node, "a severity"));
    auto severity = ParseSeverity(text);
    if (!severity.ok()) return At(node, severity.error().message);
    return *severity;
  }

  Error UnknownKey(const YAML::Node& key, const std::vector<std::string>& known, std::string_view section) const {
    const std::string name = key.IsScalar() ? key.Scalar() : "?";
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return At(key,
              "unknown key '" + name + "'" + std::string(section) + DidYouMean(name, known) + "; known keys: " + list);
  }

  Result<Config> Read(const YAML::Node& root) const {
    Config config;
    config.path = path_;
    if (root.IsNull()) return config;  // an empty file is a valid config
    if (!root.IsMap()) return At(root, "the config must be a mapping of keys (select, ignore, ...)");
    std::set<std::string> given;
    for (const auto& entry : root) {
      const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
      if (name == "analyze") {
        OPMFU_RETURN_IF_ERROR(ReadAnalyze(entry.second, config.analyze));
      } else if (name == "lint") {
        // ruff's layout, `[tool.ruff.lint]`: the lint keys in a table of their own.
        if (!entry.second.IsMap()) return At(entry.second, "'lint' must be a mapping of lint keys (select, ...)");
        for (const auto& item : entry.second)
          OPMFU_RETURN_IF_ERROR(ReadLintKey(item.first, item.second, " in 'lint'", given, config));
      } else {
        OPMFU_RETURN_IF_ERROR(ReadLintKey(entry.first, entry.second, "", given, config));
      }
    }
    return config;
  }

  // One key of the lint settings, at the top level or in the `lint` table (one place per key).
  Status ReadLintKey(const YAML::Node& key, const YAML::Node& value, std::string_view section,
                     std::set<std::string>& given, Config& config) const {
    const std::string name = key.IsScalar() ? key.Scalar() : "";
    if (std::find(kLintKeys.begin(), kLintKeys.end(), name) == kLintKeys.end()) {
      return UnknownKey(key, section.empty() ? kTopLevelKeys : kLintKeys, section);
    }
    if (!given.insert(name).second) return At(key, "'" + name + "' is given both at the top level and in 'lint'");
    if (name == "select") {
      OPMFU_ASSIGN_OR_RETURN(config.select, Selectors(value, name));
    } else if (name == "extend-select") {
      OPMFU_ASSIGN_OR_RETURN(config.extend_select, Selectors(value, name));
    } else if (name == "ignore" || name == "extend-ignore") {
      OPMFU_ASSIGN_OR_RETURN(auto selectors, Selectors(value, name));
      config.ignore.insert(config.ignore.end(), selectors.begin(), selectors.end());
    } else if (name == "severity") {
      if (!value.IsMap()) return At(value, "'severity' must map rule selectors to error, warning or info");
      for (const auto& item : value) {
        OPMFU_ASSIGN_OR_RETURN(auto selectors, Selectors(item.first, name));
        OPMFU_ASSIGN_OR_RETURN(Severity severity, SeverityValue(item.second));
        config.severity.emplace_back(selectors.front(), severity);
      }
    } else if (name == "per-file-ignores" || name == "extend-per-file-ignores") {
      if (!value.IsMap()) return At(value, "'" + name + "' must map file globs to rule lists");
      for (const auto& item : value) {
        OPMFU_ASSIGN_OR_RETURN(std::string glob, Scalar(item.first, "a file glob"));
        OPMFU_ASSIGN_OR_RETURN(auto selectors, Selectors(item.second, name));
        config.per_file_ignores.emplace_back(glob, selectors);
      }
    } else if (name == "exclude" || name == "extend-exclude") {
      OPMFU_ASSIGN_OR_RETURN(auto globs, Strings(value, name));
      config.exclude.insert(config.exclude.end(), globs.begin(), globs.end());
    } else if (name == "fail-on") {
      OPMFU_ASSIGN_OR_RETURN(config.fail_on, SeverityValue(value));
    } else if (name == "launchers") {
      OPMFU_ASSIGN_OR_RETURN(std::vector<std::string> files, Strings(value, name));
      for (const std::string& file : files) {
        const fs::path described = fs::path(file).is_absolute() ? fs::path(file) : path_.parent_path() / file;
        config.launchers.push_back(described.lexically_normal());
      }
    }
    return Ok();
  }

  Status ReadAnalyze(const YAML::Node& node, AnalyzeConfig& analyze) const {
    if (!node.IsMap()) return At(node, "'analyze' must be a mapping (jobs, export-type)");
    for (const auto& entry : node) {
      const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
      if (name == "jobs") {
        OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(entry.second, "'jobs'"));
        const bool digits = !text.empty() && text.size() < 6 &&
                            std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
        if (!digits || std::stoi(text) < 1) return At(entry.second, "'jobs' must be a whole number from 1");
        analyze.jobs = std::stoi(text);
      } else if (name == "export-type") {
        OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(entry.second, "'export-type'"));
        if (std::find(kExportTypes.begin(), kExportTypes.end(), text) == kExportTypes.end()) {
          return At(entry.second, "unknown export-type '" + text + "'" + DidYouMean(text, kExportTypes) +
                                      "; choose db, text, csv or json");
        }
        analyze.export_type = text;
      } else {
        return UnknownKey(entry.first, kAnalyzeKeys, " in 'analyze'");
      }
    }
    return Ok();
  }

 private:
  fs::path path_;
  std::span<const RuleDescriptor> rules_;
  std::string where_;
};

constexpr const char* kPyprojectName = "pyproject.toml";

// Whether a pyproject.toml configures opmfu. One that mentions opmfu but does not parse counts, so
// that loading it reports the syntax error instead of skipping the config silently.
bool ConfiguresOpmfu(const fs::path& pyproject) {
  auto text = ReadTextFile(pyproject, ReadLimits{.max_bytes = 4U << 20, .reject_nul = true});
  if (!text.ok()) {
    // Too large to read whole (a 2,000,000-element ignore list): one that mentions opmfu counts, so
    // that loading it says so, rather than a parent folder's config being used in its place.
    constexpr std::string_view kWords[] = {"opmfu"};
    auto scan = ScanFile(pyproject, kWords);
    return scan.ok() && scan->mentions;
  }
  if (text->find("opmfu") == std::string::npos) return false;
  auto tree = TomlConfigTree(pyproject, *text, false);
  return !tree.ok() || tree->has_value();
}

bool IsIdPrefix(std::string_view selector) {
  if (selector.size() < 4 || selector.substr(0, 3) != "OPM") return false;
  return std::all_of(selector.begin() + 3, selector.end(), [](unsigned char c) { return std::isdigit(c); });
}

// `tests/` and `./tests` mean the folder `tests`, as ruff reads them.
std::string NormalizedGlob(std::string glob) {
  while (glob.starts_with("./")) glob.erase(0, 2);
  while (glob.size() > 1 && glob.ends_with('/')) glob.pop_back();
  return glob;
}

// Whether `given` matches the file at `relative`, or (`or_folder`: exclude) any folder it is in, so that
// `exclude = ["tests"]` excludes everything below tests/. A glob without a slash also matches by a
// name alone (the file's, or a folder's), as .gitignore does.
bool GlobMatches(const std::string& given, const fs::path& relative, bool or_folder = false) {
  const std::string glob = NormalizedGlob(given);
  const bool by_name = glob.find('/') == std::string::npos;
  fs::path prefix;
  std::size_t left = static_cast<std::size_t>(std::distance(relative.begin(), relative.end()));
  for (const fs::path& part : relative) {
    prefix /= part;
    const bool last = --left == 0;
    if (part == ".." || (!or_folder && !last)) continue;
    if (fnmatch(glob.c_str(), prefix.generic_string().c_str(), 0) == 0) return true;
    if (by_name && fnmatch(glob.c_str(), part.c_str(), 0) == 0) return true;
  }
  return false;
}

}  // namespace

bool MatchesAnyGlob(std::span<const std::string> globs, const fs::path& base, const fs::path& file) {
  if (globs.empty()) return false;
  std::error_code ec;
  // A config named by its bare name (`--config pyproject.toml`) has no parent: its folder is `.`.
  const fs::path folder = base.empty() ? fs::path(".") : base;
  const fs::path relative =
      fs::absolute(file, ec).lexically_normal().lexically_relative(fs::absolute(folder, ec).lexically_normal());
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& glob) { return GlobMatches(glob, relative, /*or_folder=*/true); });
}

bool IsExcluded(const Config& config, const fs::path& file) {
  return MatchesAnyGlob(config.exclude, config.path.parent_path(), file);
}

namespace {

// A config's tree (YAML, or by its `.toml` extension TOML: pyproject.toml's [tool.opmfu]) and the
// name its errors give it.
Result<std::pair<YAML::Node, std::string>> ConfigTree(const fs::path& path, const std::string& text) {
  if (text.find('\0') != std::string::npos) return Error::Usage(path.string() + ": binary file (NUL byte)");
  if (!IsValidUtf8(text)) return Error::Usage(path.string() + ": not valid UTF-8");
  if (path.extension() == ".toml") {
    // pyproject.toml holds other tools' settings: only its [tool.opmfu]; another .toml file given
    // with --config is opmfu's alone (as ruff reads ruff.toml).
    const bool pyproject = path.filename() == kPyprojectName;
    OPMFU_ASSIGN_OR_RETURN(std::optional<YAML::Node> tree, TomlConfigTree(path, text, !pyproject));
    if (!tree) return Error::Usage(path.string() + ": has no [tool.opmfu] table");
    const bool section = pyproject || text.find("tool.opmfu") != std::string::npos;
    return std::pair{*tree, path.string() + (section ? " [tool.opmfu]" : "")};
  }
  try {
    return std::pair{YAML::Load(text), path.string()};
  } catch (const YAML::Exception& error) {
    std::string where = path.string();
    if (!error.mark.is_null()) {
      where += ":" + std::to_string(error.mark.line + 1) + ":" + std::to_string(error.mark.column + 1);
    }
    return Error::Usage(where + ": invalid YAML: " + error.msg);
  }
}

// Lays the inline settings over `base` key by key, as ruff's `--config 'KEY = VALUE'`: a key
// replaces the file's, in the `lint` table or at the top level, whichever the file used; the keys
// of `analyze` one by one.
void LayOver(YAML::Node& base, const YAML::Node& settings) {
  if (!base.IsMap()) base = YAML::Node(YAML::NodeType::Map);
  const auto set_lint_key = [&](const std::string& key, const YAML::Node& value) {
    const YAML::Node& file = base;
    if (file["lint"] && file["lint"].IsMap()) {
      YAML::Node lint = base["lint"];
      lint.remove(key);
    }
    base.remove(key);
    base[key] = value;
  };
  for (const auto& entry : settings) {
    const std::string key = entry.first.Scalar();
    if ((key == "lint" || key == "analyze") && entry.second.IsMap()) {
      for (const auto& item : entry.second) {
        if (key == "lint") {
          set_lint_key(item.first.Scalar(), item.second);
        } else {
          YAML::Node analyze = base["analyze"];
          if (!analyze.IsMap()) analyze = YAML::Node(YAML::NodeType::Map);
          analyze[item.first.Scalar()] = item.second;
          base["analyze"] = analyze;
        }
      }
    } else {
      set_lint_key(key, entry.second);
    }
  }
}

}  // namespace

Result<Config> LoadConfigFile(const fs::path& path, std::span<const RuleDescriptor> rules,
                              std::span<const std::string> inline_settings) {
  OPMFU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, ReadLimits{.max_bytes = 4U << 20, .reject_nul = true}));
  return ParseConfigText(path, text, rules, inline_settings);
}

Result<Config> ParseConfigText(const fs::path& path, const std::string& text, std::span<const RuleDescriptor> rules,
                               std::span<const std::string> inline_settings) {
  OPMFU_ASSIGN_OR_RETURN(auto tree, ConfigTree(path, text));
  auto& [root, where] = tree;
  if (!inline_settings.empty()) {
    std::string joined;
    for (const std::string& setting : inline_settings) joined += setting + "\n";
    OPMFU_ASSIGN_OR_RETURN(std::optional<YAML::Node> settings,
                           TomlConfigTree("--config", joined, /*top_level_allowed=*/true));
    if (settings && settings->IsMap()) LayOver(root, *settings);
    where += " with --config settings";
  }
  try {
    return ConfigReader(path, rules, where).Read(root);
  } catch (const YAML::Exception& error) {
    return Error::Usage(where + ": " + error.msg);
  }
}

std::optional<fs::path> FindConfigFile(const fs::path& input) {
  std::error_code ec;
  fs::path directory = fs::absolute(input, ec);
  if (ec) return std::nullopt;
  if (!fs::is_directory(directory, ec)) directory = directory.parent_path();
  while (true) {
    // As ruff prefers its own file to pyproject.toml: `.opmfu.yaml` first, in each directory.
    const fs::path candidate = directory / kConfigFileName;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    const fs::path pyproject = directory / kPyprojectName;
    if (fs::is_regular_file(pyproject, ec) && ConfiguresOpmfu(pyproject)) return pyproject;
    if (!directory.has_parent_path() || directory.parent_path() == directory) return std::nullopt;
    directory = directory.parent_path();
  }
}

Result<Config> ConfigFor(const fs::path& input, std::span<const RuleDescriptor> rules,
                         std::span<const std::string> inline_settings) {
  const auto path = FindConfigFile(input);
  if (!path) return inline_settings.empty() ? Config{} : ParseConfigText({}, "", rules, inline_settings);
  return LoadConfigFile(*path, rules, inline_settings);
}

bool SelectorMatches(std::string_view selector, const RuleDescriptor& rule) {
  if (selector == "ALL" || selector == rule.id || selector == rule.name) return true;
  return IsIdPrefix(selector) && StartsWith(rule.id, selector);
}

Status ValidateSelector(std::string_view selector, std::span<const RuleDescriptor> rules) {
  const bool any =
      std::any_of(rules.begin(), rules.end(), [&](const RuleDescriptor& r) { return SelectorMatches(selector, r); });
  if (any) return Ok();
  std::vector<std::string> names;
  for (const RuleDescriptor& rule : rules) {
    names.push_back(rule.id);
    names.push_back(rule.name);
  }
  return Error::Usage("unknown rule '" + std::string(selector) + "'" + DidYouMean(selector, names));
}

std::map<std::string, std::optional<Severity>> EffectiveRules(const Config& config, const RuleOverrides& overrides,
                                                              std::span<const RuleDescriptor> rules,
                                                              const fs::path& file) {
  const auto matches_any = [](const std::vector<std::string>& selectors, const RuleDescriptor& rule) {
    return std::any_of(selectors.begin(), selectors.end(),
                       [&](const std::string& s) { return SelectorMatches(s, rule); });
  };
  std::vector<std::string> file_ignores;
  if (!config.per_file_ignores.empty()) {
    std::error_code ec;
    const fs::path base = config.path.has_parent_path() ? config.path.parent_path() : fs::path(".");
    const fs::path relative =
        fs::absolute(file, ec).lexically_normal().lexically_relative(fs::absolute(base, ec).lexically_normal());
    for (const auto& [glob, selectors] : config.per_file_ignores) {
      if (GlobMatches(glob, relative)) file_ignores.insert(file_ignores.end(), selectors.begin(), selectors.end());
    }
  }
  const std::vector<std::string>& select = overrides.select.empty() ? config.select : overrides.select;
  std::map<std::string, std::optional<Severity>> effective;
  for (const RuleDescriptor& rule : rules) {
    bool enabled = select.empty() || matches_any(select, rule) || matches_any(config.extend_select, rule) ||
                   matches_any(overrides.extend_select, rule);
    if (matches_any(config.ignore, rule) || matches_any(overrides.ignore, rule) || matches_any(file_ignores, rule)) {
      enabled = false;
    }
    if (!enabled) {
      effective[rule.id] = std::nullopt;
      continue;
    }
    Severity severity = rule.default_severity;
    for (const auto& [selector, level] : config.severity) {
      if (SelectorMatches(selector, rule)) severity = level;
    }
    for (const auto& [selector, level] : overrides.severity) {
      if (SelectorMatches(selector, rule)) severity = level;
    }
    effective[rule.id] = severity;
  }
  return effective;
}

Result<std::pair<std::string, Severity>> ParseSeverityOverride(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return Error::Usage("--severity takes RULE=LEVEL, e.g. OPM104=error; got '" + std::string(text) + "'");
  }
  OPMFU_ASSIGN_OR_RETURN(Severity severity, ParseSeverity(text.substr(equals + 1)));
  return std::make_pair(std::string(text.substr(0, equals)), severity);
}

}  // namespace opmfu
