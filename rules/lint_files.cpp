#include "rules/lint_files.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <thread>
#include <tuple>

#include "common/file_io.h"
#include "common/text.h"
#include "linter/bash_launcher.h"
#include "linter/bash_syntax_check.h"
#include "linter/python_project.h"
#include "linter/suppressions.h"
#include "rules/known_launcher_set.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace fs = std::filesystem;

namespace {

using Effective = std::map<std::string, std::optional<Severity>>;

struct Input {
  std::string path;
  bool from_directory = false;  ///< may be skipped when it cannot matter
  bool from_stdin = false;
  std::vector<linter::Launch> launches;  ///< the launcher commands that run it
  /// Launches of a script that imports this module (bound, but not its own command line).
  std::vector<linter::Launch> inherited;
  /// The program this module belongs to: the entry script whose imports reach it (itself if none).
  std::optional<std::string> entry;
  std::optional<std::string> source;  ///< read ahead (to find entry points), moved into the lint
  bool cannot_matter = false;         ///< found in a directory, read ahead, and mentions no profiler
};

// A path found by opmfu (a followed import, a launched script) as the user would write it: relative
// to the working directory when it is below it (findings, suppressions and SARIF's %SRCROOT% then
// agree with the paths the user named), else as found.
std::string DisplayPath(const std::string& found) {
  std::error_code ec;
  const fs::path path(found);
  if (!path.is_absolute()) return found;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return found;
  const fs::path relative = path.lexically_normal().lexically_relative(fs::weakly_canonical(cwd, ec));
  if (ec || relative.empty() || *relative.begin() == "..") return found;
  return relative.string();
}

Input MakeInput(std::string path, bool from_directory, bool from_stdin = false) {
  Input input;
  input.path = std::move(path);
  input.from_directory = from_directory;
  input.from_stdin = from_stdin;
  return input;
}

// The project root: `--root`, else the nearest directory above `start` with a .git, else the
// working directory when `start` is below it (a source tarball or an exported tree has no .git,
// and is linted from its top, as ruff takes the directory it runs in), else `start`.
fs::path ProjectRoot(const LintOptions& options, const fs::path& start) {
  std::error_code ec;
  if (options.root) return fs::weakly_canonical(*options.root, ec).lexically_normal();
  const fs::path from = fs::weakly_canonical(start.empty() ? fs::path(".") : start, ec);
  for (fs::path dir = from; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (dir == dir.parent_path()) break;
  }
  const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
  const fs::path relative = from.lexically_relative(cwd);
  if (!ec && !cwd.empty() && !relative.empty() && *relative.begin() != "..") return cwd;
  return from;
}

// Where the program of an input starts: its entry script's directory, or the launcher's.
fs::path RootStart(const Input& input) {
  if (!input.launches.empty()) return fs::path(input.launches.front().launcher).parent_path();
  if (!input.inherited.empty()) return fs::path(input.inherited.front().launcher).parent_path();
  return fs::path(input.entry.value_or(input.path)).parent_path();
}

// The modules an input's tracing may follow: its imports, and its entry script with that
// script's imports (where its callers are).
std::unique_ptr<python::ModuleSet> ProgramModules(const Input& input, const LintOptions& options) {
  const fs::path self = fs::weakly_canonical(input.path).lexically_normal();
  const fs::path entry = fs::weakly_canonical(input.entry.value_or(input.path)).lexically_normal();
  const fs::path root = ProjectRoot(options, fs::weakly_canonical(RootStart(input)));
  python::ModuleLocator locator({entry.parent_path(), root}, root);
  auto files = [locator, self, entry] {
    std::vector<fs::path> found = python::ImportClosure(locator, self);
    if (entry != self) {
      found.push_back(entry);
      for (fs::path& file : python::ImportClosure(locator, entry)) found.push_back(std::move(file));
    }
    std::erase(found, self);
    return found;
  };
  std::vector<linter::Launch> launches = input.launches;
  launches.insert(launches.end(), input.inherited.begin(), input.inherited.end());
  return std::make_unique<python::ModuleSet>(std::move(locator), std::move(files), linter::InvocationsOf(launches));
}

bool SkippedDirectory(const fs::path& path) {
  const std::string name = path.filename().string();
  return (name.size() > 1 && name[0] == '.') || name == "__pycache__" || name == "node_modules" ||
         name == "site-packages" || name == "venv";
}

// A file that mentions none of these cannot configure a torch_npu profiler.
bool CanMatter(std::string_view source) {
  return source.find("profiler") != std::string_view::npos || source.find("torch_npu") != std::string_view::npos;
}

std::string Identity(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

Diagnostic MetaDiagnostic(const RuleInfo& rule, Severity severity, std::string file, SourceRange range,
                          std::string message, std::string snippet) {
  Diagnostic d;
  d.rule_id = rule.id;
  d.rule_name = rule.name;
  d.severity = severity;
  d.file = std::move(file);
  d.range = range;
  d.message = std::move(message);
  d.snippet = std::move(snippet);
  return d;
}

std::optional<Severity> Enabled(const Effective& effective, std::string_view id) {
  return EffectiveSeverity(*FindRule(id), effective);
}

using SharedEffective = std::shared_ptr<const Effective>;

// The rules in force for each file. Files under one config without per-file ignores share one
// map: a thousand launchers would otherwise each build and keep their own.
class EffectiveRulesCache {
 public:
  EffectiveRulesCache(const RuleOverrides& overrides, std::span<const RuleDescriptor> rules)
      : overrides_(overrides), rules_(rules) {}

  SharedEffective For(const Config& config, const std::string& path) {
    if (!config.per_file_ignores.empty()) {
      return std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
    }
    SharedEffective& shared = by_config_[config.path.string()];
    if (!shared) shared = std::make_shared<const Effective>(EffectiveRules(config, overrides_, rules_, path));
    return shared;
  }

 private:
  const RuleOverrides& overrides_;
  std::span<const RuleDescriptor> rules_;
  std::map<std::string, SharedEffective> by_config_;
};

linter::Suppressions ReadFileSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments) {
  return linter::ReadSuppressions(tree, comments, [](std::string_view code) {
    const RuleInfo* rule = FindRule(code);
    return rule != nullptr ? std::string(rule->id) : std::string();
  });
}

// Applies a file's suppression comments to its findings, then reports malformed (OPM002) and
// unused (OPM003) ones.
void Suppress(linter::Suppressions& suppressions, const std::string& path, const Effective& effective,
              std::vector<Diagnostic>& diagnostics) {
  SortAndDeduplicate(diagnostics);
  linter::ApplySuppressions(suppressions, diagnostics);
  if (auto severity = Enabled(effective, "OPM002")) {
    for (const linter::MalformedDirective& bad : suppressions.malformed) {
      diagnostics.push_back(MetaDiagnostic(*FindRule("OPM002"), *severity, path, bad.comment, bad.message, bad.line));
    }
  }
  if (auto severity = Enabled(effective, "OPM003")) {
    for (const linter::Suppression& s : suppressions.entries) {
      // Only when every rule it names ran: a suppression for a disabled rule is not evidence.
      const bool all_ran = std::all_of(s.codes.begin(), s.codes.end(),
                                       [&](const std::string& id) { return Enabled(effective, id).has_value(); });
      if (s.used || !all_ran) continue;
      std::string codes;
      for (const std::string& id : s.codes) codes += (codes.empty() ? "" : ", ") + id;
      Diagnostic d = MetaDiagnostic(*FindRule("OPM003"), *severity, path, s.comment,
                                    "unused suppression: no " + codes + " finding here", s.line);
      d.help = "remove the comment, or move it to the line the finding is reported on";
      diagnostics.push_back(std::move(d));
    }
  }
  SortAndDeduplicate(diagnostics);
}

struct FileOutcome {
  std::optional<LintedFile> linted;
  std::vector<Diagnostic> elsewhere;  ///< findings located in a launcher
  std::optional<Error> error;
  bool skipped = false;
  bool has_profiler_call = false;
  std::vector<std::string> dynamic_configs;  ///< profiler_config.json files its dp.init calls read
  std::vector<TracedSite> sites;             ///< with LintOptions::keep_settings
};

// One traced value as torch_npu records it in profiler_info_<rank>.json; nullopt when it cannot
// be told. Lists are sorted and joined with ",".
std::optional<std::string> RecordedSpelling(const std::string& setting, const python::Value& value) {
  using python::ValueKind;
  const auto item = [&](const python::Value& v) -> std::optional<std::string> {
    if (v.kind == ValueKind::kEnum) return setting == "export_type" ? AsciiLower(v.text) : v.text;
    if (v.kind == ValueKind::kString) return setting == "export_type" ? AsciiLower(v.text) : v.text;
    return std::nullopt;
  };
  switch (value.kind) {
    case ValueKind::kBool:
      return value.boolean ? "true" : "false";
    case ValueKind::kNone:
      if (setting == "activities") return "CPU,NPU";  // torch_npu's default set
      return std::nullopt;
    case ValueKind::kEnum:
    case ValueKind::kString:
      return item(value);
    case ValueKind::kSequence: {
      if (setting == "activities" && value.items.empty()) return "CPU,NPU";  // [] is "not given"
      std::vector<std::string> items;
      for (const python::Value& element : value.items) {
        auto spelled = item(element);
        if (!spelled) return std::nullopt;
        if (std::find(items.begin(), items.end(), *spelled) == items.end()) items.push_back(std::move(*spelled));
      }
      std::sort(items.begin(), items.end());
      std::string joined;
      for (const std::string& text : items) joined += (joined.empty() ? "" : ",") + text;
      return joined;
    }
    default:
      return std::nullopt;
  }
}

TracedSite TraceSite(const linter::ProfilerCallSite& site, const python::PythonModule& module) {
  TracedSite traced;
  traced.file = module.path();
  traced.line = static_cast<int>(module.tree().RangeOf(site.call).start.line);
  traced.callee = site.callee;
  for (const linter::Setting* setting :
       {&site.with_flops, &site.mstx, &site.msprof_tx, &site.profiler_level, &site.export_type, &site.activities,
        &site.record_shapes, &site.with_modules}) {
    TracedSetting out;
    out.name = setting->name;
    for (const python::Value& value : setting->values) {
      auto spelled = RecordedSpelling(setting->name, value);
      if (!spelled) {
        out.unknown = true;
      } else if (std::find(out.values.begin(), out.values.end(), *spelled) == out.values.end()) {
        out.values.push_back(std::move(*spelled));
      }
    }
    traced.settings.push_back(std::move(out));
  }
  return traced;
}

constexpr std::string_view kDynamicConfigName = "profiler_config.json";

// The profiler_config.json of a dynamic-profiler directory as the program would see it: relative
// to the file that names it (launcher or script), else to the current directory.
std::optional<std::string> FindDynamicConfig(const std::string& directory, const std::string& named_in) {
  const fs::path dir = directory;
  std::error_code ec;
  std::vector<fs::path> candidates;
  if (dir.is_absolute()) {
    candidates.push_back(dir / kDynamicConfigName);
  } else {
    candidates.push_back(fs::path(named_in).parent_path() / dir / kDynamicConfigName);
    candidates.push_back(dir / kDynamicConfigName);
  }
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

std::string MissingConfigMessage(const std::string& directory) {
  return "the dynamic profiler reads `" + (fs::path(directory) / kDynamicConfigName).string() +
         "`, which was not found, so its settings are not checked (torch_npu writes a template there that collects "
         "no FLOPs)";
}

constexpr std::string_view kMissingConfigHelp =
    "write the config before the run and lint it: `opmfu lint DIR/profiler_config.json`";

// The dp.init(dir) calls of a file: the configs they read, or OPM004 where none can be found.
void FindInitConfigs(const linter::ProfilerFacts& facts, const std::string& path, const Effective& effective,
                     FileOutcome& outcome, std::vector<Diagnostic>& diagnostics) {
  const auto severity = Enabled(effective, "OPM004");
  const SyntaxTree& tree = facts.module->tree();
  for (const linter::DynamicProfilerInit& init : facts.dynamic_inits) {
    for (const python::Value& directory : init.directory) {
      std::string message;
      if (directory.kind == python::ValueKind::kString) {
        if (auto found = FindDynamicConfig(directory.text, path)) {
          outcome.dynamic_configs.push_back(std::move(*found));
          continue;
        }
        message = MissingConfigMessage(directory.text);
      } else {
        message = "cannot tell which directory the dynamic profiler reads its config from (" +
                  (directory.kind == python::ValueKind::kUnknown ? directory.unknown_reason : directory.Describe()) +
                  "), so its settings are not checked";
      }
      if (!severity) continue;
      Diagnostic d = MetaDiagnostic(*FindRule("OPM004"), *severity, path, tree.RangeOf(init.call), std::move(message),
                                    std::string(tree.LineOf(ts_node_start_byte(init.call))));
      d.help = kMissingConfigHelp;
      d.notes = directory.chain;
      diagnostics.push_back(std::move(d));
    }
  }
}

FileOutcome LintPython(Input& input, const LintOptions& options, const Effective& effective) {
  FileOutcome outcome;
  std::string source;
  if (input.cannot_matter) {
    outcome.skipped = true;
    return outcome;
  }
  if (input.from_stdin) {
    source = *options.stdin_source;
    if (source.find('\0') != std::string::npos) {
      outcome.error = Error::Input(input.path + ": binary input (it contains NUL bytes)");
      return outcome;
    }
  } else if (input.source) {
    source = std::move(*input.source);
  } else {
    auto read = ReadTextFile(input.path);
    if (!read.ok()) {
      outcome.error = read.take_error();
      return outcome;
    }
    source = std::move(*read);
  }
  if (input.from_directory && !CanMatter(source)) {
    outcome.skipped = true;
    return outcome;
  }
  if (!IsValidUtf8(source)) {
    outcome.error = Error::Input(input.path + ": not valid UTF-8 (Python source must be)");
    return outcome;
  }
  auto parsed = python::PythonModule::Parse(input.path, source);
  if (!parsed.ok()) {
    outcome.error = parsed.take_error();
    return outcome;
  }
  auto module = std::make_unique<python::PythonModule>(std::move(*parsed));
  // Declared before the facts so it outlives the module that refers to it.
  std::unique_ptr<python::ModuleSet> program;
  if (!input.from_stdin) {
    program = ProgramModules(input, options);
    module->AttachModules(program.get());
  }
  LintedFile linted;
  linted.path = input.path;
  linted.parsed_cleanly = !module->tree().has_error();
  if (!linted.parsed_cleanly) {
    if (auto severity = Enabled(effective, "OPM001")) {
      const SyntaxTree& tree = module->tree();
      const TSNode error = *tree.FirstError();
      linted.diagnostics.push_back(
          MetaDiagnostic(*FindRule("OPM001"), *severity, input.path, tree.RangeOf(error),
                         "syntax error: the file did not parse cleanly, so findings after this point may be missing",
                         std::string(tree.LineOf(ts_node_start_byte(error)))));
    }
  }
  linter::ProfilerFacts facts = linter::ReadProfilerFacts(std::move(module), input.launches, input.inherited);
  outcome.has_profiler_call = !facts.sites.empty() || !facts.dynamic_inits.empty();
  if (options.keep_settings) {
    for (const linter::ProfilerCallSite& site : facts.sites) {
      if (site.api == linter::ProfilerApi::kTorchNpuProfile) outcome.sites.push_back(TraceSite(site, *facts.module));
    }
  }
  FindInitConfigs(facts, input.path, effective, outcome, linted.diagnostics);
  // Two calls that share one config or mapping see the same setting at the same place: one finding.
  std::set<std::tuple<std::string, int, int, std::string>> reported;
  for (Diagnostic& d : CheckProfilerFacts(facts, effective)) {
    if (!reported.emplace(d.file, d.range.start.line, d.range.start.column, d.rule_id).second) continue;
    (d.file == input.path ? linted.diagnostics : outcome.elsewhere).push_back(std::move(d));
  }
  linter::Suppressions suppressions = ReadFileSuppressions(facts.module->tree(), facts.module->comments());
  Suppress(suppressions, input.path, effective, linted.diagnostics);
  if (options.keep_sources) linted.source = facts.module->tree().source();
  outcome.linted = std::move(linted);
  return outcome;
}

// A dynamic-profiler config: what torch_npu's json.load would reject, then the same rules as a
// profile(...) call plus the JSON-only ones.
FileOutcome LintDynamicConfig(const std::string& path, const LintOptions& options, const Effective& effective) {
  FileOutcome outcome;
  auto read = ReadTextFile(path);
  if (!read.ok()) {
    outcome.error = read.take_error();
    return outcome;
  }
  if (!IsValidUtf8(*read)) {
    outcome.error = Error::Input(path + ": not valid UTF-8 (JSON must be)");
    return outcome;
  }
  auto parsed = linter::ReadDynamicConfig(path, std::move(*read));
  if (!parsed.ok()) {
    outcome.error = parsed.take_error();
    return outcome;
  }
  auto config = std::make_shared<const linter::DynamicConfig>(std::move(*parsed));
  LintedFile linted;
  linted.path = path;
  linted.parsed_cleanly = !config->invalid;
  const auto severity = Enabled(effective, "OPM001");
  if (config->invalid && severity) {
    const auto& [where, cause] = *config->invalid;
    linted.diagnostics.push_back(MetaDiagnostic(
        *FindRule("OPM001"), *severity, path, where.range(),
        "not valid JSON (" + cause + "): json.load fails, so torch_npu ignores the whole config", where.snippet()));
  } else if (!config->top_is_object && severity) {
    linted.diagnostics.push_back(MetaDiagnostic(*FindRule("OPM001"), *severity, path, config->document.range(),
                                                "the config is not a JSON object, so torch_npu ignores it",
                                                config->document.snippet()));
  }
  outcome.has_profiler_call = true;
  const linter::ProfilerFacts facts = linter::DynamicConfigFacts(config);
  for (Diagnostic& d : CheckProfilerFacts(facts, effective)) linted.diagnostics.push_back(std::move(d));
  SortAndDeduplicate(linted.diagnostics);
  if (options.keep_sources) linted.source = *config->source->text;
  outcome.linted = std::move(linted);
  return outcome;
}

// Where a launched script is: next to the launcher, else relative to the current directory.
std::optional<std::string> FindScriptAt(const linter::Launch& launch, const fs::path& script);

std::optional<std::string> FindScript(const linter::Launch& launch) {
  if (!launch.script.known) return std::nullopt;
  if (auto found = FindScriptAt(launch, launch.script.text)) return found;
  // `python -m pkg` runs pkg/__main__.py when pkg is a package.
  if (!launch.module.empty())
    return FindScriptAt(launch, fs::path(launch.script.text).replace_extension() / "__main__.py");
  return std::nullopt;
}

std::optional<std::string> FindScriptAt(const linter::Launch& launch, const fs::path& script) {
  std::error_code ec;
  if (script.is_absolute()) {
    if (fs::is_regular_file(script, ec)) return script.string();
    return std::nullopt;
  }
  // As bash does: relative to the current directory first (lint runs from the project root, as
  // the launcher does; after a `cd` in the launcher, that directory), then next to the launcher
  // (for a launcher run from its own directory).
  if (!launch.directory.empty()) {
    const fs::path there = (fs::path(launch.directory) / script).lexically_normal();
    if (fs::is_regular_file(there, ec)) return there.string();
  }
  if (fs::is_regular_file(script, ec)) return script.lexically_normal().string();
  const fs::path beside = (fs::path(launch.launcher).parent_path() / script).lexically_normal();
  if (fs::is_regular_file(beside, ec)) return beside.string();
  return std::nullopt;
}

struct LauncherState {
  LauncherLint lint;
  SharedEffective effective;
  std::vector<Diagnostic> diagnostics;
  // Read while the tree exists; the tree itself is dropped early (a thousand launchers' trees
  // held at once cost more than everything else).
  linter::Suppressions suppressions;
  bool parsed_cleanly = true;
  std::string source;
  bool configures_profiler = false;  ///< a launch exports PROF_CONFIG_PATH or profiles a known launcher
};

// A launch of a known launcher is checked like a profile(...) call, from its description; the
// findings land on the launcher's words.
void CheckKnownLaunches(LauncherState& state) {
  const std::vector<linter::Launch>& launches = state.lint.facts.launches;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const linter::KnownLauncher* known = state.lint.known[i];
    if (known == nullptr) continue;
    linter::KnownLaunchFacts launch = linter::ReadKnownLaunch(*known, launches[i]);
    state.configures_profiler = state.configures_profiler || launch.profiling_enabled;
    linter::ProfilerFacts facts;
    facts.sites = std::move(launch.sites);
    facts.choice_violations = std::move(launch.choice_violations);
    facts.known_launcher = known->name;
    for (Diagnostic& d : CheckProfilerFacts(facts, *state.effective)) state.diagnostics.push_back(std::move(d));
  }
}

// PROF_CONFIG_PATH in a launch's environment: torch_npu's dynamic profiler reads the config in
// that directory. Found configs are linted; a missing one is OPM004 at the word.
void FindLaunchConfigs(LauncherState& state, std::vector<std::string>& configs) {
  const auto severity = Enabled(*state.effective, "OPM004");
  for (const linter::Launch& launch : state.lint.facts.launches) {
    const linter::ShellWord* variable = launch.Exported("PROF_CONFIG_PATH");
    if (variable == nullptr) continue;
    state.configures_profiler = true;
    const linter::ShellWord& directory = *variable;
    std::string message;
    if (directory.known) {
      if (auto found = FindDynamicConfig(directory.text, launch.launcher)) {
        configs.push_back(std::move(*found));
        continue;
      }
      message = MissingConfigMessage(directory.text);
    } else {
      message = "`PROF_CONFIG_PATH` is only known at run time (`" + directory.text +
                "`), so the dynamic profiler's config is not checked";
    }
    if (!severity) continue;
    Diagnostic d = MetaDiagnostic(*FindRule("OPM004"), *severity, directory.where.file(), directory.where.range(),
                                  std::move(message), directory.where.snippet());
    d.help = kMissingConfigHelp;
    state.diagnostics.push_back(std::move(d));
  }
}

// After a launcher's own checks, later stages use only the launches that run a script found on
// disk (they bind into that script's lint) or that export PROF_CONFIG_PATH (its config is
// linted). Dropping the rest, and the commands, now lets a thousand launchers' words and
// sources go before the next ones are read.
void KeepWhatLaterStagesUse(LauncherLint& lint) {
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
  lint.facts.commands = {};
}

// OPM001 for a launcher tree-sitter-bash could not parse, only when bash agrees: the grammar
// rejects some valid bash, and a false syntax error is worse than a missed one. bash's own line
// and words are the finding. Without a bash to ask, a warning says the file could not be read
// whole (never a definite error).
std::optional<Diagnostic> ConfirmSyntaxError(const std::string& path, const SyntaxTree& tree,
                                             const std::optional<std::string>& bash, Severity severity) {
  const TSNode error = *tree.FirstError();
  const linter::BashVerdict verdict =
      bash ? linter::CheckWithBash(*bash, path)
           : linter::BashVerdict{linter::BashVerdict::Kind::kUnavailable, 0, "no bash found on PATH or at /bin/bash"};
  if (verdict.kind == linter::BashVerdict::Kind::kAccepted) return std::nullopt;
  if (verdict.kind == linter::BashVerdict::Kind::kUnavailable) {
    Diagnostic d =
        MetaDiagnostic(*FindRule("OPM001"), std::min(severity, Severity::kWarning), path, tree.RangeOf(error),
                       "possible syntax error: tree-sitter-bash could not parse this, and bash could not confirm it (" +
                           verdict.message + "); launches after this point may be missed",
                       std::string(tree.LineOf(ts_node_start_byte(error))));
    d.help = "check the file with `bash -n`";
    return d;
  }
  SourceRange range = tree.RangeOf(error);
  std::string snippet(tree.LineOf(ts_node_start_byte(error)));
  const std::string_view text = tree.source();
  if (verdict.line > 0) {
    // bash's line; tree-sitter's first error can be far from it.
    std::size_t start = 0;
    for (int line = 1; line < verdict.line && start != std::string_view::npos; ++line) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start != std::string_view::npos && start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      range = {PositionInText(text, start), PositionInText(text, end)};
      snippet = std::string(text.substr(start, end - start));
    }
  }
  Diagnostic d =
      MetaDiagnostic(*FindRule("OPM001"), severity, path, range,
                     "bash: " + verdict.message + "; launches after this point may be missed", std::move(snippet));
  d.help = "fix the syntax error first (`bash -n` shows it); opmfu reads what parsed but cannot vouch for the rest";
  return d;
}

