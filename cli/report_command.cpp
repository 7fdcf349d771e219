// `opmfu report`: a readable MFU report (text, Markdown, HTML or JSON) with the biggest
// opportunities first.

#include <iostream>
#include <memory>

#include "cli/cli_support.h"
#include "report/report.h"

namespace opmfu::cli {
namespace {

struct ReportFlags {
  MfuSourceFlags source;
  std::string format;
  std::string output;
  std::size_t top = 10;
  std::string attribute = "all";
  report::DerivedOptions derived;
  double peak_tflops = 0;
  double hbm_tbps = 0;
};

// -o report.html without --format means HTML.
std::string FormatFor(const ReportFlags& flags) {
  if (!flags.format.empty()) return flags.format;
  const auto ends_with = [&](std::string_view suffix) { return flags.output.ends_with(suffix); };
  if (ends_with(".html") || ends_with(".htm")) return "html";
  if (ends_with(".md")) return "markdown";
  if (ends_with(".json")) return "json";
  return "text";
}

int RunReport(const ReportFlags& flags) {
  MfuSourceFlags source = flags.source;
  if (flags.peak_tflops > 0) source.trace_peak_tflops = flags.peak_tflops;
  auto data = source.Load(/*with_kernel_signatures=*/true);
  if (!data.ok()) return ReportError(data.error());
  if (Status safe = RefuseOutputOverInput(flags.output, InputFiles(*data)); !safe.ok())
    return ReportError(safe.error());
  if (!data->analysis.discovery.correction.empty()) ReportWarning(data->analysis.discovery.correction);
  for (const std::string& note : data->analysis.discovery.notes) ReportWarning(note);
  ReportFailedRanks(data->analysis, "in no figure of the report");
  if (data->analysis.tables.operator_rows.empty() && data->analysis.failed_ranks() == 0) {
    // A report of zero rows looks like a result and says nothing: exit 1, and nothing is written.
    std::cerr << "opmfu: error: " << data->path.string()
              << ": no OperatorMFU rows, so there is nothing to report (no report written)\n";
    return kExitFindings;
  }
  report::ReportOptions options;
  options.top = flags.top;
  options.attribute_compute = flags.attribute == "compute";
  report::MfuReport report = report::BuildReport(*data, options);
  report::DerivedOptions derived_options = flags.derived;
  if (flags.peak_tflops > 0) derived_options.peak_tflops = flags.peak_tflops;
  if (flags.hbm_tbps > 0) derived_options.hbm_tbps = flags.hbm_tbps;
  auto derived = report::BuildDerivedSection(*data, derived_options);
  if (!derived.ok()) return ReportError(derived.error());
  report.derived = std::move(*derived);
  const std::string format = FormatFor(flags);
  report::ReportFormat chosen = report::ReportFormat::kText;
  if (format == "markdown") chosen = report::ReportFormat::kMarkdown;
  if (format == "html") chosen = report::ReportFormat::kHtml;
  if (format == "json") chosen = report::ReportFormat::kJson;
  if (Status written = EmitOutput(report::RenderReport(report, chosen, flags.top), flags.output); !written.ok()) {
    return ReportError(written.error());
  }
  if (!flags.output.empty() && flags.output != "-") std::cerr << "opmfu: wrote " << flags.output << "\n";
  // Ranks that failed are in the report; the exit code says it is incomplete.
  return data->analysis.clean() ? kExitOk : kExitFindings;
}

}  // namespace

void AddReportCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* command = app.add_subcommand("report", "a readable MFU report with the biggest opportunities first");
  flags->source.Add(*command);
  command->add_option("--format", flags->format, "text, markdown, html or json (default: from -o's suffix, else text)")
      ->check(CLI::IsMember({"text", "markdown", "html", "json"}));
  command->add_option("-o,--output", flags->output, "write here (atomically) instead of stdout");
  command->add_option("--top", flags->top, "kernels and groups listed per table (default 10)")
      ->check(CLI::Range(1, 100000));
  command
      ->add_option("--attribute", flags->attribute,
                   "all: every kernel of a FLOPs range carries its FLOPs, as upstream (default); compute: only "
                   "matmul/attention kernels do, and auxiliary kernels (TransData, Cast) are left out")
      ->check(CLI::IsMember({"all", "compute"}));
  command
      ->add_option("--chip", flags->derived.chip,
                   "the chip for the derived section's peaks and HBM bandwidth when the run has no info.json "
                   "(e.g. Ascend910B2; docs/derived-mfu.md lists them)")
      ->check(Choices(ChipNames()));
  command
      ->add_option("--peak-tflops", flags->peak_tflops,
                   "the FP16 peak for the derived section (INT8: twice it); for a GPU trace, the peak every op is "
                   "measured against")
      ->check(CLI::PositiveNumber);
  command->add_option("--hbm-tbps", flags->hbm_tbps, "the HBM bandwidth for the derived section's roofline, TB/s")
      ->check(CLI::PositiveNumber);
  command->footer(
      "Exit codes: 0 the report is complete; 1 written, but some ranks failed (listed under 'What is missing'); "
      "2 input or usage error.");
  command->callback([flags, &action] { action = [flags] { return RunReport(*flags); }; });
}

}  // namespace opmfu::cli
