#pragma once
// Kernel-level MFU (OperatorMFU): the calculator of shared/spec/mfu-analysis.md 4.2, the merge of
// 4.3 and the rows of 4.4.

#include <vector>

#include "common/result.h"
#include "engine/chip.h"
#include "engine/mfu_rows.h"
#include "engine/profile_data.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

/// One result of the calculator: a kernel charged with one FLOPs range.
struct KernelMfu {
  StringId kernel_name = kNoString;
  std::int64_t kernel_ts = 0;
  std::int64_t kernel_end = 0;
  double mfu = 0;  ///< unrounded
  double actual_tflops = 0;
  std::int64_t flops = 0;
  StringId flops_op_name = kNoString;  ///< the op name of the FLOPs message
  std::int64_t kernel_duration = 0;
  double chip_peak = 0;
  StringId input_shapes = kNoString;
  StringId output_shapes = kNoString;
};

struct MfuCalculation {
  std::vector<KernelMfu> results;
  /// Every FLOPs message matched "<digits>-<name>": upstream's flops column is then an integer.
  bool all_messages_parsed = true;
};

/// A parsed "<flops>-<op name>" message, or nullopt when it does not match.
struct FlopsMessage {
  std::int64_t flops = 0;
  std::string name;
};
std::optional<FlopsMessage> ParseFlopsMessage(std::optional<std::string_view> message);

/// Runs the calculator; the FLOPs messages' op names are interned into `data.strings`. Fails only for an unsupported
/// input dtype on the first kernel of a range, where upstream aborts the whole run (B1a); notes carry everything
/// upstream logs.
Result<MfuCalculation> CalculateMfu(RankData& data, const ChipInfo& chip, std::vector<RankNote>& notes);

/// kernel_df left-joined with the results on (kernel_name, kernel_ts, kernel_end), in kernel_df
/// order, each row repeated once per matching result.
std::vector<MergedKernel> MergeMfu(const RankData& data, const MfuCalculation& calculation);

/// OperatorMFU rows: the merged rows that got an MFU. They point into `data.strings`.
std::vector<OperatorMfuRow> OperatorRows(std::int64_t rank_id, const RankData& data, const MfuCalculation& calculation,
                                         const std::vector<MergedKernel>& merged);

}  // namespace opmfu::engine
