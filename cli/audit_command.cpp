// `opmfu audit`: recorded FLOPs against the built-in formulas applied to the kernels' shapes.

#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli_support.h"
#include "report/audit.h"
#include "report/derived_mfu.h"
#include "report/gate.h"

namespace opmfu::cli {
namespace {

struct AuditFlags {
  MfuSourceFlags source;
  std::string tolerance = "1%";
  std::string format = "text";
  std::string output;
};

int RunAudit(const AuditFlags& flags) {
  auto tolerance = report::ParseRatio("--tolerance", flags.tolerance);
  if (!tolerance.ok()) return ReportError(tolerance.error());
  auto data = flags.source.Load(/*with_kernel_signatures=*/true);
  if (!data.ok()) return ReportError(data.error());
  if (Status safe = RefuseOutputOverInput(flags.output, InputFiles(*data)); !safe.ok())
    return ReportError(safe.error());
  ReportFailedRanks(data->analysis, "is not audited");
  if (data->traces != nullptr) {  // a GPU trace: its FLOPs are all derived, so nothing recorded to check
    ReportWarning("nothing was audited: " + data->path.string() +
                  " is a PyTorch profiler trace, which records no FLOPs (with_flops=True writes only a header "
                  "flag): every figure of it is derived from Input Dims (opmfu report -d shows them)");
    return kExitFindings;
  }
  // From a profiling directory every recorded kernel is also compared with the FLOPs derived from its
  // own shapes (exact; docs/derived-mfu.md).
  std::optional<report::DerivedSection> derived;
  if (data->source == report::ReportData::Source::kProfilingDirectory) {
    auto section = report::BuildDerivedSection(*data, {});
    if (!section.ok()) return ReportError(section.error());
    derived = std::move(*section);
  }
  const report::AuditResult audit = report::AuditFlops(*data, *tolerance, derived ? &*derived : nullptr);
  const std::size_t derived_compared = audit.derived ? audit.derived->compared : 0;
  const bool derived_disagree = audit.derived && !audit.derived->disagreements.empty();
  const std::string rendered =
      report::RenderAudit(audit, flags.format == "json" ? report::AuditFormat::kJson : report::AuditFormat::kText);
  if (Status written = EmitOutput(rendered, flags.output); !written.ok()) return ReportError(written.error());
  // Nothing checked is no pass: say why, so "0 checked" never reads like agreement.
  if (audit.checked == 0 && derived_compared == 0) {
    std::string why = audit.rows == 0 ? "no OperatorMFU row to audit"
                                      : "none of the " + std::to_string(audit.rows) +
                                            " OperatorMFU rows can be recomputed (see skipped)";
    if (audit.derived) why += ", and no recorded kernel could be compared with its derived FLOPs (see not compared)";
    if (data->analysis.failed_ranks() > 0) {
      why += "; " + std::to_string(data->analysis.failed_ranks()) + " of " +
             std::to_string(data->analysis.ranks.size()) + " ranks failed (above)";
    }
    ReportWarning("nothing was audited: " + why);
    return kExitFindings;
  }
  // A failed rank leaves the audit incomplete: that is not a clean result.
  return audit.disagreements.empty() && !derived_disagree && data->analysis.clean() ? kExitOk : kExitFindings;
}

}  // namespace

void AddAuditCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<AuditFlags>();
  CLI::App* command =
      app.add_subcommand("audit", "recompute built-in FLOPs from recorded shapes; flag records that disagree");
  flags->source.Add(*command);
  command->add_option("--tolerance", flags->tolerance, "relative difference still counted as agreement (default 1%)");
  command->add_option("--format", flags->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  command->add_option("-o,--output", flags->output, "write here (atomically) instead of stdout");
  command->footer(
      "Recomputes mm, addmm, bmm, matmul and linear from the matmul kernel's two operand shapes (every transpose "
      "that fits is tried; an ambiguous one is skipped). Attention and grouped matmul need arguments the profiler "
      "does not record, so they are counted as skipped there. With -d, every recorded compute kernel is also "
      "compared with the FLOPs derived from its own shapes and type (matmuls, grouped matmuls, attention, "
      "convolutions; docs/derived-mfu.md), exactly: both come from the same built-in formula code.\n"
      "Exit codes: 0 no disagreement; 1 some records disagree, or a rank failed; 2 usage or input error.");
  command->callback([flags, &action] { action = [flags] { return RunAudit(*flags); }; });
}

}  // namespace opmfu::cli
