#include "rules/lint_checks.h"

#include "python/syntax.h"

namespace opmfu::rules {

namespace {

struct Switch {
  bool any_true = false;
  bool any_false = false;
  bool all_true = true;
  bool judged = false;
  bool unknown = false;  ///< some path's value cannot be told (OPM004 says so)
};

Switch Read(const linter::Setting& setting) {
  Switch out;
  for (const python::Value& value : setting.values) {
    if (IsOpaque(value)) {
      out.all_true = false;
      out.unknown = true;
      continue;
    }
    out.judged = true;
    const bool on = value.is_true();
    out.any_true = out.any_true || on;
    out.any_false = out.any_false || !on;
    out.all_true = out.all_true && on;
  }
  return out;
}

}  // namespace

void CheckMstx(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    const Switch mstx = Read(site.mstx);
    const Switch msprof_tx = Read(site.msprof_tx);
    if (!mstx.judged && !msprof_tx.judged) continue;  // OPM004
    // The setting the finding is about: the one written, else mstx; never one with no value (a
    // known-launcher description may describe only one of the two).
    const bool on_mstx =
        site.msprof_tx.values.empty() || (!site.mstx.values.empty() && (site.mstx.written || !site.msprof_tx.written));
    const linter::Setting& anchor_setting = on_mstx ? site.mstx : site.msprof_tx;
    const std::string help =
        "set both `mstx=True` and `msprof_tx=True` in torch_npu.profiler._ExperimentalConfig (torch_npu "
        "v26.1.0-beta.2 needs msprof_tx; later releases accept either)";
    // Either switch turns the ranges on: while one of them cannot be told, neither "both off"
    // nor "off on some path" is known, only that we cannot tell (OPM004).
    if (mstx.unknown || msprof_tx.unknown) {
      if (!mstx.any_true && !msprof_tx.any_true) continue;
      if (!mstx.any_false && !msprof_tx.any_false) continue;
    }
    if (!mstx.any_true && !msprof_tx.any_true) {
      std::string message =
          "neither `mstx` nor `msprof_tx` is True, so `with_flops` is a silent no-op: no mfu_flops ranges are "
          "written";
      const python::Value& first = anchor_setting.values.front();
      if (!first.chain.empty()) message += ": " + RenderChain(first.chain);
      // Neither written anywhere: every config call on the traced paths leaves both out. The
      // finding goes on the first, and the fix adds both to each (one edit per config), so a fresh
      // lint after it finds none.
      const bool neither_written = !site.mstx.written && !site.msprof_tx.written;
      std::vector<TSNode> configs;
      bool every_config_here = true;  // a config read in another file cannot be fixed from here
      if (neither_written) {
        for (TSNode config : site.mstx.missing_in) {
          const bool here = !ts_node_is_null(config) && IsType(config, "call") && !ts_node_eq(config, site.call);
          every_config_here = every_config_here && here;
          if (here) configs.push_back(config);
        }
        if (!every_config_here) configs.clear();
      }
      Diagnostic& d = configs.size() > 1 ? context.Report(configs.front(), std::move(message), help)
                                         : context.Report(anchor_setting, std::move(message), help);
      d.notes = first.chain;
      if (neither_written && every_config_here && configs.empty() && IsType(site.mstx.call, "call") &&
          !ts_node_eq(site.mstx.call, site.call)) {
        configs.push_back(site.mstx.call);
      }
      if (!configs.empty()) {
        Fix fix;
        for (TSNode config : configs) {
          fix.edits.push_back(python::AppendItemEdit(context.module().tree(), ChildByField(config, "arguments"),
                                                     "mstx=True, msprof_tx=True"));
        }
        fix.message = configs.size() > 1 ? "add `mstx=True, msprof_tx=True` to each of the " +
                                               std::to_string(configs.size()) + " `_ExperimentalConfig(...)` calls"
                                         : "add `mstx=True, msprof_tx=True`";
        d.fix = std::move(fix);
      } else if (auto added = AddExperimentalConfigFix(context, site)) {
        d.fix = std::move(added);
      } else if (IsType(site.msprof_tx.call, "call") && !ts_node_eq(site.msprof_tx.call, site.call)) {
        // `msprof_tx` (every torch_npu release reads it) set True where it is written as a False
        // literal, or added to the config that lacks it.
        const python::Value* literal = EditableLiteral(context, site.msprof_tx);
        if (!site.msprof_tx.written || (literal != nullptr && IsType(literal->node, "false"))) {
          d.fix = SetSettingFix(context, site.msprof_tx, "True");
        }
      }
      continue;
    }
    if (!mstx.all_true && !msprof_tx.all_true && mstx.any_false && msprof_tx.any_false) {
      Diagnostic& d = context.Report(anchor_setting,
                                     "on some traced paths neither `mstx` nor `msprof_tx` is True, and "
                                     "`with_flops` then records nothing",
                                     help);
      d.severity = std::min(d.severity, Severity::kWarning);
      continue;
    }
    if (mstx.all_true && msprof_tx.judged && !msprof_tx.any_true && !msprof_tx.unknown) {
      Diagnostic& d = context.Report(site.mstx,
                                     "only `mstx` is True: torch_npu v26.1.0-beta.2 installs FLOPs hooks only "
                                     "with `msprof_tx=True` (v26.1.0 and later accept either)",
                                     "also pass `msprof_tx=True`; the cost is one deprecation warning");
      d.severity = std::min(d.severity, Severity::kWarning);
    }
  }
}

}  // namespace opmfu::rules
