#include "linter/known_launchers.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/file_io.h"
#include "common/text.h"
#include "linter/profiler_config.h"
#include "linter/profiler_settings.h"
#include "linter/torch_npu.h"

namespace opmfu::linter {

namespace {

namespace fs = std::filesystem;
using python::Value;
using python::ValueKind;

bool IsProfilerLevel(std::string_view setting) {
  const ProfilerSettingSpec* spec = FindProfilerSetting(setting);
  return spec != nullptr && spec->type == SettingType::kProfilerLevel;
}

// ---- reading a launch -------------------------------------------------------------------------

// What a launch gives one option: the words that set it (the last setting wins, as in argparse and
// Hydra), or nothing (the default applies).
struct OptionValue {
  bool given = false;
  ShellWord at;                   ///< the flag or `key=value` word
  std::vector<ShellWord> values;  ///< its value words (one for a string, several for a list)
  bool flag_set = false;          ///< a bool flag's presence, or a Hydra bool's value
};

Note StepAt(const ShellWord& word, std::string message) {
  Note note;
  note.file = word.where.file();
  note.position = word.where.range().start;
  note.message = std::move(message);
  return note;
}

// The bytes that spell `text`, the end of `word`, where the launcher writes it literally
// (`level0` in `--profile-level level0`, `key=level0` or `LEVEL=level0` ... `key=$LEVEL`): what a
// fix may rewrite. nullopt when the text is built at run time or not written in one piece.
std::optional<TextLocation> LiteralValueAt(const ShellWord& word, std::string_view text) {
  if (!word.known || text.empty() || !word.text.ends_with(text)) return std::nullopt;
  return word.SpelledAt(word.text.size() - text.size(), text.size());
}

bool ParseBool(std::string_view text) { return AsciiLower(text) == "true" || text == "1"; }

// Hydra list syntax: [a,b], ['a', "b"], or one bare item.
std::vector<std::string> HydraList(std::string_view text) {
  std::string_view inner = TrimWhitespace(text);
  if (inner.starts_with('[') && inner.ends_with(']')) inner = inner.substr(1, inner.size() - 2);
  std::vector<std::string> items;
  for (const std::string& part : SplitString(inner, ',')) {
    std::string_view item = TrimWhitespace(part);
    if (item.size() >= 2 && (item.front() == '\'' || item.front() == '"') && item.back() == item.front()) {
      item = item.substr(1, item.size() - 2);
    }
    if (!item.empty()) items.emplace_back(item);
  }
  return items;
}

// The flags a launch passes, by option id.
std::map<std::string, OptionValue> ReadFlags(const KnownLauncher& launcher, const Launch& launch) {
  std::map<std::string, OptionValue> out;
  const std::vector<ShellWord>& words = launch.arguments;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (!text.starts_with("-")) continue;
    const std::size_t equals = text.find('=');
    const std::string flag = text.substr(0, equals);
    for (const KnownOption& option : launcher.options) {
      if (option.name != flag) continue;
      OptionValue value;
      value.given = true;
      value.at = words[i];
      if (option.type == KnownOption::Type::kBool) {
        value.flag_set = true;
      } else if (equals != std::string::npos) {
        value.values.push_back(words[i].Part(equals + 1));
      } else {
        for (std::size_t j = i + 1; j < words.size() && !words[j].text.starts_with("--"); ++j) {
          if (option.type == KnownOption::Type::kString) {
            value.values.push_back(words[j]);
            break;
          }
          // A list's items are its words, each also split at commas (`--activities CPU,NPU`).
          std::size_t from = 0;
          for (std::size_t comma = words[j].text.find(','); comma != std::string::npos;
               from = comma + 1, comma = words[j].text.find(',', from)) {
            if (comma > from) value.values.push_back(words[j].Part(from, comma - from));
          }
          if (from < words[j].text.size()) value.values.push_back(words[j].Part(from));
        }
      }
      out[option.id] = std::move(value);
    }
  }
  return out;
}

// Hydra overrides by role prefix ("" for options without `*`), then option id.
std::map<std::string, std::map<std::string, OptionValue>> ReadHydra(const KnownLauncher& launcher,
                                                                    const Launch& launch) {
  std::map<std::string, std::map<std::string, OptionValue>> out;
  for (const ShellWord& word : launch.arguments) {
    std::string_view text = word.text;
    while (text.starts_with('+') || text.starts_with('~')) text.remove_prefix(1);
    const std::size_t key_start = word.text.size() - text.size();
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view key = text.substr(0, equals);
    const std::string_view raw = text.substr(equals + 1);
    for (const KnownOption& option : launcher.options) {
      std::string prefix;
      if (option.name.starts_with("*")) {
        const std::string_view suffix = std::string_view(option.name).substr(1);  // ".profiler...."
        if (!key.ends_with(suffix) || key.size() == suffix.size()) continue;
        prefix = std::string(key.substr(0, key.size() - suffix.size()));
      } else if (key != option.name) {
        continue;
      }
      OptionValue value;
      value.given = true;
      value.at = word;
      if (option.type == KnownOption::Type::kBool) {
        value.flag_set = ParseBool(raw);
      } else {
        if (option.type == KnownOption::Type::kList) {
          for (const std::string& item : HydraList(raw)) {
            value.values.emplace_back(item, word.known, word.where, word.anchored);  // an item is not spelled
          }
        } else {
          value.values.push_back(word.Part(key_start + equals + 1));
        }
      }
      out[prefix][option.id] = std::move(value);
    }
  }
  return out;
}

// The YAML config file a launch passes: its first *.yaml/*.yml argument, next to the launcher or
// relative to the current directory.
std::optional<std::pair<ShellWord, std::string>> FindYamlConfig(const Launch& launch, const FileReader& files) {
  for (const ShellWord& word : launch.arguments) {
    if (!word.known || !(word.text.ends_with(".yaml") || word.text.ends_with(".yml"))) continue;
    const std::string text = word.text.starts_with("--") && word.text.find('=') != std::string::npos
                                 ? word.text.substr(word.text.find('=') + 1)
                                 : word.text;
    const fs::path path = text;
    for (const fs::path& candidate :
         {path.is_absolute() ? path : fs::path(launch.launcher).parent_path() / path, path}) {
      if (files.IsFile(candidate.string())) return std::pair{word, candidate.lexically_normal().string()};
    }
    return std::pair{word, std::string()};
  }
  return std::nullopt;
}

// The options a YAML config sets, each located at its key in the file.
std::map<std::string, OptionValue> ReadYamlOptions(const KnownLauncher& launcher, const std::string& path,
                                                   std::string text) {
  std::map<std::string, OptionValue> out;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return out;  // an unreadable config: the defaults (the run itself would fail to start)
  }
  const auto source = std::make_shared<const TextSource>(path, std::make_shared<const std::string>(std::move(text)));
  for (const KnownOption& option : launcher.options) {
    // reset(), not `=`: assigning a yaml-cpp node writes through to the node it refers to.
    YAML::Node node;
    node.reset(root);
    for (const std::string& part : SplitString(option.name, '.')) {
      if (!node.IsMap()) {
        node.reset();
        break;
      }
      node.reset(node[part]);
      if (!node) break;
    }
    if (!node || node.IsNull()) continue;
    OptionValue value;
    value.given = true;
    const YAML::Mark mark = node.Mark();
    const auto at = [&](std::string shown) {
      ShellWord word;
      word.text = std::move(shown);
      const auto begin = static_cast<std::uint32_t>(std::max(0, mark.pos));
      word.where = {source, begin, begin + static_cast<std::uint32_t>(node.IsScalar() ? node.Scalar().size() : 1)};
      return word;
    };
    if (node.IsSequence()) {
      std::string shown;
      for (const YAML::Node& item : node) {
        if (!item.IsScalar()) continue;
        value.values.push_back(at(item.Scalar()));
        shown += (shown.empty() ? "" : ", ") + item.Scalar();
      }
      value.at = at(option.name + ": [" + shown + "]");
    } else if (node.IsScalar()) {
      value.at = at(option.name + ": " + node.Scalar());
      value.flag_set = ParseBool(node.Scalar());
      value.values.push_back(at(node.Scalar()));
    } else {
      continue;
    }
    out[option.id] = std::move(value);
  }
  return out;
}

