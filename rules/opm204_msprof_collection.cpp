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
}

}  // namespace opmfu::rules
