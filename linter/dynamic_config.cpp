#include "linter/dynamic_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "common/tree_sitter.h"
#include "linter/profiler_config.h"
#include "linter/profiler_settings.h"

namespace opmfu::linter {

namespace {

using python::Value;
using python::ValueKind;

// Deeper JSON is never a profiler setting; cut it rather than recurse without bound.
constexpr int kMaxJsonNesting = 16;

// json.load also reads NaN, Infinity and -Infinity, and takes 1e999999 for inf; tree-sitter's
// JSON grammar knows none of the first three. Each is rewritten, outside strings, to a number of
// the same length (offsets and columns stay), NaN's offsets remembered.
struct PythonJsonText {
  std::string parsed;
  std::set<std::uint32_t> nan_at;
};

PythonJsonText ToStandardJson(std::string text) {
  PythonJsonText out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    const std::string_view rest(text.data() + i, text.size() - i);
    const bool word_start = i == 0 || std::isalnum(static_cast<unsigned char>(text[i - 1])) == 0;
    if (!word_start) continue;
    if (rest.starts_with("NaN")) {
      text.replace(i, 3, "0e0");
      out.nan_at.insert(static_cast<std::uint32_t>(i));
      i += 2;
    } else if (rest.starts_with("Infinity")) {
      text.replace(i, 8, "1e999999");
      i += 7;
    }
  }
  out.parsed = std::move(text);
  return out;
}

class JsonReader {
 public:
  JsonReader(const SyntaxTree& tree, std::shared_ptr<const TextSource> source, const std::set<std::uint32_t>& nan_at)
      : tree_(tree), source_(std::move(source)), nan_at_(nan_at) {}

  TextLocation Where(TSNode node) const { return {source_, ts_node_start_byte(node), ts_node_end_byte(node)}; }

  Value Convert(TSNode node, int depth) const {
    Value value;
    value.from_json = true;
    value.node = {};
    const std::string_view type = ts_node_type(node);
    if (depth > kMaxJsonNesting) {
      value.unknown_reason = "nested more than " + std::to_string(kMaxJsonNesting) + " levels deep";
      return value;
    }
    if (type == "true" || type == "false") {
      value.kind = ValueKind::kBool;
      value.boolean = type == "true";
    } else if (type == "null") {
      value.kind = ValueKind::kNone;
    } else if (type == "string") {
      value.kind = ValueKind::kString;
      value.text = DecodeString(node);
    } else if (type == "number") {
      const std::string_view text = tree_.Text(node);
      const nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
      if (nan_at_.contains(ts_node_start_byte(node))) {
        value.kind = ValueKind::kFloat;
        value.real = std::numeric_limits<double>::quiet_NaN();
      } else if (number.is_discarded() && text.find_first_of(".eE") != std::string_view::npos) {
        // Out of double's range (1e999999): json.load gives inf (or 0.0), as strtod does.
        value.kind = ValueKind::kFloat;
        value.real = std::strtod(std::string(text).c_str(), nullptr);
      } else if (number.is_number_integer()) {
        value.kind = ValueKind::kInt;
        value.integer = number.is_number_unsigned() ? static_cast<std::int64_t>(number.get<std::uint64_t>())
                                                    : number.get<std::int64_t>();
      } else if (number.is_number()) {
        value.kind = ValueKind::kFloat;
        value.real = number.get<double>();
      } else {
        value.unknown_reason = "`" + std::string(tree_.Text(node)) + "` is not a number json.load reads";
      }
    } else if (type == "array") {
      value.kind = ValueKind::kSequence;
      value.container = "list";
      for (std::uint32_t i = 0; i < ts_node_named_child_count(node); ++i) {
        TSNode child = ts_node_named_child(node, i);
        if (!IsType(child, "comment")) value.items.push_back(Convert(child, depth + 1));
      }
    } else if (type == "object") {
      value.kind = ValueKind::kDict;
      value.container = "dict";
      for (std::uint32_t i = 0; i < ts_node_named_child_count(node); ++i) {
        TSNode pair = ts_node_named_child(node, i);
        if (!IsType(pair, "pair")) continue;
        TSNode key = ChildByField(pair, "key");
        TSNode item = ChildByField(pair, "value");
        if (ts_node_is_null(key) || ts_node_is_null(item)) continue;
        value.keys.push_back(Convert(key, depth + 1));
        value.items.push_back(Convert(item, depth + 1));
      }
    } else {
      value.unknown_reason = "not a JSON value";
    }
    return value;
  }

