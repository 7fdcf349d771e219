// `opmfu gate`: fail a CI job when MFU, per-op MFU or coverage misses a threshold, or MFU dropped
// against a baseline run; the MFU is the recorded one (OperatorMFU) or, with --mfu-source derived,
// the one derived from kernel shapes.

#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "report/derived_mfu.h"
#include "report/gate.h"
#include "report/presentation.h"

namespace opmfu::cli {
namespace {

struct GateFlags {
  MfuSourceFlags source;
  std::string min_mfu;
  std::vector<std::string> min_op_mfu;
  std::string min_coverage;
  std::string max_drop;
  std::string baseline;
  std::string mfu_source = "recorded";
  report::DerivedOptions derived;
  double peak_tflops = 0;
  std::string output_format = "text";
  std::string output;
};

const std::vector<RuleDescriptor>& GateRules() {
  static const std::vector<RuleDescriptor> rules = {
      {"gate/min-mfu", "min-mfu", Severity::kError, "time-weighted MFU over every kernel is below --min-mfu",
       "docs/report.md"},
      {"gate/min-mfu-op", "min-mfu-op", Severity::kError, "an op's time-weighted MFU is below its --min-mfu-op",
       "docs/report.md"},
      {"gate/min-coverage", "min-coverage", Severity::kError,
       "a rank's share of compute time inside FLOPs ranges is below --min-coverage", "docs/report.md"},
      {"gate/max-drop", "max-drop", Severity::kError, "MFU dropped more than --max-drop against --baseline",
       "docs/report.md"},
      {"gate/incomplete", "incomplete", Severity::kError, "a rank failed, so the figures miss it", "docs/report.md"},
  };
  return rules;
}

// text and gate's own json, then every format of lint's but its json (the same failed checks as
// findings, for the CI system the job runs in).
const std::vector<std::string>& GateFormatNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list = {"text", "json"};
    for (const std::string& name : OutputFormatNames()) {
      if (name != "json") list.push_back(name);
    }
    return list;
  }();
  return names;
}

Result<report::GateThresholds> ParseThresholds(const GateFlags& flags) {
  report::GateThresholds thresholds;
  if (!flags.min_mfu.empty()) {
    OPMFU_ASSIGN_OR_RETURN(thresholds.min_mfu, report::ParseRatio("--min-mfu", flags.min_mfu));
  }
  for (const std::string& entry : flags.min_op_mfu) {
    const std::size_t equals = entry.rfind('=');
    if (equals == std::string::npos || equals == 0) {
      return Error::Usage("--min-mfu-op takes OP=RATIO (e.g. aten::mm=0.6), got '" + entry + "'");
    }
    OPMFU_ASSIGN_OR_RETURN(const double ratio, report::ParseRatio("--min-mfu-op", entry.substr(equals + 1)));
    thresholds.min_op_mfu.emplace_back(entry.substr(0, equals), ratio);
  }
  const bool derived = flags.mfu_source == "derived";
  if (derived && !flags.source.cluster_db.empty()) {
    return Error::Usage(
        "--mfu-source derived needs -d: a cluster DB holds only the result rows, not the kernel shapes the FLOPs are "
        "derived from");
  }
  if (!derived && (!flags.derived.chip.empty() || flags.peak_tflops > 0)) {
    return Error::Usage("--chip and --peak-tflops give the peak of --mfu-source derived; the recorded MFU has its own");
  }
  if (!flags.min_coverage.empty()) {
    if (!flags.source.cluster_db.empty()) {
      return Error::Usage(
          "--min-coverage needs -d: a cluster DB holds only the result rows, not the kernels they miss");
    }
    OPMFU_ASSIGN_OR_RETURN(thresholds.min_coverage, report::ParseRatio("--min-coverage", flags.min_coverage));
  }
  if (!flags.max_drop.empty()) {
    if (flags.baseline.empty())
      return Error::Usage("--max-drop needs --baseline BASE (a profiling directory or cluster DB)");
    OPMFU_ASSIGN_OR_RETURN(thresholds.max_drop, report::ParseRatio("--max-drop", flags.max_drop));
  }
  if (!thresholds.min_mfu && thresholds.min_op_mfu.empty() && !thresholds.min_coverage && !thresholds.max_drop) {
    return Error::Usage("give at least one threshold: --min-mfu, --min-mfu-op, --min-coverage or --max-drop");
  }
  return thresholds;
}

// The derived section of one run, for the gate (no comparison with records is needed).
Result<report::DerivedSection> DerivedOf(const report::ReportData& data, const GateFlags& flags,
                                         const std::string& which) {
  if (data.source == report::ReportData::Source::kClusterDb) {
    return Error::Usage(which + " " + data.path.string() +
                        ": --mfu-source derived needs a profiling directory (a cluster DB holds no kernel shapes)");
  }
  report::DerivedOptions options = flags.derived;
  if (flags.peak_tflops > 0) options.peak_tflops = flags.peak_tflops;
  return report::BuildDerivedSection(data, options);
}

