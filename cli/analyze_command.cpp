// `opmfu analyze`: thin glue between the flags (ours and msprof-analyze's spellings) and engine/.

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/agent_output.h"
#include "cli/analysis_output.h"
#include "cli/cli_support.h"
#include "cli/msprof_compat.h"
#include "cli/rank_progress.h"
#include "common/config.h"
#include "common/file_io.h"
#include "common/sqlite.h"
#include "common/text.h"
#include "engine/analyze.h"
#include "engine/numeric.h"
#include "report/derived_mfu.h"
#include "report/derived_table.h"
#include "report/report.h"
#include "report/torch_analysis.h"
#include "rules/rule_table.h"

namespace opmfu::cli {
namespace {

struct AnalyzeFlags {
  std::string profiling_path;
  std::string output_path;
  std::string export_type = "db";
  std::string rank_list;
  std::string shard;
  std::string mode;
  std::optional<std::int64_t> step_id;
  unsigned jobs = 0;
  bool agent = false;
  bool verbose = false;
  std::string format = "text";
  bool no_config = false;
  // --derived: a DerivedMFU table of our own beside upstream's (docs/derived-mfu.md).
  bool derived = false;
  std::string chip;
  std::string source = "db";
  double peak_tflops = 0;
  double hbm_tbps = 0;
  // Whether the flag was on the command line: only then does it win over `.opmfu.yaml`.
  bool export_type_given = false;
  bool jobs_given = false;
  bool shard_given = false;               // so that an empty `--shard ""` is refused, not ignored
  UpstreamFlags upstream;                 // msprof-analyze's spellings that change nothing here
  std::vector<std::string> option_names;  // for a did-you-mean on an ignored option
};

// --derived: the DerivedMFU table beside upstream's (report::WriteDerivedForAnalysis).
Result<std::size_t> WriteDerived(engine::AnalyzeReport& analysis, const AnalyzeFlags& flags) {
  report::DerivedOptions options;
  options.chip = flags.chip;
  if (flags.peak_tflops > 0) options.peak_tflops = flags.peak_tflops;
  if (flags.hbm_tbps > 0) options.hbm_tbps = flags.hbm_tbps;
  return report::WriteDerivedForAnalysis(analysis, flags.profiling_path, options);
}

// The `analyze:` section of the nearest `.opmfu.yaml` above the profiling directory fills in what
// the command line left out (docs/configuration.md).
Result<AnalyzeFlags> ApplyConfig(AnalyzeFlags flags) {
  if (flags.no_config) return flags;
  const std::vector<RuleDescriptor> rules = rules::RuleDescriptors();
  OPMFU_ASSIGN_OR_RETURN(const Config config, ConfigFor(flags.profiling_path, rules));
  std::string applied;
  if (config.analyze.export_type && !flags.export_type_given) {
    flags.export_type = *config.analyze.export_type;
    applied += " export-type " + flags.export_type;
  }
  if (config.analyze.jobs && !flags.jobs_given) {
    flags.jobs = static_cast<unsigned>(*config.analyze.jobs);
    applied += " jobs " + std::to_string(flags.jobs);
  }
  if (flags.verbose && !applied.empty()) {
    std::cerr << "opmfu: " << config.path.string() << ":" << applied << "\n";
  }
  return flags;
}

int RunAnalyzeCommand(AnalyzeFlags given) {
  if (!given.mode.empty() && given.mode != "operator_mfu") {
    return ReportError(Error::Usage("-m " + given.mode + ": opmfu analyze runs operator_mfu only"));
  }
  auto ignored = CheckUpstreamFlags(given.upstream, given.export_type, given.option_names);
  if (!ignored.ok()) return ReportError(ignored.error());
  std::string early_log;  // for --agent's log file: what comes before the analysis' own lines
  if (!ignored->empty()) {
    ReportWarning(*ignored);
    early_log += "warning: " + *ignored + "\n";
  }
  given.profiling_path = UpstreamPath(given.profiling_path);
  if (!given.output_path.empty()) given.output_path = UpstreamPath(given.output_path);
  auto configured = ApplyConfig(given);
  if (!configured.ok()) return ReportError(configured.error());
  const AnalyzeFlags& flags = *configured;
  engine::AnalyzeOptions options;
  options.profiling_path = flags.profiling_path;
  options.source = ExportSourceOf(flags.source);
  if (!flags.output_path.empty()) options.output_path = flags.output_path;
  auto export_type = ParseExportType(flags.export_type);
  if (!export_type.ok()) return ReportError(export_type.error());
  options.export_type = *export_type;
  if (flags.derived && options.export_type != engine::ExportType::kDb) {
    return ReportError(
        Error::Usage("--derived writes a DerivedMFU table into cluster_analysis.db: use --export-type db"));
  }
  if (!flags.derived && (!flags.chip.empty() || flags.peak_tflops > 0 || flags.hbm_tbps > 0)) {
    return ReportError(Error::Usage("--chip, --peak-tflops and --hbm-tbps apply to --derived"));
  }
  if (!flags.chip.empty() && report::FindChip(flags.chip) == nullptr) {
    return ReportError(Error::Usage("--chip " + flags.chip + ": not a known chip (docs/derived-mfu.md lists them)"));
  }
  auto ranks = ParseRankList(flags.rank_list);
  if (!ranks.ok()) return ReportError(ranks.error());
  options.rank_list = *ranks;
  if (flags.shard_given) {
    auto shard = engine::ParseShardSpec(flags.shard);
    if (!shard.ok()) return ReportError(shard.error());
    if (flags.agent) {
      return ReportError(
          Error::Usage("--shard writes a partial result for opmfu merge; --agent needs the whole analysis"));
    }
    if (flags.export_type_given || flags.derived) {
      return ReportError(Error::Usage(std::string(flags.derived ? "--derived" : "--export-type") +
                                      " goes to the whole analysis: a shard writes only its partial result for "
                                      "opmfu merge"));
    }
    options.shard = *shard;
  }
  options.step_id = flags.step_id;
  options.jobs = flags.jobs;
  options.keep_rows = flags.derived;               // the DerivedMFU section reads every OperatorMFU row
  options.with_kernel_signatures = flags.derived;  // DerivedMFU from the analysis' own scan
  // An earlier run's DerivedMFU was made from the rows this run replaces: it goes in the same write
  // (with --derived, WriteDerived then writes this run's).
  options.stale_tables = {report::kDerivedTableName};
  if (auto traces = report::TorchTraceInputs(flags.profiling_path)) {  // PyTorch profiler traces (GPU)
    const std::optional<double> peak = flags.peak_tflops > 0 ? std::optional<double>(flags.peak_tflops) : std::nullopt;
    auto done = report::WriteTorchTraceAnalysis(*traces, flags.profiling_path, options.export_type, options.output_path,
                                                {peak, flags.jobs}, flags.derived);
    if (!done.ok()) return ReportError(done.error());
    return PrintTraceAnalysis(*done);
  }
  RankProgress progress(flags.agent);
  auto on_rank_done = progress.Callback();
  if (!on_rank_done.ok()) return ReportError(on_rank_done.error());
  options.on_rank_done = std::move(*on_rank_done);
  auto report = engine::RunAnalyze(options);
  progress.Finish();
  // With --agent an error here becomes upstream's error line at exit (SetAgentMode).
  if (!report.ok()) return ReportError(report.error());
  // Every line goes to stderr; with --agent also to a log file whose path the JSON gives
  // (msprof-analyze's `log_path`), since an agent reads only stdout.
  std::optional<std::size_t> derived_rows;
  if (flags.derived) {
    auto rows = WriteDerived(*report, flags);
    if (!rows.ok()) return ReportError(rows.error());
    derived_rows = *rows;
  }
  std::string full_log = early_log + "opmfu " OPMFU_VERSION " analyze -d " + flags.profiling_path + ": " +
                         std::to_string(report->ranks.size()) + " ranks\n";
  PrintAnalysisLog(*report, flags.verbose, &full_log);
  for (const auto& written : report->written) full_log += "wrote " + written.string() + "\n";
  const bool failed = !report->clean();
  if (flags.agent) {
    nlohmann::ordered_json answer = AgentAnswer(*report, flags.export_type, derived_rows.has_value());
    WriteAgentLog(full_log, answer);
    std::cout << answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (flags.format == "json") {
    PrintAnalysisJson(*report, flags.export_type, derived_rows);
  } else {
    PrintAnalysisSummary(*report);
    if (derived_rows) {
      std::cout << "DerivedMFU: " << *derived_rows << " rows (" << opmfu::report::kDerivedLabel
                << "; one per kernel signature and rank, skipped ones with their reason)\n";
    }
  }
  // A shard that wrote its partial has done its job: its failed ranks are recorded there, and
  // `opmfu merge` reports them and exits 1. So a scheduler's "after the shards succeeded" runs the merge.
  if (report->shard) return kExitOk;
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<AnalyzeFlags>();
  CLI::App* command = app.add_subcommand("analyze", "operator- and module-level MFU from a profiling directory");
  AddProfilingPathOption(*command, flags->profiling_path,
                         "the profiling directory (parent of the *_ascend_pt directories)");
  command->add_option("-o,--output-path,--output_path", flags->output_path,
                      "where cluster_analysis_output/ goes (default: the profiling directory)");
  CLI::Option* export_type = command
                                 ->add_option("--export-type,--export_type", flags->export_type,
                                              "db (cluster_analysis.db), text (per-rank .xlsx), csv or json "
                                              "(default: .opmfu.yaml's analyze: export-type, else db)")
                                 ->capture_default_str()
                                 ->check(Choices({"db", "text", "csv", "json"}));
  command->add_option("--rank-list,--rank_list", flags->rank_list, "ranks to analyse, e.g. 0,1,3 (default: all)");
  command->add_option("--step-id,--step_id", flags->step_id, "only what starts inside this STEP_TIME step");
  AddExportSourceOption(*command, flags->source);
  CLI::Option* shard = command->add_option("--shard", flags->shard,
                                           "I/N: only shard I of N (0-based), as a partial result in "
                                           "<-o>/opmfu_partial/ for opmfu merge (docs/sharding.md)");
  CLI::Option* jobs = command->add_option(
      "--jobs", flags->jobs, "ranks analysed at once (default: .opmfu.yaml's analyze: jobs, else one per core)");
  command->add_option("-m,--mode", flags->mode, "accepted for msprof-analyze compatibility: operator_mfu")
      ->check(Choices({"operator_mfu"}));
  command->add_flag("--agent", flags->agent,
                    "print one JSON line (msprof-analyze's agent format) instead of a summary");
  command->add_flag("-v,--verbose", flags->verbose, "also print each rank's progress messages");
  AddFormatOption(*command, flags->format);
  command->add_flag("--no-config", flags->no_config, "ignore .opmfu.yaml files");
  command->add_flag("--derived", flags->derived,
                    "also write a DerivedMFU table (FLOPs derived from kernel shapes, not msprof-analyze) into "
                    "cluster_analysis.db, beside the untouched OperatorMFU and ModuleMFU (docs/derived-mfu.md)");
  command
      ->add_option("--chip", flags->chip, "with --derived: the chip whose peak applies when the run has no info.json")
      ->check(Choices(ChipNames()));
  command->add_option("--peak-tflops", flags->peak_tflops, "with --derived: the FP16 peak, TFLOPS")
      ->check(CLI::PositiveNumber);
  command->add_option("--hbm-tbps", flags->hbm_tbps, "with --derived: the HBM bandwidth for the roofline, TB/s")
      ->check(CLI::PositiveNumber);
  command->footer(
      "Differences from msprof-analyze: a failing rank is reported and the others are still written (exit 1); "
      "ranks are ordered by id; --step-id really filters; tables without rows are dropped, not left stale.");
  AddUpstreamOptions(*command, flags->upstream);
  command->callback([flags, command, export_type, jobs, shard, &action] {
    CollectUpstreamExtras(*command, flags->upstream);
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames()) flags->option_names.push_back("--" + name);
    }
    flags->export_type_given = export_type->count() > 0;
    flags->shard_given = shard->count() > 0;
    flags->jobs_given = jobs->count() > 0;
    action = [flags] { return RunAnalyzeCommand(*flags); };
  });
}

}  // namespace opmfu::cli
