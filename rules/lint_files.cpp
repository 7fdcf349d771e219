#include "rules/lint_files.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "common/file_io.h"
#include "common/text.h"
#include "linter/suppressions.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string path;
  bool from_directory = false;  ///< may be skipped when it cannot matter
  bool from_stdin = false;
};

bool SkippedDirectory(const fs::path& path) {
  const std::string name = path.filename().string();
  return (name.size() > 1 && name[0] == '.') || name == "__pycache__" || name == "node_modules" ||
         name == "site-packages" || name == "venv";
}

// A file that mentions none of these cannot configure a torch_npu profiler.
bool CanMatter(std::string_view source) {
  return source.find("profiler") != std::string_view::npos || source.find("torch_npu") != std::string_view::npos;
}

bool IsShellScript(const std::string& path, std::string_view source) {
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".sh" || extension == ".bash") return true;
  if (extension == ".py" || !source.starts_with("#!")) return false;
  const std::string_view shebang = source.substr(0, source.find('\n'));
  return shebang.find("python") == std::string_view::npos && (shebang.find("sh") != std::string_view::npos);
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

struct FileOutcome {
  std::optional<LintedFile> linted;
  std::optional<Error> error;
  bool skipped = false;
  bool has_profiler_call = false;
};

FileOutcome LintOne(const Input& input, const LintOptions& options, const Config& config,
                    const std::map<std::string, std::optional<Severity>>& effective) {
  FileOutcome outcome;
  std::string source;
  if (input.from_stdin) {
    source = *options.stdin_source;
    if (source.find('\0') != std::string::npos) {
      outcome.error = Error::Input(input.path + ": binary input (it contains NUL bytes)");
      return outcome;
    }
  } else {
    auto read = ReadTextFile(input.path);
    if (!read.ok()) {
      outcome.error = read.take_error();
      return outcome;
    }
    source = std::move(*read);
  }
  (void)config;
  if (IsShellScript(input.path, source)) {
    outcome.error = Error::Input(input.path +
                                 ": a shell script; opmfu lint reads Python only for now (bash launchers "
                                 "are not linted yet)");
    return outcome;
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
  const SyntaxTree& tree = module->tree();
  LintedFile linted;
  linted.path = input.path;
  linted.parsed_cleanly = !tree.has_error();
  const auto enabled = [&](std::string_view id) -> std::optional<Severity> {
    const RuleInfo* rule = FindRule(id);
    if (auto found = effective.find(std::string(id)); found != effective.end()) return found->second;
    return rule->severity;
  };
  if (!linted.parsed_cleanly) {
    if (auto severity = enabled("OPM001")) {
      const TSNode error = *tree.FirstError();
      linted.diagnostics.push_back(
          MetaDiagnostic(*FindRule("OPM001"), *severity, input.path, tree.RangeOf(error),
                         "syntax error: the file did not parse cleanly, so findings after this point may be missing",
                         std::string(tree.LineOf(ts_node_start_byte(error)))));
    }
  }
  linter::PythonFacts facts = linter::ReadProfilerFacts(std::move(module));
  outcome.has_profiler_call = !facts.sites.empty();
  std::vector<Diagnostic> found = CheckPythonFacts(facts, effective);
  linted.diagnostics.insert(linted.diagnostics.end(), found.begin(), found.end());

  linter::Suppressions suppressions =
      linter::ReadSuppressions(facts.module->tree(), facts.module->comments(), [](std::string_view code) {
        const RuleInfo* rule = FindRule(code);
        return rule != nullptr ? std::string(rule->id) : std::string();
      });
  linter::ApplySuppressions(suppressions, linted.diagnostics);
  const SyntaxTree& facts_tree = facts.module->tree();
  const auto line_text = [&](std::uint32_t byte) { return std::string(facts_tree.LineOf(byte)); };
  if (auto severity = enabled("OPM002")) {
    for (const linter::MalformedDirective& bad : suppressions.malformed) {
      linted.diagnostics.push_back(MetaDiagnostic(*FindRule("OPM002"), *severity, input.path, bad.comment, bad.message,
                                                  line_text(bad.comment_byte)));
    }
  }
  if (auto severity = enabled("OPM003")) {
    for (const linter::Suppression& s : suppressions.entries) {
      // Only when every rule it names ran: a suppression for a disabled rule is not evidence.
      const bool all_ran =
          std::all_of(s.codes.begin(), s.codes.end(), [&](const std::string& id) { return enabled(id).has_value(); });
      if (s.used || !all_ran) continue;
      std::string codes;
      for (const std::string& id : s.codes) codes += (codes.empty() ? "" : ", ") + id;
      Diagnostic d = MetaDiagnostic(*FindRule("OPM003"), *severity, input.path, s.comment,
                                    "unused suppression: no " + codes + " finding here", line_text(s.comment_byte));
      d.help = "remove the comment, or move it to the line the finding is reported on";
      linted.diagnostics.push_back(std::move(d));
    }
  }
  SortDiagnostics(linted.diagnostics);
  if (options.keep_sources) linted.source = facts.module->tree().source();
  outcome.linted = std::move(linted);
  return outcome;
}

}  // namespace