// Builds the settings of one site from the options it sees.
class SiteBuilder {
 public:
  SiteBuilder(const KnownLauncher& launcher, const std::map<std::string, OptionValue>& options, ShellWord anchor,
              std::string role = {})
      : launcher_(launcher), options_(options), anchor_(std::move(anchor)), role_(std::move(role)) {}

  const OptionValue* Given(const std::string& id) const {
    auto it = options_.find(id);
    return it == options_.end() ? nullptr : &it->second;
  }

  std::string Text(const std::string& id) const {
    if (const OptionValue* given = Given(id); given != nullptr && !given->values.empty())
      return given->values.front().text;
    const KnownOption* option = launcher_.Option(id);
    return option->default_value.empty() ? std::string() : option->default_value.front();
  }

  bool Flag(const std::string& id) const {
    if (const OptionValue* given = Given(id)) return given->flag_set;
    return launcher_.Option(id)->default_bool;
  }

  /// Whether the launch turns profiling on (one of `enabled_by`, a string compared with
  /// `enabled_value` if any).
  bool Enabled() const {
    return std::any_of(launcher_.enabled_by.begin(), launcher_.enabled_by.end(), [this](const std::string& id) {
      const KnownOption& enabling = *launcher_.Option(id);
      if (enabling.type == KnownOption::Type::kBool) return Flag(enabling.id);
      const std::string text = Text(enabling.id);
      return launcher_.enabled_value.empty() ? !text.empty() : text == launcher_.enabled_value;
    });
  }

