#include "rules/rule_table.h"

#include "rules/lint_checks.h"
#include "rules/meta_checks.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

namespace {

using enum Severity;
using enum RuleScope;
using enum InputKind;

// clang-format off
constexpr RuleInfo kRules[] = {
  // On a formulas file a registry check; on the lint inputs a meta check of the parse the stage did.
  {.id = "OPM001",
   .name = "syntax-error",
   .severity = kError,
   .scope = kMeta,
   .summary = "The file did not parse cleanly; findings after the error may be missing.",
   .check = RegistryCheck{CheckSyntaxError},
   .applies_to = kPython | kDynamicConfig | kLauncher | kFormulas,
   .meta = MetaCheck{CheckLintSyntaxError}},
  {.id = "OPM002",
   .name = "malformed-suppression",
   .severity = kError,
   .scope = kLint,
   .summary = "An `# opmfu:` or `# noqa:` comment is not a directive opmfu understands; it suppresses nothing.",
   .check = MetaCheck{CheckMalformedSuppression},
   .applies_to = kPython | kLauncher},
  {.id = "OPM003",
   .name = "unused-suppression",
   .severity = kWarning,
   .scope = kLint,
   .summary = "A suppression comment matched no finding.",
   .check = MetaCheck{CheckUnusedSuppression},
   .applies_to = kPython | kLauncher},
  {.id = "OPM004",
   .name = "unresolved-setting",
   .severity = kWarning,
   .scope = kLint,
   .summary = "A setting MFU collection depends on could not be traced to a value.",
   .check = SettingsCheck{CheckUnresolvedSetting},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher | kLauncher,
   .meta = MetaCheck{CheckUnfoundDynamicConfig}},
  {.id = "OPM005",
   .name = "past-a-limit",
   .severity = kWarning,
   .scope = kLint,
   .summary = "The file goes past a stated limit of opmfu, so it was not read or not traced whole.",
   .check = MetaCheck{CheckPastALimit},
   .applies_to = kPython},
  {.id = "OPM010",
   .name = "no-profiler-call",
   .severity = kInfo,
   .scope = kLint,
   .summary = "None of the linted files calls a torch_npu profiler, so nothing was checked.",
   .check = MetaCheck{CheckNoProfilerCall},
   .applies_to = kPython | kLauncher},
  {.id = "OPM101",
   .name = "with-flops-not-true",
   .severity = kError,
   .scope = kLint,
   .summary = "`with_flops` is not True, so no FLOPs are recorded.",
   .check = SettingsCheck{CheckWithFlops},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe (`--fix` adds `with_flops=True` or changes a `False` literal)"},
  {.id = "OPM102",
   .name = "mstx-disabled",
   .severity = kError,
   .scope = kLint,
   .summary = "Neither `mstx` nor `msprof_tx` is True, so `with_flops` records nothing.",
   .check = SettingsCheck{CheckMstx},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe (`--fix` adds `mstx=True, msprof_tx=True` to an `_ExperimentalConfig(...)` that has neither, or sets "
               "a `msprof_tx=False` literal True)"},
  {.id = "OPM103",
   .name = "export-type-without-db",
   .severity = kWarning,
   .scope = kLint,
   .summary = "`export_type` lacks Db; the DB exists only if CANN also exports it for Text.",
   .check = SettingsCheck{CheckExportType},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when the value is an `ExportType` member or a list of them written in the file (`--fix` adds "
               "`ExportType.Db`, keeping Text)"},
  {.id = "OPM104",
   .name = "profiler-level-below-level1",
   .severity = kError,
   .scope = kLint,
   .summary = "`profiler_level` is below Level1, so the kernel data MFU needs is missing.",
   .check = SettingsCheck{CheckProfilerLevel},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when the level is a string literal or a `ProfilerLevel` member written as the argument or a "
               "variable's value, outside a branch (`--fix` writes `'Level1'` or `ProfilerLevel.Level1`), or when an "
               "`_ExperimentalConfig(...)` does not pass it (`--fix` adds `profiler_level=ProfilerLevel.Level1`, named "
               "through the file's imports), or when a known launcher's level option is written literally in the "
               "launcher, directly or through a variable (`--profile-level level0`, `LEVEL=${LEVEL:-level0}`, "
               "`...npu.level=$LEVEL`: `--fix` writes `level1` where `level0` is spelled), or when the level is looked up "
               "in a literal mapping by a key a launcher spells (`LEVELS[args.profile_level]` with `--profile-level "
               "level0`: `--fix` writes the key that gives Level1 in the launcher)"},
  {.id = "OPM105",
   .name = "mfu-domain-filtered",
   .severity = kError,
   .scope = kLint,
   .summary = "An MSTX domain filter drops the `mfu_flops` domain.",
   .check = SettingsCheck{CheckDomainFilter},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when `mstx_domain_include` is a list literal in the file (`--fix` adds \"mfu_flops\")"},
  {.id = "OPM106",
   .name = "activities-lack-cpu-or-npu",
   .severity = kError,
   .scope = kLint,
   .summary = "`activities` lacks CPU (no op-to-kernel links) or NPU (no kernels).",
   .check = SettingsCheck{CheckActivities},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when `activities` is a list literal of `ProfilerActivity` members in the file (`--fix` adds the "
               "missing one, spelled as the others)"},
  {.id = "OPM107",
   .name = "record-shapes-off",
   .severity = kWarning,
   .scope = kLint,
   .summary = "`record_shapes` is off, so OperatorMFU rows have no shapes.",
   .check = SettingsCheck{CheckRecordShapes},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe (`--fix` adds or sets `record_shapes=True`)"},
  {.id = "OPM108",
   .name = "trace-never-parsed",
   .severity = kError,
   .scope = kLint,
   .summary = "The collected data is never parsed into a DB (`on_trace_ready=None`, `analyse_flag=False`).",
   .check = SettingsCheck{CheckTraceParsed},
   .applies_to = kPython | kKnownLauncher},
  {.id = "OPM109",
   .name = "silently-reset-value",
   .severity = kError,
   .scope = kLint,
   .summary = "A value torch_npu does not accept: it warns at run time and silently uses a default.",
   .check = SettingsCheck{CheckSilentReset},
   .applies_to = kPython,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when the meaning is clear (`'level1'` -> `'Level1'`, `'DB'` -> `'db'`, `('text', 'db')` -> `['text', 'db']`, `'true'` -> `True`)"},
  {.id = "OPM110",
   .name = "wrong-profiler",
   .severity = kError,
   .scope = kLint,
   .summary = "`torch.profiler.profile` or `_KinetoProfile` cannot produce the DB operator MFU reads.",
   .check = SettingsCheck{CheckWrongProfiler},
   .applies_to = kPython},
  {.id = "OPM111",
   .name = "with-modules-is-not-module-mfu",
   .severity = kInfo,
   .scope = kLint,
   .summary = "`with_modules=True` does not produce ModuleMFU.",
   .check = SettingsCheck{CheckWithModules},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher},
  {.id = "OPM112",
   .name = "fixed-trace-directory",
   .severity = kWarning,
   .scope = kLint,
   .summary = "The trace directory never changes between runs, so old *_ascend_pt data mixes with new.",
   .check = SettingsCheck{CheckFixedTraceDirectory},
   .applies_to = kPython},
  {.id = "OPM113",
   .name = "schedule-records-badly",
   .severity = kWarning,
   .scope = kLint,
   .summary = "The schedule has no active step, or `repeat` is not 1.",
   .check = SettingsCheck{CheckSchedule},
   .applies_to = kPython},
  {.id = "OPM114",
   .name = "include-and-exclude",
   .severity = kWarning,
   .scope = kLint,
   .summary = "Both MSTX domain lists are set; the exclude list is ignored.",
   .check = SettingsCheck{CheckIncludeAndExclude},
   .applies_to = kPython | kDynamicConfig | kKnownLauncher},
  {.id = "OPM115",
   .name = "offline-analyse-without-db",
   .severity = kWarning,
   .scope = kLint,
   .summary = "An offline `analyse(...)` passes an `export_type` without db, or none where the recording is not "
              "in sight; the DB exists only if CANN also exports it.",
   .check = SettingsCheck{CheckOfflineAnalyseWithoutDb},
   .applies_to = kPython,
   .fix = FixAvailability::kSometimes,
   .fix_note = "safe when `export_type` is a string, an `ExportType` member or a list of them written in the file "
               "(`--fix` adds db, keeping text); unsafe when it is left out (`--unsafe-fixes` adds "
               "`export_type=['text', 'db']`, a parameter from torch_npu 7.1.0 on)"},
  {.id = "OPM201",
   .name = "unknown-option",
   .severity = kError,
   .scope = kLint,
   .summary = "A launcher passes an option the script's argparse does not define; argparse exits.",
   .check = SettingsCheck{CheckUnknownOption},
   .applies_to = kPython | kLauncher},
  {.id = "OPM202",
   .name = "value-outside-choices",
   .severity = kError,
   .scope = kLint,
   .summary = "A launcher passes a value outside the option's `choices`; argparse exits.",
   .check = SettingsCheck{CheckValueOutsideChoices},
   .applies_to = kPython | kKnownLauncher | kLauncher},
  {.id = "OPM203",
   .name = "analysis-directory-too-deep",
   .severity = kWarning,
   .scope = kLint,
   .summary = "msprof-analyze or opmfu analyze is pointed at a *_ascend_pt or ASCEND_PROFILER_OUTPUT directory.",
   .check = LauncherCheck{CheckAnalysisDirectory},
   .applies_to = kLauncher},
  {.id = "OPM204",
   .name = "msprof-collection-active",
   .severity = kError,
   .scope = kLint,
   .summary = "PROFILER_SAMPLECONFIG or PROFILING_MODE is exported, or msprof runs a script with a torch_npu profiler: the profiler API is off.",
   .check = LauncherCheck{CheckMsprofCollection},
   .applies_to = kLauncher},
  {.id = "OPM205",
   .name = "launched-script-missing",
   .severity = kWarning,
   .scope = kLint,
   .summary = "A launched script cannot be found, so it was not linted.",
   .check = LauncherCheck{CheckMissingScript},
   .applies_to = kLauncher},
  {.id = "OPM206",
   .name = "reused-output-directory",
   .severity = kWarning,
   .scope = kLint,
   .summary = "A launcher gives the profiler the same output directory on every run (no date, job id or $RANDOM).",
   .check = LauncherCheck{CheckReusedOutputDirectory},
   .applies_to = kLauncher},
  {.id = "OPM207",
   .name = "msmonitor-configured-at-run-time",
   .severity = kWarning,
   .scope = kLint,
   .summary = "MSMONITOR_USE_DAEMON is exported: dyno requests configure the profiler at run time, Text and Level0 unless they ask",
   .check = LauncherCheck{CheckMsmonitorConfiguredAtRunTime},
   .applies_to = kLauncher},
  {.id = "OPM208",
   .name = "refused-by-the-launcher",
   .severity = kError,
   .scope = kLint,
   .summary = "A profiled known launcher is given a variable its package refuses beside its profiler (vLLM with MSMONITOR_USE_DAEMON=1).",
   .check = SettingsCheck{CheckRefusedByTheLauncher},
   .applies_to = kKnownLauncher},
  {.id = "OPM301",
   .name = "misplaced-config-key",
   .severity = kError,
   .scope = kLint,
   .summary = "A profiler_config.json key at the wrong level (or unknown), which torch_npu ignores.",
   .check = SettingsCheck{CheckMisplacedConfigKey},
   .applies_to = kDynamicConfig,
   .severity_note = "warning for an unknown or repeated key"},
  {.id = "OPM302",
   .name = "config-value-reset",
   .severity = kError,
   .scope = kLint,
   .summary = "A profiler_config.json value of the wrong type or case, which torch_npu resets to its default.",
   .check = SettingsCheck{CheckConfigValueReset},
   .applies_to = kDynamicConfig,
   .fix = FixAvailability::kSometimes,
   .severity_note = "warning for settings MFU does not depend on",
   .fix_note = "safe (`\"true\"` -> `true`, `\"level1\"` -> `\"Level1\"`, `\"DB\"` -> `\"db\"`)"},
  {.id = "OPM303",
   .name = "dynamic-profiler-never-starts",
   .severity = kError,
   .scope = kLint,
   .summary = "`start_step` is 0 (the default), so the dynamic profiler never starts.",
   .check = SettingsCheck{CheckDynamicProfilerNeverStarts},
   .applies_to = kDynamicConfig},
  {.id = "OPM304",
   .name = "dynamic-trace-not-parsed",
   .severity = kError,
   .scope = kLint,
   .summary = "`analyse` is false (the default), so the dynamic profiler writes no DB.",
   .check = SettingsCheck{CheckDynamicTraceNotParsed},
   .applies_to = kDynamicConfig},
  {.id = "OPM501",
   .name = "duplicate-target",
   .severity = kError,
   .scope = kRegistry,
   .summary = "Two registrations hook the same function, which torch_npu would wrap twice.",
   .check = RegistryCheck{CheckDuplicateTarget},
   .applies_to = kFormulas},
  {.id = "OPM502",
   .name = "duplicate-op-name",
   .severity = kError,
   .scope = kRegistry,
   .summary = "Two registrations write records under the same op name; one formula silently replaces the other.",
   .check = RegistryCheck{CheckDuplicateOpName},
   .applies_to = kFormulas},
  {.id = "OPM503",
   .name = "malformed-target",
   .severity = kError,
   .scope = kRegistry,
   .summary = "A target is not of the form \"module:attr\" with exactly one ':'.",
   .check = RegistryCheck{CheckMalformedTarget},
   .applies_to = kFormulas},
  {.id = "OPM504",
   .name = "formula-returns-float",
   .severity = kError,
   .scope = kRegistry,
   .summary = "A FLOPs formula can return a float; records must carry an integer.",
   .check = RegistryCheck{CheckFormulaReturnsFloat},
   .applies_to = kFormulas},
  {.id = "OPM505",
   .name = "formula-returns-none",
   .severity = kError,
   .scope = kRegistry,
   .summary = "A FLOPs formula can return None, so no record is written for that call.",
   .check = RegistryCheck{CheckFormulaReturnsNone},
   .applies_to = kFormulas},
  {.id = "OPM506",
   .name = "formula-missing-kwargs",
   .severity = kWarning,
   .scope = kRegistry,
   .summary = "A FLOPs formula does not accept **kwargs; a call with an extra keyword gets no record.",
   .check = RegistryCheck{CheckFormulaMissingKwargs},
   .applies_to = kFormulas,
   .fix = FixAvailability::kAlways,
   .fix_note = "safe (`--fix`)"},
  {.id = "OPM507",
   .name = "registration-without-target",
   .severity = kError,
   .scope = kRegistry,
   .summary = "A registration has neither a target nor an op name.",
   .check = RegistryCheck{CheckRegistrationWithoutTarget},
   .applies_to = kFormulas},
  {.id = "OPM508",
   .name = "unresolved-registration-argument",
   .severity = kWarning,
   .scope = kRegistry,
   .summary = "A registration argument is not a literal, so it cannot be checked.",
   .check = RegistryCheck{CheckUnresolvedArgument},
   .applies_to = kFormulas},
  {.id = "OPM509",
   .name = "legacy-registration",
   .severity = kWarning,
   .scope = kRegistry,
   .summary = "A registration uses the pre-release positional op-name form that torch_npu now reads as a target.",
   .check = RegistryCheck{CheckLegacyRegistration},
   .applies_to = kFormulas},
};
// clang-format on

}  // namespace

std::span<const RuleInfo> AllRules() { return kRules; }

std::string_view InputKindName(InputKind input) {
  switch (input) {
    case InputKind::kPython:
      return "python";
    case InputKind::kDynamicConfig:
      return "json";
    case InputKind::kKnownLauncher:
      return "known-launcher";
    case InputKind::kLauncher:
      return "launcher";
    case InputKind::kFormulas:
      return "registry";
  }
  return "?";
}

std::string_view FixAvailabilityName(FixAvailability fix) {
  switch (fix) {
    case FixAvailability::kNone:
      return "none";
    case FixAvailability::kSometimes:
      return "sometimes";
    case FixAvailability::kAlways:
      return "always";
  }
  return "?";
}

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
