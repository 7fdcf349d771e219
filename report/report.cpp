#include "report/report.h"

#include "engine/mfu_columns.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "common/sqlite.h"
#include "common/text.h"
#include "report/derived_flops.h"
#include "report/presentation.h"
#include "report/torch_analysis.h"

namespace opmfu::report {

namespace fs = std::filesystem;

Result<ReportData> LoadReportData(const engine::AnalyzeOptions& options) {
  engine::AnalyzeOptions in_memory = options;
  in_memory.export_type = engine::ExportType::kNone;
  in_memory.with_coverage = true;
  ReportData data;
  data.source = ReportData::Source::kProfilingDirectory;
  data.path = options.profiling_path;
  OPMFU_ASSIGN_OR_RETURN(data.analysis, engine::RunAnalyze(in_memory));
  std::error_code ec;
  const fs::path existing = data.analysis.discovery.root / "cluster_analysis_output" / "cluster_analysis.db";
  if (fs::is_regular_file(existing, ec)) data.artifacts.push_back(existing);
  return data;
}

namespace {

// Upstream writes REAL or INTEGER depending on the data (spec 4.5); read either as written.
std::int64_t AsInt64(const Statement& statement, int column) {
  if (sqlite3_column_type(statement.handle(), column) == SQLITE_FLOAT) {
    return static_cast<std::int64_t>(statement.Double(column));
  }
  return statement.Int64(column);
}

engine::StringId InternOptional(engine::StringPool& pool, const Statement& statement, int column) {
  return statement.IsNull(column) ? engine::kNoString : pool.Intern(statement.Text(column));
}

}  // namespace

Result<ReportData> LoadClusterDb(const fs::path& db_path) {
  ReportData data;
  data.source = ReportData::Source::kClusterDb;
  data.path = db_path;
  OPMFU_ASSIGN_OR_RETURN(Database db, Database::OpenReadOnly(db_path));
  OPMFU_ASSIGN_OR_RETURN(const bool has_operator_table, db.HasTable("OperatorMFU"));
  if (!has_operator_table) {
    return Error::Input(db_path.string() +
                        ": no OperatorMFU table (write one with `opmfu analyze -d DIR` or msprof-analyze -m "
                        "operator_mfu, or report on the profiling directory with -d)");
  }
  auto pool = std::make_shared<engine::StringPool>();
  std::vector<engine::OperatorMfuRow> rows;
  OPMFU_ASSIGN_OR_RETURN(
      Statement operators,
      db.Prepare("SELECT " + engine::QuotedColumnList(engine::kOperatorColumns) + " FROM \"OperatorMFU\""));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(const bool more, operators.Step());
    if (!more) break;
    engine::OperatorMfuRow row;
    row.strings = pool.get();
    row.rank_id = operators.Int64(0);
    row.op_name_id = InternOptional(*pool, operators, 1);
    row.kernel_name_id = InternOptional(*pool, operators, 2);
    row.kernel_start = AsInt64(operators, 3);
    row.kernel_end = AsInt64(operators, 4);
    row.kernel_duration = AsInt64(operators, 5);
    row.mfu = operators.Double(6);
    row.actual_tflops = operators.Double(7);
    row.chip_peak_tflops = operators.Double(8);
    row.flops = AsInt64(operators, 9);
    row.flops_op_name_id = pool->Intern(operators.IsNull(10) ? std::string_view{} : operators.Text(10));
    row.input_shapes_id = InternOptional(*pool, operators, 11);
    row.output_shapes_id = InternOptional(*pool, operators, 12);
    rows.push_back(row);
  }
  data.analysis.tables.operator_rows.Append(std::move(rows));
  data.analysis.tables.string_pools.push_back(std::move(pool));

  OPMFU_ASSIGN_OR_RETURN(const bool has_module_table, db.HasTable("ModuleMFU"));
  if (has_module_table) {
    OPMFU_ASSIGN_OR_RETURN(Statement modules, db.Prepare("SELECT \"rank_id\", \"module\", \"op_name\", \"op_count\" "
                                                         "FROM \"ModuleMFU\""));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(const bool more, modules.Step());
      if (!more) break;
      engine::ModuleMfuRow row;
      row.rank_id = modules.Int64(0);
      row.module = modules.IsNull(1) ? "" : std::string(modules.Text(1));
      row.op_name = modules.IsNull(2) ? "" : std::string(modules.Text(2));
      row.op_count = modules.Int64(3);
      data.analysis.tables.module_rows.push_back(std::move(row));
    }
  }
  return data;
}

