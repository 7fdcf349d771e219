#pragma once
// The rows of the two output tables, column for column (shared/spec/mfu-analysis.md 4.4, 5.8).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/string_pool.h"

namespace opmfu::engine {

/// A row holds ids into its rank's string pool rather than strings (a million rows would
/// otherwise hold about 150 MB of copies). Whoever holds rows keeps their pool alive:
/// RankAnalysis::strings, AnalysisTables::string_pools.
struct OperatorMfuRow {
  const StringPool* strings = nullptr;
  std::int64_t rank_id = 0;
  StringId op_name_id = kNoString;
  StringId kernel_name_id = kNoString;
  StringId flops_op_name_id = kNoString;
  StringId input_shapes_id = kNoString;
  StringId output_shapes_id = kNoString;
  std::int64_t kernel_start = 0;
  std::int64_t kernel_end = 0;
  std::int64_t kernel_duration = 0;
  double mfu = 0;               ///< rounded to 4 decimals; a ratio, not a percentage
  double actual_tflops = 0;     ///< rounded to 2 decimals
  double chip_peak_tflops = 0;  ///< rounded to 2 decimals
  std::int64_t flops = 0;

  std::optional<std::string_view> op_name() const { return strings->OptionalView(op_name_id); }
  std::optional<std::string_view> kernel_name() const { return strings->OptionalView(kernel_name_id); }
  std::string_view flops_op_name() const { return strings->View(flops_op_name_id); }
  std::optional<std::string_view> input_shapes() const { return strings->OptionalView(input_shapes_id); }
  std::optional<std::string_view> output_shapes() const { return strings->OptionalView(output_shapes_id); }
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
  std::uint32_t link = 0;            ///< index into RankData::kernel_links
  std::optional<std::uint32_t> mfu;  ///< index into the calculator's results
};

}  // namespace opmfu::engine
