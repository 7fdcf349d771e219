#pragma once
// `profiler_info_<rank>.json`: the configuration torch_npu recorded for the run, written into
// each `*_ascend_pt` directory. The only evidence after the fact of what collection really used
// (shared/spec/collection-config.md), so diagnoses quote it.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/profiler_settings.h"
#include "common/result.h"

namespace opmfu::engine {

/// A recorded value in its row's RecordedForm: a bool, a text ("Level1"; the schedule as
/// "wait=0 warmup=10 active=1 repeat=1 skip_first=40"), or a list of strings.
using RecordedValue = std::variant<bool, std::string, std::vector<std::string>>;

struct RecordedConfig {
  std::filesystem::path file;
  /// Each setting the table says is recorded, by SettingId; absent when the file does not record
  /// it (older layouts lack some keys) or records it in another type.
  std::array<std::optional<RecordedValue>, kSettingCount> values{};
  std::optional<std::string> torch_npu_version;
  std::optional<std::string> cann_version;
  std::optional<std::int64_t> rank_id;

  std::optional<bool> Bool(SettingId id) const;
  const std::string* Text(SettingId id) const;               ///< nullptr when not recorded
  const std::vector<std::string>* List(SettingId id) const;  ///< nullptr when not recorded
};

/// One recorded setting that keeps FLOPs records or their kernels out of OperatorMFU.
struct RecordedBlocker {
  SettingId id;         ///< the setting (the first one, for "_msprof_tx=false, _mstx=false")
  std::string setting;  ///< as recorded, e.g. "with_flops=false"
  std::string effect;   ///< what it does to MFU
};

/// A recorded setting as check-db lists it.
struct RecordedEntry {
  std::string label;           ///< "with_flops", "_msprof_tx", ..., "torch_npu"
  std::string value;           ///< "true", "[db]", "not recorded"
  std::string_view mfu_needs;  ///< what MFU needs of it; "" when nothing
};

/// Finds `profiler_info_<rank>.json` (else `profiler_info.json`, else the only
/// `profiler_info_*.json`) directly in the rank directory. nullopt when there is none; an
/// Error when one is there but is not a JSON object.
Result<std::optional<RecordedConfig>> ReadRecordedConfig(const std::filesystem::path& rank_directory,
                                                         std::optional<std::int64_t> rank_id);

/// The rank a directory's `profiler_info_<n>.json` names, if any (for directories that were never
/// parsed and so have no database to name it).
std::optional<std::int64_t> RankFromProfilerInfoName(const std::filesystem::path& rank_directory);

/// The recorded settings that stop FLOPs records from being written (with_flops off, msTX off,
/// the mfu_flops domain filtered out). Only definite ones: a setting whose effect depends on the
/// torch_npu release (mstx=true with msprof_tx=false) is not listed.
std::vector<RecordedBlocker> FlopsBlockers(const RecordedConfig& config);

/// The recorded settings that stop kernels from being linked to ops or given shapes (CPU activity
/// off, Level0, record_shapes off).
std::vector<RecordedBlocker> KernelBlockers(const RecordedConfig& config);

/// "this run had with_flops=false, _msprof_tx=false (profiler_info_0.json)", or "" without blockers.
std::string DescribeBlockers(const std::vector<RecordedBlocker>& blockers, const RecordedConfig& config);

/// Every setting the table says is recorded, in its order, then the torch_npu version; "not
/// recorded" where the file lacks it; for `check-db`.
std::vector<RecordedEntry> RecordedSettings(const RecordedConfig& config);

}  // namespace opmfu::engine
