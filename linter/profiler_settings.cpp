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
        .id = SettingId::kActivities,
        .type = SettingType::kActivities,
        .choices = kActivities,
        .fallback = {ValueKind::kNone, "", false, "CPU and NPU", "[\"CPU\", \"NPU\"]"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "activities",
        .json_level = JsonLevel::kTop,
        .json_key = "activities",
        .json_remedy = "set `\"activities\": [\"CPU\", \"NPU\"]` at the top level of the config",
        .launcher = true,
        .site = &ProfilerCallSite::activities,
    },
    ProfilerSettingSpec{
        .id = SettingId::kProfDir,
        .type = SettingType::kString,
        .fallback = {ValueKind::kNone, "", false, "None", "\"./\""},
        .python_call = PythonCall::kTraceHandler,
        .python_keyword = "dir_name",
        .python_position = 0,
        .json_level = JsonLevel::kTop,
        .json_key = "prof_dir",
    },
    ProfilerSettingSpec{
        .id = SettingId::kAnalyse,
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
        .site = &ProfilerCallSite::analyse,
    },
    ProfilerSettingSpec{
        .id = SettingId::kAsyncMode,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kTraceHandler,
        .python_keyword = "async_mode",
        .python_position = 3,
        .json_level = JsonLevel::kTop,
        .json_key = "async_mode",
    },
    ProfilerSettingSpec{
        .id = SettingId::kRecordShapes,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "record_shapes",
        .json_level = JsonLevel::kTop,
        .json_key = "record_shapes",
        .json_remedy = "set `\"record_shapes\": true` at the top level of the config",
        .launcher = true,
        .site = &ProfilerCallSite::record_shapes,
    },
    ProfilerSettingSpec{
        .id = SettingId::kProfileMemory,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "profile_memory",
        .json_level = JsonLevel::kTop,
        .json_key = "profile_memory",
    },
    ProfilerSettingSpec{
        .id = SettingId::kWithStack,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_stack",
        .json_level = JsonLevel::kTop,
        .json_key = "with_stack",
    },
    ProfilerSettingSpec{
        .id = SettingId::kWithFlops,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_flops",
        .json_level = JsonLevel::kTop,
        .json_key = "with_flops",
        .json_remedy = "set `\"with_flops\": true` at the top level of the config",
        .launcher = true,
        .site = &ProfilerCallSite::with_flops,
    },
    ProfilerSettingSpec{
        .id = SettingId::kWithModules,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kProfile,
        .python_keyword = "with_modules",
        .json_level = JsonLevel::kTop,
        .json_key = "with_modules",
        .json_remedy = "set `\"with_modules\": false` unless you need call stacks",
        .launcher = true,
        .site = &ProfilerCallSite::with_modules,
    },
    ProfilerSettingSpec{
        .id = SettingId::kOnTraceReady,
        .type = SettingType::kCallable,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "on_trace_ready",
        .site = &ProfilerCallSite::on_trace_ready,
    },
    ProfilerSettingSpec{
        .id = SettingId::kSchedule,
        .type = SettingType::kCallable,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "schedule",
        .site = &ProfilerCallSite::schedule,
    },
    ProfilerSettingSpec{
        .id = SettingId::kActive,
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "1"},
        .json_level = JsonLevel::kTop,
        .json_key = "active",
    },
    ProfilerSettingSpec{
        .id = SettingId::kWarmup,
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "0"},
        .json_level = JsonLevel::kTop,
        .json_key = "warmup",
    },
    ProfilerSettingSpec{
        .id = SettingId::kStartStep,
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kInt, "", false, "", "0"},
        .json_level = JsonLevel::kTop,
        .json_key = "start_step",
    },
    ProfilerSettingSpec{
        .id = SettingId::kIsRank,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .json_level = JsonLevel::kTop,
        .json_key = "is_rank",
    },
    ProfilerSettingSpec{
        .id = SettingId::kRankList,
        .type = SettingType::kIntList,
        .fallback = {ValueKind::kSequence, "", false, "", "[]"},
        .json_level = JsonLevel::kTop,
        .json_key = "rank_list",
    },
    ProfilerSettingSpec{
        .id = SettingId::kMetadata,
        .type = SettingType::kObject,
        .fallback = {ValueKind::kDict, "", false, "", "{}"},
        .json_level = JsonLevel::kTop,
        .json_key = "metadata",
    },
    ProfilerSettingSpec{
        .id = SettingId::kExperimentalConfig,
        .type = SettingType::kExperimentalConfig,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kProfile,
        .python_keyword = "experimental_config",
        .json_level = JsonLevel::kTop,
        .json_key = "experimental_config",
        .site = &ProfilerCallSite::experimental_config,
    },
    ProfilerSettingSpec{
        .id = SettingId::kIsValid,
        .type = SettingType::kBool,
        .fallback = kTrue,
        .json_level = JsonLevel::kTop,
        .json_key = "is_valid",
        .json_overwritten = true,
    },
    ProfilerSettingSpec{
        .id = SettingId::kProfilerLevel,
        .type = SettingType::kProfilerLevel,
        .choices = kLevels,
        .fallback = {ValueKind::kEnum, "Level0", false, "ProfilerLevel.Level0", "\"Level0\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "profiler_level",
        .json_level = JsonLevel::kExperimental,
        .json_key = "profiler_level",
        .json_remedy = "set `\"profiler_level\": \"Level1\"` inside `experimental_config`",
        .launcher = true,
        .site = &ProfilerCallSite::profiler_level,
    },
    ProfilerSettingSpec{
        .id = SettingId::kAicMetrics,
        .type = SettingType::kString,
        .fallback = {ValueKind::kEnum, "ACL_AICORE_PIPE_UTILIZATION", false, "AiCMetrics.PipeUtilization",
                     "\"AiCoreNone\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "aic_metrics",
        .json_level = JsonLevel::kExperimental,
        .json_key = "aic_metrics",
    },
    ProfilerSettingSpec{
        .id = SettingId::kL2Cache,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "l2_cache",
        .json_level = JsonLevel::kExperimental,
        .json_key = "l2_cache",
    },
    ProfilerSettingSpec{
        .id = SettingId::kOpAttr,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "op_attr",
        .json_level = JsonLevel::kExperimental,
        .json_key = "op_attr",
    },
    ProfilerSettingSpec{
        .id = SettingId::kRecordOpArgs,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "record_op_args",
        .json_level = JsonLevel::kExperimental,
        .json_key = "record_op_args",
    },
    ProfilerSettingSpec{
        .id = SettingId::kMsprofTx,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "msprof_tx",
        .json_level = JsonLevel::kExperimental,
        .json_key = "msprof_tx",
        .json_remedy = "set `\"mstx\": true` and `\"msprof_tx\": true` inside `experimental_config`",
        .launcher = true,
        .site = &ProfilerCallSite::msprof_tx,
    },
    ProfilerSettingSpec{
        .id = SettingId::kMstx,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx",
        .json_remedy = "set `\"mstx\": true` and `\"msprof_tx\": true` inside `experimental_config`",
        .launcher = true,
        .site = &ProfilerCallSite::mstx,
    },
    ProfilerSettingSpec{
        .id = SettingId::kSysIo,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "sys_io",
        .json_level = JsonLevel::kExperimental,
        .json_key = "sys_io",
    },
    ProfilerSettingSpec{
        .id = SettingId::kSysInterconnection,
        .type = SettingType::kBool,
        .fallback = kFalse,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "sys_interconnection",
        .json_level = JsonLevel::kExperimental,
        .json_key = "sys_interconnection",
    },
    ProfilerSettingSpec{
        .id = SettingId::kDataSimplification,
        .type = SettingType::kBool,
        .fallback = kTrue,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "data_simplification",
        .json_level = JsonLevel::kExperimental,
        .json_key = "data_simplification",
    },
    ProfilerSettingSpec{
        .id = SettingId::kGcDetectThreshold,
        .type = SettingType::kNumber,
        .fallback = {ValueKind::kNone, "", false, "None", "null"},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "gc_detect_threshold",
        .json_level = JsonLevel::kExperimental,
        .json_key = "gc_detect_threshold",
    },
    ProfilerSettingSpec{
        .id = SettingId::kExportType,
        .type = SettingType::kExportType,
        .choices = kExportTypes,
        .fallback = {ValueKind::kString, "text", false, "'text'", "\"text\""},
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "export_type",
        .json_level = JsonLevel::kExperimental,
        .json_key = "export_type",
        .json_remedy = "set `\"export_type\": [\"db\"]` (or `[\"text\", \"db\"]`) inside `experimental_config`",
        .launcher = true,
        .site = &ProfilerCallSite::export_type,
    },
    ProfilerSettingSpec{
        .id = SettingId::kMstxDomainInclude,
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx_domain_include",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx_domain_include",
        .json_remedy = "add `\"mfu_flops\"` to `mstx_domain_include`, or remove the key",
        .launcher = true,
        .site = &ProfilerCallSite::mstx_domain_include,
    },
    ProfilerSettingSpec{
        .id = SettingId::kMstxDomainExclude,
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "mstx_domain_exclude",
        .json_level = JsonLevel::kExperimental,
        .json_key = "mstx_domain_exclude",
        .json_remedy = "remove `\"mfu_flops\"` from `mstx_domain_exclude`",
        .launcher = true,
        .site = &ProfilerCallSite::mstx_domain_exclude,
    },
    ProfilerSettingSpec{
        .id = SettingId::kHostSys,
        .type = SettingType::kStringList,
        .fallback = kNoneList,
        .python_call = PythonCall::kExperimentalConfig,
        .python_keyword = "host_sys",
        .json_level = JsonLevel::kExperimental,
        .json_key = "host_sys",
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
    if (setting.Name() == name) return &setting;
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
    out += "| `" + std::string(setting.Name()) + "` | " + type + " | " + python + " | " + json + " | " +
           (setting.launcher ? "yes" : "") + " | " + (setting.site != nullptr ? "yes" : "") + " | " + fallback + " | " +
           std::string(setting.Shared().summary) + " |\n";
  }
  return out;
}

std::string LauncherSettingsMarkdown() {
  std::string out;
  for (const ProfilerSettingSpec& setting : kSettings) {
    if (!setting.launcher) continue;
    out += (out.empty() ? "" : ", ") + Code(setting.Name());
  }
  return "Settings: " + out + ".\n";
}

}  // namespace opmfu::linter