  std::string DecodeString(TSNode string) const {
    const nlohmann::json decoded = nlohmann::json::parse(tree_.Text(string), nullptr, false);
    if (decoded.is_string()) return decoded.get<std::string>();
    std::string_view text = tree_.Text(string);  // an escape nlohmann rejects: keep it as written
    if (text.size() >= 2) text = text.substr(1, text.size() - 2);
    return std::string(text);
  }

  std::vector<JsonEntry> Pairs(TSNode object) const {
    std::vector<JsonEntry> out;
    for (std::uint32_t i = 0; i < ts_node_named_child_count(object); ++i) {
      TSNode pair = ts_node_named_child(object, i);
      if (!IsType(pair, "pair")) continue;
      TSNode key = ChildByField(pair, "key");
      TSNode value = ChildByField(pair, "value");
      if (!IsType(key, "string") || ts_node_is_null(value)) continue;
      JsonEntry entry;
      entry.key = DecodeString(key);
      entry.where = Where(pair);
      entry.value_where = Where(value);
      entry.value = Convert(value, 1);
      entry.json_type = ts_node_type(value);
      out.push_back(std::move(entry));
    }
    return out;
  }

 private:
  const SyntaxTree& tree_;
  std::shared_ptr<const TextSource> source_;
  const std::set<std::uint32_t>& nan_at_;
};

// Why json.load rejects the text, or nullopt: tree-sitter's errors, plus what its grammar allows
// and Python does not (comments, several top-level values).
std::optional<std::pair<TSNode, std::string>> JsonLoadProblem(const SyntaxTree& tree) {
  if (auto error = tree.FirstError()) {
    if (ts_node_is_missing(*error)) return std::pair{*error, "`" + std::string(ts_node_type(*error)) + "` is missing"};
    std::string_view text = tree.Text(*error);
    text = text.substr(0, text.find('\n'));
    if (text.size() > 20) text = text.substr(0, 20);
    return std::pair{*error,
                     text.empty() ? std::string("unexpected end of file") : "unexpected `" + std::string(text) + "`"};
  }
  std::optional<std::pair<TSNode, std::string>> found;
  WalkTree(tree.root(), [&](TSNode node) {
    if (found) return false;
    if (IsType(node, "comment")) {
      found = std::pair{node, std::string("JSON has no comments")};
      return false;
    }
    return true;
  });
  if (found) return found;
  TSNode root = tree.root();
  std::uint32_t values = 0;
  for (std::uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
    TSNode child = ts_node_named_child(root, i);
    if (IsType(child, "comment")) continue;
    if (++values == 2) return std::pair{child, std::string("a second top-level value (json.load: \"Extra data\")")};
  }
  if (values == 0) return std::pair{root, std::string("the file is empty")};
  return std::nullopt;
}

const JsonEntry* LastNamed(const std::vector<JsonEntry>& entries, std::string_view key) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->key == key) return &*it;
  }
  return nullptr;
}

}  // namespace

bool IsTopLevelKey(std::string_view key) { return FindJsonSetting(key, JsonLevel::kTop) != nullptr; }
bool IsExperimentalKey(std::string_view key) { return FindJsonSetting(key, JsonLevel::kExperimental) != nullptr; }

bool IsBooleanKey(std::string_view key) {
  for (const JsonLevel level : {JsonLevel::kTop, JsonLevel::kExperimental}) {
    const ProfilerSettingSpec* setting = FindJsonSetting(key, level);
    if (setting != nullptr && setting->type == SettingType::kBool && !setting->json_overwritten) return true;
  }
  return false;
}

std::vector<std::string> KnownConfigKeys() {
  std::vector<std::string> keys;
  for (const JsonLevel level : {JsonLevel::kTop, JsonLevel::kExperimental}) {
    for (const ProfilerSettingSpec& setting : ProfilerSettings()) {
      if (setting.json_level == level) keys.emplace_back(setting.json_key);
    }
  }
  return keys;
}

const JsonEntry* DynamicConfig::Top(std::string_view key) const { return LastNamed(top, key); }
const JsonEntry* DynamicConfig::Experimental(std::string_view key) const { return LastNamed(experimental, key); }