  /// The first of `enabled_by` the launch gives, or nullptr.
  const OptionValue* GivenEnabling() const {
    for (const std::string& id : launcher_.enabled_by) {
      if (const OptionValue* given = Given(id)) return given;
    }
    return nullptr;
  }

  std::vector<std::string> List(const std::string& id) const {
    if (const OptionValue* given = Given(id)) {
      std::vector<std::string> out;
      for (const ShellWord& word : given->values) out.push_back(word.text);
      return out;
    }
    return launcher_.Option(id)->default_value;
  }

  // Where an option's value came from, as a chain step.
  Note Origin(const std::string& id) const {
    const KnownOption& option = *launcher_.Option(id);
    if (const OptionValue* given = Given(id)) {
      std::string written = given->at.text;
      const bool separate =
          !given->values.empty() && given->values.front().where.start_byte != given->at.where.start_byte;
      if (separate) {
        for (const ShellWord& word : given->values) written += " " + word.text;
      }
      return StepAt(given->at, "`" + written + "`");
    }
    std::string shown;
    if (option.type == KnownOption::Type::kBool) {
      shown = option.default_bool ? "on" : "off";
    } else if (option.type == KnownOption::Type::kList) {
      for (const std::string& item : option.default_value) shown += (shown.empty() ? "" : ",") + item;
      shown = "[" + shown + "]";
    } else {
      shown = option.default_value.empty() ? "" : option.default_value.front();
    }
    std::string name = option.name;
    if (name.starts_with("*") && !role_.empty()) name = role_ + name.substr(1);
    return StepAt(anchor_, "`" + name + "` not given: " + launcher_.name + "'s default is " + shown);
  }

  TextLocation Where(const std::vector<std::string>& ids) const {
    for (const std::string& id : ids) {
      if (const OptionValue* given = Given(id)) return given->at.where;
    }
    return anchor_.where;
  }