std::vector<RuleDescriptor> LintRuleDescriptors() { return RuleDescriptors(RuleScope::kLint); }

Result<LintReport> LintPaths(const std::vector<std::string>& paths, const LintOptions& options) {
  const std::vector<RuleDescriptor> rules = LintRuleDescriptors();
  LintReport report;
  std::vector<Input> inputs;
  for (const std::string& path : paths) {
    if (path == "-") {
      inputs.push_back({options.stdin_filename, false, true});
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
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
        if (it->path().extension() == ".py" && it->is_regular_file(ec)) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      for (std::string& file : found) inputs.push_back({std::move(file), true, false});
      continue;
    }
    if (!fs::exists(path, ec)) {
      report.errors.push_back(Error::Input(path + ": no such file or directory"));
      continue;
    }
    inputs.push_back({path, false, false});
  }

  // Configs first (a bad config is a usage error for the whole run), then the files in parallel.
  std::vector<Config> configs(inputs.size());
  std::vector<std::map<std::string, std::optional<Severity>>> effective(inputs.size());
  std::vector<bool> excluded(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (options.use_config) {
      const fs::path where = inputs[i].from_stdin ? fs::current_path() / inputs[i].path : fs::path(inputs[i].path);
      OPMFU_ASSIGN_OR_RETURN(configs[i], ConfigFor(where, rules));
      if (configs[i].fail_on && !report.config_fail_on) report.config_fail_on = configs[i].fail_on;
      excluded[i] = inputs[i].from_directory && IsExcluded(configs[i], inputs[i].path);
    }
    effective[i] = EffectiveRules(configs[i], options.overrides, rules, inputs[i].path);
  }
  std::vector<FileOutcome> outcomes(inputs.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      if (excluded[i]) continue;
      outcomes[i] = LintOne(inputs[i], options, configs[i], effective[i]);
    }
  };
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const unsigned jobs =
      std::min<std::size_t>(options.jobs == 0 ? cores : options.jobs, std::max<std::size_t>(1, inputs.size()));
  {
    std::vector<std::jthread> workers;
    for (unsigned i = 1; i < jobs; ++i) workers.emplace_back(work);
    work();
  }

  bool any_profiler_call = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    if (outcome.error) report.errors.push_back(std::move(*outcome.error));
    if (outcome.skipped) ++report.skipped_without_profiler;
    any_profiler_call = any_profiler_call || outcome.has_profiler_call;
    if (outcome.linted) report.files.push_back(std::move(*outcome.linted));
  }
  if (!any_profiler_call && !report.files.empty()) {
    const std::map<std::string, std::optional<Severity>>& first = effective.front();
    std::optional<Severity> severity = FindRule("OPM010")->severity;
    if (auto found = first.find("OPM010"); found != first.end()) severity = found->second;
    if (severity) {
      LintedFile& file = report.files.front();
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
