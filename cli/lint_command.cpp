// `opmfu lint PATH...`: flags in, lint::LintPaths, findings out.

#include <iostream>
#include <iterator>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/run_prediction.h"
#include "common/diagnostic_format.h"
#include "lint/lint.h"

namespace opmfu::cli {

namespace {

struct LintFlags {
  DiagnosticFlags diagnostics;
  std::vector<std::string> paths;
  std::string stdin_filename = "-";
  bool statistics = false;
  std::string run;  ///< --run DIR
  bool fix = false;
  bool diff = false;
  unsigned jobs = 0;
  std::string root;
  bool verbose = false;
};

// The count per rule: a tab-separated table, or with --output-format json an array a program can
// read (`[{"code": "OPM101", "name": ..., "count": 3}]`, as ruff does).
std::string Statistics(const std::vector<Diagnostic>& diagnostics, OutputFormat format) {
  std::map<std::string, std::pair<std::string, int>> counts;
  for (const Diagnostic& d : diagnostics) {
    auto& entry = counts[d.rule_id];
    entry.first = d.rule_name;
    ++entry.second;
  }
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [id, entry] : counts)
      out.push_back({{"code", id}, {"name", entry.first}, {"count", entry.second}});
    return out.dump(2) + "\n";
  }
  std::string out;
  for (const auto& [id, entry] : counts) {
    out += std::to_string(entry.second) + "\t" + id + "\t" + entry.first + "\n";
  }
  return out;
}

