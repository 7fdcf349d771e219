// The tool table: one row per tool, each made by its own function (what the tool is, the command
// it runs, its input schema's arguments), listed in tools/list order by MakeTools.
#include <string_view>
#include <vector>

#include "mcp/tools.h"

namespace opmfu::mcp {
namespace {

// The arguments several tools share, spelled once.
ToolArgument ProfilingPath(bool required, std::string_view description) {
  return {"profiling_path", ArgumentType::kString, description, "--profiling-path", required, PathUse::kRead, {}};
}
ToolArgument ClusterDb() {
  return {"db",
          ArgumentType::kString,
          "instead of profiling_path: a cluster_analysis.db written by analyze or msprof-analyze",
          "--db",
          false,
          PathUse::kRead,
          {}};
}
ToolArgument RankList() {
  return {"rank_list",
          ArgumentType::kString,
          "ranks to read, e.g. \"0,1,3\" (default: all)",
          "--rank-list",
          false,
          PathUse::kNotAPath,
          {}};
}
ToolArgument StepId() {
  return {"step_id",
          ArgumentType::kInteger,
          "only what starts inside this STEP_TIME step",
          "--step-id",
          false,
          PathUse::kNotAPath,
          {}};
}
ToolArgument Source() {
  return {"source",
          ArgumentType::kString,
          "db (default, as msprof-analyze) or text: the export read where a rank directory holds both",
          "--source",
          false,
          PathUse::kNotAPath,
          {"db", "text"}};
}
ToolArgument Python() {
  return {"python",
          ArgumentType::kString,
          "the training environment's interpreter (e.g. /venv/bin/python), only asked for its sys.path",
          "--python",
          false,
          PathUse::kRead,
          {}};
}
ToolArgument Formulas() {
  return {"formulas",
          ArgumentType::kString,
          "a _flops_formulas.py to read instead of the installed one",
          "--formulas",
          false,
          PathUse::kRead,
          {}};
}
ToolArgument Select() {
  return {"select",
          ArgumentType::kStringList,
          "only these rules (ids, names, prefixes like OPM1)",
          "--select",
          false,
          PathUse::kNotAPath,
          {}};
}
ToolArgument Ignore() {
  return {"ignore", ArgumentType::kStringList, "skip these rules", "--ignore", false, PathUse::kNotAPath, {}};
}

ToolDefinition LintTool() {
  return {"lint",
          "Lint collection config",
          "Before spending cluster hours: checks training scripts, launchers and profiler_config.json for settings "
          "that keep torch_npu from recording FLOPs (with_flops, profiler level, ...). Returns lint findings (an empty "
          "list: collection is set up for MFU). With run, also compares what was traced with what a finished "
          "collection recorded. Never runs the scripts.",
          {"lint"},
          {"--output-format", "json"},
          "lint.schema.json",
          "findings",
          {{"paths",
            ArgumentType::kStringList,
            "files or directories to lint, e.g. [\"train.sh\"]",
            "",
            true,
            PathUse::kRead,
            {}},
           {"run",
            ArgumentType::kString,
            "a profiling directory of a finished collection to compare with",
            "--run",
            false,
            PathUse::kRead,
            {}},
           Select(),
           Ignore()},
          "",
          false};
}

ToolDefinition RegistryListTool() {
  return {"registry_list",
          "List FLOPs formulas",
          "The @register_npu_flop registrations of the installed torch_npu (or a given "
          "_flops_formulas.py): which release it is and what each formula hooks.",
          {"registry", "list"},
          {"--format", "json"},
          "registry-list.schema.json",
          "",
          {Python(), Formulas()},
          "",
          false};
}

ToolDefinition RegistryCheckTool() {
  return {"registry_check",
          "Check FLOPs formulas",
          "Validates @register_npu_flop registrations (duplicates, malformed targets, formulas that return "
          "floats or lack **kwargs). Returns findings in lint's shape (empty: sound).",
          {"registry", "check"},
          {"--output-format", "json"},
          "registry-check.schema.json",
          "findings",
          {{"files",
            ArgumentType::kStringList,
            "formulas files to check (default: the installed one python finds)",
            "",
            false,
            PathUse::kRead,
            {}},
           Python(),
           Formulas(),
           Select(),
           Ignore()},
          "",
          false};
}

ToolDefinition CheckDbTool() {
  return {"check_db",
          "Did FLOPs land?",
          "After a collection: per rank, whether its profiling DB can produce MFU, what the profiler "
          "recorded next to what MFU needs, and the next step.",
          {"check-db"},
          {"--format", "json"},
          "check-db.schema.json",
          "",
          {ProfilingPath(true, "the profiling directory (parent of the *_ascend_pt directories)"), Source()},
          "",
          false};
}

ToolDefinition AnalyzeTool() {
  return {
      "analyze",
      "Compute OperatorMFU and ModuleMFU",
      "msprof-analyze's operator_mfu analysis: writes cluster_analysis_output/ (OperatorMFU and ModuleMFU tables, row "
      "for row as upstream) under output_path, else under profiling_path, and returns what it wrote with the "
      "compute kernels' time-weighted MFU (compute_time_weighted_mfu, the headline report gives; "
      "time_weighted_mfu weighs every row, auxiliary kernels included, as upstream). Reports progress per rank.",
      {"analyze"},
      {"--format", "json"},
      "analyze.schema.json",
      "",
      {ProfilingPath(true, "the profiling directory (parent of the *_ascend_pt directories)"),
       Source(),
       {"output_path",
        ArgumentType::kString,
        "where cluster_analysis_output/ goes (default: profiling_path)",
        "--output-path",
        false,
        PathUse::kWrite,
        {}},
       {"export_type",
        ArgumentType::kString,
        "db (default), text (per-rank .xlsx), csv or json",
        "--export-type",
        false,
        PathUse::kNotAPath,
        {"db", "text", "csv", "json"}},
       RankList(),
       StepId()},
      "profiling_path",
      true};
}

ToolDefinition ReportTool() {
  return {"report",
          "Explain MFU",
          "The MFU report: the compute kernels' time-weighted MFU, then kernel groups ranked by lost time "
          "(duration x (1 - MFU)), each with a band and hints; per-rank coverage and what is missing. Reads "
          "a profiling directory (nothing is written) or a cluster_analysis.db.",
          {"report"},
          {"--format", "json"},
          "report.schema.json",
          "",
          {ProfilingPath(false, "the profiling directory (or give db)"),
           Source(),
           ClusterDb(),
           RankList(),
           StepId(),
           {"top", ArgumentType::kInteger, "entries per table (default 10)", "--top", false, PathUse::kNotAPath, {}},
           {"attribute",
            ArgumentType::kString,
            "all: every kernel of a FLOPs range carries its FLOPs, as upstream (default); compute: only "
            "matmul/attention kernels do",
            "--attribute",
            false,
            PathUse::kNotAPath,
            {"all", "compute"}}},
          "",
          false};
}

ToolDefinition FlopsTool() {
  return {
      "flops",
      "FLOPs of one call",
      "The FLOPs torch_npu's built-in formula records for one call, and the range message it writes "
      "(\"137438953472-mm\"). Shapes as \"[4096,4096]\". Or list: every built-in target.",
      {"flops"},
      {"--format", "json"},
      "flops.schema.json",
      "",
      {{"target",
        ArgumentType::kString,
        "op name or target, e.g. mm, torch:mm, npu_fusion_attention",
        "",
        false,
        PathUse::kNotAPath,
        {}},
       {"inputs",
        ArgumentType::kStringList,
        "the call's arguments by position, e.g. [\"[4096,4096]\", \"[4096,4096]\"]",
        "",
        false,
        PathUse::kNotAPath,
        {}},
       {"arguments",
        ArgumentType::kStringMap,
        "keyword arguments, e.g. {\"head_num\": \"8\", \"query\": \"[2,8,1024,128]\"}",
        "--arg",
        false,
        PathUse::kNotAPath,
        {}},
       {"formulas_version",
        ArgumentType::kString,
        "the torch_npu release whose formulas to compute",
        "--formulas-version",
        false,
        PathUse::kNotAPath,
        {}},
       {"list", ArgumentType::kBoolean, "list the built-in targets instead", "--list", false, PathUse::kNotAPath, {}}},
      "",
      false};
}

ToolDefinition AuditTool() {
  return {"audit",
          "Audit recorded FLOPs",
          "Recomputes the built-in FLOPs from each record's shapes and flags records that disagree, with "
          "a likely cause.",
          {"audit"},
          {"--format", "json"},
          "audit.schema.json",
          "",
          {ProfilingPath(true, "the profiling directory"),
           Source(),
           RankList(),
           StepId(),
           {"tolerance",
            ArgumentType::kNumber,
            "relative difference still counted as agreement (0.01)",
            "--tolerance",
            false,
            PathUse::kNotAPath,
            {}}},
          "",
          false};
}

ToolDefinition GateTool() {
  return {"gate",
          "MFU gate",
          "Checks MFU and coverage against thresholds (and a baseline run): passed, and every check with "
          "its actual value, threshold and message.",
          {"gate"},
          {"--output-format", "json"},
          "gate.schema.json",
          "",
          {ProfilingPath(false, "the profiling directory (or give db)"),
           Source(),
           ClusterDb(),
           RankList(),
           StepId(),
           {"min_mfu",
            ArgumentType::kThreshold,
            "time-weighted MFU at least this, e.g. 0.4 or \"40%\"",
            "--min-mfu",
            false,
            PathUse::kNotAPath,
            {}},
           {"min_mfu_op",
            ArgumentType::kStringList,
            "per op, e.g. [\"aten::mm=0.6\"]",
            "--min-mfu-op",
            false,
            PathUse::kNotAPath,
            {}},
           {"min_coverage",
            ArgumentType::kThreshold,
            "per rank: share of compute time in FLOPs ranges",
            "--min-coverage",
            false,
            PathUse::kNotAPath,
            {}},
           {"max_drop",
            ArgumentType::kThreshold,
            "largest relative MFU drop against baseline, e.g. \"5%\"",
            "--max-drop",
            false,
            PathUse::kNotAPath,
            {}},
           {"baseline",
            ArgumentType::kString,
            "the run to compare with: a profiling directory or cluster DB",
            "--baseline",
            false,
            PathUse::kRead,
            {}}},
          "",
          false};
}

ToolDefinition DemoTool() {
  return {"demo",
          "Write demo data",
          "Writes a synthetic profiling directory (and example scripts) to rehearse the workflow without "
          "an NPU.",
          {"demo"},
          {"--format", "json"},
          "demo.schema.json",
          "",
          {{"directory",
            ArgumentType::kString,
            "where to write (new, empty, or an earlier demo)",
            "",
            true,
            PathUse::kWrite,
            {}},
           {"ranks", ArgumentType::kInteger, "ranks (one DB each)", "--ranks", false, PathUse::kNotAPath, {}},
           {"steps", ArgumentType::kInteger, "training steps per rank", "--steps", false, PathUse::kNotAPath, {}}},
          "",
          false};
}

std::vector<ToolDefinition> MakeTools() {
  return {LintTool(),   RegistryListTool(), RegistryCheckTool(), CheckDbTool(), AnalyzeTool(),
          ReportTool(), FlopsTool(),        AuditTool(),         GateTool(),    DemoTool()};
}

}  // namespace

const std::vector<ToolDefinition>& Tools() {
  static const std::vector<ToolDefinition> tools = MakeTools();
  return tools;
}

const ToolDefinition* FindTool(std::string_view name) {
  for (const ToolDefinition& tool : Tools()) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

}  // namespace opmfu::mcp
