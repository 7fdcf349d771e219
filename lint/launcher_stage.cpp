#include "lint/launcher_stage.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/text.h"
#include "common/text_location.h"
#include "lint/dynamic_config_stage.h"
#include "lint/suppression_stage.h"
#include "linter/bash_launcher.h"
#include "linter/bash_syntax_check.h"
#include "linter/torch_npu.h"
#include "rules/meta_checks.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

namespace {

// Every comment of the launcher, wherever it stands: a directive in a function body counts
// whether or not (and however often) the run reaches it.
std::vector<TSNode> CommentsOf(const SyntaxTree& tree) {
  std::vector<TSNode> comments;
  for (TSNode root : tree.roots()) {
    WalkTree(root, [&](TSNode node) {
      if (IsType(node, "comment")) comments.push_back(node);
      return true;
    });
  }
  return comments;
}

// Where a launched script is: next to the launcher, else relative to the current directory.
std::optional<std::string> FindScriptAt(const FileReader& files, const linter::Launch& launch, const fs::path& script);

std::optional<std::string> FindScript(const FileReader& files, const linter::Launch& launch) {
  if (!launch.script.known) return std::nullopt;
  if (auto found = FindScriptAt(files, launch, launch.script.text)) return found;
  // `python -m pkg` runs pkg/__main__.py when pkg is a package.
  if (!launch.module.empty())
    return FindScriptAt(files, launch, fs::path(launch.script.text).replace_extension() / "__main__.py");
  return std::nullopt;
}

std::optional<std::string> FindScriptAt(const FileReader& files, const linter::Launch& launch, const fs::path& script) {
  if (script.is_absolute()) {
    if (files.IsFile(script.string())) return script.string();
    return std::nullopt;
  }
  // As bash does: relative to the current directory first (lint runs from the project root, as
  // the launcher does; after a `cd` in the launcher, that directory), then next to the launcher
  // (for a launcher run from its own directory).
  if (!launch.directory.empty()) {
    const fs::path there = (fs::path(launch.directory) / script).lexically_normal();
    if (files.IsFile(there.string())) return there.string();
  }
  if (files.IsFile(script.string())) return script.lexically_normal().string();
  const fs::path beside = (fs::path(launch.launcher).parent_path() / script).lexically_normal();
  if (files.IsFile(beside.string())) return beside.string();
  return std::nullopt;
}

// A launch of a known launcher is checked like a profile(...) call, from its description; the
// findings land on the launcher's words.
void CheckKnownLaunches(LauncherState& state, const FileReader& files) {
  const std::vector<linter::Launch>& launches = state.lint.facts.launches;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const linter::KnownLauncher* known = state.lint.known[i];
    if (known == nullptr) continue;
    linter::KnownLaunchFacts launch = linter::ReadKnownLaunch(*known, launches[i], files);
    state.configures_profiler = state.configures_profiler || launch.profiling_enabled;
    linter::ProfilerFacts facts;
    facts.sites = std::move(launch.sites);
    facts.choice_violations = std::move(launch.choice_violations);
    facts.refused_variables = std::move(launch.refused);
    facts.known_launcher = known->name;
    for (Diagnostic& d : rules::CheckProfilerFacts(facts, *state.effective)) state.diagnostics.push_back(std::move(d));
  }
}

// A launcher that puts torch_npu in msMonitor mode configures the profiler, at run time (OPM207
// says how): not a launcher with "nothing to check" (OPM010).
bool TurnsOnMsMonitor(const linter::LauncherFacts& facts) {
  const auto on = [](const linter::ShellWord& value) { return linter::TurnsOnMsMonitor(value.text, value.known); };
  for (const linter::ShellCommandFact& fact : facts.commands) {
    if (fact.kind == linter::ShellCommandFact::Kind::kExportedVariable &&
        std::find(linter::kMsMonitorVariables.begin(), linter::kMsMonitorVariables.end(), fact.name) !=
            linter::kMsMonitorVariables.end() &&
        on(fact.value)) {
      return true;
    }
  }
  return std::any_of(facts.launches.begin(), facts.launches.end(), [&](const linter::Launch& launch) {
    return std::any_of(linter::kMsMonitorVariables.begin(), linter::kMsMonitorVariables.end(), [&](auto name) {
      const linter::ShellWord* value = launch.Exported(name);
      return value != nullptr && on(*value);
    });
  });
}

// After a launcher's own checks, later stages use only the launches that run a script found on
// disk (they bind into that script's lint) or that export PROF_CONFIG_PATH (its config is
// linted). Dropping the rest, and the commands, now lets a thousand launchers' words and
// sources go before the next ones are read.
void KeepWhatLaterStagesUse(rules::LauncherLint& lint) {
  std::vector<linter::Launch> launches;
  std::vector<std::optional<std::string>> scripts;
  std::vector<const linter::KnownLauncher*> known;
  for (std::size_t i = 0; i < lint.facts.launches.size(); ++i) {
    linter::Launch& launch = lint.facts.launches[i];
    if (!lint.scripts[i] && launch.Exported("PROF_CONFIG_PATH") == nullptr) continue;
    launches.push_back(std::move(launch));
    scripts.push_back(std::move(lint.scripts[i]));
    known.push_back(lint.known[i]);
  }
  lint.facts.launches = std::move(launches);
  lint.scripts = std::move(scripts);
  lint.known = std::move(known);
  lint.writes_traces = {};
  lint.npu_profiler_under_msprof = {};
  lint.facts.commands = {};
}

}  // namespace

