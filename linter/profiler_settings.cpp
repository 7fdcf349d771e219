#include "linter/profiler_settings.h"

#include <algorithm>
#include <array>

#include "linter/profiler_config.h"

namespace opmfu::linter {

namespace {

using python::ValueKind;

constexpr std::array<std::string_view, 4> kLevels = {"Level_none", "Level0", "Level1", "Level2"};
constexpr std::array<std::string_view, 2> kExportTypes = {"text", "db"};
constexpr std::array<std::string_view, 2> kActivities = {"CPU", "NPU"};

constexpr SettingDefault kFalse{ValueKind::kBool, "", false, "False", "false"};
constexpr SettingDefault kTrue{ValueKind::kBool, "", true, "True", "true"};
constexpr SettingDefault kNoneList{ValueKind::kNone, "", false, "None", "null"};

// In torch_npu's order: the top-level keys as `_DynamicProfilerConfigContext` reads them (the
// Python-only profile() arguments among them), then the `experimental_config` keys as
// `_parse_cfg_json_exp_cfg` reads them. "Did you mean" prefers the earlier of two equally close
// keys, so a new row goes where torch_npu reads it, not at the end.
const std::array kSettings = {
    ProfilerSettingSpec{
        .name = "activities",
        .type = SettingType::kActivities,
        .choices = kActivities,
        .fallback = {ValueKind::kNone, "", false, "CPU and NPU", "[\"CPU\", \"NPU\"]"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "activities",
        .json_level = JsonLevel::kTop,
        .json_key = "activities",
        .json_remedy = "set `\"activities\": [\"CPU\", \"NPU\"]` at the top level of the config",
        .launcher = true,
        .run_listing = 6,
        .decisive = true,
        .site = &ProfilerCallSite::activities,
        .summary = "CPU gives the op-to-kernel mapping, NPU the kernels and mstx ranges: both are needed",
    },
    ProfilerSettingSpec{
        .name = "prof_dir",
        .type = SettingType::kString,
        .fallback = {ValueKind::kNone, "", false, "None", "\"./\""},
        .python_call = PythonCall::kTraceHandler,
        .python_keyword = "dir_name",
        .python_position = 0,
        .json_level = JsonLevel::kTop,
        .json_key = "prof_dir",
        .summary = "the output root the dynamic profiler hands its trace handler",
    },
    ProfilerSettingSpec{
        .name = "analyse",
        .type = SettingType::kBool,
        .fallback = kTrue,
        .json_fallback = kFalse,
        .python_call = PythonCall::kTraceHandler,
        .python_keyword = "analyse_flag",
        .python_position = 2,
        .json_level = JsonLevel::kTop,
        .json_key = "analyse",
        .json_remedy = "set `\"analyse\": true` at the top level of the config",
        .launcher = true,
        .decisive = true,
        .site = &ProfilerCallSite::analyse,
        .summary = "whether the trace handler parses the raw data into a DB when the trace is ready",
    },
    ProfilerSettingSpec{
        .name = "async_mode",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kTraceHandler,
        .python_keyword = "async_mode",
        .python_position = 3,
        .json_level = JsonLevel::kTop,
        .json_key = "async_mode",
        .summary = "parse in a separate process; `is_rank` turns `analyse` off without it",
    },
    ProfilerSettingSpec{
        .name = "record_shapes",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "record_shapes",
        .json_level = JsonLevel::kTop,
        .json_key = "record_shapes",
        .json_remedy = "set `\"record_shapes\": true` at the top level of the config",
        .launcher = true,
        .run_listing = 7,
        .site = &ProfilerCallSite::record_shapes,
        .summary = "input shapes of the kernels, which OperatorMFU rows show",
    },
    ProfilerSettingSpec{
        .name = "profile_memory",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "profile_memory",
        .json_level = JsonLevel::kTop,
        .json_key = "profile_memory",
        .summary = "memory events",
    },
    ProfilerSettingSpec{
        .name = "with_stack",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_stack",
        .json_level = JsonLevel::kTop,
        .json_key = "with_stack",
        .summary = "Python call stacks of the ops",
    },
    ProfilerSettingSpec{
        .name = "with_flops",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_flops",
        .json_level = JsonLevel::kTop,
        .json_key = "with_flops",
        .json_remedy = "set `\"with_flops\": true` at the top level of the config",
        .launcher = true,
        .run_listing = 1,
        .decisive = true,
        .site = &ProfilerCallSite::with_flops,
        .summary = "installs the FLOPs hooks, whose `mfu_flops` ranges OperatorMFU is built from",
    },
    ProfilerSettingSpec{
        .name = "with_modules",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_modules",
        .json_level = JsonLevel::kTop,
        .json_key = "with_modules",
        .json_remedy = "set `\"with_modules\": false` unless you need call stacks",
        .launcher = true,
        .run_listing = 8,
        .site = &ProfilerCallSite::with_modules,
        .summary = "Python module call stacks; unrelated to ModuleMFU",
    },
    ProfilerSettingSpec{
        .name = "on_trace_ready",
        .type = SettingType::kCallable,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "on_trace_ready",
        .site = &ProfilerCallSite::on_trace_ready,
        .summary = "None collects into a temporary directory that is deleted, unparsed",
    },
    ProfilerSettingSpec{
        .name = "schedule",
        .type = SettingType::kCallable,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "schedule",
        .site = &ProfilerCallSite::schedule,
        .summary = "which steps are recorded; `repeat` other than 1 writes several directories per run",
    },
    ProfilerSettingSpec{
        .name = "active",
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "1"},
        .json_level = JsonLevel::kTop,
        .json_key = "active",
        .summary = "steps recorded (the dynamic profiler's `schedule(active=...)`)",
    },
    ProfilerSettingSpec{
        .name = "warmup",
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "0"},
        .json_level = JsonLevel::kTop,
        .json_key = "warmup",
        .summary = "warm-up steps before recording",
    },
    ProfilerSettingSpec{
        .name = "start_step",
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "0"},
        .json_level = JsonLevel::kTop,
        .json_key = "start_step",
        .summary = "0: do nothing, -1: the next step, N: step N (a past step discards the config)",
    },
    ProfilerSettingSpec{
        .name = "is_rank",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .json_level = JsonLevel::kTop,
        .json_key = "is_rank",
        .summary = "collect only on the ranks of `rank_list`",
    },
    ProfilerSettingSpec{
        .name = "rank_list",
        .type = SettingType::kIntList,
        .fallback = {ValueKind::kSequence, "", false, "", "[]"},
        .json_level = JsonLevel::kTop,
        .json_key = "rank_list",
        .summary = "the ranks that collect when `is_rank` is true",
    },
    ProfilerSettingSpec{
        .name = "metadata",
        .type = SettingType::kObject,
        .fallback = {ValueKind::kDict, "", false, "", "{}"},
        .json_level = JsonLevel::kTop,
        .json_key = "metadata",
        .summary = "written into the run's metadata (`add_metadata_json`)",
    },
    ProfilerSettingSpec{
        .name = "experimental_config",
        .type = SettingType::kExperimentalConfig,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "experimental_config",
        .json_level = JsonLevel::kTop,
        .json_key = "experimental_config",
        .site = &ProfilerCallSite::experimental_config,
        .summary = "holds the experimental settings (`_ExperimentalConfig(...)`; in JSON an object)",
    },
    ProfilerSettingSpec{
        .name = "is_valid",
        .type = SettingType::kBool,
        .fallback = kTrue,
        .json_level = JsonLevel::kTop,
        .json_key = "is_valid",
        .json_overwritten = true,
        .summary = "set by torch_npu when it loads the file (false when it cannot); not the file's to say",
    },
    ProfilerSettingSpec{
        .name = "profiler_level",
        .type = SettingType::kProfilerLevel,
        .choices = kLevels,
        .fallback = {ValueKind::kEnum, "Level0", false, "ProfilerLevel.Level0", "\"Level0\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "profiler_level",
        .json_level = JsonLevel::kExperimental,
        .json_key = "profiler_level",
        .json_remedy = "set `\"profiler_level\": \"Level1\"` inside `experimental_config`",
        .launcher = true,
        .run_listing = 4,
        .decisive = true,
        .site = &ProfilerCallSite::profiler_level,
        .summary = "Level1 or Level2 collect the kernel details OperatorMFU joins; case-sensitive",
    },
    ProfilerSettingSpec{
        .name = "aic_metrics",
        .type = SettingType::kString,
        .fallback = {ValueKind::kEnum, "ACL_AICORE_PIPE_UTILIZATION", false, "AiCMetrics.PipeUtilization",
                     "\"AiCoreNone\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "aic_metrics",
        .json_level = JsonLevel::kExperimental,
        .json_key = "aic_metrics",
        .summary = "AI Core counters (Level1 and Level2 only)",
    },
    ProfilerSettingSpec{
        .name = "l2_cache",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "l2_cache",
        .json_level = JsonLevel::kExperimental,
        .json_key = "l2_cache",
        .summary = "L2 cache events",
    },
    ProfilerSettingSpec{
        .name = "op_attr",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "op_attr",
        .json_level = JsonLevel::kExperimental,
        .json_key = "op_attr",
        .summary = "operator attributes (forced off without Db export)",
    },
    ProfilerSettingSpec{
        .name = "record_op_args",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "record_op_args",
        .json_level = JsonLevel::kExperimental,
        .json_key = "record_op_args",
        .summary = "operator arguments (for AOE)",
    },
    ProfilerSettingSpec{
        .name = "msprof_tx",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "msprof_tx",
        .json_level = JsonLevel::kExperimental,
        .json_key = "msprof_tx",
        .json_remedy = "set `\"mstx\": true` and `\"msprof_tx\": true` inside `experimental_config`",
        .launcher = true,
        .run_listing = 3,
        .decisive = true,
        .site = &ProfilerCallSite::msprof_tx,
        .summary = "the older name of `mstx`; v26.1.0-beta.2 records FLOPs only with it",
    },
    ProfilerSettingSpec{
        .name = "mstx",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx",
        .json_remedy = "set `\"mstx\": true` and `\"msprof_tx\": true` inside `experimental_config`",
        .launcher = true,
        .run_listing = 2,
        .decisive = true,
        .site = &ProfilerCallSite::mstx,
        .summary = "enables mstx ranges (from torch_npu v26.1.0 it alone lets `with_flops` record)",
    },
    ProfilerSettingSpec{
        .name = "sys_io",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "sys_io",
        .json_level = JsonLevel::kExperimental,
        .json_key = "sys_io",
        .summary = "NIC, RoCE and MAC counters",
    },
    ProfilerSettingSpec{
        .name = "sys_interconnection",
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "sys_interconnection",
        .json_level = JsonLevel::kExperimental,
        .json_key = "sys_interconnection",
        .summary = "HCCS, PCIe and inter-chip counters",
    },
    ProfilerSettingSpec{
        .name = "data_simplification",
        .type = SettingType::kBool,
        .fallback = kTrue,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "data_simplification",
        .json_level = JsonLevel::kExperimental,
        .json_key = "data_simplification",
        .summary = "drops intermediate files after parsing (the raw data stays)",
    },
    ProfilerSettingSpec{
        .name = "gc_detect_threshold",
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "gc_detect_threshold",
        .json_level = JsonLevel::kExperimental,
        .json_key = "gc_detect_threshold",
        .summary = "records Python GC pauses longer than this many ms",
    },
    ProfilerSettingSpec{
        .name = "export_type",
        .type = SettingType::kExportType,
        .choices = kExportTypes,
        .fallback = {ValueKind::kString, "text", false, "'text'", "\"text\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "export_type",
        .json_level = JsonLevel::kExperimental,
        .json_key = "export_type",
        .json_remedy = "set `\"export_type\": [\"db\"]` (or `[\"text\", \"db\"]`) inside `experimental_config`",
        .launcher = true,
        .run_listing = 5,
        .decisive = true,
        .site = &ProfilerCallSite::export_type,
        .summary = "\"db\" writes the ascend_pytorch_profiler DB msprof-analyze reads; a str or a list, lower case",
    },
    ProfilerSettingSpec{
        .name = "mstx_domain_include",
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx_domain_include",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx_domain_include",
        .json_remedy = "add `\"mfu_flops\"` to `mstx_domain_include`, or remove the key",
        .launcher = true,
        .site = &ProfilerCallSite::mstx_domain_include,
        .summary = "when not empty, only these mstx domains are recorded: it must hold `mfu_flops`",
    },
    ProfilerSettingSpec{
        .name = "mstx_domain_exclude",
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx_domain_exclude",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx_domain_exclude",
        .json_remedy = "remove `\"mfu_flops\"` from `mstx_domain_exclude`",
        .launcher = true,
        .site = &ProfilerCallSite::mstx_domain_exclude,
        .summary = "mstx domains not recorded: it must not hold `mfu_flops`",
    },
    ProfilerSettingSpec{
        .name = "host_sys",
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "host_sys",
        .json_level = JsonLevel::kExperimental,
        .json_key = "host_sys",
        .summary = "host counters (`cpu`, `mem`, `disk`, `network`, `osrt`)",
    },
};

std::string_view TypeName(SettingType type) {
  switch (type) {
    case SettingType::kBool:
      return "bool";
    case SettingType::kProfilerLevel:
      return "ProfilerLevel";
    case SettingType::kExportType:
      return "str or list of str";
    case SettingType::kActivities:
      return "list of ProfilerActivity";
    case SettingType::kStringList:
      return "list of str";
    case SettingType::kString:
      return "str";
    case SettingType::kNumber:
      return "number";
    case SettingType::kIntList:
      return "list of int";
    case SettingType::kObject:
      return "object";
    case SettingType::kCallable:
      return "callable";
    case SettingType::kExperimentalConfig:
      return "_ExperimentalConfig";
  }
  return "";
}

std::string_view CallName(PythonCall call) {
  switch (call) {
    case PythonCall::kNone:
      return "";
    case PythonCall::kProfile:
      return "profile";
    case PythonCall::kExperimentalConfig:
      return "_ExperimentalConfig";
    case PythonCall::kTraceHandler:
      return "tensorboard_trace_handler";
  }
  return "";
}

std::string Code(std::string_view text) { return text.empty() ? std::string() : "`" + std::string(text) + "`"; }

}  // namespace

std::span<const ProfilerSettingSpec> ProfilerSettings() { return kSettings; }

const ProfilerSettingSpec* FindProfilerSetting(std::string_view name) {
  for (const ProfilerSettingSpec& setting : kSettings) {
    if (setting.name == name) return &setting;
  }
  return nullptr;
}

const ProfilerSettingSpec* FindJsonSetting(std::string_view key, JsonLevel level) {
  if (level == JsonLevel::kNone) return nullptr;
  for (const ProfilerSettingSpec& setting : kSettings) {
    if (setting.json_level == level && setting.json_key == key) return &setting;
  }
  return nullptr;
}

const SettingDefault& JsonDefault(const ProfilerSettingSpec& setting) {
  return setting.json_fallback ? *setting.json_fallback : setting.fallback;
}

bool IsChoice(const ProfilerSettingSpec& setting, std::string_view text) {
  return std::find(setting.choices.begin(), setting.choices.end(), text) != setting.choices.end();
}

std::string ProfilerSettingsMarkdown() {
  std::string out =
      "| setting | type | Python | profiler_config.json | known launcher | traced | default (Python; JSON) | what it "
      "does |\n|---|---|---|---|---|---|---|---|\n";
  for (const ProfilerSettingSpec& setting : kSettings) {
    std::string type(TypeName(setting.type));
    if (!setting.choices.empty()) {
      std::string choices;
      for (std::string_view choice : setting.choices) choices += (choices.empty() ? "" : ", ") + Code(choice);
      type += ": " + choices;
    }
    std::string python;
    if (setting.python_call != PythonCall::kNone) {
      python = "`" + std::string(CallName(setting.python_call)) + "(" + std::string(setting.python_keyword) + "=)`";
      if (setting.python_position >= 0) python += " (position " + std::to_string(setting.python_position) + ")";
    }
    std::string json;
    if (setting.json_level == JsonLevel::kTop) json = Code(setting.json_key);
    if (setting.json_level == JsonLevel::kExperimental)
      json = "`experimental_config." + std::string(setting.json_key) + "`";
    // Each reader's default, where that reader knows the setting.
    std::string fallback = setting.python_call != PythonCall::kNone ? Code(setting.fallback.python) : "";
    if (setting.json_level != JsonLevel::kNone) {
      fallback += (fallback.empty() ? "" : "; ") + Code(JsonDefault(setting).json);
    }
    out += "| `" + std::string(setting.name) + "` | " + type + " | " + python + " | " + json + " | " +
           (setting.launcher ? "yes" : "") + " | " + (setting.site != nullptr ? "yes" : "") + " | " + fallback + " | " +
           std::string(setting.summary) + " |\n";
  }
  return out;
}

std::string LauncherSettingsMarkdown() {
  std::string out;
  for (const ProfilerSettingSpec& setting : kSettings) {
    if (!setting.launcher) continue;
    out += (out.empty() ? "" : ", ") + Code(setting.name);
  }
  return "Settings: " + out + ".\n";
}

}  // namespace opmfu::linter
