// `opmfu merge`: the partial results of `opmfu analyze --shard I/N` into the tables a one-shot
// `opmfu analyze` writes (engine/partial.h, docs/sharding.md).

#include <memory>

#include "cli/analysis_output.h"
#include "cli/cli_support.h"
#include "common/text.h"
#include "engine/partial.h"
#include "report/derived_table.h"

namespace opmfu::cli {
namespace {

struct MergeFlags {
  std::vector<std::string> partials;
  std::string output_path;
  std::string export_type = "db";
  bool verbose = false;
  std::string format = "text";
};

int RunMergeCommand(const MergeFlags& flags) {
  engine::MergeOptions options;
  for (const std::string& partial : flags.partials) options.partials.emplace_back(partial);
  options.output_path = flags.output_path;
  auto export_type = ParseExportType(flags.export_type);
  if (!export_type.ok()) return ReportError(export_type.error());
  options.export_type = *export_type;
  options.stale_tables = {report::kDerivedTableName};  // made from the rows the merge replaces
  auto report = engine::RunMerge(options);
  if (!report.ok()) return ReportError(report.error());
  // The lines a one-shot analysis of the same ranks prints, failed ranks included.
  PrintAnalysisLog(*report, flags.verbose);
  if (flags.format == "json") {
    PrintAnalysisJson(*report, flags.export_type);
  } else {
    PrintAnalysisSummary(*report);
  }
  return report->clean() ? kExitOk : kExitFindings;
}

}  // namespace

void AddMergeCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<MergeFlags>();
  CLI::App* command = app.add_subcommand(
      "merge", "join the partial results of analyze --shard I/N into the tables a one-shot analyze writes");
  command
      ->add_option("partials", flags->partials,
                   "each shard's -o folder (or its opmfu_partial/ folder, or one shard_<I>_of_<N>.db); "
                   "all N shards of one input, each once")
      ->required();
  command->add_option("-o,--output-path,--output_path", flags->output_path, "where cluster_analysis_output/ goes")
      ->required();
  command
      ->add_option("--export-type,--export_type", flags->export_type,
                   "db (cluster_analysis.db), text (per-rank .xlsx), csv or json")
      ->capture_default_str()
      ->check(Choices({"db", "text", "csv", "json"}));
  command->add_flag("-v,--verbose", flags->verbose, "also print each rank's progress messages");
  AddFormatOption(*command, flags->format);
  command->footer(
      "A missing or duplicated shard, shards of different N or of different inputs, or a folder without a "
      "partial is a usage error (exit 2) naming it. Failed ranks are reported as analyze reports them (exit 1).");
  command->callback([flags, &action] { action = [flags] { return RunMergeCommand(*flags); }; });
}

}  // namespace opmfu::cli
