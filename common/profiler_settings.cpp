#include "common/profiler_settings.h"

#include <array>

namespace opmfu {

namespace {

// In SettingId order. The recorded settings come first, in the order check-db lists them (what
// FLOPs records need, then what kernels need); the linter's table keeps torch_npu's own order.
constexpr std::array kRows = {
    SettingRow{
        .id = SettingId::kWithFlops,
        .name = "with_flops",
        .recorded_section = RecordedSection::kCommon,
        .recorded_key = "with_flops",
        .recorded_label = "with_flops",
        .recorded_form = RecordedForm::kBool,
        .mfu_needs = "true",
        .run_listing = 1,
        .decisive = true,
        .summary = "installs the FLOPs hooks, whose `mfu_flops` ranges OperatorMFU is built from",
    },
    SettingRow{
        .id = SettingId::kMsprofTx,
        .name = "msprof_tx",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_msprof_tx",
        .recorded_label = "_msprof_tx",
        .recorded_form = RecordedForm::kBool,
        .mfu_needs = "true (or _mstx=true from torch_npu v26.1.0 on)",
        .run_listing = 3,
        .decisive = true,
        .summary = "the older name of `mstx`; v26.1.0-beta.2 records FLOPs only with it",
    },
    SettingRow{
        .id = SettingId::kMstx,
        .name = "mstx",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_mstx",
        .recorded_label = "_mstx",
        .recorded_form = RecordedForm::kBool,
        .run_listing = 2,
        .decisive = true,
        .summary = "enables mstx ranges (from torch_npu v26.1.0 it alone lets `with_flops` record)",
    },
    SettingRow{
        .id = SettingId::kMstxDomainInclude,
        .name = "mstx_domain_include",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_mstx_domain_include",
        .recorded_label = "mstx_domain_include",
        .recorded_form = RecordedForm::kList,
        .mfu_needs = "empty or containing mfu_flops",
        .summary = "when not empty, only these mstx domains are recorded: it must hold `mfu_flops`",
    },
    SettingRow{
        .id = SettingId::kMstxDomainExclude,
        .name = "mstx_domain_exclude",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_mstx_domain_exclude",
        .recorded_label = "mstx_domain_exclude",
        .recorded_form = RecordedForm::kList,
        .mfu_needs = "not containing mfu_flops",
        .summary = "mstx domains not recorded: it must not hold `mfu_flops`",
    },
    SettingRow{
        .id = SettingId::kExportType,
        .name = "export_type",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_export_type",
        .recorded_label = "_export_type",
        .recorded_form = RecordedForm::kList,
        .mfu_needs = "db or text (opmfu reads either; with both, the db unless --source text)",
        .run_listing = 5,
        // Not decisive: a reset gives Text, which opmfu reads (recorded MFU from its msTX ranges,
        // derived MFU from its shapes); only msprof-analyze needs the DB. OPM103 warns about Text.
        .summary = "\"db\" writes the ascend_pytorch_profiler DB msprof-analyze reads, \"text\" kernel_details.csv "
                   "and trace_view.json; opmfu reads either; a str or a list, lower case",
    },
    SettingRow{
        .id = SettingId::kProfilerLevel,
        .name = "profiler_level",
        .recorded_section = RecordedSection::kExperimental,
        .recorded_key = "_profiler_level",
        .recorded_label = "_profiler_level",
        .recorded_form = RecordedForm::kText,
        .mfu_needs = "Level1 or Level2",
        .run_listing = 4,
        .decisive = true,
        .summary = "Level1 or Level2 collect the kernel details OperatorMFU joins; case-sensitive",
    },
    SettingRow{
        .id = SettingId::kActivities,
        .name = "activities",
        .recorded_section = RecordedSection::kCommon,
        .recorded_key = "activities",
        .recorded_label = "activities",
        .recorded_form = RecordedForm::kList,
        .mfu_needs = "CPU and NPU",
        .run_listing = 6,
        .decisive = true,
        .summary = "CPU gives the op-to-kernel mapping, NPU the kernels and mstx ranges: both are needed",
    },
    SettingRow{
        .id = SettingId::kRecordShapes,
        .name = "record_shapes",
        .recorded_section = RecordedSection::kCommon,
        .recorded_key = "record_shapes",
        .recorded_label = "record_shapes",
        .recorded_form = RecordedForm::kBool,
        .mfu_needs = "true",
        .run_listing = 7,
        .summary = "input shapes of the kernels, which OperatorMFU rows show",
    },
    SettingRow{
        .id = SettingId::kWithModules,
        .name = "with_modules",
        .recorded_section = RecordedSection::kCommon,
        .recorded_key = "with_modules",
        .recorded_label = "with_modules",
        .recorded_form = RecordedForm::kBool,
        .run_listing = 8,
        .summary = "Python module call stacks; unrelated to ModuleMFU",
    },
    SettingRow{
        .id = SettingId::kSchedule,
        .name = "schedule",
        .recorded_section = RecordedSection::kCommon,
        .recorded_key = "schedule",
        .recorded_label = "schedule",
        .recorded_form = RecordedForm::kSchedule,
        .summary = "which steps are recorded; `repeat` other than 1 writes several directories per run",
    },
    SettingRow{
        .id = SettingId::kProfDir,
        .name = "prof_dir",
        .summary = "the output root the dynamic profiler hands its trace handler",
    },
    SettingRow{
        .id = SettingId::kAnalyse,
        .name = "analyse",
        .decisive = true,
        .summary = "whether the trace handler parses the raw data into a DB when the trace is ready",
    },
    SettingRow{
        .id = SettingId::kAsyncMode,
        .name = "async_mode",
        .summary = "parse in a separate process; `is_rank` turns `analyse` off without it",
    },
    SettingRow{
        .id = SettingId::kProfileMemory,
        .name = "profile_memory",
        .summary = "memory events",
    },
    SettingRow{
        .id = SettingId::kWithStack,
        .name = "with_stack",
        .summary = "Python call stacks of the ops",
    },
    SettingRow{
        .id = SettingId::kOnTraceReady,
        .name = "on_trace_ready",
        .summary = "None collects into a temporary directory that is deleted, unparsed",
    },
    SettingRow{
        .id = SettingId::kActive,
        .name = "active",
        .summary = "steps recorded (the dynamic profiler's `schedule(active=...)`)",
    },
    SettingRow{
        .id = SettingId::kWarmup,
        .name = "warmup",
        .summary = "warm-up steps before recording",
    },
    SettingRow{
        .id = SettingId::kStartStep,
        .name = "start_step",
        .summary = "0: do nothing, -1: the next step, N: step N (a past step discards the config)",
    },
    SettingRow{
        .id = SettingId::kIsRank,
        .name = "is_rank",
        .summary = "collect only on the ranks of `rank_list`",
    },
    SettingRow{
        .id = SettingId::kRankList,
        .name = "rank_list",
        .summary = "the ranks that collect when `is_rank` is true",
    },
    SettingRow{
        .id = SettingId::kMetadata,
        .name = "metadata",
        .summary = "written into the run's metadata (`add_metadata_json`)",
    },
    SettingRow{
        .id = SettingId::kExperimentalConfig,
        .name = "experimental_config",
        .summary = "holds the experimental settings (`_ExperimentalConfig(...)`; in JSON an object)",
    },
    SettingRow{
        .id = SettingId::kIsValid,
        .name = "is_valid",
        .summary = "set by torch_npu when it loads the file (false when it cannot); not the file's to say",
    },
    SettingRow{
        .id = SettingId::kAicMetrics,
        .name = "aic_metrics",
        .summary = "AI Core counters (Level1 and Level2 only)",
    },
    SettingRow{
        .id = SettingId::kL2Cache,
        .name = "l2_cache",
        .summary = "L2 cache events",
    },
    SettingRow{
        .id = SettingId::kOpAttr,
        .name = "op_attr",
        .summary = "operator attributes (forced off without Db export)",
    },
    SettingRow{
        .id = SettingId::kRecordOpArgs,
        .name = "record_op_args",
        .summary = "operator arguments (for AOE)",
    },
    SettingRow{
        .id = SettingId::kSysIo,
        .name = "sys_io",
        .summary = "NIC, RoCE and MAC counters",
    },
    SettingRow{
        .id = SettingId::kSysInterconnection,
        .name = "sys_interconnection",
        .summary = "HCCS, PCIe and inter-chip counters",
    },
    SettingRow{
        .id = SettingId::kDataSimplification,
        .name = "data_simplification",
        .summary = "drops intermediate files after parsing (the raw data stays)",
    },
    SettingRow{
        .id = SettingId::kGcDetectThreshold,
        .name = "gc_detect_threshold",
        .summary = "records Python GC pauses longer than this many ms",
    },
    SettingRow{
        .id = SettingId::kHostSys,
        .name = "host_sys",
        .summary = "host counters (`cpu`, `mem`, `disk`, `network`, `osrt`)",
    },
};

static_assert(kRows.size() == kSettingCount, "one row per SettingId");

constexpr bool RowsInIdOrder() {
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    if (static_cast<std::size_t>(kRows[i].id) != i) return false;
  }
  return true;
}
static_assert(RowsInIdOrder(), "row i is the row of SettingId i");

}  // namespace

std::span<const SettingRow> SettingRows() { return kRows; }

const SettingRow& Row(SettingId id) { return kRows[static_cast<std::size_t>(id)]; }

const SettingRow* FindSetting(std::string_view name) {
  for (const SettingRow& row : kRows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace opmfu