Result<DynamicConfig> ReadDynamicConfig(std::string path, std::string source) {
  auto original = std::make_shared<const std::string>(source);
  PythonJsonText standard = ToStandardJson(std::move(source));
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, ParseSource(Grammar::kJson, std::move(standard.parsed), {.file = path}));
  DynamicConfig config;
  // Findings quote the file as written (NaN, not the 0e0 parsed in its place).
  config.source = std::make_shared<const TextSource>(std::move(path), std::move(original));
  const JsonReader reader(tree, config.source, standard.nan_at);
  if (auto problem = JsonLoadProblem(tree)) config.invalid = std::pair{reader.Where(problem->first), problem->second};
  TSNode root = tree.root();
  TSNode object{};
  for (std::uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
    TSNode child = ts_node_named_child(root, i);
    if (IsType(child, "comment")) continue;
    object = child;
    break;
  }
  config.document = reader.Where(ts_node_is_null(object) ? root : object);
  config.top_is_object = IsType(object, "object");
  if (!config.top_is_object) return config;
  config.top = reader.Pairs(object);
  if (const JsonEntry* experimental = config.Top("experimental_config")) {
    config.experimental_config = *experimental;
    // Pairs of the last `experimental_config` only (json.load keeps the last).
    TSNode pair =
        ts_node_descendant_for_byte_range(object, experimental->where.start_byte, experimental->where.end_byte);
    while (!ts_node_is_null(pair) && !IsType(pair, "pair")) pair = ts_node_parent(pair);
    TSNode value = ChildByField(pair, "value");
    if (IsType(value, "object")) config.experimental = reader.Pairs(value);
  }
  return config;
}

namespace {

// The default of a key the config leaves out, with a chain step at `at` saying so.
Value DefaultValue(const TextLocation& at, const ProfilerSettingSpec& spec) {
  const SettingDefault& fallback = JsonDefault(spec);
  Value value;
  value.kind = fallback.kind;
  value.text = std::string(fallback.text);
  value.boolean = fallback.boolean;
  value.from_json = true;
  if (spec.type == SettingType::kProfilerLevel) value.container = "ProfilerLevel";
  value.chain.push_back(
      {at.file(), at.range().start,
       "`" + std::string(spec.json_key) + "` not in the config: defaults to " + std::string(fallback.json)});
  return value;
}

// What torch_npu makes of a JSON value: `getattr(ProfilerLevel, v, v)` turns an exact member name
// into the constant; activity names are upper-cased and looked up, unknown ones dropped.
Value Interpret(const ProfilerSettingSpec& spec, Value value) {
  if (spec.type == SettingType::kProfilerLevel && value.kind == ValueKind::kString && IsChoice(spec, value.text)) {
    value.kind = ValueKind::kEnum;
    value.container = "ProfilerLevel";
  }
  if (spec.type == SettingType::kActivities && value.kind == ValueKind::kSequence) {
    std::vector<Value> known;
    for (Value& item : value.items) {
      if (item.kind != ValueKind::kString) continue;
      std::string upper = item.text;
      std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
      if (!IsChoice(spec, upper)) continue;
      item.kind = ValueKind::kEnum;
      item.container = "ProfilerActivity";
      item.text = upper;
      known.push_back(std::move(item));
    }
    value.items = std::move(known);
  }
  return value;
}

// A traced setting from its key: the value json.load keeps, else the default (reported at the
// start of the object the key belongs in).
Setting JsonSetting(const DynamicConfig& config, const ProfilerSettingSpec& spec) {
  Setting setting;
  setting.name = std::string(spec.json_key);
  setting.remedy = std::string(spec.json_remedy);
  const bool experimental = spec.json_level == JsonLevel::kExperimental;
  const JsonEntry* entry = experimental ? config.Experimental(spec.json_key) : config.Top(spec.json_key);
  if (entry != nullptr) {
    setting.written = true;
    setting.where = entry->where;
    setting.values.push_back(Interpret(spec, entry->value));
    return setting;
  }
  setting.where = experimental && config.experimental_config ? config.experimental_config->where : config.Start();
  setting.values.push_back(DefaultValue(setting.where, spec));
  return setting;
}

}  // namespace

ProfilerCallSite DynamicConfigSite(const DynamicConfig& config) {
  ProfilerCallSite site;
  site.origin = SiteOrigin::kDynamicConfig;
  site.callee = "torch_npu.profiler.dynamic_profile";
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.site == nullptr) continue;
    // The experimental_config object holds settings; it is not one to trace.
    if (spec.json_level == JsonLevel::kNone || spec.type == SettingType::kExperimentalConfig) {
      (site.*spec.site).where = config.Start();
      continue;
    }
    site.*spec.site = JsonSetting(config, spec);
  }
  return site;
}

ProfilerFacts DynamicConfigFacts(std::shared_ptr<const DynamicConfig> config) {
  ProfilerFacts facts;
  if (config->top_is_object && !config->invalid) facts.sites.push_back(DynamicConfigSite(*config));
  facts.dynamic_config = std::move(config);
  return facts;
}

}  // namespace opmfu::linter