int RunGateCommand(const GateFlags& flags) {
  auto thresholds = ParseThresholds(flags);
  if (!thresholds.ok()) return ReportError(thresholds.error());
  const bool use_derived = flags.mfu_source == "derived";
  auto data = flags.source.Load(/*with_kernel_signatures=*/use_derived);
  if (!data.ok()) return ReportError(data.error());
  std::optional<report::DerivedSection> derived;
  report::GateFigures figures;
  if (use_derived) {
    // A rank without FLOPs records fails upstream's analysis; the derived figures do not need them.
    auto section = DerivedOf(*data, flags, "-d");
    if (!section.ok()) return ReportError(section.error());
    derived = std::move(*section);
    figures = report::DerivedFigures(*derived);
  } else {
    ReportFailedRanks(data->analysis, "the gate cannot pass");
    figures = report::RecordedFigures(*data, report::BuildReport(*data, {}));
  }
  std::vector<std::filesystem::path> inputs = InputFiles(*data);
  std::optional<report::GateFigures> baseline;
  if (!flags.baseline.empty()) {
    auto base_data =
        report::LoadRun(flags.baseline, /*with_kernel_signatures=*/use_derived, ExportSourceOf(flags.source.source));
    if (!base_data.ok()) return ReportError(base_data.error());
    for (std::filesystem::path& input : InputFiles(*base_data)) inputs.push_back(std::move(input));
    if (use_derived) {
      auto section = DerivedOf(*base_data, flags, "--baseline");
      if (!section.ok()) return ReportError(section.error());
      baseline = report::DerivedFigures(*section);
    } else {
      baseline = report::RecordedFigures(*base_data, report::BuildReport(*base_data, {}));
    }
  }
  if (Status safe = RefuseOutputOverInput(flags.output, inputs); !safe.ok()) return ReportError(safe.error());
  const std::vector<report::GateCheck> checks = report::RunGate(figures, baseline ? &*baseline : nullptr, *thresholds);
  const bool passed = std::all_of(checks.begin(), checks.end(), [](const report::GateCheck& c) { return c.passed; });

  std::string rendered;
  if (flags.output_format == "text") {
    rendered = (derived ? report::DerivedGateBasis(*derived) : std::string()) + report::RenderGateText(checks, passed);
  } else if (flags.output_format == "json") {
    rendered = report::RenderGateJson(checks, passed, derived);
  } else {
    std::vector<Diagnostic> failures;
    for (const report::GateCheck& check : checks) {
      if (check.passed) continue;
      Diagnostic diagnostic;
      diagnostic.rule_id = check.rule;
      diagnostic.rule_name = check.rule.substr(check.rule.find('/') + 1);
      diagnostic.severity = Severity::kError;
      diagnostic.file = data->path.string();
      diagnostic.message = check.message;
      failures.push_back(std::move(diagnostic));
    }
    FormatOptions options;
    options.tool_version = OPMFU_VERSION;
    options.rules = GateRules();
    auto format = ParseOutputFormat(flags.output_format);
    if (!format.ok()) return ReportError(format.error());
    rendered = FormatDiagnostics(failures, *format, options);
  }
  if (Status written = EmitOutput(rendered, flags.output); !written.ok()) return ReportError(written.error());
  // Recorded figures from damaged data (above) are no pass, even when every threshold holds.
  return passed && (use_derived || data->analysis.clean()) ? kExitOk : kExitFindings;
}

}  // namespace

void AddGateCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<GateFlags>();
  CLI::App* command = app.add_subcommand("gate", "fail a CI job when MFU or coverage misses a threshold");
  flags->source.Add(*command);
  command->add_option("--min-mfu", flags->min_mfu, "time-weighted MFU over every kernel, e.g. 0.4 or 40%");
  command->add_option("--min-mfu-op", flags->min_op_mfu, "OP=RATIO, e.g. aten::mm=0.6 (repeatable)");
  command->add_option("--min-coverage", flags->min_coverage,
                      "per rank: share of device compute time inside FLOPs ranges (needs -d); with --mfu-source "
                      "derived, the share of kernel time whose FLOPs were derived");
  command->add_option("--max-drop", flags->max_drop,
                      "largest relative MFU drop against --baseline, overall and per op, e.g. 5%");
  command->add_option("--baseline", flags->baseline, "the run to compare with: a profiling directory or cluster DB");
  command
      ->add_option("--mfu-source", flags->mfu_source,
                   "recorded: the OperatorMFU rows, as msprof-analyze computes them (default); derived: FLOPs derived "
                   "from the kernels' shapes (needs -d; --min-mfu-op then names kernel op types such as MatMulV2, "
                   "--min-coverage the share of kernel time derived)")
      ->check(CLI::IsMember({"recorded", "derived"}));
  command
      ->add_option("--chip", flags->derived.chip,
                   "with --mfu-source derived: the chip whose peak applies when the run has no info.json")
      ->check(Choices(ChipNames()));
  command->add_option("--peak-tflops", flags->peak_tflops, "with --mfu-source derived: the FP16 peak, TFLOPS")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--output-format,--format", flags->output_format,
                   "text, json, or one of lint's other formats (sarif, github, gitlab, gcc, junit, azure, ...), "
                   "which carry the failed checks")
      ->check(Choices(GateFormatNames()));
  command->add_option("-o,--output", flags->output, "write here (atomically) instead of stdout");
  command->footer("Exit codes: 0 every check passed; 1 a check failed (or a rank failed); 2 usage or input error.");
  command->callback([flags, &action] { action = [flags] { return RunGateCommand(*flags); }; });
}

}  // namespace opmfu::cli
