#pragma once
// What one rank's profiler DB holds for the MFU analysis, after the queries of
// shared/spec/mfu-analysis.md section 2 (Q1-Q5). Times are nanoseconds.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/kernel_signatures.h"
#include "engine/string_pool.h"

namespace opmfu::engine {

/// A `Module`-domain MSTX range (Q1).
struct ModuleRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  StringId name = kNoString;
};

/// An `mfu_flops`-domain MSTX event (Q2); the message should be "<flops>-<op name>".
struct FlopsRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  StringId message = kNoString;
};

/// One framework-op-to-kernel link (Q3/Q4), times NULL->0 coerced. (The two names side by side:
/// 40 bytes, not 48; a rank holds one per kernel.)
struct KernelLink {
  StringId kernel_name = kNoString;
  StringId op_name = kNoString;
  std::int64_t kernel_ts = 0;
  std::int64_t kernel_end = 0;
  std::int64_t op_ts = 0;
  std::int64_t op_end = 0;
};

/// A compute kernel with its shapes and types (Q5). Times are as stored: a NULL stays absent.
/// (The four names together: 56 bytes, not 64; a rank holds one per kernel.)
struct KernelShape {
  std::optional<std::int64_t> kernel_ts;
  std::optional<std::int64_t> kernel_end;
  std::int64_t task_duration = 0;  ///< NULL->0 coerced, as the calculator does
  StringId kernel_name = kNoString;
  StringId input_types = kNoString;
  StringId input_shapes = kNoString;   ///< quotes stripped
  StringId output_shapes = kNoString;  ///< quotes stripped
};

/// Everything read from one rank's DB. Names are ids into `strings`.
struct RankData {
  std::shared_ptr<StringPool> strings = std::make_shared<StringPool>();
  /// Read from a Text export (engine/text_export.h), not a profiler DB: causes are worded for its files.
  bool text_export = false;
  std::vector<ModuleRange> modules;
  std::optional<std::vector<FlopsRange>> flops_ranges;  ///< nullopt: no MSTX_EVENTS table
  /// kernel_df: compute links (in Q3 order), then HCCL, then schedule-task links.
  std::vector<KernelLink> kernel_links;
  std::size_t compute_link_count = 0;  ///< the first links are the compute ones (op_kernel_df)
  std::vector<KernelShape> shapes;
  bool shapes_query_returned_rows = false;
  /// The most rows a join of this rank may give (engine/join_limit.h), from the size of its files.
  std::uint64_t join_row_limit = 4'000'000;
  // Why a rank yields nothing, for the diagnosis (upstream only logs these).
  std::vector<std::string> missing_tables;  ///< of the tables the analysis reads
  std::optional<std::string> flops_query_error;
  std::optional<std::string> link_query_error;  ///< the first op-to-kernel query that failed
  std::optional<std::string> shapes_query_error;
  /// A compute kernel's TASK time stored as TEXT (upstream's comparisons of such a column fail, so
  /// it writes nothing): which column and the value, e.g. "TASK.startNs holds text ('1000')".
  std::optional<std::string> text_task_time;
  /// Read only when asked, and only by the scan (ReadRank's with_kernel_signatures).
  std::optional<KernelSignatures> kernel_signatures;
};

}  // namespace opmfu::engine
