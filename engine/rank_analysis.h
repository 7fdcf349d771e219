#pragma once
// One rank, end to end: read its DB and chip info, compute OperatorMFU and ModuleMFU rows.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/coverage.h"
#include "engine/kernel_signatures.h"
#include "engine/mfu_rows.h"
#include "engine/profiler_info.h"
#include "engine/rank_reader.h"
#include "engine/stage_clock.h"

namespace opmfu::engine {

struct RankAnalysis {
  std::int64_t rank_id = 0;
  std::shared_ptr<const StringPool> strings;  ///< what operator_rows point into
  std::vector<OperatorMfuRow> operator_rows;
  std::vector<ModuleMfuRow> module_rows;
  /// With RankInput::early_operator_rows: the OperatorMFU rows handed over (then not in operator_rows).
  std::size_t operator_rows_handed_over = 0;
  /// Upstream declares kernel_duration INTEGER only if every merged kernel got an MFU, and
  /// flops INTEGER only if, besides, every FLOPs message parsed (spec 4.5).
  bool all_kernels_matched = true;
  bool all_messages_parsed = true;
  std::vector<RankNote> notes;
  std::optional<RankCoverage> coverage;  ///< when RankInput::with_coverage and the rank had kernels
  /// When RankInput::with_kernel_signatures and the scan read the rank (not the queries): its
  /// kernels by signature, for the report's derived section. Plain strings: they outlive `strings`.
  std::optional<KernelSignatures> kernel_signatures;
  /// Set when the rank yields no OperatorMFU rows because of an error: the root cause in one line,
  /// first cause first (no FLOPs records before no kernels before no chip peak), with the
  /// recorded configuration as evidence. The rank then counts as failed; ModuleMFU rows it still
  /// produced are kept, as upstream keeps them.
  std::optional<std::string> failure;
  /// Times no profiler writes: compute kernels or FLOPs ranges that end before they start. One
  /// line each (the count and the first); the rank's other rows stand, but the run exits 1, so
  /// figures computed around broken data never pass as a clean result.
  std::vector<std::string> data_errors;
  /// Set when the FLOPs records are valid but no kernel matched one: why (a warning, not a failure).
  std::optional<std::string> no_rows_reason;
  /// profiler_info_<rank>.json of the rank directory, when there is one.
  std::optional<RecordedConfig> recorded;
  /// Per stage (read, calculate, merge, modules, rows), for `analyze -v` and the bench.
  std::vector<StageTime> stages;
};

struct RankInput {
  std::int64_t rank_id = 0;
  std::filesystem::path rank_directory;  ///< where device_*/info.json.* is looked for
  std::filesystem::path db_path;
  std::optional<std::int64_t> step_id;  ///< restrict to one STEP_TIME step
  bool with_coverage = false;           ///< also compute RankAnalysis::coverage (for reports)
  unsigned read_threads = 0;            ///< threads reading the DB's tables and probing its joins (0: one per core)
  bool with_kernel_signatures = false;  ///< also RankAnalysis::kernel_signatures (for the derived section)
  /// When set, the OperatorMFU rows are built on a second thread while the module pass runs, and
  /// handed to this a slice at a time, in order (writing them then overlaps the module pass); they
  /// are not kept in the result (RankAnalysis::operator_rows_handed_over counts them). The rank may
  /// still fail afterwards (a module pass error), which the caller must then undo.
  std::function<void(const std::vector<OperatorMfuRow>&)> early_operator_rows = {};
  /// db_path is a Text export's ASCEND_PROFILER_OUTPUT (engine/text_export.h), read instead of a DB.
  bool text_export = false;
};

/// Whether the rank was collected at Level0 (no kernel shapes or op types): recorded so in
/// profiler_info, or a Text export whose kernel_details.csv has no Input Shapes column.
bool IsLevel0(const std::optional<RecordedConfig>& recorded);

/// Analyses one rank. An Error means this rank produced nothing and why (a broken DB, an
/// unsupported dtype, a step that does not exist); other ranks are unaffected.
Result<RankAnalysis> AnalyzeRank(const RankInput& input);

}  // namespace opmfu::engine
