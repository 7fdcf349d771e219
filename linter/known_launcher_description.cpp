// Known-launcher descriptions as data: reading one YAML document into a KnownLauncher, every
// error one line naming the file and the line (the format is docs/launchers.md). What a launch
// of one sets is read in known_launchers.cpp.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "common/text.h"
#include "linter/known_launchers.h"
#include "linter/profiler_settings.h"

namespace opmfu::linter {

namespace {

using python::Value;
using python::ValueKind;

// The torch_npu settings a description may compute (the table's launcher rows).
const std::vector<std::string>& LauncherSettingNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ProfilerSettingSpec& setting : ProfilerSettings()) {
      if (setting.launcher) out.emplace_back(setting.Name());
    }
    return out;
  }();
  return names;
}

bool IsLevelSetting(std::string_view setting) {
  const ProfilerSettingSpec* spec = FindProfilerSetting(setting);
  return spec != nullptr && spec->type == SettingType::kProfilerLevel;
}

// Reads one description; every error names the file and the line.
class DescriptionReader {
 public:
  explicit DescriptionReader(std::string file) : file_(std::move(file)) {}

  Error At(const YAML::Node& node, const std::string& message) const {
    std::string where = file_;
    const YAML::Mark mark = node.Mark();
    if (!mark.is_null()) where += ":" + std::to_string(mark.line + 1);
    return Error::Input(where + ": " + message);
  }

  Result<std::string> Scalar(const YAML::Node& node, std::string_view what) const {
    if (!node || !node.IsScalar()) return At(node, std::string(what) + " must be a single value");
    return node.Scalar();
  }

  /// An optional single value: `fallback` when the key is absent.
  Result<std::string> ScalarOr(const YAML::Node& node, std::string_view what, std::string fallback) const {
    if (!node) return fallback;
    return Scalar(node, what);
  }

