#include "lint/lint.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "common/parallel.h"
#include "lint/dynamic_config_stage.h"
#include "lint/import_following.h"
#include "lint/inputs.h"
#include "lint/launcher_stage.h"
#include "lint/merge.h"
#include "lint/python_stage.h"
#include "lint/stage.h"
#include "linter/bash_syntax_check.h"
#include "python/project.h"
#include "rules/known_launcher_set.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

std::vector<RuleDescriptor> LintRuleDescriptors() { return rules::RuleDescriptors(rules::RuleScope::kLint); }

Result<LintReport> LintPaths(const std::vector<std::string>& paths, const LintOptions& given) {
  // Every file is read (and stated, and resolved) once per run, whichever launch or import asks.
  const CachingFileReader files(FilesOf(given));
  // And every module a launched program imports is scanned, located and parsed once per run,
  // whichever program asks.
  python::ModuleCache module_cache;
  LintOptions options = given;
  options.files = &files;
  options.module_cache = &module_cache;
  const std::vector<RuleDescriptor> rules = LintRuleDescriptors();
  LintReport report;
  CollectedInputs inputs = CollectInputs(paths, options, report);
  std::vector<Input>& python_inputs = inputs.python;
  const std::vector<std::string>& launcher_paths = inputs.launchers;
  std::vector<std::string>& json_paths = inputs.json;

  std::optional<Config> explicit_config;  // --config FILE, read once
  const auto config_for = [&](const std::string& path, bool from_stdin) -> Result<Config> {
    if (!options.use_config) return Config{};
    if (options.config_file) {
      if (!explicit_config) {
        OPMFU_ASSIGN_OR_RETURN(explicit_config, LoadConfigFile(*options.config_file, rules, options.config_settings));
      }
      if (explicit_config->fail_on && !report.config_fail_on) report.config_fail_on = explicit_config->fail_on;
      return *explicit_config;
    }
    std::error_code ec;  // a working directory that is gone: stdin's config is looked up from its name alone
    const fs::path where = from_stdin ? fs::current_path(ec) / path : fs::path(path);
    OPMFU_ASSIGN_OR_RETURN(Config config, ConfigFor(where, rules, options.config_settings));
    if (config.fail_on && !report.config_fail_on) report.config_fail_on = config.fail_on;
    return config;
  };

  OPMFU_RETURN_IF_ERROR(
      DropExcludedByConfig(inputs, options, [&](const std::string& path) { return config_for(path, false); }));
  // Launchers first (read on every core): they say which scripts run with which arguments.
  EffectiveRulesCache effective_rules(options.overrides, rules);
  std::vector<SharedEffective> launcher_effective;
  rules::KnownLauncherSet known_launcher_set(FilesOf(options));
  std::vector<std::vector<const linter::KnownLauncher*>> launcher_known;
  for (const std::string& path : launcher_paths) {
    OPMFU_ASSIGN_OR_RETURN(Config config, config_for(path, false));
    OPMFU_ASSIGN_OR_RETURN(auto known, known_launcher_set.For(config.launchers));
    launcher_known.push_back(std::move(known));
    launcher_effective.push_back(effective_rules.For(config, path));
  }
  const std::optional<std::string> bash =
      options.bash ? (options.bash->empty() ? std::nullopt : options.bash) : linter::FindBash();
  std::vector<std::optional<LauncherState>> launcher_states(launcher_paths.size());
  std::vector<std::optional<Error>> launcher_errors(launcher_paths.size());
  ForEachInParallel(launcher_paths.size(), options.jobs, [&](std::size_t i) {
    auto state = ReadLauncherState(FilesOf(options), launcher_paths[i], launcher_effective[i], options.keep_sources,
                                   launcher_known[i], bash);
    if (state.ok()) {
      launcher_states[i] = std::move(*state);
    } else {
      launcher_errors[i] = state.take_error();
    }
  });
  // Each Python input once, by its canonical path (a launched script may also be named directly).
  std::map<std::string, std::size_t> python_by_identity;
  for (std::size_t i = 0; i < python_inputs.size(); ++i)
    python_by_identity.emplace(Identity(FilesOf(options), python_inputs[i].path), i);
  std::vector<LauncherState> launchers;
  std::set<std::string> said;
  std::set<std::string> launched_only;  // scripts linted because a launcher runs them, not named
  for (std::size_t i = 0; i < launcher_paths.size(); ++i) {
    if (launcher_errors[i]) report.errors.push_back(std::move(*launcher_errors[i]));
    if (!launcher_states[i]) continue;
    LauncherState& state = *launcher_states[i];
    // A launcher sourced or started on many paths (each branch, each loop pass) meets the same
    // problem on each: said once.
    for (const Error& problem : state.lint.facts.problems) {
      if (said.insert(problem.message).second) report.warnings.push_back(problem.message);
    }
    for (const std::string& limit : state.lint.facts.limits) report.limits.push_back(limit);
    FindLaunchConfigs(FilesOf(options), state, json_paths);
    for (std::size_t l = 0; l < state.lint.facts.launches.size(); ++l) {
      const std::optional<std::string>& script = state.lint.scripts[l];
      if (!script) continue;
      auto [known, added] = python_by_identity.emplace(Identity(FilesOf(options), *script), python_inputs.size());
      if (added) {
        python_inputs.push_back(MakeInput(DisplayPath(*script), false));
        launched_only.insert(python_inputs.back().path);
      }
      Input& input = python_inputs[known->second];
      input.from_directory = false;  // a launched script always matters
      input.launches.push_back(state.lint.facts.launches[l]);
    }
    launchers.push_back(std::move(state));
  }
  const std::size_t named_inputs = python_inputs.size();
  FollowImports(python_inputs, python_by_identity, options);
  // Files reached only by following a launch or an import: OPM010 goes on a file that was named.
  std::set<std::string> followed = std::move(launched_only);
  for (std::size_t i = named_inputs; i < python_inputs.size(); ++i) followed.insert(python_inputs[i].path);
  if (inputs.stdin_input) python_inputs.insert(python_inputs.begin(), std::move(*inputs.stdin_input));

  // Configs (a bad one is a usage error for the whole run), then the Python files in parallel.
  std::vector<SharedEffective> effective(python_inputs.size());
  std::vector<bool> excluded(python_inputs.size(), false);
  for (std::size_t i = 0; i < python_inputs.size(); ++i) {
    OPMFU_ASSIGN_OR_RETURN(Config config, config_for(python_inputs[i].path, python_inputs[i].from_stdin));
    excluded[i] = ExcludedByConfig(python_inputs[i], config, options);
    effective[i] = effective_rules.For(config, python_inputs[i].path);
  }
  std::vector<FileOutcome> outcomes(python_inputs.size());
  ForEachInParallel(python_inputs.size(), options.jobs, [&](std::size_t i) {
    if (!excluded[i]) outcomes[i] = LintPython(python_inputs[i], options, *effective[i]);
  });

  bool any_profiler_call = std::any_of(launchers.begin(), launchers.end(),
                                       [](const LauncherState& launcher) { return launcher.configures_profiler; });
  for (const FileOutcome& outcome : outcomes) {
    json_paths.insert(json_paths.end(), outcome.dynamic_configs.begin(), outcome.dynamic_configs.end());
  }
  // Each dynamic config once, whichever way it was found.
  std::vector<std::string> configs;
  std::set<std::string> config_identities;
  for (std::string& path : json_paths) {
    if (config_identities.insert(Identity(FilesOf(options), path)).second) configs.push_back(std::move(path));
  }
  std::vector<SharedEffective> config_effective;
  for (const std::string& path : configs) {
    OPMFU_ASSIGN_OR_RETURN(Config config, config_for(path, false));
    config_effective.push_back(effective_rules.For(config, path));
  }
  std::vector<FileOutcome> config_outcomes(configs.size());
  ForEachInParallel(configs.size(), options.jobs, [&](std::size_t i) {
    config_outcomes[i] = LintDynamicConfig(configs[i], options, *config_effective[i]);
  });
  std::move(config_outcomes.begin(), config_outcomes.end(), std::back_inserter(outcomes));

  // OPM010 follows the rules in force for the first input.
  const Effective* first = !effective.empty()   ? effective.front().get()
                           : !launchers.empty() ? launchers.front().effective.get()
                                                : nullptr;
  MergeOutcomes(FilesOf(options), outcomes, launchers, followed, first, any_profiler_call, report);
  return report;
}

}  // namespace opmfu::lint
