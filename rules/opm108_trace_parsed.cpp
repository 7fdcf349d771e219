#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckTraceParsed(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.origin != linter::SiteOrigin::kKnownLauncher) continue;
    ReportBadValues(
        context, site.analyse,
        [](const python::Value& v) {
          if (v.kind != python::ValueKind::kBool) return Verdict::kSkip;
          return v.boolean ? Verdict::kGood : Verdict::kBad;
        },
        [&](const python::Value&) {
          return site.callee +
                 " passes `analyse_flag=False` to its trace handler: the raw data is never parsed, so there is no "
                 "ascend_pytorch_profiler DB for msprof-analyze";
        },
        "");
  }
  if (context.facts.analyses_offline) return;  // the file parses the data itself, later
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile || site.origin != linter::SiteOrigin::kPythonCall) continue;
    const std::string help =
        "pass `on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(DIR)` (analyse_flag left True), or run "
        "torch_npu.profiler.profiler.analyse(DIR, export_type='db') before msprof-analyze";
    Diagnostic* found = ReportBadValues(
        context, site.on_trace_ready,
        [&](const python::Value& v) {
          if (v.kind == python::ValueKind::kNone) return Verdict::kBad;
          return Verdict::kGood;
        },
        [](const python::Value&) {
          return std::string(
              "`on_trace_ready` is None: torch_npu collects in export-only mode into a temporary "
              "directory that is deleted, and nothing is parsed into a DB");
        },
        help);
    if (found != nullptr) continue;
    for (const python::Value& value : site.analyse.values) {
      if (value.kind != python::ValueKind::kBool || value.boolean) continue;
      std::string message =
          "`analyse_flag` is False: the raw data is never parsed, so there is no ascend_pytorch_profiler DB for "
          "msprof-analyze";
      if (!value.chain.empty()) message += ": " + RenderChain(value.chain);
      context.Report(site.analyse.anchor, std::move(message), help);
      break;
    }
  }
}

}  // namespace opmfu::rules
