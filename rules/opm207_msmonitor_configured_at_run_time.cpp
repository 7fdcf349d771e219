#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "linter/torch_npu.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

constexpr const char* kMessage =
    "torch_npu's profiler then takes its settings at run time from msMonitor `dyno nputrace` requests, which "
    "this launcher does not hold; without options a request collects no FLOPs (Text export, Level0, no FLOPs "
    "hooks, no mstx ranges)";
constexpr const char* kHelp =
    "send the request with `--with-flops --msprof-tx --export-type Db --profiler-level Level1 --record-shapes "
    "--activities CPU,NPU --analyse` (torch_npu's keys PROFILE_WITH_FLOPS, PROFILE_MSPROF_TX, "
    "PROFILE_EXPORT_TYPE=db, PROFILE_PROFILER_LEVEL=Level1, PROFILE_RECORD_SHAPES, PROFILE_ACTIVITIES), and "
    "lint that dyno command line too (docs/launchers.md)";

std::string Named(const std::string& name) {
  return name == "KINETO_USE_DAEMON" ? "`KINETO_USE_DAEMON` (the old name of MSMONITOR_USE_DAEMON)" : "`" + name + "`";
}

bool IsMsMonitorVariable(std::string_view name) {
  return std::find(linter::kMsMonitorVariables.begin(), linter::kMsMonitorVariables.end(), name) !=
         linter::kMsMonitorVariables.end();
}

}  // namespace

void CheckMsmonitorConfiguredAtRunTime(LauncherCheckContext& context) {
  const linter::LauncherFacts& facts = context.launcher.facts;
  // A dyno request in the launcher itself is linted as such: its options say what is collected.
  if (std::any_of(facts.launches.begin(), facts.launches.end(),
                  [](const linter::Launch& launch) { return launch.module == "dyno.nputrace"; })) {
    return;
  }
  std::set<std::pair<std::string, std::size_t>> reported;  // where each value is written
  for (const linter::ShellCommandFact& fact : facts.commands) {
    if (fact.kind != linter::ShellCommandFact::Kind::kExportedVariable || !IsMsMonitorVariable(fact.name)) continue;
    if (!linter::TurnsOnMsMonitor(fact.value.text, fact.value.known)) continue;
    reported.emplace(fact.value.where.file(), fact.value.where.start_byte);
    context.ReportAt(fact.value.where, Named(fact.name) + " is exported: " + kMessage, kHelp);
  }
  // `MSMONITOR_USE_DAEMON=1 python3 train.py`: set for one command only. PROF_CONFIG_PATH wins
  // over it (torch_npu then reads profiler_config.json).
  for (const linter::Launch& launch : facts.launches) {
    if (launch.Exported("PROF_CONFIG_PATH") != nullptr) continue;
    for (std::string_view name : linter::kMsMonitorVariables) {
      const linter::ShellWord* value = launch.Exported(name);
      if (value == nullptr || !linter::TurnsOnMsMonitor(value->text, value->known)) continue;
      if (!reported.emplace(value->where.file(), value->where.start_byte).second) continue;  // an export
      context.ReportAt(value->where, Named(std::string(name)) + " is set for this launch: " + kMessage, kHelp);
    }
  }
}

}  // namespace opmfu::rules
