#pragma once
// `opmfu analyze`: discover ranks, analyse them in parallel, write the tables.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/discovery.h"
#include "engine/output.h"
#include "engine/rank_analysis.h"
#include "engine/shard.h"

namespace opmfu::engine {

/// kNone: analyse in memory and write nothing (for `opmfu report`, `gate`, `audit`).
enum class ExportType { kDb, kText, kCsv, kJson, kNone };

struct AnalyzeOptions {
  std::filesystem::path profiling_path;
  std::optional<std::filesystem::path> output_path;  ///< default: the (corrected) profiling path
  ExportType export_type = ExportType::kDb;
  std::optional<std::vector<std::int64_t>> rank_list;
  std::optional<std::int64_t> step_id;
  unsigned jobs = 0;           ///< 0: one per core
  bool with_coverage = false;  ///< RankAnalysis::coverage for every rank
  /// Analyse only this shard's ranks (ShardOf) and write its partial result,
  /// <OUT>/opmfu_partial/shard_<I>_of_<N>.db, instead of the tables (engine/partial.h).
  std::optional<ShardSpec> shard;
  /// Called from worker threads after each rank (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> on_rank_done;
};

struct RankOutcome {
  RankLocation location;
  /// Why this rank produced no OperatorMFU rows, when an error is the cause (the root cause, in
  /// one line); then the rank counts as failed.
  std::optional<std::string> failure;
  /// Notes and flags; its rows are moved into AnalyzeReport::tables (counts kept below).
  RankAnalysis analysis;
  std::size_t operator_rows = 0;
  std::size_t module_rows = 0;
};

/// A failed rank in one line, naming its file first: "<db or directory>: <root cause>".
std::string DescribeFailure(const RankOutcome& outcome);

struct AnalyzeReport {
  Discovery discovery;
  std::vector<std::int64_t> unknown_ranks;  ///< --rank-list ids that were not found
  std::vector<RankOutcome> ranks;           ///< in rank order
  AnalysisTables tables;
  std::filesystem::path output_directory;  ///< <OUT>/cluster_analysis_output
  std::vector<std::filesystem::path> written;
  bool nothing_to_write = false;  ///< no rank produced a row, so no file was written
  StageTime write;                ///< writing the output
  /// analyze --shard: this run's shard (`ranks` are its ranks) and the whole input's rank count.
  std::optional<ShardSpec> shard;
  std::size_t input_ranks = 0;
  /// opmfu merge: the partial results merged, in shard order.
  std::vector<std::filesystem::path> partials;

  std::size_t failed_ranks() const;
};

/// Writes the tables as `export_type` asks below `output_directory` (<OUT>/cluster_analysis_output):
/// what `analyze` and `merge` both write. Returns the files written.
Result<std::vector<std::filesystem::path>> WriteTables(ExportType export_type,
                                                       const std::filesystem::path& output_directory,
                                                       const AnalysisTables& tables);

/// Runs the whole analysis. An Error means nothing could be analysed (no data, bad options, the
/// output cannot be written); a rank that fails is reported in its RankOutcome instead.
Result<AnalyzeReport> RunAnalyze(const AnalyzeOptions& options);

}  // namespace opmfu::engine
