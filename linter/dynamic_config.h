#pragma once
// The dynamic profiler's `profiler_config.json` (torch_npu `dynamic_profile.init(dir)` and the
// non-intrusive `PROF_CONFIG_PATH=dir`), read with tree-sitter-json so every finding can point at
// a key. Its settings feed the same ProfilerCallSite model as a `profile(...)` call; where a key
// sits and how its value is typed are kept for the JSON-only rules (OPM301-OPM304).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/text_location.h"
#include "python/module.h"

namespace opmfu::linter {

struct ProfilerCallSite;

/// One `"key": value` pair of the config's top-level object or of its `experimental_config`.
struct JsonEntry {
  std::string key;
  TextLocation where;        ///< the whole pair
  TextLocation value_where;  ///< the value only
  python::Value value;       ///< JSON mapped to Python: true -> True, [..] -> list, {..} -> dict
  std::string json_type;     ///< "string", "number", "true", "false", "null", "array", "object"
};

struct DynamicConfig {
  std::shared_ptr<const TextSource> source;
  TextLocation document;  ///< the top-level object (or the whole file when it is not one)
  bool top_is_object = false;
  std::vector<JsonEntry> top;  ///< in file order; a repeated key appears twice (json.load keeps the last)
  std::optional<JsonEntry> experimental_config;
  std::vector<JsonEntry> experimental;  ///< the pairs of `experimental_config` when it is an object
  /// Why Python's json.load rejects the file (then torch_npu ignores every key); nullopt when valid.
  std::optional<std::pair<TextLocation, std::string>> invalid;

  /// The document's first character: where a key it leaves out is reported.
  TextLocation Start() const { return {document.source, document.start_byte, document.start_byte + 1}; }
  /// The entry json.load keeps for `key` (the last one), or nullptr.
  const JsonEntry* Top(std::string_view key) const;
  const JsonEntry* Experimental(std::string_view key) const;
};

/// Parses the text of a profiler_config.json. Fails only when tree-sitter cannot run; a file that
/// is not valid JSON gives a config with `invalid` set.
Result<DynamicConfig> ReadDynamicConfig(std::string path, std::string source);

/// The settings torch_npu's dynamic profiler builds its `profile(...)` from, with each key's JSON
/// location and what to write there. Values torch_npu would reset (`"true"`, `"level1"`) are kept
/// as written; OPM302 reports them.
ProfilerCallSite DynamicConfigSite(const DynamicConfig& config);

/// Keys torch_npu reads at the top level, and inside `experimental_config`.
bool IsTopLevelKey(std::string_view key);
bool IsExperimentalKey(std::string_view key);
/// Every key torch_npu reads, at either level (for "did you mean").
std::vector<std::string> KnownConfigKeys();
/// Keys whose JSON value must be a boolean.
bool IsBooleanKey(std::string_view key);

}  // namespace opmfu::linter
