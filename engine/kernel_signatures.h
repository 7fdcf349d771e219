#pragma once
// A rank's compute kernels grouped by signature, read by the analysis' own scan when asked
// (RankInput::with_kernel_signatures), so that the report's derived section (report/derived_mfu)
// needs no second read of TASK and COMPUTE_TASK_INFO. engine/ only counts and times the kernels;
// what a signature means (its FLOPs) is report/'s business.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/sqlite.h"

namespace opmfu::engine {

/// One signature: COMPUTE_TASK_INFO's name, opType, inputFormats, inputDataTypes, inputShapes,
/// outputFormats, outputDataTypes and outputShapes, their STRING_IDS values as stored (shapes
/// still in their quotes; "" for NULL or an id STRING_IDS lacks), and its kernels' count and time.
struct KernelSignatureGroup {
  std::array<std::string, 8> columns;
  std::size_t count = 0;
  std::int64_t duration = 0;  ///< ns: the sum over its kernels of max(0, TASK.endNs - TASK.startNs)
  /// The hardware counters of its kernels, where the export has them (kernel_details.csv's
  /// aic_mac_ratio with aic_metrics=PipeUtilization, aic_cube_fops with ArithmeticUtilization):
  /// the sum of aic_mac_ratio x duration (ns) over the kernels with a ratio, and their duration;
  /// the sum of aic_cube_fops over the kernels with a count, and their duration.
  double mac_ratio_time = 0;
  std::int64_t mac_duration = 0;
  double cube_fops = 0;
  std::int64_t fops_duration = 0;
};

/// One kernel: its TASK.startNs (what an OperatorMFU row's kernel_start is) and its group.
struct KernelStart {
  std::int64_t start = 0;
  std::uint32_t group = 0;
};

/// Every COMPUTE_TASK_INFO row with a TASK row of its globalTaskId (the first one in storage order,
/// if several): the kernels that ran.
struct KernelSignatures {
  std::vector<KernelSignatureGroup> groups;  ///< in the order of their first kernel in COMPUTE_TASK_INFO
  /// In COMPUTE_TASK_INFO order; empty when the rank has no OperatorMFU rows to compare with.
  std::vector<KernelStart> kernels;
  /// The counters above were read (a column with at least one value other than 0 or N/A: an
  /// all-zero column is one the run did not collect).
  bool has_mac_ratio = false;
  bool has_cube_fops = false;
  /// The AI Core clock the trace measured: the median of trace_view.json's `AI Core Freq` samples.
  std::optional<double> measured_aicore_mhz;
};

/// The same grouping read with SQL from a rank DB (read-only), for a rank the scan did not read
/// (a layout it declines, a rank whose analysis failed): TASK and STRING_IDS into memory, then one
/// pass over COMPUTE_TASK_INFO.
Result<KernelSignatures> ReadKernelSignatures(Database& db);

}  // namespace opmfu::engine
