// `opmfu diff BASE CANDIDATE`: MFU of two runs, aligned by (op, kernel, input shapes).

#include <iostream>
#include <memory>

#include "cli/cli_support.h"
#include "report/cross_vendor_diff.h"
#include "report/gate.h"

namespace opmfu::cli {
namespace {

struct DiffFlags {
  std::string base;
  std::string candidate;
  std::string format = "text";
  std::string output;
  std::size_t top = 20;
  std::string source = "db";
};

int RunDiff(const DiffFlags& flags) {
  const engine::ExportSource source = ExportSourceOf(flags.source);
  auto base = report::LoadRun(flags.base, false, source);
  if (!base.ok()) return ReportError(base.error());
  auto candidate = report::LoadRun(flags.candidate, false, source);
  if (!candidate.ok()) return ReportError(candidate.error());
  std::vector<std::filesystem::path> inputs = InputFiles(*base);
  for (std::filesystem::path& input : InputFiles(*candidate)) inputs.push_back(std::move(input));
  if (Status safe = RefuseOutputOverInput(flags.output, inputs); !safe.ok()) return ReportError(safe.error());
  ReportFailedRanks(base->analysis, "left out of the base");
  ReportFailedRanks(candidate->analysis, "left out of the candidate");
  if ((base->traces == nullptr) != (candidate->traces == nullptr)) {  // an Ascend run against a GPU trace
    const bool npu_first = base->traces == nullptr;
    const auto diff = report::DiffAcrossVendors(npu_first ? *base : *candidate, npu_first ? *candidate : *base);
    report::CrossVendorFormat format = report::CrossVendorFormat::kText;
    if (flags.format == "markdown") format = report::CrossVendorFormat::kMarkdown;
    if (flags.format == "json") format = report::CrossVendorFormat::kJson;
    if (flags.format == "html") format = report::CrossVendorFormat::kHtml;
    if (Status written = EmitOutput(report::RenderCrossVendorDiff(diff, format, flags.top), flags.output);
        !written.ok()) {
      return ReportError(written.error());
    }
    return base->analysis.clean() && candidate->analysis.clean() ? kExitOk : kExitFindings;
  }
  if (flags.format == "html") return ReportError(Error::Usage("--format html is for an NPU run against a GPU trace"));
  const report::MfuDiff diff = report::DiffRuns(*base, *candidate);
  report::DiffFormat format = report::DiffFormat::kText;
  if (flags.format == "markdown") format = report::DiffFormat::kMarkdown;
  if (flags.format == "json") format = report::DiffFormat::kJson;
  if (Status written = EmitOutput(report::RenderDiff(diff, format, flags.top), flags.output); !written.ok()) {
    return ReportError(written.error());
  }
  // A failed rank leaves one side incomplete: the comparison is shown, but not as a clean result.
  return base->analysis.clean() && candidate->analysis.clean() ? kExitOk : kExitFindings;
}

}  // namespace

void AddDiffCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<DiffFlags>();
  CLI::App* command = app.add_subcommand("diff", "compare MFU of two runs, kernel group by kernel group");
  command
      ->add_option("BASE", flags->base,
                   "the baseline: a profiling directory, a cluster_analysis.db or a PyTorch profiler trace (GPU)")
      ->required();
  command
      ->add_option("CANDIDATE", flags->candidate, "the run to compare: a profiling directory or a cluster_analysis.db")
      ->required();
  command->add_option("--format", flags->format, "text, markdown or json (html: an NPU run against a GPU trace)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  command->add_option("-o,--output", flags->output, "write here (atomically) instead of stdout");
  command->add_option("--top", flags->top, "groups listed by the text formats (default 20)")
      ->check(CLI::Range(1, 1000000));
  AddExportSourceOption(*command, flags->source);
  command->footer(
      "Groups are (op_name, kernel_name, input_shapes); the biggest MFU loss weighted by the candidate's time comes "
      "first. Use `opmfu gate --baseline` to fail a CI job on a drop.\n"
      "An Ascend run against a GPU trace (either order) is aligned by framework op and input shapes instead, with "
      "time, FLOPs, MFU and the gap per op, the biggest NPU lost time first (docs/cross-vendor.md).\n"
      "Exit codes: 0 compared; 1 compared, but a rank of either run failed (named on stderr); 2 usage or input error.");
  command->callback([flags, &action] { action = [flags] { return RunDiff(*flags); }; });
}

}  // namespace opmfu::cli