  Setting Build(const std::string& name) const {
    Setting setting;
    setting.name = name;
    setting.where = anchor_.where;
    auto found = launcher_.settings.find(name);
    if (found == launcher_.settings.end()) return setting;  // not described: nothing to check
    const KnownSettingRule& rule = found->second;
    setting.remedy = rule.remedy.empty() ? launcher_.no_switch : rule.remedy;
    Value value;
    switch (rule.kind) {
      case KnownSettingRule::Kind::kFixed:
        value = rule.fixed;
        value.chain.push_back(
            {"", std::nullopt, launcher_.name + " sets it in " + launcher_.source + "; no option changes it"});
        break;
      case KnownSettingRule::Kind::kOption: {
        const KnownOption& option = *launcher_.Option(rule.option);
        setting.where = Where({rule.option});
        setting.written = Given(rule.option) != nullptr;
        if (option.type == KnownOption::Type::kBool) {
          value.kind = ValueKind::kBool;
          value.boolean = Flag(rule.option);
        } else if (option.type == KnownOption::Type::kList) {
          value.kind = ValueKind::kSequence;
          value.container = "list";
          for (const std::string& text : List(rule.option)) {
            Value item;
            item.kind = ValueKind::kString;
            item.text = text;
            value.items.push_back(std::move(item));
          }
        } else {
          const std::string text = Text(rule.option);
          auto mapped = rule.map.find(text);
          value.kind = ValueKind::kString;
          value.text = mapped != rule.map.end() ? mapped->second : text;
          if (IsProfilerLevel(name) && mapped != rule.map.end()) {
            value.kind = ValueKind::kEnum;
            value.container = "ProfilerLevel";
          }
          const OptionValue* given = Given(rule.option);
          if (given != nullptr && given->values.size() == 1 && !rule.map.empty()) {
            if (auto at = LiteralValueAt(given->values.front(), text)) {
              LauncherOptionValue spelled{*at, {}};
              for (const auto& [option_value, setting_value] : rule.map) {
                spelled.option_for.try_emplace(setting_value, option_value);
              }
              setting.launcher_option = std::move(spelled);
            }
          }
        }
        value.chain.push_back(Origin(rule.option));
        break;
      }
      case KnownSettingRule::Kind::kContains: {
        setting.where = Where({rule.option});
        setting.written = Given(rule.option) != nullptr;
        const std::vector<std::string> items = List(rule.option);
        value.kind = ValueKind::kBool;
        value.boolean = std::find(items.begin(), items.end(), rule.contains_item) != items.end();
        value.chain.push_back(Origin(rule.option));
        break;
      }
      case KnownSettingRule::Kind::kItems: {
        value.kind = ValueKind::kSequence;
        value.container = "list";
        std::vector<std::string> ids;
        for (const KnownSettingRule::Item& item : rule.items) {
          bool included = true;
          if (!item.if_option.empty()) {
            included = Flag(item.if_option);
            ids.push_back(item.if_option);
          }
          if (!item.if_contains.empty()) {
            const std::vector<std::string> list = List(item.if_contains);
            included = std::find(list.begin(), list.end(), item.contains_item) != list.end();
            ids.push_back(item.if_contains);
          }
          if (!included) continue;
          Value entry;
          entry.kind = ValueKind::kEnum;
          entry.container = "ProfilerActivity";
          entry.text = item.value;
          value.items.push_back(std::move(entry));
        }
        setting.where = Where(ids);
        for (const std::string& id : ids) value.chain.push_back(Origin(id));
        break;
      }
    }
    setting.values.push_back(std::move(value));
    return setting;
  }

  ProfilerCallSite Site(std::string role) const {
    ProfilerCallSite site;
    site.origin = SiteOrigin::kKnownLauncher;
    site.callee = launcher_.name + (role.empty() ? "" : " (" + role + ")");
    for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
      if (spec.site == nullptr) continue;
      if (spec.launcher) {
        site.*spec.site = Build(std::string(spec.Name()));
      } else {
        (site.*spec.site).where = anchor_.where;  // the package's call sets it; nothing to check
      }
    }
    return site;
  }

  /// A role whose profiler the package does not build (`roles_outside`): what it collects cannot
  /// be known from here. One unknown setting says so once (OPM004); the others stay empty.
  ProfilerCallSite SiteOutside(std::string role, const std::string& reason) const {
    ProfilerCallSite site;
    site.origin = SiteOrigin::kKnownLauncher;
    site.callee = launcher_.name + " (" + role + ")";
    for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
      if (spec.site != nullptr) (site.*spec.site).where = anchor_.where;
    }
    site.with_flops.name = "with_flops";
    python::Value unknown;
    unknown.unknown_reason = reason;
    site.with_flops.values.push_back(std::move(unknown));
    return site;
  }

 private:
  const KnownLauncher& launcher_;
  const std::map<std::string, OptionValue>& options_;
  ShellWord anchor_;
  std::string role_;
};

