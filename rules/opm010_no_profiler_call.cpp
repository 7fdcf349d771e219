#include "rules/meta_checks.h"

namespace opmfu::rules {

// Linting files that configure no profiler checks nothing: a clean result would mislead.
void CheckNoProfilerCall(MetaCheckContext& context) {
  const auto* run = std::get_if<RunSummary>(&context.facts);
  if (run == nullptr || run->any_profiler_call) return;
  context
      .Report(run->landing_file, {{1, 1}, {1, 1}},
              "no torch_npu.profiler.profile(...) call in the linted files: nothing was checked for MFU collection", "")
      .help = "lint the script that creates the profiler (or the launcher that runs it)";
}

}  // namespace opmfu::rules
