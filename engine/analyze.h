#pragma once
// `opmfu analyze`: discover ranks, analyse them in parallel, write the tables.

#include <array>
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
  /// A rank directory with both exports: the Db (msprof-analyze's choice) or the Text export.
  ExportSource source = ExportSource::kDb;
  std::optional<std::filesystem::path> output_path;  ///< default: the (corrected) profiling path
  ExportType export_type = ExportType::kDb;
  std::optional<std::vector<std::int64_t>> rank_list;
  std::optional<std::int64_t> step_id;
  unsigned jobs = 0;           ///< 0: one per core
  bool with_coverage = false;  ///< RankAnalysis::coverage for every rank
  /// RankAnalysis::kernel_signatures for every rank the scan reads (for a derived section).
  bool with_kernel_signatures = false;
  /// Analyse only this shard's ranks (ShardOf) and write its partial result,
  /// <OUT>/opmfu_partial/shard_<I>_of_<N>.db, instead of the tables (engine/partial.h).
  std::optional<ShardSpec> shard;
  /// Keep every rank's rows in AnalyzeReport::tables (for a caller that reads them, e.g. --derived)
  /// even with ExportType::kDb, which otherwise writes each rank's rows as soon as it and the ranks
  /// before it are done, and frees them.
  bool keep_rows = false;
  /// Tables of the caller's in the cluster DB made from OperatorMFU and ModuleMFU (cli's
  /// DerivedMFU): dropped in the same atomic write that replaces those two.
  std::vector<std::string> stale_tables;
  /// Called from worker threads after each rank (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> on_rank_done;
};

/// One of the kernels the summary lists (lowest or highest MFU), with its own copies of the strings.
struct KernelLine {
  double mfu = 0;
  std::int64_t rank_id = 0;
  std::optional<std::string> op_name;
  std::optional<std::string> kernel_name;
  std::int64_t kernel_duration = 0;
  double actual_tflops = 0;
  std::optional<std::string> input_shapes;
};

/// What the summary says about every row (counts, MFU bands, time-weighted MFU, the lowest and
/// highest kernels), gathered row by row in row order: the rows need not stay in memory for it.
class RowFigures {
 public:
  static constexpr std::size_t kListed = 5;  ///< lowest and highest kernels listed

  void Add(const OperatorMfuRow& row);
  void AddModuleRows(std::size_t count) { module_rows_ += count; }

  std::size_t operator_rows() const { return operator_rows_; }
  std::size_t module_rows() const { return module_rows_; }
  /// Rows with MFU below 20%, 20-30%, 30-60%, 60-70%, 70% and above.
  const std::array<std::size_t, 5>& bands() const { return bands_; }
  /// MFU weighted by kernel duration; none without duration.
  std::optional<double> time_weighted_mfu() const;
  /// MFU weighted by kernel duration over the compute (matmul/attention) kernels only.
  std::optional<double> compute_time_weighted_mfu() const;
  /// Rows of auxiliary kernels (TransData, Cast, ...): they inherit a whole range's FLOPs, so
  /// their MFU (often thousands of percent) describes no hardware use.
  std::size_t auxiliary_rows() const { return auxiliary_rows_; }
  std::optional<double> auxiliary_time_weighted_mfu() const;
  /// Compute kernels, the lowest MFU first, as a stable sort by MFU lists them (ties in row order).
  std::vector<KernelLine> lowest() const;
  /// Compute kernels, the highest MFU first: a stable ascending sort's last rows, backwards.
  std::vector<KernelLine> highest() const;
  /// Auxiliary kernels, the highest (inherited) MFU first.
  std::vector<KernelLine> highest_auxiliary() const;

 private:
  struct Ranked {
    double mfu = 0;
    std::size_t row = 0;  ///< position among all rows
    KernelLine line;
  };
  template <typename Before>
  static void Keep(std::vector<Ranked>& kept, const OperatorMfuRow& row, std::size_t position, Before before);

  std::size_t operator_rows_ = 0;
  std::size_t module_rows_ = 0;
  std::array<std::size_t, 5> bands_ = {};
  double weighted_ = 0;
  double duration_ = 0;
  double compute_weighted_ = 0;
  double compute_duration_ = 0;
  std::size_t auxiliary_rows_ = 0;
  double auxiliary_weighted_ = 0;
  double auxiliary_duration_ = 0;
  std::vector<Ranked> lowest_;
  std::vector<Ranked> highest_;
  std::vector<Ranked> highest_auxiliary_;
};

/// The figures of rows held in memory, in row order.
RowFigures FigureRows(const AnalysisTables& tables);

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
  /// Every rank's rows, when they are kept in memory: not when `analyze` writes the cluster DB
  /// rank by rank (AnalyzeOptions::keep_rows), when `figures` alone describe them.
  AnalysisTables tables;
  RowFigures figures;
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
  /// No failed rank, no rank with data errors (RankAnalysis::data_errors), no discovery problem
  /// (Discovery::problems): anything else exits 1, by the rank policy of docs/cli.md.
  bool clean() const;
};

/// Writes the tables as `export_type` asks below `output_directory` (<OUT>/cluster_analysis_output):
/// what `analyze` and `merge` both write. Returns the files written.
/// `stale_tables`: see AnalyzeOptions::stale_tables (db export only).
Result<std::vector<std::filesystem::path>> WriteTables(ExportType export_type,
                                                       const std::filesystem::path& output_directory,
                                                       const AnalysisTables& tables,
                                                       const std::vector<std::string>& stale_tables = {});

/// Runs the whole analysis. An Error means nothing could be analysed (no data, bad options, the
/// output cannot be written); a rank that fails is reported in its RankOutcome instead.
Result<AnalyzeReport> RunAnalyze(const AnalyzeOptions& options);

}  // namespace opmfu::engine
