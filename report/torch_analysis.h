#pragma once
// PyTorch profiler traces (CUDA, ROCm) as profiling data: every trace is one rank, read by
// engine/torch_trace, its kernels linked to their ops (engine/torch_trace_link), each op's FLOPs
// derived from its inputs (report/torch_op_flops) and measured against the GPU's dense peak
// (report/gpu_peaks). The result is a ReportData like a profiling directory's: OperatorMFU-shaped
// rows (one per kernel of a derived op, the op's FLOPs shared by kernel time) for report, gate,
// diff and audit, and a derived section (per op and input shapes) for `--derived`.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "report/report.h"
#include "report/torch_op_flops.h"

namespace opmfu::report {

struct TraceOptions {
  /// --peak-tflops: every op is measured against this figure, whatever its dtype.
  std::optional<double> peak_tflops;
  unsigned jobs = 0;  ///< traces read at once (0: one per core)
};

/// One framework op at one set of input shapes, on one rank.
struct TraceOpGroup {
  std::int64_t rank_id = 0;
  std::string op_name;
  std::string input_shapes;  ///< Input Dims as "888,2880;2880,640;;" (Ascend's shape-list spelling)
  std::string input_types;   ///< "c10::BFloat16;c10::BFloat16"
  std::string kernel_name;   ///< the longest-running kernel of the group
  TorchOpFlops derived;
  std::size_t calls = 0;  ///< op calls that launched a kernel
  std::size_t kernels = 0;
  std::int64_t duration = 0;  ///< ns of the kernels
  std::optional<double> peak_flops;
  double flops() const { return derived.flops.value_or(0) * static_cast<double>(calls); }
  /// FLOPs over kernel time and the peak; nullopt without FLOPs, time or a peak.
  std::optional<double> mfu() const;
};

struct TraceRank {
  std::int64_t rank_id = 0;
  std::filesystem::path path;
  std::string device;  ///< deviceProperties name of the kernels' device
  std::string runtime;
  std::string peak_source;  ///< which peak and why, one line
  bool shapes_recorded = true;
  std::size_t kernels = 0;
  std::int64_t kernel_time = 0;
  std::size_t by_external_id = 0;
  std::size_t by_correlation = 0;
  std::size_t graph_kernels = 0;
  std::size_t unattributed = 0;
  std::int64_t unattributed_time = 0;
  std::string unattributed_reason;  ///< the commonest reason
  std::int64_t derived_time = 0;    ///< kernel time of ops with derived FLOPs
  std::size_t ops = 0;
};

struct TraceAnalysis {
  std::vector<TraceRank> ranks;
  std::vector<TraceOpGroup> groups;  ///< by rank, then kernel time (largest first)
  /// Total FLOPs of the matmul family (mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm) per
  /// rank, for the check against an independent count (docs/cross-vendor.md).
  std::vector<double> matmul_flops;
};

/// The traces `path` names when it is GPU trace data: a `*.json`/`*.json.gz` file, or a directory
/// with traces and no Ascend profiling data (which keeps its own reader). nullopt otherwise.
std::optional<std::vector<std::filesystem::path>> TorchTraceInputs(const std::filesystem::path& path);

/// Reads the traces (read-only) and builds the report data. `named` is what the user gave (-d).
Result<ReportData> LoadTorchTraces(const std::vector<std::filesystem::path>& traces, const std::filesystem::path& named,
                                   const TraceOptions& options);

/// `opmfu analyze -d TRACE`: the OperatorMFU rows written as `export_type` asks below
/// <output>/cluster_analysis_output (output: the trace's directory by default), and with `derived`
/// the DerivedMFU table beside them. Returns the analysis (its `written`), and the DerivedMFU rows.
struct TraceWriteResult {
  engine::AnalyzeReport analysis;
  std::optional<std::size_t> derived_rows;
};
Result<TraceWriteResult> WriteTorchTraceAnalysis(const std::vector<std::filesystem::path>& traces,
                                                 const std::filesystem::path& named, engine::ExportType export_type,
                                                 const std::optional<std::filesystem::path>& output,
                                                 const TraceOptions& options, bool derived);

/// The derived section of trace data (ReportData::traces): the ops' groups as DerivedGroups.
DerivedSection TraceDerivedSection(const TraceAnalysis& analysis, bool keep_rank_groups);

}  // namespace opmfu::report
