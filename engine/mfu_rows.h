#pragma once
// The rows of the two output tables, column for column (shared/spec/mfu-analysis.md 4.4, 5.8).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opmfu::engine {

struct OperatorMfuRow {
  std::int64_t rank_id = 0;
  std::optional<std::string> op_name;
  std::optional<std::string> kernel_name;
  std::int64_t kernel_start = 0;
  std::int64_t kernel_end = 0;
  std::int64_t kernel_duration = 0;
  double mfu = 0;               ///< rounded to 4 decimals; a ratio, not a percentage
  double actual_tflops = 0;     ///< rounded to 2 decimals
  double chip_peak_tflops = 0;  ///< rounded to 2 decimals
  std::int64_t flops = 0;
  std::string flops_op_name;
  std::optional<std::string> input_shapes;
  std::optional<std::string> output_shapes;
};

struct ModuleMfuRow {
  std::int64_t rank_id = 0;
  std::string parent_module;
  std::string module;
  std::string op_name;
  std::string kernel_list;
  double total_kernel_duration = 0;
  double avg_kernel_duration = 0;
  std::int64_t op_count = 0;
  std::string avg_mfu;
};

/// One kernel_df row after the MFU merge: the link, and the MFU it got (or none).
struct MergedKernel {
  std::size_t link = 0;            ///< index into RankData::kernel_links
  std::optional<std::size_t> mfu;  ///< index into the calculator's results
};

}  // namespace opmfu::engine