void CheckChoices(const KnownLauncher& launcher, const std::map<std::string, OptionValue>& options,
                  KnownLaunchFacts& facts) {
  for (const auto& [id, value] : options) {
    const KnownOption& option = *launcher.Option(id);
    if (!option.choices) continue;
    for (const ShellWord& word : value.values) {
      if (!word.known) continue;
      if (std::find(option.choices->begin(), option.choices->end(), word.text) != option.choices->end()) continue;
      const bool flags = launcher.style == KnownLauncher::Style::kFlags;
      const std::string written = flags ? option.name + " " + word.text : value.at.text;
      facts.choice_violations.push_back({word, written, *option.choices});
    }
  }
}

}  // namespace

const KnownLauncher* MatchKnownLauncher(const std::vector<const KnownLauncher*>& launchers, const Launch& launch,
                                        const std::function<std::optional<std::string>()>& read_script) {
  if (!launch.script.known) return nullptr;
  const std::string file_name = fs::path(launch.script.text).filename().string();
  // Several packages start from the same script name (Megatron's pretrain_gpt.py): the one whose
  // options the launch uses most wins; then the one that defines more; then the first.
  const KnownLauncher* best = nullptr;
  std::size_t best_used = 0;
  std::optional<std::optional<std::string>> script;  // read once, when a name matches
  const auto script_source = [&]() -> const std::optional<std::string>& {
    if (!script) script = read_script ? read_script() : std::nullopt;
    return *script;
  };
  for (const KnownLauncher* candidate : launchers) {
    const KnownLauncher& launcher = *candidate;
    const bool by_module = !launch.module.empty() && std::find(launcher.modules.begin(), launcher.modules.end(),
                                                               launch.module) != launcher.modules.end();
    const bool by_script = launch.module.empty() && std::find(launcher.scripts.begin(), launcher.scripts.end(),
                                                              file_name) != launcher.scripts.end();
    if (!by_module && !by_script) continue;
    if (!launcher.imports.empty() && script_source()) {
      // A script we can read must import the package (`import mindspeed_llm`, `from modellink import`).
      const std::string& source = *script_source();
      const bool imports = std::any_of(launcher.imports.begin(), launcher.imports.end(), [&](const std::string& name) {
        return source.find("import " + name) != std::string::npos || source.find("from " + name) != std::string::npos;
      });
      if (!imports) continue;
    }
    std::size_t used = 0;
    for (const ShellWord& word : launch.arguments) {
      const std::string_view text = word.text;
      used += static_cast<std::size_t>(
          std::any_of(launcher.options.begin(), launcher.options.end(), [&](const KnownOption& option) {
            return text == option.name || (text.starts_with(option.name) && text.size() > option.name.size() &&
                                           text[option.name.size()] == '=');
          }));
    }
    if (best == nullptr || used > best_used || (used == best_used && launcher.options.size() > best->options.size())) {
      best = candidate;
      best_used = used;
    }
  }
  return best;
}

namespace {

// The first of `enabled_by_env` the launch exports, as written (its value), or nullptr.
const ShellWord* EnablingVariable(const KnownLauncher& launcher, const Launch& launch) {
  for (const std::string& name : launcher.enabled_by_env) {
    if (const ShellWord* value = launch.Exported(name); value != nullptr && !(value->known && value->text.empty()))
      return value;
  }
  return nullptr;
}

// The project the launcher is in declares its own platform plugin (`other_platform.plugin`): the
// packaging file nearest above the launcher names the entry-point group, and the described
// package's own directory is not beside it (that would be the described project itself).
bool ProjectBringsItsOwnPlatform(const KnownLauncher& launcher, const Launch& launch, const FileReader& files) {
  if (launcher.platform_plugin_group.empty()) return false;
  std::filesystem::path directory = std::filesystem::path(launch.launcher).parent_path();
  for (int level = 0; level < 16; ++level) {
    for (const char* name : {"pyproject.toml", "setup.py", "setup.cfg"}) {
      const std::string path = (directory / name).string();
      if (files.Stat(path) != FileKind::kFile) continue;
      auto text = files.ReadFile(path);
      if (!text.ok() || text->find(launcher.platform_plugin_group) == std::string::npos) continue;
      return launcher.platform_package.empty() ||
             files.Stat((directory / launcher.platform_package).string()) != FileKind::kDirectory;
    }
    if (directory.empty() || directory == directory.root_path()) break;
    directory = directory.parent_path();
  }
  return false;
}

// The launch shows it runs where the description does not apply (`other_platform`). A value only
// known at run time shows nothing.
bool OnOtherPlatform(const KnownLauncher& launcher, const Launch& launch, const SiteBuilder& options,
                     const FileReader& files) {
  for (const std::string& name : launcher.other_platform_env) {
    if (launch.Exported(name) != nullptr) return true;
  }
  if (ProjectBringsItsOwnPlatform(launcher, launch, files)) return true;
  if (launcher.platform_option.empty()) return false;
  const OptionValue* given = options.Given(launcher.platform_option);
  if (given == nullptr || given->values.empty()) return launcher.platform_required;
  return given->values.front().known && given->values.front().text != launcher.platform_value;
}

}  // namespace