void FindLaunchConfigs(const FileReader& files, LauncherState& state, std::vector<std::string>& configs) {
  for (const linter::Launch& launch : state.lint.facts.launches) {
    const linter::ShellWord* variable = launch.Exported("PROF_CONFIG_PATH");
    if (variable == nullptr) continue;
    state.configures_profiler = true;
    const linter::ShellWord& directory = *variable;
    rules::UnfoundDynamicConfig unfound;
    unfound.source = rules::UnfoundDynamicConfig::Source::kEnvironment;
    if (directory.known) {
      if (auto found = FindDynamicConfig(files, directory.text, launch.launcher)) {
        configs.push_back(std::move(*found));
        continue;
      }
      unfound.directory = directory.text;
    } else {
      unfound.unknown_reason = directory.text;
    }
    unfound.file = directory.where.file();
    unfound.range = directory.where.range();
    unfound.snippet = directory.where.snippet();
    for (Diagnostic& d : rules::CheckMeta(unfound, *state.effective)) state.diagnostics.push_back(std::move(d));
  }
}

Result<LauncherState> ReadLauncherState(const FileReader& files, const std::string& path, SharedEffective effective,
                                        bool keep_source,
                                        const std::vector<const linter::KnownLauncher*>& known_launchers,
                                        const std::optional<std::string>& bash) {
  OPMFU_ASSIGN_OR_RETURN(std::string source, files.ReadFile(path));
  if (!IsValidUtf8(source)) return Error::Input(path + ": not valid UTF-8");
  OPMFU_ASSIGN_OR_RETURN(linter::LauncherFacts facts, linter::ReadLauncher(path, std::move(source), files));
  LauncherState state;
  state.effective = std::move(effective);
  state.lint.facts = std::move(facts);
  std::map<std::string, std::optional<std::string>> found_scripts;  // the paths of one command often agree
  std::map<std::string, bool> writes_traces_by_script;
  std::map<std::string, bool> npu_profiler_by_script;
  for (const linter::Launch& launch : state.lint.facts.launches) {
    auto [cached, added] = found_scripts.try_emplace(launch.launcher + "\n" + launch.script.text);
    if (added) cached->second = FindScript(files, launch);
    std::optional<std::string> script = cached->second;
    const auto read_script = [&]() -> std::optional<std::string> {
      if (!script) return std::nullopt;
      auto read = files.ReadFile(*script);
      return read.ok() ? std::optional(std::move(*read)) : std::nullopt;
    };
    state.lint.known.push_back(linter::MatchKnownLauncher(known_launchers, launch, read_script));
    // Only launches given a profiling option need to know whether the script writes traces.
    bool writes_traces = true;
    if (script && std::any_of(launch.arguments.begin(), launch.arguments.end(), [](const linter::ShellWord& word) {
          return word.text.starts_with("--") && AsciiLower(word.text).find("prof") != std::string::npos;
        })) {
      auto [cached_text, fresh] = writes_traces_by_script.try_emplace(*script, true);
      if (fresh) {
        const std::optional<std::string> text = read_script();
        cached_text->second = !text || text->find("torch") != std::string::npos;
      }
      writes_traces = cached_text->second;
    }
    state.lint.writes_traces.push_back(writes_traces);
    // A script run under msprof: does it build a torch_npu profiler (OPM204)? Read as text, once.
    bool npu_profiler = false;
    if (script && launch.collector) {
      auto [cached_profiler, fresh] = npu_profiler_by_script.try_emplace(*script, false);
      if (fresh) {
        const std::optional<std::string> text = read_script();
        cached_profiler->second =
            text && text->find("torch_npu") != std::string::npos && text->find("profiler") != std::string::npos;
      }
      npu_profiler = cached_profiler->second;
    }
    state.lint.npu_profiler_under_msprof.push_back(npu_profiler);
    state.lint.scripts.push_back(std::move(script));
  }
  state.diagnostics = rules::CheckLauncher(state.lint, *state.effective);
  CheckKnownLaunches(state, files);
  state.configures_profiler = state.configures_profiler || TurnsOnMsMonitor(state.lint.facts);
  const SyntaxTree& tree = *state.lint.facts.tree;
  state.suppressions = ReadFileSuppressions(tree, CommentsOf(tree));
  state.parsed_cleanly = !tree.has_error();
  // As the file is on disk, for --fix: not the text parsed (line breaks added after a final `\`).
  if (keep_source) state.source = tree.source().substr(0, state.lint.facts.source_size);
  if (tree.has_error()) {
    const auto ask_bash = [&] {
      return bash ? linter::CheckWithBash(*bash, path)
                  : linter::BashVerdict{linter::BashVerdict::Kind::kUnavailable, 0,
                                        "no bash found on PATH or at /bin/bash"};
    };
    for (Diagnostic& d : rules::CheckMeta(rules::LauncherParse{path, tree, ask_bash}, *state.effective)) {
      state.diagnostics.push_back(std::move(d));
    }
  }
  state.lint.facts.tree.reset();
  KeepWhatLaterStagesUse(state.lint);
  return state;
}

}  // namespace opmfu::lint