// Reads, evaluates and checks one launcher; its tree is dropped before returning (a thousand
// launchers' trees held at once cost more than everything else).
Result<LauncherState> ReadLauncherState(const std::string& path, SharedEffective effective, bool keep_source,
                                        const std::vector<const linter::KnownLauncher*>& known_launchers,
                                        const std::optional<std::string>& bash) {
  OPMFU_ASSIGN_OR_RETURN(std::string source, ReadTextFile(path));
  if (!IsValidUtf8(source)) return Error::Input(path + ": not valid UTF-8");
  OPMFU_ASSIGN_OR_RETURN(linter::LauncherFacts facts, linter::ReadLauncher(path, std::move(source)));
  LauncherState state;
  state.effective = std::move(effective);
  state.lint.facts = std::move(facts);
  std::map<std::string, std::optional<std::string>> found_scripts;  // the paths of one command often agree
  std::map<std::string, bool> writes_traces_by_script;
  for (const linter::Launch& launch : state.lint.facts.launches) {
    auto [cached, added] = found_scripts.try_emplace(launch.launcher + "\n" + launch.script.text);
    if (added) cached->second = FindScript(launch);
    std::optional<std::string> script = cached->second;
    const auto read_script = [&]() -> std::optional<std::string> {
      if (!script) return std::nullopt;
      auto read = ReadTextFile(*script);
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
    state.lint.scripts.push_back(std::move(script));
  }
  state.diagnostics = CheckLauncher(state.lint, *state.effective);
  CheckKnownLaunches(state);
  const SyntaxTree& tree = *state.lint.facts.tree;
  state.suppressions = ReadFileSuppressions(tree, state.lint.facts.comments);
  state.parsed_cleanly = !tree.has_error();
  if (keep_source) state.source = tree.source();
  if (tree.has_error()) {
    if (auto severity = Enabled(*state.effective, "OPM001")) {
      if (auto finding = ConfirmSyntaxError(path, tree, bash, *severity))
        state.diagnostics.push_back(std::move(*finding));
    }
  }
  state.lint.facts.comments.clear();
  state.lint.facts.tree.reset();
  KeepWhatLaterStagesUse(state.lint);
  return state;
}

// Runs work(0..count-1) on `jobs` threads (0: one per core).
template <typename Work>
void ForEachInParallel(std::size_t count, unsigned jobs, Work&& work) {
  std::atomic<std::size_t> next{0};
  const auto loop = [&] {
    for (std::size_t i = next++; i < count; i = next++) work(i);
  };
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const auto threads =
      static_cast<unsigned>(std::min<std::size_t>(jobs == 0 ? cores : jobs, std::max<std::size_t>(1, count)));
  std::vector<std::jthread> workers;
  for (unsigned i = 1; i < threads; ++i) workers.emplace_back(loop);
  loop();
}

// Entry points (launched scripts, files named on the command line, files with a __main__ block)
// lend their launches to the modules they import, which are linted too (found in a directory or
// not): a profile(...) call in a helper module runs with the launcher's arguments.
void FollowImports(std::vector<Input>& inputs, std::map<std::string, std::size_t>& by_identity,
                   const LintOptions& options) {
  const std::size_t count = inputs.size();
  std::vector<std::vector<fs::path>> closures(count);
  ForEachInParallel(count, options.jobs, [&](std::size_t i) {
    Input& input = inputs[i];
    if (input.launches.empty() && !input.from_stdin) {
      auto text = ReadTextFile(input.path);
      if (!text.ok()) return;
      if (input.from_directory && !CanMatter(*text)) {
        input.cannot_matter = true;  // skipped without reading it again, and not kept in memory
        return;
      }
      // A file no launch runs leads only if it is a program that uses torch_npu: a library module
      // (named or found in a directory) is linted alone, its imports used only to trace values.
      const bool entry = text->find("__main__") != std::string::npos && text->find("torch_npu") != std::string::npos;
      input.source = std::move(*text);
      if (!entry) return;
    }
    const fs::path self = fs::weakly_canonical(input.path);
    const fs::path root = ProjectRoot(options, fs::weakly_canonical(RootStart(input)));
    closures[i] = python::ImportClosure(python::ModuleLocator({self.parent_path(), root}, root), self);
  });
  for (std::size_t i = 0; i < count; ++i) {
    for (const fs::path& module : closures[i]) {
      auto [known, added] = by_identity.emplace(Identity(module.string()), inputs.size());
      if (added) inputs.push_back(MakeInput(DisplayPath(module.string()), true));
      Input& reached = inputs[known->second];
      if (reached.entry || !reached.launches.empty()) continue;  // its own program, or already reached
      reached.entry = inputs[i].path;
      reached.inherited = inputs[i].launches;
      reached.inherited.insert(reached.inherited.end(), inputs[i].inherited.begin(), inputs[i].inherited.end());
    }
  }
}

}  // namespace

