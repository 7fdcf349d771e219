#pragma once
// The torch_npu profiler settings as every part of opmfu names them, one row each: the name, what
// a run records of it in profiler_info_<rank>.json, what MFU needs of it, whether a wrong value
// leaves OperatorMFU empty, and its line in `opmfu lint --run`. It sits below lint and analysis so
// that both read it: the linter's table (linter/profiler_settings.h) extends each row by its id
// with how Python, profiler_config.json and known launchers spell the setting; the engine reads
// the recorded values through it (engine/profiler_info.h); check-db's "MFU needs", `lint --run`'s
// comparison and the rank diagnoses look settings up here by id, never by a string of their own.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace opmfu {

/// One per row of the table, in its order. A new setting is a new id and a new row.
enum class SettingId : std::uint8_t {
  kWithFlops,
  kMsprofTx,
  kMstx,
  kMstxDomainInclude,
  kMstxDomainExclude,
  kExportType,
  kProfilerLevel,
  kActivities,
  kRecordShapes,
  kWithModules,
  kSchedule,
  kProfDir,
  kAnalyse,
  kAsyncMode,
  kProfileMemory,
  kWithStack,
  kOnTraceReady,
  kActive,
  kWarmup,
  kStartStep,
  kIsRank,
  kRankList,
  kMetadata,
  kExperimentalConfig,
  kIsValid,
  kAicMetrics,
  kL2Cache,
  kOpAttr,
  kRecordOpArgs,
  kSysIo,
  kSysInterconnection,
  kDataSimplification,
  kGcDetectThreshold,
  kHostSys,
};

/// Where profiler_info_<rank>.json holds a setting (`config.common_config` or
/// `config.experimental_config`), if opmfu reads it there.
enum class RecordedSection : std::uint8_t { kNotRead, kCommon, kExperimental };

/// How a recorded value is written: a bool, a text (a number is read as its text), a list of
/// strings (a lone string is a list of one: export_type before torch_npu v7.0.0), or the schedule's
/// object of step counts.
enum class RecordedForm : std::uint8_t { kBool, kText, kList, kSchedule };

struct SettingRow {
  SettingId id{};
  std::string_view name{};  ///< torch_npu's name: in messages, rules, launcher descriptions
  RecordedSection recorded_section = RecordedSection::kNotRead;
  std::string_view recorded_key{};    ///< its key in that section: "_msprof_tx"
  std::string_view recorded_label{};  ///< how check-db and the diagnoses name the recorded value
  RecordedForm recorded_form = RecordedForm::kBool;
  std::string_view mfu_needs{};  ///< what OperatorMFU needs of the recorded value (check-db); "" if nothing
  /// `opmfu lint --run` holds the traced value against the recorded one: its line in that
  /// comparison (1 first, the settings MFU needs before the others); 0: not compared.
  int run_listing = 0;
  /// A wrong value leaves OperatorMFU empty (a reset of it is an error; of the others, a warning).
  bool decisive = false;
  std::string_view summary{};  ///< one line for docs/settings.md
};

/// Every setting, in SettingId order: the recorded ones in the order check-db lists them.
std::span<const SettingRow> SettingRows();

/// The row of `id`.
const SettingRow& Row(SettingId id);

/// The row named `name` (torch_npu's name), or nullptr.
const SettingRow* FindSetting(std::string_view name);

/// How many settings there are: the size of an array indexed by SettingId.
inline constexpr std::size_t kSettingCount = static_cast<std::size_t>(SettingId::kHostSys) + 1;

}  // namespace opmfu
