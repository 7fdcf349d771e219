#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckWrongProfiler(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kKinetoProfile) {
      context.Report(site.call,
                     "`" + site.callee +
                         "` always collects in export-only mode and exports Text: it cannot produce the "
                         "ascend_pytorch_profiler DB that OperatorMFU is computed from",
                     "use torch_npu.profiler.profile(...) with a schedule and on_trace_ready");
    } else if (site.api == linter::ProfilerApi::kTorchProfile && !context.facts.transfers_to_npu) {
      context.Report(
          site.call,
          "`" + site.callee +
              "` is PyTorch's own profiler: it installs no torch_npu FLOPs hooks and writes no Ascend DB",
          "use torch_npu.profiler.profile (or import torch_npu.contrib.transfer_to_npu before torch.profiler "
          "is used)");
    }
  }
}

}  // namespace opmfu::rules
