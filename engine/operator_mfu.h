#pragma once
// Kernel-level MFU (OperatorMFU): the calculator of shared/spec/mfu-analysis.md 4.2, the merge of
// 4.3 and the rows of 4.4.

#include <span>
#include <vector>

#include "common/result.h"
#include "engine/chip.h"
#include "engine/mfu_rows.h"
#include "engine/profile_data.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

/// A FLOPs range that charged kernels: what its results share.
struct ChargedRange {
  std::int64_t flops = 0;
  StringId flops_op_name = kNoString;  ///< the op name of the FLOPs message
  double chip_peak = 0;                ///< FLOP/s for the dtype of the range's first kernel
};

/// One result of the calculator: a kernel charged with one FLOPs range. It refers to its link
/// (kernel name and times) and its range (FLOPs, peak) instead of copying them, and its MFU is
/// computed when asked: a rank holds about one result per kernel.
struct KernelMfu {
  std::uint32_t link = 0;   ///< index into RankData::kernel_links
  std::uint32_t range = 0;  ///< index into MfuCalculation::charged_ranges
  StringId input_shapes = kNoString;
  StringId output_shapes = kNoString;
  std::int64_t kernel_duration = 0;  ///< > 0
};

/// What became of one mfu_flops range. Upstream keeps no such record; coverage reports it.
struct RangeOutcome {
  enum class Fate {
    kCharged,     ///< its FLOPs went to at least one kernel
    kMalformed,   ///< the message is not "<flops>-<op name>"
    kNoFlops,     ///< flops <= 0
    kEmptySpan,   ///< end <= start
    kNoOpInside,  ///< no framework op with a compute kernel starts inside it
    kNoDuration,  ///< its kernels' durations add up to 0
  };
  std::size_t range = 0;  ///< index into RankData::flops_ranges
  Fate fate = Fate::kCharged;
  std::size_t kernels = 0;  ///< kernels charged
};

struct MfuCalculation {
  std::vector<KernelMfu> results;
  std::vector<ChargedRange> charged_ranges;
  /// One per mfu_flops range, in order; empty when the calculation was skipped before reading
  /// the ranges (no chip info, no shapes, no op-to-kernel links).
  std::vector<RangeOutcome> range_outcomes;
  /// Every FLOPs message matched "<digits>-<name>": upstream's flops column is then an integer.
  bool all_messages_parsed = true;

  const ChargedRange& RangeOf(const KernelMfu& result) const { return charged_ranges[result.range]; }
  /// The range's FLOPs over the kernel's duration, in this exact order of double operations, as upstream.
  double FlopsPerSecond(const KernelMfu& result) const {
    const double seconds = static_cast<double>(result.kernel_duration) * 1e-9;
    return static_cast<double>(RangeOf(result).flops) / seconds;
  }
  double Mfu(const KernelMfu& result) const {
    return FlopsPerSecond(result) / RangeOf(result).chip_peak;
  }                                                    ///< unrounded
  double ActualTflops(const KernelMfu& result) const;  ///< rounded to 2 decimals
};

/// A parsed "<flops>-<op name>" message, or nullopt when it does not match.
struct FlopsMessage {
  std::int64_t flops = 0;
  std::string name;
};
std::optional<FlopsMessage> ParseFlopsMessage(std::optional<std::string_view> message);

/// "<digits>-<name>" whose number does not fit int64: what ParseFlopsMessage refuses for size alone.
bool IsOversizedFlopsMessage(std::string_view message);

/// Runs the calculator; the FLOPs messages' op names are interned into `data.strings`. Fails only for an unsupported
/// input dtype on the first kernel of a range, where upstream aborts the whole run (B1a); notes carry everything
/// upstream logs. `threads` (0: one per core) probe the kernel join; the result does not depend on it.
Result<MfuCalculation> CalculateMfu(RankData& data, const ChipInfo& chip, std::vector<RankNote>& notes,
                                    unsigned threads = 1);

/// kernel_df left-joined with the results on (kernel_name, kernel_ts, kernel_end), in kernel_df
/// order, each row repeated once per matching result. `threads` as for CalculateMfu.
std::vector<MergedKernel> MergeMfu(const RankData& data, const MfuCalculation& calculation, unsigned threads = 1);

/// OperatorMFU rows: the merged rows that got an MFU. They point into `data.strings`.
std::vector<OperatorMfuRow> BuildOperatorRows(std::int64_t rank_id, const RankData& data,
                                              const MfuCalculation& calculation, std::span<const MergedKernel> merged);

}  // namespace opmfu::engine
