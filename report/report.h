#pragma once
// `opmfu report`: the OperatorMFU rows turned into answers. Groups ranked by lost time, bands and
// hints from what the data shows, coverage, and what is missing and why. Every number here is
// computed from the rows (and, from a profiling directory, the coverage); nothing is invented.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/analyze.h"
#include "report/derived_mfu.h"

namespace opmfu::report {

struct TraceAnalysis;  // report/torch_analysis.h

/// The rows a report reads, and where they came from.
struct ReportData {
  enum class Source { kProfilingDirectory, kClusterDb };
  Source source = Source::kProfilingDirectory;
  std::filesystem::path path;  ///< what -d or --db named
  /// From a profiling directory: the in-memory analysis with coverage. From a cluster DB: only
  /// `analysis.tables` is filled.
  engine::AnalyzeReport analysis;
  /// Files the report is based on besides the rank DBs (an existing cluster_analysis.db).
  std::vector<std::filesystem::path> artifacts;
  /// From PyTorch profiler traces (GPU): what the rows were built from (report/torch_analysis.h).
  std::shared_ptr<const TraceAnalysis> traces;
  /// Where the rows' peaks come from, when the source says it itself (traces: the GPU table).
  std::string peak_source;
  /// Lines for "What is missing" that the source adds (traces: unattributed kernels, ops not derived).
  std::vector<std::string> notes;
};

/// Runs the analysis in memory (nothing is written) with per-rank coverage.
Result<ReportData> LoadReportData(const engine::AnalyzeOptions& options);
/// Reads the OperatorMFU and ModuleMFU tables of a cluster_analysis.db (read-only).
Result<ReportData> LoadClusterDb(const std::filesystem::path& db_path);
/// One run for `diff` and `--baseline`: a cluster DB file, or a profiling directory (or rank DB),
/// whose ranks with both exports are read from `source`'s.
Result<ReportData> LoadRun(const std::filesystem::path& path, bool with_kernel_signatures = false,
                           engine::ExportSource source = engine::ExportSource::kDb);

/// The interpretation bands of kernel MFU.
/// kAbovePeak: above 100%, which no kernel reaches: its FLOPs are over-counted.
enum class MfuBand { kFar, kLow, kTypical, kGood, kNearLimit, kAbovePeak };
MfuBand BandOf(double mfu);
/// "< 20%: far from peak", for a legend.
const char* BandLabel(MfuBand band);

struct KernelEntry {
  std::int64_t rank_id = 0;
  std::string op_name;
  std::string kernel_name;
  std::string flops_op_name;
  std::string input_shapes;
  std::int64_t duration = 0;  ///< ns
  double actual_tflops = 0;
  double mfu = 0;
  std::int64_t flops = 0;
};

/// Sums over OperatorMFU rows: what every grouping (report, diff, gate) is computed from.
struct MfuAggregate {
  std::size_t count = 0;
  std::int64_t duration = 0;  ///< ns
  double flops = 0;
  double mfu_time = 0;   ///< sum of MFU x duration
  double lost_time = 0;  ///< ns: sum of duration x (1 - MFU), MFU capped to [0, 1]

  void Add(const engine::OperatorMfuRow& row);
  /// Time-weighted MFU: sum of MFU x time over sum of time, i.e. sum of (FLOPs / the row's peak) over
  /// sum of time. Equal to sum of FLOPs over sum of (time x peak) only when every row has one peak
  /// (INT8 rows have twice the FP16 peak). The derived section weights the same way.
  double weighted_mfu() const { return duration > 0 ? mfu_time / static_cast<double>(duration) : 0; }
};

/// Rows sharing a key: an op type, an op at one input shape, or one input shape.
struct GroupStats {
  std::string op_name;               ///< empty for the by-shape grouping
  std::string input_shapes;          ///< empty for the by-op grouping
  std::vector<std::string> ops;      ///< distinct op names (by-shape grouping), first few
  std::vector<std::string> kernels;  ///< distinct kernel names, first few
  std::size_t count = 0;
  std::int64_t total_duration = 0;  ///< ns
  double total_flops = 0;
  /// MfuAggregate::weighted_mfu: the rows' MFU weighted by their time.
  double weighted_mfu = 0;
  double lost_time = 0;  ///< ns: sum of duration x (1 - MFU), MFU capped to [0, 1]
  MfuBand band = MfuBand::kTypical;
  std::vector<std::string> hints;  ///< what the data shows for a low or implausible group
};

struct RankSummary {
  std::int64_t rank_id = 0;
  std::optional<std::filesystem::path> db_path;
  std::optional<std::string> failure;
  std::size_t rows = 0;
  std::int64_t total_duration = 0;
  double weighted_mfu = 0;
  double lost_time = 0;
  std::optional<engine::RankCoverage> coverage;
};

struct ReportOptions {
  std::size_t top = 10;  ///< lowest/highest kernels and groups shown by the text formats
  /// Give a range's FLOPs only to its compute (cube) kernels: auxiliary kernels are left out of
  /// every MFU figure. A departure from upstream, which charges every kernel of the range.
  bool attribute_compute = false;
};

struct MfuReport {
  ReportData::Source source = ReportData::Source::kProfilingDirectory;
  std::filesystem::path path;
  std::vector<std::filesystem::path> inputs;     ///< rank DBs read
  std::vector<std::filesystem::path> artifacts;  ///< other files the numbers come from
  bool attribute_compute = false;

  std::size_t rows = 0;               ///< OperatorMFU rows counted below
  std::size_t excluded_aux_rows = 0;  ///< with attribute_compute
  std::size_t module_rows = 0;
  std::int64_t total_duration = 0;
  /// The headline: time-weighted MFU of the compute (matmul/attention) kernels only.
  double weighted_mfu = 0;
  double lost_time = 0;
  /// The compute kernels' rows (the headline's) and the auxiliary kernels' (TransData, Cast, ...),
  /// which inherit a whole range's FLOPs, so their MFU describes no hardware use. Counted with
  /// --attribute compute too, though those rows are then in no other figure.
  MfuAggregate compute;
  MfuAggregate auxiliary;
  /// Over every counted row, as upstream's OperatorMFU has them: what `gate --min-mfu` checks.
  double all_kernels_weighted_mfu = 0;
  /// The distinct chip peaks (TFLOPS) the rows' MFU divides by (INT8 rows have twice the FP16
  /// one), ascending, and where they come from.
  std::vector<double> peak_tflops;
  std::string peak_source;

  std::vector<KernelEntry> lowest;      ///< compute kernels by MFU, ascending
  std::vector<KernelEntry> highest;     ///< compute kernels by MFU, descending
  std::vector<GroupStats> by_op;        ///< ranked by lost time
  std::vector<GroupStats> by_op_shape;  ///< ranked by lost time
  std::vector<GroupStats> by_shape;     ///< ranked by lost time
  std::vector<RankSummary> ranks;
  std::vector<std::string> missing;  ///< what is missing and why, one line each
  /// (duration ns, MFU, op) of up to 2,000 rows spread over the data, for the scatter chart.
  struct Point {
    std::int64_t duration;
    double mfu;
    std::string op_name;
  };
  std::vector<Point> scatter;
  /// The derived section (FLOPs from kernel shapes), when the report was asked to build it.
  std::optional<DerivedSection> derived;
};

MfuReport BuildReport(const ReportData& data, const ReportOptions& options);

enum class ReportFormat { kText, kMarkdown, kHtml, kJson };
std::string RenderReport(const MfuReport& report, ReportFormat format, std::size_t top);

}  // namespace opmfu::report
