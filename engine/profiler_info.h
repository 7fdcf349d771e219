#pragma once
// `profiler_info_<rank>.json`: the configuration torch_npu recorded for the run, written into
// each `*_ascend_pt` directory. The only evidence after the fact of what collection really used
// (shared/spec/collection-config.md), so diagnoses quote it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu::engine {

struct RecordedConfig {
  std::filesystem::path file;
  // Each setting is absent when the file does not record it (older layouts lack some keys).
  std::optional<bool> with_flops;
  std::optional<bool> record_shapes;
  std::optional<bool> with_modules;
  std::optional<bool> msprof_tx;                        ///< experimental_config._msprof_tx
  std::optional<bool> mstx;                             ///< experimental_config._mstx (newer releases)
  std::optional<std::string> profiler_level;            ///< "Level0", "Level1", "Level2", "Level_none"
  std::optional<std::vector<std::string>> export_type;  ///< a string in older layouts, a list in newer
  std::optional<std::vector<std::string>> activities;   ///< e.g. "ProfilerActivity.CPU"
  std::optional<std::vector<std::string>> mstx_domain_include;
  std::optional<std::vector<std::string>> mstx_domain_exclude;
  std::optional<std::string> schedule;  ///< "wait=0 warmup=10 active=1 repeat=1 skip_first=40"
  std::optional<std::string> torch_npu_version;
  std::optional<std::string> cann_version;
  std::optional<std::int64_t> rank_id;
};

/// One recorded setting that keeps FLOPs records or their kernels out of OperatorMFU.
struct RecordedBlocker {
  std::string setting;  ///< as recorded, e.g. "with_flops=false"
  std::string effect;   ///< what it does to MFU
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

/// Every recorded setting MFU depends on, one "name: value" per entry, "not recorded" where the
/// file lacks it; for `check-db`.
std::vector<std::pair<std::string, std::string>> RecordedSettings(const RecordedConfig& config);

}  // namespace opmfu::engine
