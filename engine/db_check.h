#pragma once
// `opmfu check-db`: did FLOPs land, and if OperatorMFU is (or would be) empty, why.

#include <optional>
#include <string>
#include <vector>

#include "engine/discovery.h"
#include "engine/profiler_info.h"

namespace opmfu::engine {

struct RankCheck {
  RankLocation location;
  std::optional<std::string> unreadable;        ///< the DB could not be read at all
  std::vector<std::string> tables_missing;      ///< of the tables the analysis reads
  std::size_t flops_records = 0;                ///< mfu_flops events
  std::size_t valid_flops_records = 0;          ///< "<positive int>-<op name>" with end > start
  std::vector<std::string> malformed_examples;  ///< up to three
  std::size_t framework_ops = 0;                ///< PYTORCH_API rows
  std::size_t op_kernel_links = 0;              ///< compute kernels linked to ops
  std::size_t compute_kernels = 0;
  std::size_t kernels_without_shapes = 0;  ///< input or output shapes "N/A"
  std::size_t module_ranges = 0;
  std::optional<std::string> info_file;
  double peak_fp16_tflops = 0;
  double peak_int8_tflops = 0;
  std::size_t operator_rows = 0;  ///< what `analyze` would write for this rank
  std::size_t module_rows = 0;
  std::optional<std::string> analysis_failure;
  std::optional<std::string> root_cause;           ///< the analysis's failure for this rank (RankAnalysis::failure)
  std::optional<std::string> no_rows_reason;       ///< valid records, no kernel matched: why
  std::optional<RecordedConfig> recorded;          ///< profiler_info_<rank>.json, when present
  std::optional<std::string> recorded_unreadable;  ///< it is there but cannot be read

  /// A Text export: its files and level, and whether derived MFU (from kernel shapes) is possible.
  std::optional<std::string> text_export;
  std::optional<std::string> derived_mfu;

  bool can_produce_mfu = false;
  std::string verdict;    ///< one line
  std::string next_step;  ///< one line
};

/// Checks one rank: counts what the analysis needs and runs it, then explains the outcome.
RankCheck CheckRank(const RankLocation& location);

}  // namespace opmfu::engine
