#pragma once
// The linter's half of the settings table: each row of common/profiler_settings.h (the name, what a
// run records, what MFU needs), extended by its id with how the Python API spells the setting
// (which call takes it, under which keyword and position), its key in the dynamic profiler's
// profiler_config.json, whether a known-launcher description may compute it, its type, the
// values torch_npu accepts and its default. The Python reader (profiler_config), the JSON reader
// (dynamic_config) and the known-launcher reader (known_launchers) iterate this table rather than
// naming settings one by one, and docs/settings.md is written from it (a test holds the two
// equal). Sources: shared/spec/collection-config.md sections 1.2, 2.2 and 4.2.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/profiler_settings.h"
#include "python/value.h"

namespace opmfu::linter {

struct ProfilerCallSite;
struct Setting;

/// The Python call a setting is an argument of.
enum class PythonCall {
  kNone,                ///< no Python argument that opmfu reads (a dynamic-profiler key only)
  kProfile,             ///< torch_npu.profiler.profile(...), _KinetoProfile(...)
  kExperimentalConfig,  ///< torch_npu.profiler._ExperimentalConfig(...), the profile's `experimental_config`
  kTraceHandler,        ///< torch_npu.profiler.tensorboard_trace_handler(...), the profile's `on_trace_ready`
};

/// Where profiler_config.json holds a key.
enum class JsonLevel { kNone, kTop, kExperimental };

enum class SettingType {
  kBool,
  kProfilerLevel,       ///< a ProfilerLevel member; JSON: its name, `getattr(ProfilerLevel, v, v)`
  kExportType,          ///< "text"/"db" or a list of them
  kActivities,          ///< a list of ProfilerActivity; JSON: names, upper-cased
  kStringList,          ///< a list of str (mstx domains, host_sys)
  kString,              ///< a str (aic_metrics, prof_dir)
  kNumber,              ///< an int or float (steps, gc_detect_threshold)
  kIntList,             ///< a list of int (rank_list)
  kObject,              ///< a JSON object (metadata)
  kCallable,            ///< a callable argument (schedule, on_trace_ready)
  kExperimentalConfig,  ///< the `_ExperimentalConfig` that holds the experimental settings
};

/// What torch_npu uses when a setting is not given, as a traced value and as each reader says it.
struct SettingDefault {
  python::ValueKind kind = python::ValueKind::kNone;
  std::string_view text{};  ///< a string's or enum member's text
  bool boolean = false;
  std::string_view python{};  ///< in messages about Python code: "False", "ProfilerLevel.Level0", "CPU and NPU"
  std::string_view json{};    ///< in messages about profiler_config.json: "false", "\"Level0\"", "null"
};

/// A row of the settings table (common/profiler_settings.h) extended with the linter's spellings.
struct ProfilerSettingSpec {
  SettingId id{};  ///< the shared row: name, what is recorded, what MFU needs, `decisive`, `run_listing`
  SettingType type = SettingType::kBool;
  std::span<const std::string_view> choices{};  ///< the values torch_npu accepts (members, list items), if few
  SettingDefault fallback;
  /// The dynamic profiler's own default, where it differs from the Python API's (`analyse`).
  std::optional<SettingDefault> json_fallback{};
  PythonCall python_call = PythonCall::kNone;
  std::string_view python_keyword{};  ///< the argument's keyword (`analyse_flag` for `analyse`)
  int python_position = -1;           ///< its positional index in that call; -1: keyword only
  JsonLevel json_level = JsonLevel::kNone;
  std::string_view json_key{};
  std::string_view json_remedy{};  ///< the help of a finding on a traced JSON key: what MFU wants there
  bool launcher = false;           ///< a known-launcher description may compute it (its `settings:`)
  /// torch_npu writes the key itself when it loads the file (`is_valid`): what the file says does
  /// not matter, so its type is not checked.
  bool json_overwritten = false;
  /// The setting's place in ProfilerCallSite, where every reader traces it; nullptr for a setting
  /// that is only known (a JSON key checked for its place and type, not traced).
  Setting ProfilerCallSite::*site = nullptr;

  const SettingRow& Shared() const { return Row(id); }
  std::string_view Name() const { return Row(id).name; }
};

/// Every setting, in the order torch_npu reads them.
std::span<const ProfilerSettingSpec> ProfilerSettings();

/// The row of torch_npu setting `name`, or nullptr.
const ProfilerSettingSpec* FindProfilerSetting(std::string_view name);

/// The row whose profiler_config.json key is `key` at `level`, or nullptr.
const ProfilerSettingSpec* FindJsonSetting(std::string_view key, JsonLevel level);

/// The default the JSON reader uses.
const SettingDefault& JsonDefault(const ProfilerSettingSpec& setting);

/// Whether `text` is one of the row's choices.
bool IsChoice(const ProfilerSettingSpec& setting, std::string_view text);

/// docs/settings.md's table, one row per setting, written from the table.
std::string ProfilerSettingsMarkdown();

/// The settings a known-launcher description may name, as docs/launchers.md lists them.
std::string LauncherSettingsMarkdown();

}  // namespace opmfu::linter
