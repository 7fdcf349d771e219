#include "cli/analysis_output.h"

#include "cli/cli_support.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "common/text.h"

namespace opmfu::cli {
namespace {

std::string Percent(double mfu) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << mfu * 100.0 << "%";
  return text.str();
}

void PrintKernels(std::ostream& out, const char* title, const std::vector<engine::KernelLine>& kernels) {
  out << title << "\n";
  for (const engine::KernelLine& kernel : kernels) {
    out << "  " << Percent(kernel.mfu) << "  rank " << kernel.rank_id << "  "
        << EscapeControlCharacters(kernel.op_name.value_or("?")) << " -> "
        << EscapeControlCharacters(kernel.kernel_name.value_or("?")) << "  " << kernel.kernel_duration << " ns  "
        << kernel.actual_tflops << " TFLOPS  shapes " << EscapeControlCharacters(kernel.input_shapes.value_or("-"))
        << "\n";
  }
}

nlohmann::ordered_json OptionalJson(std::optional<double> value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

void PrintAnalysisJson(const engine::AnalyzeReport& report, const std::string& export_type,
                       std::optional<std::size_t> derived_rows) {
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const engine::RankOutcome& rank : report.ranks) {
    const bool failed = rank.failure.has_value();
    ranks.push_back({
        {"rank", rank.location.rank_id},
        {"db_path", rank.location.db_path.string()},
        {"export", rank.location.text_export ? "text" : "db"},
        {"status", failed ? "failed" : "ok"},
        {"error", failed ? nlohmann::ordered_json(engine::DescribeFailure(rank)) : nlohmann::ordered_json(nullptr)},
        {"operator_mfu_rows", rank.operator_rows},
        {"module_mfu_rows", rank.module_rows},
        {"no_rows_reason", !failed && rank.operator_rows == 0 && rank.analysis.no_rows_reason
                               ? nlohmann::ordered_json(*rank.analysis.no_rows_reason)
                               : nlohmann::ordered_json(nullptr)},
    });
  }
  const engine::RowFigures& figures = report.figures;
  const auto& counts = figures.bands();
  const nlohmann::ordered_json bands = {{"below_20", counts[0]},
                                        {"20_to_30", counts[1]},
                                        {"30_to_60", counts[2]},
                                        {"60_to_70", counts[3]},
                                        {"above_70", counts[4]}};
  const std::optional<double> weighted = figures.time_weighted_mfu();
  nlohmann::ordered_json written = nlohmann::ordered_json::array();
  for (const auto& path : report.written) written.push_back(path.string());
  nlohmann::ordered_json answer{
      {"root", report.discovery.root.string()},
      {"export_type", export_type},
      {"output_directory", report.output_directory.string()},
      {"written", written},
      {"operator_mfu_rows", figures.operator_rows()},
      {"module_mfu_rows", figures.module_rows()},
      {"time_weighted_mfu", weighted ? nlohmann::ordered_json(*weighted) : nlohmann::ordered_json(nullptr)},
      {"compute_time_weighted_mfu", OptionalJson(figures.compute_time_weighted_mfu())},
      {"auxiliary_kernels",
       {{"rows", figures.auxiliary_rows()},
        {"time_weighted_mfu", OptionalJson(figures.auxiliary_time_weighted_mfu())}}},
      {"mfu_bands", bands},
      {"failed_ranks", report.failed_ranks()},
      {"ranks", ranks},
  };
  if (derived_rows) answer["derived_mfu_rows"] = *derived_rows;
  if (report.shard) {
    answer["shard"] = {
        {"index", report.shard->index}, {"count", report.shard->count}, {"input_ranks", report.input_ranks}};
  }
  if (!report.partials.empty()) {
    nlohmann::ordered_json partials = nlohmann::ordered_json::array();
    for (const auto& path : report.partials) partials.push_back(path.string());
    answer["partials"] = partials;
  }
  std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void PrintAnalysisSummary(const engine::AnalyzeReport& report) {
  std::ostream& out = std::cout;
  const engine::RowFigures& figures = report.figures;
  const std::size_t ranks = report.ranks.size();
  if (report.shard) {
    out << "Shard " << report.shard->index << " of " << report.shard->count << ": analysed " << ranks << " of the "
        << report.input_ranks << " ranks under " << EscapeControlCharacters(report.discovery.root.string()) << "\n";
  } else {
    if (!report.partials.empty()) {
      out << "Merged " << report.partials.size() << (report.partials.size() == 1 ? " shard" : " shards") << "\n";
    }
    out << "Analysed " << ranks << (ranks == 1 ? " rank" : " ranks") << " under "
        << EscapeControlCharacters(report.discovery.root.string())
        << " (operator-level MFU, as msprof-analyze -m operator_mfu computes it)\n";
  }
  for (const engine::RankOutcome& rank : report.ranks) {
    out << "  rank " << rank.location.rank_id << (rank.location.text_export ? " (Text export)" : "") << ": ";
    if (rank.failure) {
      out << "FAILED: " << EscapeControlCharacters(engine::DescribeFailure(rank));
      if (rank.module_rows > 0) out << " (" << rank.module_rows << " ModuleMFU rows kept)";
      out << "\n";
      continue;
    }
    const auto& analysis = rank.analysis;
    out << rank.operator_rows << " OperatorMFU rows, " << rank.module_rows << " ModuleMFU rows";
    if (rank.operator_rows == 0 && analysis.no_rows_reason)
      out << "; no MFU: " << EscapeControlCharacters(*analysis.no_rows_reason);
    out << "\n";
  }
  out << "OperatorMFU: " << figures.operator_rows() << " rows; ModuleMFU: " << figures.module_rows() << " rows\n";
  if (figures.operator_rows() > 0) {
    const auto& bands = figures.bands();
    out << "MFU bands: <20%: " << bands[0] << "  20-30%: " << bands[1] << "  30-60%: " << bands[2]
        << "  60-70%: " << bands[3] << "  >70%: " << bands[4] << "\n";
    if (const auto compute = figures.compute_time_weighted_mfu()) {
      out << "Time-weighted MFU of the compute kernels: " << Percent(*compute) << "\n";
    }
    PrintKernels(out, "Lowest MFU compute kernels:", figures.lowest());
    PrintKernels(out, "Highest MFU compute kernels:", figures.highest());
    if (figures.auxiliary_rows() > 0) {
      // Listed apart: upstream charges them a whole range's FLOPs, so their MFU is no hardware figure.
      out << "Auxiliary kernels (TransData, Cast, ...: they inherit their range's FLOPs, so their MFU is not "
             "meaningful): "
          << figures.auxiliary_rows() << " rows, time-weighted MFU "
          << Percent(figures.auxiliary_time_weighted_mfu().value_or(0)) << " as upstream counts them\n";
      PrintKernels(out, "Highest inherited MFU, auxiliary kernels:", figures.highest_auxiliary());
    }
  }
  for (const auto& path : report.written) out << "Wrote " << EscapeControlCharacters(path.string()) << "\n";
  if (report.shard) {
    out << "Partial result of shard " << report.shard->index << " of " << report.shard->count
        << "; once all shards are done: opmfu merge <each shard's -o> -o OUT\n";
    return;
  }
  if (report.nothing_to_write) {
    out << "Nothing written: no rank produced a row";
    std::error_code ec;
    const auto earlier = report.output_directory / "cluster_analysis.db";
    if (std::filesystem::exists(earlier, ec))
      out << " (the earlier " << EscapeControlCharacters(earlier.string()) << " is left as it was)";
    out << "\n";
  }
}

std::string PrintAnalysisLog(const engine::AnalyzeReport& report, bool verbose, std::string* full_log) {
  std::string log;
  // `quiet_line`: a line only -v prints; the full log (--agent's file) holds it anyway.
  const auto emit = [&](const std::string& line, bool quiet_line = false) {
    if (full_log != nullptr) *full_log += line + "\n";
    if (quiet_line && !verbose) return;
    std::cerr << "opmfu: " << EscapeControlCharacters(line) << "\n";
    log += line + "\n";
  };
  if (!report.discovery.correction.empty()) emit("warning: " + report.discovery.correction);
  for (const std::string& note : report.discovery.notes) emit("warning: " + note);
  for (const std::string& problem : engine::DescribeProblems(report.discovery)) emit("error: " + problem);
  if (!report.unknown_ranks.empty()) {
    std::string ids;
    for (std::int64_t id : report.unknown_ranks) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    emit("warning: Invalid Rank id: [" + ids + "].");
  }
  for (const engine::RankOutcome& rank : report.ranks) {
    const std::string who = "rank " + std::to_string(rank.location.rank_id) + ": ";
    // A failed rank gets one line, its file and root cause; upstream's log lines that led there
    // only with -v. Other ranks keep their warnings.
    for (const std::string& error : rank.analysis.data_errors) {
      emit(who + "error: " + rank.location.db_path.string() + ": " + error);
    }
    if (rank.failure) {
      emit(who + "error: " + engine::DescribeFailure(rank));
    } else if (rank.operator_rows == 0 && rank.analysis.no_rows_reason) {
      emit(who + "warning: " + rank.location.db_path.string() + ": " + *rank.analysis.no_rows_reason);
    }
    for (const engine::RankNote& note : rank.analysis.notes) {
      // Each line names the rank's database, so a log line alone says which file it is about.
      const std::string db = rank.location.db_path.string();
      emit(who +
               (note.level == engine::RankNote::Level::kError     ? "error: "
                : note.level == engine::RankNote::Level::kWarning ? "warning: "
                                                                  : "") +
               note.text + (note.text.find(db) == std::string::npos ? " (" + db + ")" : ""),
           note.level == engine::RankNote::Level::kInfo || rank.failure.has_value());
    }
  }
  for (const engine::RankOutcome& rank : report.ranks) {
    emit("rank " + std::to_string(rank.location.rank_id) + ": read the " + engine::ExportName(rank.location) +
             " export: " + rank.location.db_path.string(),
         true);
  }
  for (const engine::RankOutcome& rank : report.ranks) {
    std::string stages;
    for (const engine::StageTime& stage : rank.analysis.stages)
      stages += (stages.empty() ? "" : ", ") + engine::DescribeStage(stage);
    if (!stages.empty()) emit("rank " + std::to_string(rank.location.rank_id) + ": stages: " + stages, true);
  }
  emit("stage " + engine::DescribeStage(report.write), true);
  return log;
}

Result<engine::ExportType> ParseExportType(const std::string& name) {
  if (name == "db") return engine::ExportType::kDb;
  if (name == "csv") return engine::ExportType::kCsv;
  if (name == "json") return engine::ExportType::kJson;
  if (name == "text") return engine::ExportType::kText;
  const std::vector<std::string> names = {"db", "text", "csv", "json"};
  return Error::Usage("unknown export type '" + name + "'" + DidYouMean(name, names) +
                      "; choose db, text, csv or json");
}

int PrintTraceAnalysis(const report::TraceWriteResult& done) {
  ReportFailedRanks(done.analysis, "in no table");
  PrintAnalysisSummary(done.analysis);
  if (done.derived_rows) std::cout << "DerivedMFU: " << *done.derived_rows << " rows (per op and shapes)\n";
  return done.analysis.clean() ? kExitOk : kExitFindings;
}

}  // namespace opmfu::cli