void MfuAggregate::Add(const engine::OperatorMfuRow& row) {
  const auto time = static_cast<double>(row.kernel_duration);
  ++count;
  duration += row.kernel_duration;
  flops += static_cast<double>(row.flops);
  mfu_time += row.mfu * time;
  lost_time += time * (1 - std::clamp(row.mfu, 0.0, 1.0));
}

Result<ReportData> LoadRun(const fs::path& path, bool with_kernel_signatures, engine::ExportSource source) {
  if (auto traces = TorchTraceInputs(path)) return LoadTorchTraces(*traces, path, {});
  std::error_code ec;
  if (fs::is_regular_file(path, ec) && !path.filename().string().starts_with("ascend_pytorch_profiler")) {
    return LoadClusterDb(path);
  }
  engine::AnalyzeOptions options;
  options.profiling_path = path;
  options.with_kernel_signatures = with_kernel_signatures;
  options.source = source;
  return LoadReportData(options);
}

MfuBand BandOf(double mfu) {
  if (mfu < 0.2) return MfuBand::kFar;
  if (mfu < 0.3) return MfuBand::kLow;
  if (mfu <= 0.6) return MfuBand::kTypical;
  if (mfu <= 0.7) return MfuBand::kGood;
  if (mfu <= 1.0) return MfuBand::kNearLimit;
  return MfuBand::kAbovePeak;
}

const char* BandLabel(MfuBand band) {
  switch (band) {
    case MfuBand::kFar:
      return "below 20%: far from peak (memory bandwidth, launch overhead or irregular shapes)";
    case MfuBand::kLow:
      return "20-30%: below the typical range";
    case MfuBand::kTypical:
      return "30-60%: typical";
    case MfuBand::kGood:
      return "60-70%: good";
    case MfuBand::kNearLimit:
      return "above 70%: near the device limit";
    case MfuBand::kAbovePeak:
      return "above 100%: impossible, the FLOPs are over-counted";
  }
  return "";
}

