#include <set>

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

// A path as written, without a trailing `/` or `/*` (`rm -rf ./prof/*` empties ./prof).
std::string_view DirectoryOf(std::string_view path) {
  if (path.ends_with("/*")) path.remove_suffix(2);
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

void CheckReusedOutputDirectory(LauncherCheckContext& context) {
  // Directories the launcher removes: each run starts from an empty one.
  std::set<std::string, std::less<>> removed;
  for (const linter::ShellCommandFact& fact : context.launcher.facts.commands) {
    if (fact.kind == linter::ShellCommandFact::Kind::kRemovedPath && fact.value.known) {
      removed.emplace(DirectoryOf(fact.value.text));
    }
  }
  // One finding per directory: a later launch given the same directory (a script that checks
  // or analyses what the run wrote) is not a second problem.
  std::set<std::string, std::less<>> reported;
  const auto report = [&](const linter::ShellWord& value, const std::string& name) {
    // A value known only at run time ($(date), $RANDOM, a job id) differs between runs.
    if (!value.known || value.text.empty()) return;
    const std::string_view directory = DirectoryOf(value.text);
    if (removed.contains(directory) || !reported.emplace(directory).second) return;
    context.ReportAt(value.where,
                     "`" + name + "` is always '" + value.text +
                         "': every run adds its *_ascend_pt directories there, and msprof-analyze keeps only the "
                         "newest per rank",
                     "put a date or job id in it, e.g. ./prof/$(date +%Y%m%d-%H%M%S) or ./prof/${SLURM_JOB_ID}");
  };
  const auto& launches = context.launcher.facts.launches;
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const linter::Launch& launch = launches[l];
    // A script that never imports torch writes no *_ascend_pt: its directory option is one it
    // reads (a checker run after training).
    if (l < context.launcher.writes_traces.size() && !context.launcher.writes_traces[l]) continue;
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