KnownLaunchFacts ReadKnownLaunch(const KnownLauncher& launcher, const Launch& launch, const FileReader& files) {
  KnownLaunchFacts facts;
  ShellWord command;
  command.text = launch.script.text;
  command.where = launch.command;
  if (launcher.style != KnownLauncher::Style::kHydra) {
    std::map<std::string, OptionValue> options;
    if (launcher.style == KnownLauncher::Style::kFlags) {
      options = ReadFlags(launcher, launch);
    } else if (auto config = FindYamlConfig(launch, files)) {
      command = config->first;  // what the config leaves out is reported at its name
      if (!config->second.empty()) {
        if (auto text = files.ReadFile(config->second); text.ok()) {
          options = ReadYamlOptions(launcher, config->second, std::move(*text));
        }
      }
    }
    CheckChoices(launcher, options, facts);
    const SiteBuilder shared(launcher, options, command);
    if (OnOtherPlatform(launcher, launch, shared, files)) return facts;
    const ShellWord* variable = EnablingVariable(launcher, launch);
    facts.profiling_enabled = shared.Enabled() || variable != nullptr;
    if (!facts.profiling_enabled) return facts;
    for (const auto& [name, why] : launcher.refused_env) {
      const ShellWord* value = launch.Exported(name);
      if (value != nullptr && value->known && TurnsOnMsMonitor(value->text, true)) {
        facts.refused.push_back({name, *value, why});
      }
    }
    // Findings land on what turned profiling on: the option, else the variable's value.
    const OptionValue* on = shared.GivenEnabling();
    const SiteBuilder builder(launcher, options, on != nullptr ? on->at : variable != nullptr ? *variable : command);
    facts.sites.push_back(builder.Site(""));
    return facts;
  }
  std::map<std::string, std::map<std::string, OptionValue>> by_role = ReadHydra(launcher, launch);
  std::map<std::string, OptionValue> global = by_role[""];
  for (const auto& [role, options] : by_role) CheckChoices(launcher, options, facts);
  const SiteBuilder global_builder(launcher, global, command);
  facts.profiling_enabled = global_builder.Enabled();
  if (!facts.profiling_enabled) return facts;
  const OptionValue* on = global_builder.GivenEnabling();
  const ShellWord anchor = on != nullptr ? on->at : command;
  bool any_role = false;
  for (auto& [role, options] : by_role) {
    if (role.empty()) continue;
    std::map<std::string, OptionValue> merged = options;
    merged.insert(global.begin(), global.end());
    // Defaults of a role are reported at its first override.
    const OptionValue* first = &options.begin()->second;
    for (const auto& [id, value] : options) {
      if (value.at.where.start_byte < first->at.where.start_byte) first = &value;
    }
    const SiteBuilder builder(launcher, merged, first->at, role);
    if (!launcher.role_enabled_by.empty() && !builder.Flag(launcher.role_enabled_by)) continue;  // not profiled
    any_role = true;
    if (auto outside = launcher.roles_outside.find(role); outside != launcher.roles_outside.end()) {
      facts.sites.push_back(builder.SiteOutside(role, outside->second));
      continue;
    }
    facts.sites.push_back(builder.Site(role));
  }
  if (!any_role) facts.sites.push_back(SiteBuilder(launcher, global, anchor).Site(""));
  return facts;
}

}  // namespace opmfu::linter