namespace {

using Shape = std::vector<std::int64_t>;

// What the data shows about why a group is slow, or why its MFU cannot be trusted.
std::vector<std::string> Hints(const GroupStats& group, bool shape_known) {
  std::vector<std::string> hints;
  if (group.weighted_mfu > 1.0) {
    hints.push_back(
        "MFU above 100%: the FLOPs are over-counted (a custom formula, shared weights, or one range charging "
        "several kernels); check with `opmfu audit`");
  }
  std::vector<std::string> aux;
  for (const std::string& kernel : group.kernels) {
    if (!engine::IsComputeKernelName(kernel)) aux.push_back(kernel);
  }
  if (!aux.empty()) {
    hints.push_back(
        Join(aux, ", ") +
        (aux.size() == 1 ? " is not a compute kernel but inherits" : " are not compute kernels but inherit") +
        " the whole range's FLOPs: their MFU is not meaningful (--attribute compute leaves "
        "them out)");
  }
  if (group.weighted_mfu >= 0.3) return hints;
  const double mean = group.count > 0 ? static_cast<double>(group.total_duration) / group.count : 0;
  if (mean < 20000) {
    hints.push_back("short kernels (" + FormatDuration(mean) +
                    " on average): launch-bound; fuse ops, batch more work per call, or use graph mode");
  }
  if (!shape_known) return hints;
  std::set<std::int64_t> unaligned;
  std::int64_t smallest = INT64_MAX;
  const auto shapes = ParseShapeList(group.input_shapes);
  for (const Shape& shape : shapes.ok() ? *shapes : std::vector<Shape>{}) {
    // The matrix dimensions are the last two; a 1 is a broadcast or a vector, not a tile.
    for (std::size_t i = shape.size() >= 2 ? shape.size() - 2 : 0; i < shape.size(); ++i) {
      if (shape[i] <= 1) continue;
      if (shape[i] % 16 != 0) unaligned.insert(shape[i]);
      smallest = std::min(smallest, shape[i]);
    }
  }
  if (!unaligned.empty()) {
    std::vector<std::string> dims;
    for (std::int64_t dim : unaligned) dims.push_back(std::to_string(dim));
    hints.push_back("dimensions " + Join(dims, ", ") +
                    " are not multiples of 16: the cube works in 16x16 tiles, so pad or choose aligned sizes");
  }
  if (smallest < 64) {
    hints.push_back("small M/N/K (smallest " + std::to_string(smallest) +
                    "): too little work to fill the cube; batch or fuse such calls");
  }
  return hints;
}

struct Accumulator {
  GroupStats stats;
  MfuAggregate sums;
  std::set<std::string> kernels;
  std::set<std::string> ops;
};

void Add(Accumulator& accumulator, const engine::OperatorMfuRow& row, std::string_view op, std::string_view kernel) {
  accumulator.sums.Add(row);
  if (accumulator.kernels.size() < 8) accumulator.kernels.emplace(kernel);
  if (accumulator.ops.size() < 8) accumulator.ops.emplace(op);
}

std::vector<GroupStats> Finish(std::unordered_map<std::string, Accumulator>& groups, bool shape_known) {
  std::vector<GroupStats> result;
  result.reserve(groups.size());
  for (auto& [key, accumulator] : groups) {
    GroupStats& stats = accumulator.stats;
    stats.count = accumulator.sums.count;
    stats.total_duration = accumulator.sums.duration;
    stats.total_flops = accumulator.sums.flops;
    stats.lost_time = accumulator.sums.lost_time;
    stats.weighted_mfu = accumulator.sums.weighted_mfu();
    stats.band = BandOf(stats.weighted_mfu);
    stats.kernels.assign(accumulator.kernels.begin(), accumulator.kernels.end());
    stats.ops.assign(accumulator.ops.begin(), accumulator.ops.end());
    stats.hints = Hints(stats, shape_known);
    result.push_back(std::move(stats));
  }
  std::sort(result.begin(), result.end(), [](const GroupStats& a, const GroupStats& b) {
    if (a.lost_time != b.lost_time) return a.lost_time > b.lost_time;
    return std::tie(a.op_name, a.input_shapes) < std::tie(b.op_name, b.input_shapes);
  });
  return result;
}

KernelEntry EntryOf(const engine::OperatorMfuRow& row) {
  return {row.rank_id,
          std::string(row.op_name().value_or("")),
          std::string(row.kernel_name().value_or("")),
          std::string(row.flops_op_name()),
          std::string(row.input_shapes().value_or("")),
          row.kernel_duration,
          row.actual_tflops,
          row.mfu,
          row.flops};
}

std::string Count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void CoverageMissing(const RankSummary& rank, std::vector<std::string>& missing) {
  if (!rank.coverage) return;
  const engine::RankCoverage& coverage = *rank.coverage;
  const std::string who = "rank " + std::to_string(rank.rank_id) + ": ";
  if (!coverage.unmatched.empty()) {
    std::map<std::string_view, std::size_t> by_reason;
    for (const engine::UnmatchedRange& range : coverage.unmatched) ++by_reason[engine::FateReason(range.fate)];
    std::vector<std::string> reasons;
    for (const auto& [reason, n] : by_reason) reasons.push_back(std::to_string(n) + " because " + std::string(reason));
    missing.push_back(who + std::to_string(coverage.unmatched.size()) + " of " +
                      Count(coverage.ranges, "FLOPs record", "FLOPs records") + " matched no kernel (" +
                      Join(reasons, "; ") + ")");
  }
  if (coverage.ranges == 0) missing.push_back(who + "no mfu_flops ranges: nothing carries FLOPs");
}

}  // namespace

