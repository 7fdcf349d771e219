#pragma once
// The framework-op view beside the derived section: where a rank's Text export has
// operator_details.csv (record_shapes), the matmul-family and convolution ops with their logical
// input shapes (the model's, not the kernel's padded NC1HWC0 layout) and device time, FLOPs from
// the same formula code as every derived path (report/torch_op_flops). Only the innermost op of a
// decomposition is counted: operator_details.csv repeats a child's device time in its parents
// (aten::linear -> aten::addmm), so summing both would count the time twice.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opmfu::report {

struct ReportData;
struct DerivedRank;

struct FrameworkOpGroup {
  std::string name;          ///< "aten::mm"
  std::string input_shapes;  ///< "32,4096;4096,9216"
  std::size_t calls = 0;
  std::int64_t device_time = 0;  ///< ns, over the calls
  std::optional<double> flops;   ///< per call; nullopt with skip_reason
  std::string formula;
  std::string skip_reason;
  double peak_seconds = 0;    ///< over calls on ranks with a peak: the time their FLOPs take at it, s
  double time_with_peak = 0;  ///< their device time, s
  std::optional<double> mfu() const;
};

struct FrameworkOpView {
  std::size_t ranks_read = 0;            ///< ranks whose operator_details.csv was read
  std::vector<FrameworkOpGroup> groups;  ///< leaf ops, merged over ranks by name and shapes, by time
  std::int64_t device_time = 0;          ///< ns, every group
  std::int64_t derived_time = 0;         ///< ns, the groups with FLOPs
  double peak_seconds = 0;
  double time_with_peak = 0;
  std::vector<std::string> notes;  ///< one line each: a file not read, composite ops left out, ...
  std::optional<double> weighted_mfu() const;
};

/// Whether an op name is one the view derives, as a leaf or as a composite it leaves out.
bool IsFrameworkFormulaOp(std::string_view name);

/// Reads operator_details.csv of every rank of `data` that has one (beside a Db rank's database
/// too, when the run exported both); `ranks` are the derived section's, for each rank's FP16 peak.
/// Nullopt when no rank has the file.
std::optional<FrameworkOpView> BuildFrameworkOpView(const ReportData& data, std::span<const DerivedRank> ranks);

extern const char* const kFrameworkOpLabel;

}  // namespace opmfu::report