std::vector<RuleDescriptor> LintRuleDescriptors() { return RuleDescriptors(RuleScope::kLint); }

Result<LintReport> LintPaths(const std::vector<std::string>& paths, const LintOptions& options) {
  const std::vector<RuleDescriptor> rules = LintRuleDescriptors();
  LintReport report;
  std::vector<Input> python_inputs;
  std::vector<std::string> launcher_paths;
  std::vector<std::string> json_paths;
  std::optional<Input> stdin_input;
  for (const std::string& path : paths) {
    if (path == "-") {
      stdin_input = MakeInput(options.stdin_filename, false, true);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found_python;
      fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
      if (ec) {
        report.errors.push_back(Error::Input(path + ": cannot list: " + ec.message()));
        continue;
      }
      for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
          report.errors.push_back(Error::Input(it->path().string() + ": cannot list: " + ec.message()));
          break;
        }
        // Symlinked directories are not followed, so a link loop cannot trap the walk.
        if (it->is_directory(ec) && !it->is_symlink(ec) && SkippedDirectory(it->path())) {
          it.disable_recursion_pending();
          continue;
        }
        if (!it->is_regular_file(ec)) continue;
        const std::string extension = it->path().extension().string();
        if (extension == ".py") found_python.push_back(it->path().string());
        if (extension == ".sh" || extension == ".bash") launcher_paths.push_back(it->path().string());
        if (it->path().filename() == kDynamicConfigName) json_paths.push_back(it->path().string());
      }
      std::sort(found_python.begin(), found_python.end());
      for (std::string& file : found_python) python_inputs.push_back(MakeInput(std::move(file), true));
      continue;
    }
    if (!fs::exists(path, ec)) {
      // The real cause: a symlink loop or a permission problem is not a missing file.
      report.errors.push_back(Error::Input(path + ": " + (ec ? ec.message() : "no such file or directory")));
      continue;
    }
    const std::string extension = fs::path(path).extension().string();
    if (extension == ".json") {
      json_paths.push_back(path);
      continue;
    }
    bool launcher = extension == ".sh" || extension == ".bash";
    if (extension != ".py" && !launcher) {
      // No telling extension: a shell shebang makes it a launcher.
      auto head = ReadTextFile(path);
      launcher = head.ok() && linter::IsShellScript(path, *head);
    }
    (launcher ? launcher_paths.push_back(path) : python_inputs.push_back(MakeInput(path, false)));
  }
  std::sort(launcher_paths.begin(), launcher_paths.end());
  // A file named twice (`lint src/ src/train.sh`) is linted once; named, it always matters.
  {
    std::set<std::string> seen;
    std::erase_if(launcher_paths, [&](const std::string& path) { return !seen.insert(Identity(path)).second; });
    std::map<std::string, std::size_t> first;
    std::vector<Input> unique;
    for (Input& input : python_inputs) {
      auto [at, added] = first.emplace(Identity(input.path), unique.size());
      if (added) {
        unique.push_back(std::move(input));
      } else {
        unique[at->second].from_directory = unique[at->second].from_directory && input.from_directory;
      }
    }
    python_inputs = std::move(unique);
  }

  const auto config_for = [&](const std::string& path, bool from_stdin) -> Result<Config> {
    if (!options.use_config) return Config{};
    const fs::path where = from_stdin ? fs::current_path() / path : fs::path(path);
    OPMFU_ASSIGN_OR_RETURN(Config config, ConfigFor(where, rules));
    if (config.fail_on && !report.config_fail_on) report.config_fail_on = config.fail_on;
    return config;
  };

  // Launchers first (read on every core): they say which scripts run with which arguments.
  EffectiveRulesCache effective_rules(options.overrides, rules);
  std::vector<SharedEffective> launcher_effective;
  KnownLauncherSet known_launcher_set;
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
    auto state =
        ReadLauncherState(launcher_paths[i], launcher_effective[i], options.keep_sources, launcher_known[i], bash);
    if (state.ok()) {
      launcher_states[i] = std::move(*state);
    } else {
      launcher_errors[i] = state.take_error();
    }
  });
  // Each Python input once, by its canonical path (a launched script may also be named directly).
  std::map<std::string, std::size_t> python_by_identity;
  for (std::size_t i = 0; i < python_inputs.size(); ++i) python_by_identity.emplace(Identity(python_inputs[i].path), i);
  std::vector<LauncherState> launchers;
  for (std::size_t i = 0; i < launcher_paths.size(); ++i) {
    if (launcher_errors[i]) report.errors.push_back(std::move(*launcher_errors[i]));
    if (!launcher_states[i]) continue;
    LauncherState& state = *launcher_states[i];
    for (const Error& problem : state.lint.facts.problems) report.warnings.push_back(problem.message);
    FindLaunchConfigs(state, json_paths);
    for (std::size_t l = 0; l < state.lint.facts.launches.size(); ++l) {
      const std::optional<std::string>& script = state.lint.scripts[l];
      if (!script) continue;
      auto [known, added] = python_by_identity.emplace(Identity(*script), python_inputs.size());
      if (added) python_inputs.push_back(MakeInput(DisplayPath(*script), false));
      Input& input = python_inputs[known->second];
      input.from_directory = false;  // a launched script always matters
      input.launches.push_back(state.lint.facts.launches[l]);
    }
    launchers.push_back(std::move(state));
  }
  const std::size_t named_inputs = python_inputs.size();
  FollowImports(python_inputs, python_by_identity, options);
  std::set<std::string> followed;  // modules reached only by following imports
  for (std::size_t i = named_inputs; i < python_inputs.size(); ++i) followed.insert(python_inputs[i].path);
  if (stdin_input) python_inputs.insert(python_inputs.begin(), std::move(*stdin_input));

  // Configs (a bad one is a usage error for the whole run), then the Python files in parallel.
  std::vector<SharedEffective> effective(python_inputs.size());
  std::vector<bool> excluded(python_inputs.size(), false);
  for (std::size_t i = 0; i < python_inputs.size(); ++i) {
    OPMFU_ASSIGN_OR_RETURN(Config config, config_for(python_inputs[i].path, python_inputs[i].from_stdin));
    excluded[i] = python_inputs[i].from_directory && IsExcluded(config, python_inputs[i].path);
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
    if (config_identities.insert(Identity(path)).second) configs.push_back(std::move(path));
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

  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    if (outcome.error) report.errors.push_back(std::move(*outcome.error));
    if (outcome.skipped) ++report.skipped_without_profiler;
    any_profiler_call = any_profiler_call || outcome.has_profiler_call;
    for (Diagnostic& d : outcome.elsewhere) {
      for (LauncherState& launcher : launchers) {
        if (launcher.lint.facts.path == d.file) launcher.diagnostics.push_back(d);
      }
    }
    if (outcome.linted) report.files.push_back(std::move(*outcome.linted));
    std::move(outcome.sites.begin(), outcome.sites.end(), std::back_inserter(report.sites));
  }
  // A finding in a file one launcher sources or runs (`bash other.sh`) is found again when that
  // file is linted itself: name the file as the walk did, and report it once.
  std::map<std::string, std::string> launcher_by_identity;
  for (const LauncherState& launcher : launchers) {
    launcher_by_identity.emplace(Identity(launcher.lint.facts.path), launcher.lint.facts.path);
  }
  std::set<std::tuple<std::string, int, int, std::string, std::string>> launcher_findings;
  for (LauncherState& launcher : launchers) {
    const linter::LauncherFacts& facts = launcher.lint.facts;
    Suppress(launcher.suppressions, facts.path, *launcher.effective, launcher.diagnostics);
    std::erase_if(launcher.diagnostics, [&](Diagnostic& d) {
      if (d.file != facts.path) {
        if (auto same = launcher_by_identity.find(Identity(d.file)); same != launcher_by_identity.end()) {
          d.file = same->second;
        }
      }
      return !launcher_findings.emplace(d.file, d.range.start.line, d.range.start.column, d.rule_id, d.message).second;
    });
    LintedFile file;
    file.path = facts.path;
    file.parsed_cleanly = launcher.parsed_cleanly;
    file.source = std::move(launcher.source);
    file.diagnostics = std::move(launcher.diagnostics);
    report.files.push_back(std::move(file));
  }
  std::sort(report.files.begin(), report.files.end(),
            [](const LintedFile& a, const LintedFile& b) { return a.path < b.path; });

  if (!any_profiler_call && !report.files.empty()) {
    const SharedEffective& first = effective.empty() ? launchers.front().effective : effective.front();
    if (auto severity = Enabled(*first, "OPM010")) {
      // On a file the user named (or found in a named directory), where a suppression can reach
      // it: not on a module the lint followed into.
      auto named = std::find_if(report.files.begin(), report.files.end(),
                                [&](const LintedFile& file) { return !followed.contains(file.path); });
      LintedFile& file = named == report.files.end() ? report.files.front() : *named;
      Diagnostic d = MetaDiagnostic(*FindRule("OPM010"), *severity, file.path, {{1, 1}, {1, 1}},
                                    "no torch_npu.profiler.profile(...) call in the linted files: nothing was checked "
                                    "for MFU collection",
                                    "");
      d.help = "lint the script that creates the profiler (or the launcher that runs it)";
      file.diagnostics.insert(file.diagnostics.begin(), std::move(d));
    }
  }
  return report;
}

}  // namespace opmfu::rules
