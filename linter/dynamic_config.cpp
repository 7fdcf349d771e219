#include "linter/dynamic_config.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "common/tree_sitter.h"
#include "linter/profiler_config.h"

namespace opmfu::linter {

namespace {

using python::Value;
using python::ValueKind;

// torch_npu's `_parse_cfg_json_exp_cfg` and the top level of `_DynamicProfilerConfigContext`.
constexpr std::array kTopLevelKeys = {"activities",    "prof_dir",       "analyse",    "async_mode",
                                      "record_shapes", "profile_memory", "with_stack", "with_flops",
                                      "with_modules",  "active",         "warmup",     "start_step",
                                      "is_rank",       "rank_list",      "metadata",   "experimental_config",
                                      "is_valid"};
constexpr std::array kExperimentalKeys = {"profiler_level",
                                          "aic_metrics",
                                          "l2_cache",
                                          "op_attr",
                                          "record_op_args",
                                          "msprof_tx",
                                          "mstx",
                                          "sys_io",
                                          "sys_interconnection",
                                          "data_simplification",
                                          "gc_detect_threshold",
                                          "export_type",
                                          "mstx_domain_include",
                                          "mstx_domain_exclude",
                                          "host_sys"};
constexpr std::array kBooleanKeys = {"analyse",    "async_mode", "record_shapes",       "profile_memory",
                                     "with_stack", "with_flops", "with_modules",        "is_rank",
                                     "l2_cache",   "op_attr",    "record_op_args",      "msprof_tx",
                                     "mstx",       "sys_io",     "sys_interconnection", "data_simplification"};

template <std::size_t N>
bool Contains(const std::array<const char*, N>& keys, std::string_view key) {
  return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
}

// Deeper JSON is never a profiler setting; cut it rather than recurse without bound.
constexpr int kMaxDepth = 16;

class JsonReader {
 public:
  JsonReader(const SyntaxTree& tree, std::shared_ptr<const TextSource> source)
      : tree_(tree), source_(std::move(source)) {}

  TextLocation Where(TSNode node) const { return {source_, ts_node_start_byte(node), ts_node_end_byte(node)}; }

