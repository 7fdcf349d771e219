#include <filesystem>
#include <set>

#include "rules/lint_checks.h"
#include "rules/meta_checks.h"

namespace opmfu::rules {

// Settings whose value decides whether OperatorMFU can have rows at all.
void CheckUnresolvedSetting(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api == linter::ProfilerApi::kTorchProfile) continue;  // PyTorch's own profiler: OPM110's
    // An experimental_config we cannot see into leaves all six of its settings unknown for one
    // reason: say it once.
    std::set<std::pair<std::uint32_t, std::string>> reported;
    const linter::Setting* required[] = {
        &site.with_flops,  &site.activities,          &site.profiler_level,      &site.mstx,    &site.msprof_tx,
        &site.export_type, &site.mstx_domain_include, &site.mstx_domain_exclude, &site.analyse, &site.record_shapes};
    for (const linter::Setting* setting : required) {
      for (const python::Value& value : setting->values) {
        if (!IsOpaque(value)) continue;
        // A call or handler is a value of its own kind for these settings, not an unknown one.
        if (setting->name == "activities" && value.kind == python::ValueKind::kCall) continue;
        const std::string reason = value.kind == python::ValueKind::kUnknown ? value.unknown_reason : value.Describe();
        std::string message = "cannot tell what `" + setting->name + "` is here (" + reason +
                              "), so whether MFU collection works is unknown";
        if (!value.chain.empty()) message += ": " + RenderChain(value.chain);
        context
            .Report(*setting, std::move(message),
                    "write the value as a literal or a torch_npu constant where it is set, or lint the launcher "
                    "that sets it")
            .notes = value.chain;
        break;  // one finding per setting
      }
    }
  }
}

}  // namespace opmfu::rules

namespace opmfu::rules {

// A dynamic profiler (dp.init(dir), PROF_CONFIG_PATH) whose profiler_config.json was not found:
// its settings cannot be checked.
void CheckUnfoundDynamicConfig(MetaCheckContext& context) {
  const auto* unfound = std::get_if<UnfoundDynamicConfig>(&context.facts);
  if (unfound == nullptr) return;
  std::string message;
  if (unfound->directory) {
    message = "the dynamic profiler reads `" +
              (std::filesystem::path(*unfound->directory) / "profiler_config.json").string() +
              "`, which was not found, so its settings are not checked (torch_npu writes a template there that "
              "collects no FLOPs)";
  } else if (unfound->source == UnfoundDynamicConfig::Source::kEnvironment) {
    message = "`PROF_CONFIG_PATH` is only known at run time (`" + unfound->unknown_reason +
              "`), so the dynamic profiler's config is not checked";
  } else {
    message = "cannot tell which directory the dynamic profiler reads its config from (" + unfound->unknown_reason +
              "), so its settings are not checked";
  }
  Diagnostic& d = context.Report(unfound->file, unfound->range, std::move(message), unfound->snippet);
  d.help = "write the config before the run and lint it: `opmfu lint DIR/profiler_config.json`";
  d.notes = unfound->chain;
}

}  // namespace opmfu::rules
