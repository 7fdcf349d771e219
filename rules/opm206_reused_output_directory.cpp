#include "common/text.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

// An option or variable that names where profiling output goes.
bool NamesProfilingOutput(std::string_view name) {
  const std::string lower = AsciiLower(name);
  const bool profiling = lower.find("prof") != std::string::npos;
  const bool place = lower.find("dir") != std::string::npos || lower.find("path") != std::string::npos;
  // PROF_CONFIG_PATH and the like name an input: the dynamic profiler's config directory.
  const bool config = lower.find("config") != std::string::npos || lower.find("cfg") != std::string::npos;
  return profiling && place && !config;
}

}  // namespace

void CheckReusedOutputDirectory(LauncherCheckContext& context) {
  const auto report = [&](const linter::ShellWord& value, const std::string& name) {
    // A value known only at run time ($(date), $RANDOM, a job id) differs between runs.
    if (!value.known || value.text.empty()) return;
    context.ReportAt(value.where,
                     "`" + name + "` is always '" + value.text +
                         "': every run adds its *_ascend_pt directories there, and msprof-analyze keeps only the "
                         "newest per rank",
                     "put a date or job id in it, e.g. ./prof/$(date +%Y%m%d-%H%M%S) or ./prof/${SLURM_JOB_ID}");
  };
  for (const linter::Launch& launch : context.launcher.facts.launches) {
    for (std::size_t i = 0; i < launch.arguments.size(); ++i) {
      const std::string& word = launch.arguments[i].text;
      if (!word.starts_with("--")) continue;
      const std::size_t equals = word.find('=');
      const std::string name = word.substr(0, equals);
      if (!NamesProfilingOutput(name)) continue;
      if (equals != std::string::npos) {
        linter::ShellWord value = launch.arguments[i];
        value.text = word.substr(equals + 1);
        report(value, name);
      } else if (i + 1 < launch.arguments.size()) {
        report(launch.arguments[i + 1], name);
      }
    }
  }
  for (const linter::ShellCommandFact& fact : context.launcher.facts.commands) {
    if (fact.kind == linter::ShellCommandFact::Kind::kExportedVariable && NamesProfilingOutput(fact.name)) {
      report(fact.value, fact.name);
    }
  }
}

}  // namespace opmfu::rules