  Result<std::vector<std::string>> Strings(const YAML::Node& node, std::string_view what) const {
    std::vector<std::string> out;
    if (!node) return out;
    if (!node.IsSequence()) return At(node, std::string(what) + " must be a list");
    for (const YAML::Node& item : node) {
      OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(item, std::string("an entry of ") + std::string(what)));
      out.push_back(std::move(text));
    }
    return out;
  }

  Status OnlyKeys(const YAML::Node& map, std::initializer_list<std::string_view> known, std::string_view what) const {
    if (!map.IsMap()) return At(map, std::string(what) + " must be a mapping");
    for (const auto& entry : map) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        return At(entry.first, "unknown key '" + key + "' in " + std::string(what) + " (known: " + list + ")");
      }
    }
    return Ok();
  }

  Result<KnownLauncher> Read(const YAML::Node& root) const {
    OPMFU_RETURN_IF_ERROR(
        OnlyKeys(root,
                 {"name", "source", "match", "style", "enabled_by", "enabled_by_env", "enabled_value", "other_platform",
                  "role_enabled_by", "roles_outside", "refused_env", "options", "settings", "no_switch"},
                 "a launcher description"));
    KnownLauncher launcher;
    launcher.file = file_;
    OPMFU_ASSIGN_OR_RETURN(launcher.name, Scalar(root["name"], "'name'"));
    OPMFU_ASSIGN_OR_RETURN(launcher.source, ScalarOr(root["source"], "'source'", ""));
    OPMFU_ASSIGN_OR_RETURN(launcher.no_switch, ScalarOr(root["no_switch"], "'no_switch'", ""));
    const YAML::Node match = root["match"];
    if (!match) return At(root, "'match' is required (scripts, modules or imports)");
    OPMFU_RETURN_IF_ERROR(OnlyKeys(match, {"scripts", "modules", "imports"}, "'match'"));
    OPMFU_ASSIGN_OR_RETURN(launcher.scripts, Strings(match["scripts"], "'match.scripts'"));
    OPMFU_ASSIGN_OR_RETURN(launcher.modules, Strings(match["modules"], "'match.modules'"));
    OPMFU_ASSIGN_OR_RETURN(launcher.imports, Strings(match["imports"], "'match.imports'"));
    if (launcher.scripts.empty() && launcher.modules.empty()) {
      return At(match, "'match' needs 'scripts' or 'modules'");
    }
    OPMFU_ASSIGN_OR_RETURN(const std::string style, ScalarOr(root["style"], "'style'", "flags"));
    if (style == "hydra") {
      launcher.style = KnownLauncher::Style::kHydra;
    } else if (style == "yaml_config") {
      launcher.style = KnownLauncher::Style::kYamlConfig;
    } else if (style != "flags") {
      return At(root["style"], "'style' must be flags, hydra or yaml_config");
    }
    const YAML::Node options = root["options"];
    if (!options || !options.IsMap()) return At(root, "'options' must be a mapping of option ids");
    for (const auto& entry : options) {
      OPMFU_ASSIGN_OR_RETURN(KnownOption option, ReadOption(entry.first, entry.second));
      launcher.options.push_back(std::move(option));
    }
    OPMFU_ASSIGN_OR_RETURN(launcher.enabled_by_env, Strings(root["enabled_by_env"], "'enabled_by_env'"));
    if (launcher.enabled_by_env.empty() && !root["enabled_by"]) {
      return At(root, "'enabled_by' (an option) or 'enabled_by_env' (variables) is required");
    }
    if (const YAML::Node enabling = root["enabled_by"]; enabling && enabling.IsSequence()) {
      OPMFU_ASSIGN_OR_RETURN(launcher.enabled_by, Strings(enabling, "'enabled_by'"));
    } else if (enabling) {
      OPMFU_ASSIGN_OR_RETURN(std::string option, Scalar(enabling, "'enabled_by'"));
      launcher.enabled_by.push_back(std::move(option));
    }
    for (const std::string& option : launcher.enabled_by) {
      if (launcher.Option(option) == nullptr)
        return At(root["enabled_by"], "'enabled_by' names no option: '" + option + "'");
    }
    OPMFU_ASSIGN_OR_RETURN(launcher.enabled_value, ScalarOr(root["enabled_value"], "'enabled_value'", ""));
    if (const YAML::Node other = root["other_platform"]) {
      OPMFU_RETURN_IF_ERROR(
          OnlyKeys(other, {"env", "option", "value", "required", "plugin", "package"}, "'other_platform'"));
      OPMFU_ASSIGN_OR_RETURN(launcher.platform_plugin_group, ScalarOr(other["plugin"], "'other_platform.plugin'", ""));
      OPMFU_ASSIGN_OR_RETURN(launcher.platform_package, ScalarOr(other["package"], "'other_platform.package'", ""));
      OPMFU_ASSIGN_OR_RETURN(const std::string required, ScalarOr(other["required"], "'other_platform.required'", ""));
      launcher.platform_required = AsciiLower(required) == "true";
      OPMFU_ASSIGN_OR_RETURN(launcher.other_platform_env, Strings(other["env"], "'other_platform.env'"));
      OPMFU_ASSIGN_OR_RETURN(launcher.platform_option, ScalarOr(other["option"], "'other_platform.option'", ""));
      OPMFU_ASSIGN_OR_RETURN(launcher.platform_value, ScalarOr(other["value"], "'other_platform.value'", ""));
      if (!launcher.platform_option.empty() && launcher.Option(launcher.platform_option) == nullptr) {
        return At(other["option"], "'other_platform.option' names no option: '" + launcher.platform_option + "'");
      }
    }
    if (root["role_enabled_by"]) {
      OPMFU_ASSIGN_OR_RETURN(launcher.role_enabled_by, Scalar(root["role_enabled_by"], "'role_enabled_by'"));
      const KnownOption* role_option = launcher.Option(launcher.role_enabled_by);
      if (role_option == nullptr || role_option->type != KnownOption::Type::kBool ||
          !role_option->name.starts_with("*")) {
        return At(root["role_enabled_by"], "'role_enabled_by' must name a bool option whose name starts with '*'");
      }
    }
    if (const YAML::Node outside = root["roles_outside"]) {
      if (!outside.IsMap())
        return At(outside, "'roles_outside' must map a role to the reason its profiler is elsewhere");
      for (const auto& entry : outside) {
        OPMFU_ASSIGN_OR_RETURN(std::string role, Scalar(entry.first, "a role"));
        OPMFU_ASSIGN_OR_RETURN(std::string reason, Scalar(entry.second, "the reason"));
        launcher.roles_outside[role] = reason;
      }
    }
    if (const YAML::Node refused = root["refused_env"]) {
      if (!refused.IsMap()) return At(refused, "'refused_env' must map a variable to what the package does with it");
      for (const auto& entry : refused) {
        OPMFU_ASSIGN_OR_RETURN(std::string variable, Scalar(entry.first, "a variable"));
        OPMFU_ASSIGN_OR_RETURN(std::string why, Scalar(entry.second, "what the package does"));
        launcher.refused_env[variable] = why;
      }
    }
    const YAML::Node settings = root["settings"];
    if (!settings || !settings.IsMap()) return At(root, "'settings' must be a mapping of torch_npu settings");
    for (const auto& entry : settings) {
      OPMFU_ASSIGN_OR_RETURN(std::string name, Scalar(entry.first, "a setting name"));
      const std::vector<std::string>& names = LauncherSettingNames();
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        return At(entry.first, "unknown setting '" + name + "'" + DidYouMean(name, names));
      }
      OPMFU_ASSIGN_OR_RETURN(KnownSettingRule rule, ReadSetting(launcher, name, entry.second));
      launcher.settings[name] = std::move(rule);
    }
    return launcher;
  }

 private:
  Result<KnownOption> ReadOption(const YAML::Node& key, const YAML::Node& node) const {
    KnownOption option;
    OPMFU_ASSIGN_OR_RETURN(option.id, Scalar(key, "an option id"));
    OPMFU_RETURN_IF_ERROR(OnlyKeys(node, {"name", "type", "choices", "default"}, "option '" + option.id + "'"));
    OPMFU_ASSIGN_OR_RETURN(option.name, Scalar(node["name"], "'name' of option '" + option.id + "'"));
    OPMFU_ASSIGN_OR_RETURN(const std::string type, ScalarOr(node["type"], "'type'", "string"));
    if (type == "bool") {
      option.type = KnownOption::Type::kBool;
    } else if (type == "list") {
      option.type = KnownOption::Type::kList;
    } else if (type != "string") {
      return At(node["type"], "'type' must be string, bool or list");
    }
    if (node["choices"]) {
      OPMFU_ASSIGN_OR_RETURN(std::vector<std::string> choices, Strings(node["choices"], "'choices'"));
      option.choices = std::move(choices);
    }
    const YAML::Node fallback = node["default"];
    if (fallback) {
      if (option.type == KnownOption::Type::kList) {
        OPMFU_ASSIGN_OR_RETURN(option.default_value, Strings(fallback, "'default' of a list option"));
      } else {
        OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(fallback, "'default'"));
        if (option.type == KnownOption::Type::kBool) {
          option.default_bool = AsciiLower(text) == "true";
        } else {
          option.default_value = {text};
        }
      }
    } else if (option.type == KnownOption::Type::kString) {
      option.default_value = {""};
    }
    return option;
  }

  Result<Value> FixedValue(const std::string& setting, const YAML::Node& node) const {
    Value value;
    if (node.IsSequence()) {
      value.kind = ValueKind::kSequence;
      value.container = "list";
      OPMFU_ASSIGN_OR_RETURN(std::vector<std::string> items, Strings(node, "'fixed'"));
      for (std::string& text : items) {
        Value item;
        item.kind = ValueKind::kString;
        item.text = std::move(text);
        value.items.push_back(std::move(item));
      }
      return value;
    }
    OPMFU_ASSIGN_OR_RETURN(std::string text, Scalar(node, "'fixed'"));
    const std::string lower = AsciiLower(text);
    if (lower == "true" || lower == "false") {
      value.kind = ValueKind::kBool;
      value.boolean = lower == "true";
    } else if (IsLevelSetting(setting)) {
      value.kind = ValueKind::kEnum;
      value.container = "ProfilerLevel";
      value.text = text;
    } else {
      value.kind = ValueKind::kString;
      value.text = text;
    }
    return value;
  }

  Status KnownOptionId(const KnownLauncher& launcher, const YAML::Node& node, const std::string& id) const {
    if (launcher.Option(id) == nullptr) return At(node, "names no option: '" + id + "'");
    return Ok();
  }

  Result<KnownSettingRule> ReadSetting(const KnownLauncher& launcher, const std::string& name,
                                       const YAML::Node& node) const {
    OPMFU_RETURN_IF_ERROR(
        OnlyKeys(node, {"fixed", "option", "map", "contains", "items", "remedy"}, "setting '" + name + "'"));
    KnownSettingRule rule;
    OPMFU_ASSIGN_OR_RETURN(rule.remedy, ScalarOr(node["remedy"], "'remedy'", ""));
    if (node["fixed"]) {
      rule.kind = KnownSettingRule::Kind::kFixed;
      OPMFU_ASSIGN_OR_RETURN(rule.fixed, FixedValue(name, node["fixed"]));
    } else if (node["option"]) {
      rule.kind = KnownSettingRule::Kind::kOption;
      OPMFU_ASSIGN_OR_RETURN(rule.option, Scalar(node["option"], "'option'"));
      OPMFU_RETURN_IF_ERROR(KnownOptionId(launcher, node["option"], rule.option));
      if (const YAML::Node map = node["map"]) {
        if (!map.IsMap()) return At(map, "'map' must be a mapping");
        for (const auto& entry : map) {
          OPMFU_ASSIGN_OR_RETURN(std::string from, Scalar(entry.first, "a 'map' key"));
          OPMFU_ASSIGN_OR_RETURN(std::string to, Scalar(entry.second, "a 'map' value"));
          rule.map[from] = to;
        }
      }
    } else if (node["contains"]) {
      rule.kind = KnownSettingRule::Kind::kContains;
      OPMFU_ASSIGN_OR_RETURN(std::vector<std::string> pair, Strings(node["contains"], "'contains'"));
      if (pair.size() != 2) return At(node["contains"], "'contains' is [list option, item]");
      OPMFU_RETURN_IF_ERROR(KnownOptionId(launcher, node["contains"], pair[0]));
      rule.option = pair[0];
      rule.contains_item = pair[1];
    } else if (node["items"]) {
      rule.kind = KnownSettingRule::Kind::kItems;
      if (!node["items"].IsSequence()) return At(node["items"], "'items' must be a list");
      for (const YAML::Node& entry : node["items"]) {
        OPMFU_RETURN_IF_ERROR(OnlyKeys(entry, {"value", "if", "if_contains"}, "an item"));
        KnownSettingRule::Item item;
        OPMFU_ASSIGN_OR_RETURN(item.value, Scalar(entry["value"], "'value'"));
        if (entry["if"]) {
          OPMFU_ASSIGN_OR_RETURN(item.if_option, Scalar(entry["if"], "'if'"));
          OPMFU_RETURN_IF_ERROR(KnownOptionId(launcher, entry["if"], item.if_option));
        }
        if (entry["if_contains"]) {
          OPMFU_ASSIGN_OR_RETURN(std::vector<std::string> pair, Strings(entry["if_contains"], "'if_contains'"));
          if (pair.size() != 2) return At(entry["if_contains"], "'if_contains' is [list option, item]");
          OPMFU_RETURN_IF_ERROR(KnownOptionId(launcher, entry["if_contains"], pair[0]));
          item.if_contains = pair[0];
          item.contains_item = pair[1];
        }
        rule.items.push_back(std::move(item));
      }
    } else {
      return At(node, "setting '" + name + "' needs one of fixed, option, contains or items");
    }
    return rule;
  }

  std::string file_;
};

}  // namespace

const KnownOption* KnownLauncher::Option(std::string_view id) const {
  for (const KnownOption& option : options) {
    if (option.id == id) return &option;
  }
  return nullptr;
}

Result<KnownLauncher> ParseKnownLauncher(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& error) {
    return Error::Input(file + ":" + std::to_string(error.mark.line + 1) + ": not valid YAML: " + error.msg);
  }
  if (!root.IsMap()) return Error::Input(file + ": a launcher description must be a YAML mapping");
  try {
    return DescriptionReader(file).Read(root);
  } catch (const YAML::Exception& error) {
    return Error::Input(file + ":" + std::to_string(error.mark.line + 1) + ": " + error.msg);
  }
}

}  // namespace opmfu::linter