  Value Convert(TSNode node, int depth) const {
    Value value;
    value.from_json = true;
    value.node = {};
    const std::string_view type = ts_node_type(node);
    if (depth > kMaxDepth) {
      value.unknown_reason = "nested more than " + std::to_string(kMaxDepth) + " levels deep";
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
      const nlohmann::json number = nlohmann::json::parse(tree_.Text(node), nullptr, false);
      if (number.is_number_integer()) {
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

bool IsTopLevelKey(std::string_view key) { return Contains(kTopLevelKeys, key); }
bool IsExperimentalKey(std::string_view key) { return Contains(kExperimentalKeys, key); }
bool IsBooleanKey(std::string_view key) { return Contains(kBooleanKeys, key); }

std::vector<std::string> KnownConfigKeys() {
  std::vector<std::string> keys(kTopLevelKeys.begin(), kTopLevelKeys.end());
  keys.insert(keys.end(), kExperimentalKeys.begin(), kExperimentalKeys.end());
  return keys;
}

const JsonEntry* DynamicConfig::Top(std::string_view key) const { return LastNamed(top, key); }
const JsonEntry* DynamicConfig::Experimental(std::string_view key) const { return LastNamed(experimental, key); }

Result<DynamicConfig> ReadDynamicConfig(std::string path, std::string source) {
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, ParseSource(Grammar::kJson, std::move(source)));
  DynamicConfig config;
  config.source = std::make_shared<const TextSource>(TextSource{std::move(path), tree.shared_source()});
  const JsonReader reader(tree, config.source);
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

// A default for a key the config leaves out, with a chain step saying so.
Value DefaultValue(const TextLocation& at, ValueKind kind, std::string text, bool boolean, std::string what) {
  Value value;
  value.kind = kind;
  value.text = std::move(text);
  value.boolean = boolean;
  value.from_json = true;
  if (kind == ValueKind::kEnum) value.container = "ProfilerLevel";
  value.chain.push_back({at.file(), at.range().start, std::move(what)});
  return value;
}

// What torch_npu makes of a JSON value: `getattr(ProfilerLevel, v, v)` turns an exact member name
// into the constant; activity names are upper-cased and looked up, unknown ones dropped.
Value Interpret(std::string_view key, Value value) {
  if (key == "profiler_level" && value.kind == ValueKind::kString) {
    for (const char* level : {"Level_none", "Level0", "Level1", "Level2"}) {
      if (value.text == level) {
        value.kind = ValueKind::kEnum;
        value.container = "ProfilerLevel";
      }
    }
  }
  if (key == "activities" && value.kind == ValueKind::kSequence) {
    std::vector<Value> known;
    for (Value& item : value.items) {
      if (item.kind != ValueKind::kString) continue;
      std::string upper = item.text;
      std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
      if (upper != "CPU" && upper != "NPU") continue;
      item.kind = ValueKind::kEnum;
      item.container = "ProfilerActivity";
      item.text = upper;
      known.push_back(std::move(item));
    }
    value.items = std::move(known);
  }
  return value;
}

Setting JsonSetting(const DynamicConfig& config, bool experimental, std::string name, Value fallback,
                    std::string remedy) {
  Setting setting;
  setting.name = std::move(name);
  setting.remedy = std::move(remedy);
  const JsonEntry* entry = experimental ? config.Experimental(setting.name) : config.Top(setting.name);
  if (entry != nullptr) {
    setting.written = true;
    setting.where = entry->where;
    setting.values.push_back(Interpret(setting.name, entry->value));
    return setting;
  }
  setting.where = experimental && config.experimental_config ? config.experimental_config->where : config.Start();
  setting.values.push_back(std::move(fallback));
  return setting;
}

}  // namespace

ProfilerCallSite DynamicConfigSite(const DynamicConfig& config) {
  ProfilerCallSite site;
  site.origin = SiteOrigin::kDynamicConfig;
  site.callee = "torch_npu.profiler.dynamic_profile";
  const TextLocation top = config.Start();
  const TextLocation inner = config.experimental_config ? config.experimental_config->where : top;
  const auto absent = [](std::string_view key, std::string_view default_text) {
    return "`" + std::string(key) + "` not in the config: defaults to " + std::string(default_text);
  };
  const auto boolean = [&](const TextLocation& at, std::string_view key) {
    return DefaultValue(at, ValueKind::kBool, "", false, absent(key, "false"));
  };
  site.with_flops = JsonSetting(config, false, "with_flops", boolean(top, "with_flops"),
                                "set `\"with_flops\": true` at the top level of the config");
  Value cpu_and_npu = DefaultValue(top, ValueKind::kNone, "", false, absent("activities", "[\"CPU\", \"NPU\"]"));
  site.activities = JsonSetting(config, false, "activities", std::move(cpu_and_npu),
                                "set `\"activities\": [\"CPU\", \"NPU\"]` at the top level of the config");
  site.record_shapes = JsonSetting(config, false, "record_shapes", boolean(top, "record_shapes"),
                                   "set `\"record_shapes\": true` at the top level of the config");
  site.with_modules = JsonSetting(config, false, "with_modules", boolean(top, "with_modules"),
                                  "set `\"with_modules\": false` unless you need call stacks");
  site.profiler_level =
      JsonSetting(config, true, "profiler_level",
                  DefaultValue(inner, ValueKind::kEnum, "Level0", false, absent("profiler_level", "\"Level0\"")),
                  "set `\"profiler_level\": \"Level1\"` inside `experimental_config`");
  const std::string mstx_remedy = "set `\"mstx\": true` and `\"msprof_tx\": true` inside `experimental_config`";
  site.mstx = JsonSetting(config, true, "mstx", boolean(inner, "mstx"), mstx_remedy);
  site.msprof_tx = JsonSetting(config, true, "msprof_tx", boolean(inner, "msprof_tx"), mstx_remedy);
  site.export_type =
      JsonSetting(config, true, "export_type",
                  DefaultValue(inner, ValueKind::kString, "text", false, absent("export_type", "\"text\"")),
                  "set `\"export_type\": [\"db\"]` (or `[\"text\", \"db\"]`) inside `experimental_config`");
  site.mstx_domain_include =
      JsonSetting(config, true, "mstx_domain_include",
                  DefaultValue(inner, ValueKind::kNone, "", false, absent("mstx_domain_include", "null")),
                  "add `\"mfu_flops\"` to `mstx_domain_include`, or remove the key");
  site.mstx_domain_exclude =
      JsonSetting(config, true, "mstx_domain_exclude",
                  DefaultValue(inner, ValueKind::kNone, "", false, absent("mstx_domain_exclude", "null")),
                  "remove `\"mfu_flops\"` from `mstx_domain_exclude`");
  for (Setting* setting : {&site.on_trace_ready, &site.schedule, &site.experimental_config}) {
    setting->where = top;
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