int RunLint(const LintFlags& flags) {
  const std::vector<RuleDescriptor> rules = lint::LintRuleDescriptors();
  auto parsed = flags.diagnostics.Parse(rules);
  if (!parsed.ok()) return ReportError(parsed.error());
  const OutputFormat format = parsed->format;
  const std::optional<Severity> fail_on_flag = parsed->fail_on;
  if (flags.paths.empty()) return ReportError(Error::Usage("name the files or directories to lint (or - for stdin)"));
  if (flags.statistics && format != OutputFormat::kFull && format != OutputFormat::kConcise &&
      format != OutputFormat::kJson) {
    // A count table is not a SARIF log or a list of annotations: refuse rather than write one.
    return ReportError(
        Error::Usage("--statistics prints a count table (full or concise format) or a JSON array "
                     "(--output-format json), not " +
                     std::string(OutputFormatNames()[static_cast<std::size_t>(format)])));
  }

  lint::LintOptions options;
  options.overrides = parsed->overrides;
  options.use_config = !flags.diagnostics.no_config;
  options.stdin_filename = flags.stdin_filename;
  options.jobs = flags.jobs;
  if (!flags.root.empty()) options.root = flags.root;
  options.keep_sources = flags.fix || flags.diff;
  options.keep_settings = !flags.run.empty();
  if (std::find(flags.paths.begin(), flags.paths.end(), "-") != flags.paths.end()) {
    options.stdin_source = std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  auto report = lint::LintPaths(flags.paths, options);
  if (!report.ok()) return ReportError(report.error());

  int exit_code = kExitOk;
  for (const Error& error : report->errors) exit_code = ReportError(error);
  // Files a launcher sources or runs that cannot be read: one line, the list with --verbose.
  if (flags.verbose || report->warnings.size() == 1) {
    for (const std::string& warning : report->warnings) ReportWarning(warning);
  } else if (!report->warnings.empty()) {
    ReportWarning(std::to_string(report->warnings.size()) +
                  " files named by launchers (source, ., bash) could not be followed, the first: " +
                  report->warnings.front() + "; --verbose lists them all");
  }
  std::vector<Diagnostic> diagnostics;
  std::string diff;
  for (lint::LintedFile& file : report->files) {
    std::vector<Diagnostic> found = std::move(file.diagnostics);
    const bool from_stdin = file.path == flags.stdin_filename && options.stdin_source.has_value();
    if ((flags.fix || flags.diff) && !from_stdin) {
      auto remaining =
          ApplySafeFixes(file.path, file.source, file.parsed_cleanly, std::move(found), flags.fix && !flags.diff, diff);
      if (!remaining.ok()) return ReportError(remaining.error());
      found = std::move(*remaining);
    }
    diagnostics.insert(diagnostics.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  SortDiagnostics(diagnostics);

  if (flags.diff) {
    if (Status written = EmitOutput(diff, flags.diagnostics.output); !written.ok()) return ReportError(written.error());
    if (exit_code != kExitOk) return exit_code;
    return diff.empty() ? kExitOk : kExitFindings;
  }
  std::string rendered;
  if (flags.statistics) {
    rendered = Statistics(diagnostics, format);
  } else {
    FormatOptions format_options;
    format_options.tool_version = OPMFU_VERSION;
    format_options.rules = rules;
    format_options.color = UseColor(flags.diagnostics.color, !flags.diagnostics.output.empty());
    rendered = FormatDiagnostics(diagnostics, format, format_options);
  }
  if (Status written = EmitOutput(rendered, flags.diagnostics.output); !written.ok())
    return ReportError(written.error());
  if (format == OutputFormat::kFull || format == OutputFormat::kConcise || format == OutputFormat::kGcc) {
    std::cerr << SummaryLine(CountDiagnostics(diagnostics));
    if (!report->errors.empty()) {
      // Findings are only as complete as the inputs that could be read.
      std::cerr << " Not linted: " << report->errors.size()
                << (report->errors.size() == 1 ? " input (see the error above)." : " inputs (see the errors above).");
    }
    if (report->skipped_without_profiler > 0) {
      std::cerr << " (" << report->skipped_without_profiler
                << (report->skipped_without_profiler == 1 ? " file" : " files")
                << " not parsed: no profiler or torch_npu in them)";
    }
    std::cerr << "\n";
  }
  bool prediction_wrong = false;
  if (!flags.run.empty()) {
    auto check = CheckPrediction(report->sites, flags.run);
    if (!check.ok()) return ReportError(check.error());
    // After the findings: on stdout with the terminal formats, else on stderr beside a JSON or
    // SARIF document that must stay parseable.
    (format == OutputFormat::kFull || format == OutputFormat::kConcise ? std::cout : std::cerr) << check->text;
    prediction_wrong = check->disagrees;
  }
  if (exit_code != kExitOk) return exit_code;
  if (prediction_wrong) return kExitFindings;
  const Severity fail_on = fail_on_flag.value_or(report->config_fail_on.value_or(Severity::kWarning));
  const bool failed =
      std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.severity >= fail_on; });
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void AddLintCommand(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand("lint", "check training scripts for settings that break MFU collection");
  auto flags = std::make_shared<LintFlags>();
  command->add_option("PATH", flags->paths,
                      "Python scripts, bash launchers, directories (recursively: *.py, *.sh), or - for stdin");
  flags->diagnostics.Add(*command);
  command->add_option("--stdin-filename", flags->stdin_filename, "the name to report stdin under (and find config by)");
  command->add_flag("--statistics", flags->statistics, "print the number of findings per rule instead of the findings");
  command->add_flag("--fix", flags->fix, "apply the safe fixes in place (files that did not parse are left alone)");
  command->add_flag("--diff", flags->diff, "print the safe fixes as a unified diff and change nothing");
  command->add_option("--run", flags->run,
                      "a profiling directory of a run of the linted code: compare the traced settings with what "
                      "its profiler_info_<rank>.json recorded (exit 1 when no traced call agrees)");
  command->add_option("-j,--jobs", flags->jobs, "files linted at once (default: one per core)");
  command->add_flag("-v,--verbose", flags->verbose,
                    "list each file a launcher names that could not be followed (default: a count)");
  command
      ->add_option("--root", flags->root,
                   "follow Python imports only below DIR (default: the nearest directory with a .git above the "
                   "launcher or script, else its directory)")
      ->check(CLI::ExistingDirectory);
  command->callback([flags, &action] { action = [flags] { return RunLint(*flags); }; });
}

}  // namespace opmfu::cli
