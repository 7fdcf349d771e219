#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckMsprofCollection(LauncherCheckContext& context) {
  for (const linter::ShellCommandFact& fact : context.launcher.facts.commands) {
    if (fact.kind != linter::ShellCommandFact::Kind::kExportedVariable) continue;
    if (fact.name != "PROFILER_SAMPLECONFIG" && fact.name != "PROFILING_MODE") continue;
    context.ReportAt(fact.value.where,
                     "`" + fact.name +
                         "` is exported: the msprof command line then owns collection and "
                         "torch_npu.profiler becomes a no-op, so no FLOPs ranges and no ascend_pytorch_profiler DB",
                     "unset it for runs profiled with torch_npu.profiler");
  }
  // `msprof ... python3 train.py`: msprof sets that environment for the program it runs.
  const auto& launches = context.launcher.facts.launches;
  for (std::size_t i = 0; i < launches.size() && i < context.launcher.npu_profiler_under_msprof.size(); ++i) {
    if (!context.launcher.npu_profiler_under_msprof[i] || !launches[i].collector) continue;
    context.ReportAt(*launches[i].collector,
                     "`" + launches[i].script.text +
                         "` runs under msprof, which collects on its own: the torch_npu.profiler it builds becomes a "
                         "no-op, so no FLOPs ranges and no ascend_pytorch_profiler DB",
                     "run the script without msprof and let torch_npu.profiler collect");
  }
}

}  // namespace opmfu::rules
