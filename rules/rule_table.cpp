#include "rules/rule_table.h"

#include "rules/lint_checks.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

namespace {

using enum Severity;
using enum RuleScope;

// clang-format off
constexpr RuleInfo kRules[] = {
  {"OPM001", "syntax-error", kError, kMeta,
   "The file did not parse cleanly; findings after the error may be missing.", CheckSyntaxError},
  {"OPM002", "malformed-suppression", kError, kLint,
   "An `# opmfu:` or `# noqa:` comment is not a directive opmfu understands; it suppresses nothing."},
  {"OPM003", "unused-suppression", kWarning, kLint,
   "A suppression comment matched no finding."},
  {"OPM004", "unresolved-setting", kWarning, kLint,
   "A setting MFU collection depends on could not be traced to a value.", nullptr, CheckUnresolvedSetting},
  {"OPM010", "no-profiler-call", kInfo, kLint,
   "None of the linted files calls a torch_npu profiler, so nothing was checked."},
  {"OPM101", "with-flops-not-true", kError, kLint,
   "`with_flops` is not True, so no FLOPs are recorded.", nullptr, CheckWithFlops},
  {"OPM102", "mstx-disabled", kError, kLint,
   "Neither `mstx` nor `msprof_tx` is True, so `with_flops` records nothing.", nullptr, CheckMstx},
  {"OPM103", "export-type-without-db", kWarning, kLint,
   "`export_type` lacks Db; the DB exists only if CANN also exports it for Text.", nullptr, CheckExportType},
  {"OPM104", "profiler-level-below-level1", kError, kLint,
   "`profiler_level` is below Level1, so the kernel data MFU needs is missing.", nullptr, CheckProfilerLevel},
  {"OPM105", "mfu-domain-filtered", kError, kLint,
   "An MSTX domain filter drops the `mfu_flops` domain.", nullptr, CheckDomainFilter},
  {"OPM106", "activities-lack-cpu-or-npu", kError, kLint,
   "`activities` lacks CPU (no op-to-kernel links) or NPU (no kernels).", nullptr, CheckActivities},
  {"OPM107", "record-shapes-off", kWarning, kLint,
   "`record_shapes` is off, so OperatorMFU rows have no shapes.", nullptr, CheckRecordShapes},
  {"OPM108", "trace-never-parsed", kError, kLint,
   "The collected data is never parsed into a DB (`on_trace_ready=None`, `analyse_flag=False`).", nullptr,
   CheckTraceParsed},
  {"OPM109", "silently-reset-value", kError, kLint,
   "A value torch_npu does not accept: it warns at run time and silently uses a default.", nullptr, CheckSilentReset},
  {"OPM110", "wrong-profiler", kError, kLint,
   "`torch.profiler.profile` or `_KinetoProfile` cannot produce the DB operator MFU reads.", nullptr,
   CheckWrongProfiler},
  {"OPM111", "with-modules-is-not-module-mfu", kInfo, kLint,
   "`with_modules=True` does not produce ModuleMFU.", nullptr, CheckWithModules},
  {"OPM112", "fixed-trace-directory", kWarning, kLint,
   "The trace directory never changes between runs, so old *_ascend_pt data mixes with new.", nullptr,
   CheckFixedTraceDirectory},
  {"OPM113", "schedule-records-badly", kWarning, kLint,
   "The schedule has no active step, or `repeat` is not 1.", nullptr, CheckSchedule},
  {"OPM114", "include-and-exclude", kWarning, kLint,
   "Both MSTX domain lists are set; the exclude list is ignored.", nullptr, CheckIncludeAndExclude},
  {"OPM201", "unknown-option", kError, kLint,
   "A launcher passes an option the script's argparse does not define; argparse exits.", nullptr,
   CheckUnknownOption},
  {"OPM202", "value-outside-choices", kError, kLint,
   "A launcher passes a value outside the option's `choices`; argparse exits.", nullptr, CheckValueOutsideChoices},
  {"OPM203", "analysis-directory-too-deep", kWarning, kLint,
   "msprof-analyze or opmfu analyze is pointed at a *_ascend_pt or ASCEND_PROFILER_OUTPUT directory.", nullptr,
   nullptr, CheckAnalysisDirectory},
  {"OPM204", "msprof-collection-active", kError, kLint,
   "PROFILER_SAMPLECONFIG or PROFILING_MODE is exported, which turns the torch_npu profiler API off.", nullptr,
   nullptr, CheckMsprofCollection},
  {"OPM205", "launched-script-missing", kWarning, kLint,
   "A launched script cannot be found, so it was not linted.", nullptr, nullptr, CheckMissingScript},
  {"OPM206", "reused-output-directory", kWarning, kLint,
   "A launcher gives the profiler the same output directory on every run (no date, job id or $RANDOM).", nullptr,
   nullptr, CheckReusedOutputDirectory},
  {"OPM301", "misplaced-config-key", kError, kLint,
   "A profiler_config.json key at the wrong level (or unknown), which torch_npu ignores.", nullptr,
   CheckMisplacedConfigKey},
  {"OPM302", "config-value-reset", kError, kLint,
   "A profiler_config.json value of the wrong type or case, which torch_npu resets to its default.", nullptr,
   CheckConfigValueReset},
  {"OPM303", "dynamic-profiler-never-starts", kError, kLint,
   "`start_step` is 0 (the default), so the dynamic profiler never starts.", nullptr,
   CheckDynamicProfilerNeverStarts},
  {"OPM304", "dynamic-trace-not-parsed", kError, kLint,
   "`analyse` is false (the default), so the dynamic profiler writes no DB.", nullptr, CheckDynamicTraceNotParsed},
  {"OPM501", "duplicate-target", kError, kRegistry,
   "Two registrations hook the same function, which torch_npu would wrap twice.", CheckDuplicateTarget},
  {"OPM502", "duplicate-op-name", kError, kRegistry,
   "Two registrations write records under the same op name; one formula silently replaces the other.",
   CheckDuplicateOpName},
  {"OPM503", "malformed-target", kError, kRegistry,
   "A target is not of the form \"module:attr\" with exactly one ':'.", CheckMalformedTarget},
  {"OPM504", "formula-returns-float", kError, kRegistry,
   "A FLOPs formula can return a float; records must carry an integer.", CheckFormulaReturnsFloat},
  {"OPM505", "formula-returns-none", kError, kRegistry,
   "A FLOPs formula can return None, so no record is written for that call.", CheckFormulaReturnsNone},
  {"OPM506", "formula-missing-kwargs", kWarning, kRegistry,
   "A FLOPs formula does not accept **kwargs; a call with an extra keyword gets no record.",
   CheckFormulaMissingKwargs},
  {"OPM507", "registration-without-target", kError, kRegistry,
   "A registration has neither a target nor an op name.", CheckRegistrationWithoutTarget},
  {"OPM508", "unresolved-registration-argument", kWarning, kRegistry,
   "A registration argument is not a literal, so it cannot be checked.", CheckUnresolvedArgument},
  {"OPM509", "legacy-registration", kWarning, kRegistry,
   "A registration uses the pre-release positional op-name form that torch_npu now reads as a target.",
   CheckLegacyRegistration},
};
// clang-format on

}  // namespace

std::span<const RuleInfo> AllRules() { return kRules; }

const RuleInfo* FindRule(std::string_view id_or_name) {
  for (const RuleInfo& rule : kRules) {
    if (rule.id == id_or_name || rule.name == id_or_name) return &rule;
  }
  return nullptr;
}

std::optional<Severity> EffectiveSeverity(const RuleInfo& rule,
                                          const std::map<std::string, std::optional<Severity>>& effective) {
  if (auto found = effective.find(std::string(rule.id)); found != effective.end()) return found->second;
  return rule.severity;
}

std::vector<RuleDescriptor> RuleDescriptors(std::optional<RuleScope> scope) {
  std::vector<RuleDescriptor> out;
  for (const RuleInfo& rule : kRules) {
    if (scope && rule.scope != *scope && rule.scope != RuleScope::kMeta) continue;
    out.push_back({std::string(rule.id), std::string(rule.name), rule.severity, std::string(rule.summary),
                   "docs/rules/" + std::string(rule.id) + ".md"});
  }
  return out;
}

}  // namespace opmfu::rules
