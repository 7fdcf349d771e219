#include <algorithm>
#include <string>

#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

// `activities` may name CUDA on some run: the call is meant for a GPU (torch_npu has no CUDA
// activity).
bool MayCollectCuda(const linter::ProfilerCallSite& site) {
  const python::Values& activities = site.activities_on_some_path;
  return std::any_of(activities.begin(), activities.end(), [](const python::Value& value) {
    return std::any_of(value.items.begin(), value.items.end(), [](const python::Value& item) {
      return item.kind == python::ValueKind::kEnum && item.container == "ProfilerActivity" && item.text == "CUDA";
    });
  });
}

}  // namespace

void CheckWrongProfiler(LintCheckContext& context) {
  // A file that also configures torch_npu's profiler chooses between the two by device: its
  // torch.profiler call is the GPU path. So is a call that collects CUDA, and one in a file that
  // neither imports torch_npu nor is run by a launch (a GPU-only tool of a mixed repository).
  const bool npu_profiler_here =
      std::any_of(context.facts.sites.begin(), context.facts.sites.end(),
                  [](const linter::ProfilerCallSite& site) { return site.api != linter::ProfilerApi::kTorchProfile; });
  const bool npu_program = context.facts.imports_torch_npu || !context.facts.launches.empty();
  // A call that collects CUDA is the GPU path, unless the script puts its work on the NPU and
  // never on a CUDA device: then it is a CUDA script ported to torch_npu, and collects nothing.
  const bool ported_to_npu = context.facts.selects_npu_device && !context.facts.selects_cuda_device;
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile && site.bound_before_patch && !npu_profiler_here) {
      context.Report(
          site.call,
          "`" + std::string(context.module().tree().Text(ts_node_child_by_field_name(site.call, "function", 8))) +
              "` was bound by `from torch.profiler import ...` before this file imports "
              "torch_npu.contrib.transfer_to_npu: the name keeps PyTorch's own profiler, which installs no "
              "torch_npu FLOPs hooks and writes no Ascend DB",
          "import torch_npu.contrib.transfer_to_npu before `from torch.profiler import profile`, or use "
          "torch_npu.profiler.profile");
      continue;
    }
    if (site.api == linter::ProfilerApi::kKinetoProfile) {
      context.Report(site.call,
                     "`" + site.callee +
                         "` always collects in export-only mode and exports Text: it cannot produce the "
                         "ascend_pytorch_profiler DB that OperatorMFU is computed from",
                     "use torch_npu.profiler.profile(...) with a schedule and on_trace_ready");
    } else if (site.api == linter::ProfilerApi::kTorchProfile && !context.facts.transfers_to_npu &&
               !npu_profiler_here && npu_program && MayCollectCuda(site) && ported_to_npu) {
      context.Report(site.call,
                     "`" + site.callee +
                         "` collects CUDA activities, but this script runs on the NPU: PyTorch's own profiler "
                         "sees no NPU kernel, installs no torch_npu FLOPs hooks and writes no Ascend DB (a CUDA "
                         "script ported to torch_npu)",
                     "use torch_npu.profiler.profile with activities=[torch_npu.profiler.ProfilerActivity.CPU, "
                     "torch_npu.profiler.ProfilerActivity.NPU] (or import torch_npu.contrib.transfer_to_npu before "
                     "torch.profiler is used)");
    } else if (site.api == linter::ProfilerApi::kTorchProfile && !context.facts.transfers_to_npu &&
               !npu_profiler_here && npu_program && !MayCollectCuda(site)) {
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