MfuReport BuildReport(const ReportData& data, const ReportOptions& options) {
  MfuReport report;
  report.source = data.source;
  report.path = data.path;
  report.artifacts = data.artifacts;
  report.attribute_compute = options.attribute_compute;
  const engine::AnalyzeReport& analysis = data.analysis;
  report.module_rows = analysis.tables.module_rows.size();

  std::unordered_map<std::string, Accumulator> by_op;
  std::unordered_map<std::string, Accumulator> by_op_shape;
  std::unordered_map<std::string, Accumulator> by_shape;
  std::map<std::int64_t, Accumulator> by_rank;
  std::vector<const engine::OperatorMfuRow*> kept;
  kept.reserve(analysis.tables.operator_rows.size());
  std::vector<const engine::OperatorMfuRow*> kept_compute;  // what the kernel lists rank
  std::size_t rows_without_shapes = 0;
  std::size_t aux_rows = 0;
  std::int64_t aux_time = 0;
  MfuAggregate all;
  for (const engine::OperatorMfuRow& row : analysis.tables.operator_rows) {
    const std::string_view kernel = row.kernel_name().value_or("");
    const bool is_compute = engine::IsComputeKernelName(kernel);
    (is_compute ? report.compute : report.auxiliary).Add(row);
    if (std::find(report.peak_tflops.begin(), report.peak_tflops.end(), row.chip_peak_tflops) ==
        report.peak_tflops.end()) {
      report.peak_tflops.push_back(row.chip_peak_tflops);
    }
    if (!is_compute) {
      ++aux_rows;
      aux_time += row.kernel_duration;
      if (options.attribute_compute) {
        ++report.excluded_aux_rows;
        continue;
      }
    } else {
      kept_compute.push_back(&row);
    }
    kept.push_back(&row);
    const std::string_view op = row.op_name().value_or("");
    const std::string_view shapes = row.input_shapes().value_or("");
    if (shapes.empty()) ++rows_without_shapes;
    Accumulator& op_group = by_op[std::string(op)];
    op_group.stats.op_name = op;
    Add(op_group, row, op, kernel);
    std::string key = std::string(op) + '\x1f' + std::string(shapes);
    Accumulator& op_shape_group = by_op_shape[key];
    if (op_shape_group.sums.count == 0) {
      op_shape_group.stats.op_name = op;
      op_shape_group.stats.input_shapes = shapes;
    }
    Add(op_shape_group, row, op, kernel);
    Accumulator& shape_group = by_shape[std::string(shapes)];
    shape_group.stats.input_shapes = shapes;
    Add(shape_group, row, op, kernel);
    Add(by_rank[row.rank_id], row, op, kernel);
    all.Add(row);
  }
  report.rows = all.count;
  report.total_duration = all.duration;
  report.lost_time = all.lost_time;
  std::sort(report.peak_tflops.begin(), report.peak_tflops.end());
  report.peak_source = !data.peak_source.empty() ? data.peak_source
                       : data.source == ReportData::Source::kClusterDb
                           ? "the chip_peak_tflops column of the cluster DB's OperatorMFU rows"
                           : "each rank's device_<n>/info.json.<n>: AI cores x AIC frequency x FLOPs per cycle, as "
                             "msprof-analyze computes it";
  report.all_kernels_weighted_mfu = all.weighted_mfu();
  report.weighted_mfu = report.compute.weighted_mfu();
  report.by_op = Finish(by_op, false);
  report.by_op_shape = Finish(by_op_shape, true);
  report.by_shape = Finish(by_shape, true);

  const std::size_t top = std::min(options.top, kept_compute.size());
  const auto lower = [](const engine::OperatorMfuRow* a, const engine::OperatorMfuRow* b) {
    return std::tie(a->mfu, a->rank_id, a->kernel_start) < std::tie(b->mfu, b->rank_id, b->kernel_start);
  };
  const auto top_end = kept_compute.begin() + static_cast<std::ptrdiff_t>(top);
  std::partial_sort(kept_compute.begin(), top_end, kept_compute.end(), lower);
  for (std::size_t i = 0; i < top; ++i) report.lowest.push_back(EntryOf(*kept_compute[i]));
  std::partial_sort(kept_compute.begin(), top_end, kept_compute.end(),
                    [&](const engine::OperatorMfuRow* a, const engine::OperatorMfuRow* b) { return lower(b, a); });
  for (std::size_t i = 0; i < top; ++i) report.highest.push_back(EntryOf(*kept_compute[i]));
  std::sort(kept.begin(), kept.end(), [](const engine::OperatorMfuRow* a, const engine::OperatorMfuRow* b) {
    return std::tie(a->rank_id, a->kernel_start) < std::tie(b->rank_id, b->kernel_start);
  });
  const std::size_t stride = std::max<std::size_t>(1, (kept.size() + 1999) / 2000);
  for (std::size_t i = 0; i < kept.size(); i += stride) {
    report.scatter.push_back({kept[i]->kernel_duration, kept[i]->mfu, std::string(kept[i]->op_name().value_or(""))});
  }

  // Ranks: every rank analysed (failed or empty ones too), or those in the cluster DB's rows.
  std::set<std::int64_t> listed;
  for (const engine::RankOutcome& outcome : analysis.ranks) {
    RankSummary summary;
    summary.rank_id = outcome.location.rank_id;
    summary.db_path = outcome.location.db_path;
    summary.failure = outcome.failure ? std::optional(DescribeFailure(outcome)) : std::nullopt;
    summary.coverage = outcome.analysis.coverage;
    report.inputs.push_back(outcome.location.db_path);
    report.ranks.push_back(std::move(summary));
    listed.insert(outcome.location.rank_id);
  }
  for (const auto& [rank_id, accumulator] : by_rank) {
    if (listed.contains(rank_id)) continue;
    RankSummary summary;
    summary.rank_id = rank_id;
    report.ranks.push_back(std::move(summary));
  }
  for (RankSummary& rank : report.ranks) {
    const auto found = by_rank.find(rank.rank_id);
    if (found == by_rank.end()) continue;
    const MfuAggregate& sums = found->second.sums;
    rank.rows = sums.count;
    rank.total_duration = sums.duration;
    rank.lost_time = sums.lost_time;
    rank.weighted_mfu = sums.weighted_mfu();
  }
  std::sort(report.ranks.begin(), report.ranks.end(),
            [](const RankSummary& a, const RankSummary& b) { return a.rank_id < b.rank_id; });

  // What is missing and why.
  std::vector<std::string>& missing = report.missing;
  for (std::int64_t id : analysis.unknown_ranks) {
    missing.push_back("rank " + std::to_string(id) + ": asked for with --rank-list but not found");
  }
  for (const engine::RankOutcome& outcome : analysis.ranks) {
    const std::string who = "rank " + std::to_string(outcome.location.rank_id) + ": ";
    if (outcome.failure) {
      missing.push_back(who + "failed, so it is in no figure: " + DescribeFailure(outcome));
      continue;
    }
    if (by_rank.contains(outcome.location.rank_id)) continue;
    std::vector<std::string> why;
    for (const engine::RankNote& note : outcome.analysis.notes) {
      if (note.level != engine::RankNote::Level::kInfo) why.push_back(note.text);
    }
    missing.push_back(who + "no OperatorMFU rows" + (why.empty() ? "" : " (" + Join(why, "; ") + ")") +
                      "; `opmfu check-db` says why");
  }
  for (const RankSummary& rank : report.ranks) CoverageMissing(rank, missing);
  missing.insert(missing.end(), data.notes.begin(), data.notes.end());
  if (data.source == ReportData::Source::kClusterDb) {
    missing.push_back(
        "coverage and unmatched FLOPs records: a cluster_analysis.db holds only the result rows; run `opmfu report "
        "-d <profiling dir>` for them");
  }
  if (report.module_rows == 0 && data.traces == nullptr) {
    missing.push_back(
        "ModuleMFU has no rows: no Module-domain ranges were recorded around kernels with MFU, so there is no "
        "module-level view");
  }
  if (rows_without_shapes > 0) {
    missing.push_back(Count(rows_without_shapes, "row has", "rows have") +
                      " no input shapes: the shape groupings list them under an empty shape, with no shape hints");
  }
  if (aux_rows > 0) {
    const std::string what = Count(aux_rows, "row is an auxiliary kernel", "rows are auxiliary kernels") + " (" +
                             FormatDuration(static_cast<double>(aux_time)) +
                             ", e.g. TransData or Cast) charged with a whole range's FLOPs";
    missing.push_back(options.attribute_compute
                          ? what + ": left out of every figure (--attribute compute, a departure from upstream)"
                          : what +
                                ": their MFU is upstream's but not meaningful; --attribute compute leaves them "
                                "out");
  }
  if (report.rows == 0) {
    missing.push_back("no OperatorMFU rows at all: there is nothing to rank; `opmfu check-db -d DIR` says why");
  }
  return report;
}

}  // namespace opmfu::report
