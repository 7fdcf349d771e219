#pragma once
// How much of a rank's device compute the MFU analysis covers, and where FLOPs went astray:
// ranges that reached no kernel, and kernels that carry a range's FLOPs without computing them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/operator_mfu.h"
#include "engine/profile_data.h"

namespace opmfu::engine {

/// Cube work: matmul, GEMM, convolution and attention kernels. Everything else charged with a
/// range's FLOPs (TransData, Cast, Transpose...) is an auxiliary kernel that only inherits them.
bool IsComputeKernelName(std::string_view kernel_name);

struct UnmatchedRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::string message;
  RangeOutcome::Fate fate = RangeOutcome::Fate::kNoOpInside;
};

struct AuxKernelCharge {
  std::string kernel_name;
  std::string flops_op_name;  ///< the op of the ranges it was charged by
  std::size_t count = 0;
  std::int64_t duration = 0;  ///< ns
};

/// FLOPs records of one op with one value, and how many reached a kernel.
struct RecordTally {
  std::string op_name;
  std::int64_t flops = 0;
  std::size_t records = 0;
  std::size_t charged = 0;
};

struct RankCoverage {
  bool calculated = false;  ///< false: the calculation stopped before reading the ranges
  std::size_t compute_kernels = 0;
  std::int64_t compute_time = 0;  ///< ns, every compute kernel with shapes rows (COMPUTE_TASK_INFO)
  std::size_t charged_kernels = 0;
  std::int64_t charged_time = 0;  ///< ns, the kernels some range charged
  std::size_t ranges = 0;         ///< mfu_flops ranges
  std::size_t charged_ranges = 0;
  std::vector<UnmatchedRange> unmatched;     ///< every range that reached no kernel, in order
  std::vector<AuxKernelCharge> aux_kernels;  ///< by kernel name, most time first
  std::vector<RecordTally> records;          ///< every well-formed record, by (op name, flops)

  double time_share() const { return compute_time > 0 ? static_cast<double>(charged_time) / compute_time : 0; }
  double range_share() const { return ranges > 0 ? static_cast<double>(charged_ranges) / ranges : 0; }
};

/// Coverage from the data and the calculation run on it (before the shapes are freed).
RankCoverage ComputeCoverage(const RankData& data, const MfuCalculation& calculation);

/// "no framework op starts inside it", for a report.
std::string_view FateReason(RangeOutcome::Fate fate);

}  // namespace opmfu::engine
