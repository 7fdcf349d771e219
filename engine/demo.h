#pragma once
// `opmfu demo`: a realistic synthetic profiling directory, deterministic for a seed.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu::engine {

/// How the HCCL tasks of the communication ops are recorded: as newer CANN writes them
/// (COMMUNICATION_SCHEDULE_TASK_INFO) or as older CANN did (COMMUNICATION_TASK_INFO, as in MindStudio
/// Insight's public Level0-2 DBs). COMMUNICATION_OP is written either way.
enum class CommunicationTables { kSchedule, kTaskInfo };

/// Which exports `opmfu demo` writes for each rank: the profiler DB, torch_npu's Text export
/// (kernel_details.csv, trace_view.json), or both side by side (then analysis reads the DB unless
/// `--source text`).
enum class DemoExport { kDb, kText, kBoth };

struct DemoOptions {
  std::filesystem::path directory;
  int ranks = 2;
  int steps = 2;
  int layers = 4;  ///< transformer layers per step; each gives about 12 kernels
  std::uint64_t seed = 1;
  bool with_modules = true;
  CommunicationTables communication = CommunicationTables::kSchedule;
  DemoExport export_type = DemoExport::kDb;
};

struct DemoSummary {
  std::vector<std::filesystem::path> rank_directories;
  std::size_t kernels_per_rank = 0;
};

/// Writes `ranks` rank directories as torch_npu lays them out
/// (`<dir>/worker_<r>_<timestamp>_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<r>.db`
/// and `PROF_*/device_<r>/info.json.<r>`): per step a forward pass of transformer layers (Module
/// ranges, linear/attention/matmul FLOPs ranges, BF16, FP16 and INT8 kernels, elementwise
/// kernels without FLOPs), a backward pass with a gradient all-reduce per layer (outside every
/// Module range, as DDP's bucket hooks run), an optimizer step and a final all-reduce. Each all-reduce
/// is a `c10d::allreduce_` op with a COMMUNICATION_OP row and its HCCL device tasks.
Result<DemoSummary> WriteDemo(const DemoOptions& options);

}  // namespace opmfu::engine
