#pragma once
// `opmfu diff NPU_RUN GPU_TRACE`: an Ascend run against a PyTorch profiler trace from a GPU, op by
// op. Both sides are grouped by framework op and input shapes; a group is aligned with the other
// side's by op name and shapes (the same tensors in any order, each tensor's dimensions in any
// order: a transposed weight, a bias before or after), and, failing that, by op family and FLOPs
// per call (the same work under another op name or layout, e.g. Ascend's aten::linear against the
// GPU's aten::addmm), with a note saying which. Each aligned pair shows time, FLOPs, MFU and the
// gap; the NPU's lost time (what it would save at the GPU's MFU) ranks them (docs/cross-vendor.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace opmfu::report {

/// One side of an aligned op: its calls (compute kernels on the NPU), time and FLOPs.
struct VendorSide {
  std::string op_name;
  std::string input_shapes;
  std::size_t calls = 0;
  std::int64_t duration = 0;  ///< ns
  double flops = 0;           ///< per call
  double mfu_time = 0;        ///< sum of MFU x duration
  std::string flops_source;   ///< "recorded" (Ascend FLOPs records) or "derived"
  double mfu() const { return duration > 0 ? mfu_time / static_cast<double>(duration) : 0; }
};

enum class Alignment { kShapes, kReorderedShapes, kFlops, kNpuOnly, kGpuOnly };
const char* AlignmentNote(Alignment alignment);

struct CrossVendorRow {
  std::optional<VendorSide> npu;
  std::optional<VendorSide> gpu;
  Alignment alignment = Alignment::kShapes;
  /// ns the NPU would save at the GPU's MFU: duration x (1 - MFU_npu / MFU_gpu), 0 when not behind.
  double lost_time = 0;
  std::optional<double> gap() const;  ///< MFU points, NPU minus GPU
};

struct CrossVendorDiff {
  std::string npu_path;
  std::string gpu_path;
  std::string npu_peak;
  std::string gpu_peak;
  std::vector<CrossVendorRow> rows;  ///< aligned by lost time first, then one-sided ones by time
  std::int64_t npu_time = 0;
  std::int64_t gpu_time = 0;
  double npu_mfu = 0;  ///< time-weighted over the NPU's compute rows
  double gpu_mfu = 0;
  std::vector<std::string> notes;
};

/// `npu`: an Ascend run (its OperatorMFU compute rows); `gpu`: trace data (ReportData::traces set).
CrossVendorDiff DiffAcrossVendors(const ReportData& npu, const ReportData& gpu);

enum class CrossVendorFormat { kText, kMarkdown, kJson, kHtml };
std::string RenderCrossVendorDiff(const CrossVendorDiff& diff, CrossVendorFormat format, std::size_t top);

}  // namespace opmfu::report
