// `opmfu lint PATH...`: flags in, lint::LintPaths, findings out.

#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/lint_flags.h"
#include "cli/run_prediction.h"
#include "common/diagnostic_format.h"
#include "common/input_file.h"
#include "lint/add_noqa.h"
#include "lint/fix.h"
#include "lint/lint.h"

namespace opmfu::cli {

namespace {

// ruff's line after --add-noqa, and what no directive can cover.
std::string NoqaSummary(const lint::NoqaEdits& noqa) {
  std::string line =
      "Added " + std::to_string(noqa.directives) + (noqa.directives == 1 ? " noqa directive." : " noqa directives.");
  if (noqa.left_reported == 0) return line;
  return line + " " + std::to_string(noqa.left_reported) +
         (noqa.left_reported == 1 ? " finding takes" : " findings take") +
         " none (a meta rule, a JSON config, a file that did not parse, a line inside a multi-line string, or one "
         "with another directive): still reported.";
}

// The run's limits, and with `chatty` its skipped files (--verbose) and the launcher files that
// could not be followed (one line, the list with --verbose), on stderr.
void ReportLintNotes(const lint::LintReport& report, bool verbose, bool chatty) {
  for (const std::string& limit : report.limits) ReportWarning(limit);
  if (chatty && verbose) {
    for (const std::string& note : report.skipped_notes) std::cerr << "opmfu: " << note << "\n";
  }
  if (chatty && (verbose || report.warnings.size() == 1)) {
    for (const std::string& warning : report.warnings) ReportWarning(warning);
  } else if (chatty && !report.warnings.empty()) {
    ReportWarning(std::to_string(report.warnings.size()) +
                  " files named by launchers (source, ., bash) could not be followed, the first: " +
                  report.warnings.front() + "; --verbose lists them all");
  }
}

// Every file's findings, sorted. `fixes`: the fixes --fix applies (`fixable`; with --unsafe-fixes
// the unsafe ones too) and those it leaves to --unsafe-fixes (`hidden_fixes`), in the files that
// parsed cleanly: one that did not takes none (its fixes are shown, not counted).
std::vector<Diagnostic> TakeDiagnostics(lint::LintReport& report, bool unsafe_fixes, DiagnosticCounts& fixes) {
  std::vector<Diagnostic> diagnostics;
  std::size_t total = 0;
  for (const lint::LintedFile& file : report.files) total += file.diagnostics.size();
  diagnostics.reserve(total);
  for (lint::LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (d.fix && file.parsed_cleanly) ++(d.fix->safe || unsafe_fixes ? fixes.fixable : fixes.hidden_fixes);
    }
    diagnostics.insert(diagnostics.end(), std::make_move_iterator(file.diagnostics.begin()),
                       std::make_move_iterator(file.diagnostics.end()));
    std::vector<Diagnostic>().swap(file.diagnostics);  // moved-from, but still as large
  }
  SortDiagnostics(diagnostics);
  return diagnostics;
}

// The summary line of the terminal formats, on stderr.
void PrintSummary(const lint::LintReport& report, const std::vector<Diagnostic>& diagnostics,
                  const DiagnosticCounts& fixes) {
  DiagnosticCounts counts = CountDiagnostics(diagnostics);
  counts.fixable = fixes.fixable;
  counts.hidden_fixes = fixes.hidden_fixes;
  std::cerr << SummaryLine(counts);
  if (!report.errors.empty()) {
    // Findings are only as complete as the inputs that could be read.
    std::cerr << " Not linted: " << report.errors.size()
              << (report.errors.size() == 1 ? " input (see the error above)." : " inputs (see the errors above).");
  }
  if (report.skipped_without_profiler > 0) {
    std::cerr << " (" << report.skipped_without_profiler << (report.skipped_without_profiler == 1 ? " file" : " files")
              << " not parsed: no profiler or torch_npu in them)";
  }
  std::cerr << "\n";
}

int RunLint(const LintFlags& flags) {
  const std::vector<RuleDescriptor> rules = lint::LintRuleDescriptors();
  auto parsed = flags.diagnostics.Parse(rules);
  if (!parsed.ok()) return ReportError(parsed.error());
  const OutputFormat format = parsed->format;
  const std::optional<Severity> fail_on_flag = parsed->fail_on;
  if (flags.statistics && format != OutputFormat::kFull && format != OutputFormat::kConcise &&
      format != OutputFormat::kJson) {
    // A count table is not a SARIF log or a list of annotations: refuse rather than write one.
    return ReportError(
        Error::Usage("--statistics prints a count table (full or concise format) or a JSON array "
                     "(--output-format json), not " +
                     std::string(OutputFormatNames()[static_cast<std::size_t>(format)])));
  }
  auto options = LintOptionsFrom(flags, *parsed, rules);
  if (!options.ok()) return ReportError(options.error());
  // As ruff: no path lints the working directory; no path but --stdin-filename lints stdin.
  const bool stdin_named = flags.stdin_filename != "-";
  const std::vector<std::string> paths = !flags.paths.empty() ? flags.paths
                                         : stdin_named        ? std::vector<std::string>{"-"}
                                                              : std::vector<std::string>{"."};
  if (std::optional<int> shown = RunLintShow(flags, paths, *options)) return *shown;
  if (std::find(paths.begin(), paths.end(), "-") != paths.end()) {
    // The same size cap as a file (no NUL check here: the Python stage says where the NUL is).
    auto read = ReadStandardInput(flags.stdin_filename, ReadLimits{.max_bytes = 0, .reject_nul = false});
    if (!read.ok()) return ReportError(read.error());
    options->stdin_source = std::move(*read);
  }
  auto report = lint::LintPaths(paths, *options);
  if (!report.ok()) return ReportError(report.error());

  std::vector<std::filesystem::path> inputs(flags.paths.begin(), flags.paths.end());
  for (const lint::LintedFile& file : report->files) inputs.emplace_back(file.path);
  if (Status safe = RefuseOutputOverInput(flags.diagnostics.output, inputs); !safe.ok()) {
    return ReportError(safe.error());
  }
  int exit_code = kExitOk;
  for (const Error& error : report->errors) exit_code = ReportError(error);
  // JSON promised on stdout and an input not read: the error object, not a findings list that
  // looks complete (docs/cli.md, "JSON output and errors").
  if (exit_code != kExitOk && format == OutputFormat::kJson) return exit_code;
  const bool chatty = !flags.quiet && !flags.silent;  // ruff's --quiet/--silent: no summary, no notes
  ReportLintNotes(*report, flags.verbose, chatty);
  if (flags.add_noqa) {  // ruff's: a directive on each finding's line, written, counted, and done
    const lint::NoqaEdits noqa = lint::AddNoqaDirectives(*report, *options);
    if (Status written = lint::WriteFixes(noqa.files); !written.ok()) return ReportError(written.error());
    if (chatty) std::cerr << NoqaSummary(noqa) << "\n";
    return exit_code;
  }
  std::string diff;
  // `lint - --fix`, as ruff: the fixed text on stdout (the findings left go to stderr).
  const bool fixing_stdin = flags.fix && options->stdin_source.has_value();
  std::string fixed_stdin = fixing_stdin ? *options->stdin_source : std::string();
  if (flags.fix || flags.diff) {
    auto fixed = lint::FixInMemory(paths, *options, std::move(*report));
    if (!fixed.ok()) return ReportError(fixed.error());
    for (const lint::FixedFile& file : fixed->files) {
      if (file.standard_input) fixed_stdin = file.fixed;
    }
    if (flags.diff) {
      diff = lint::FixDiff(fixed->files);
    } else {
      if (Status written = lint::WriteFixes(fixed->files); !written.ok()) return ReportError(written.error());
      for (const lint::FixedFile& file : fixed->files) {
        std::cerr << "Fixed " << file.findings << (file.findings == 1 ? " finding" : " findings") << " in "
                  << (file.standard_input ? "the standard input (" + file.path + "), printed on stdout" : file.path)
                  << ".\n";
      }
    }
    for (const std::string& withheld : fixed->withheld) ReportWarning(withheld);
    if (!fixed->settled) {
      ReportWarning("--fix stopped after " + std::to_string(lint::kMaxFixPasses) +
                    " passes with safe fixes still pending; the findings shown are those of the text as it is");
    }
    *report = std::move(fixed->report);
  }
  DiagnosticCounts fixes;
  std::vector<Diagnostic> diagnostics = TakeDiagnostics(*report, flags.unsafe_fixes, fixes);
  const std::string& output = flags.diagnostics.output;
  const bool to_stdout = output.empty() || output == "-";

  if (flags.diff) {
    if (!(flags.silent && to_stdout)) {
      if (Status written = EmitOutput(diff, output); !written.ok()) return ReportError(written.error());
    }
    if (exit_code != kExitOk) return exit_code;
    return diff.empty() || flags.exit_zero ? kExitOk : kExitFindings;
  }
  // --run: the prediction against the run, before the output, which carries it in JSON.
  std::optional<PredictionCheck> check;
  if (!flags.run.empty()) {
    auto checked = CheckPrediction(report->sites, flags.run);
    if (!checked.ok()) return ReportError(checked.error());
    check = std::move(*checked);
  }
  FormatOptions format_options;
  format_options.tool_version = OPMFU_VERSION;
  format_options.rules = rules;
  format_options.color = UseColor(flags.diagnostics.color, !to_stdout);
  if (format == OutputFormat::kRdjson) format_options.source = lint::FixableSources(*report);
  // Written as it is rendered: hundreds of thousands of findings never stand whole in memory.
  const auto render = [&](TextSink& out) {
    if (check && format == OutputFormat::kJson) {
      // One document: the findings (or counts) and, per traced call and setting, the comparison.
      const std::string findings = flags.statistics ? FormatStatistics(diagnostics, format)
                                                    : FormatDiagnostics(diagnostics, format, format_options);
      nlohmann::ordered_json document{{flags.statistics ? "statistics" : "findings", nlohmann::json::parse(findings)},
                                      {"run", check->json}};
      out += document.dump(2) + "\n";
    } else if (flags.statistics) {
      out += FormatStatistics(diagnostics, format);
    } else {
      WriteDiagnostics(diagnostics, format, format_options, out);
    }
  };
  if (fixing_stdin) std::cout << fixed_stdin;
  if (fixing_stdin && to_stdout) {
    if (!flags.silent) {
      TextSink to_stderr([](std::string_view piece) { std::cerr << piece; });
      render(to_stderr);
      to_stderr.Flush();
    }
  } else if (fixing_stdin || !(flags.silent && to_stdout)) {
    if (Status written = EmitOutputInPieces(output, render); !written.ok()) return ReportError(written.error());
  }
  if (IsTerminalFormat(format) && chatty) PrintSummary(*report, diagnostics, fixes);
  if (check && format != OutputFormat::kJson && !flags.silent) {
    // After the findings: on stdout with the terminal formats, else on stderr beside a SARIF
    // document or annotations that must stay parseable.
    (format == OutputFormat::kFull || format == OutputFormat::kConcise ? std::cout : std::cerr) << check->text;
  }
  if (exit_code != kExitOk) return exit_code;
  if (flags.exit_zero) return kExitOk;
  if (check && check->disagrees) return kExitFindings;
  const Severity fail_on = fail_on_flag.value_or(report->config_fail_on.value_or(Severity::kWarning));
  const bool failed =
      std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.severity >= fail_on; });
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void AddLintCommand(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand("lint", "check training scripts for settings that break MFU collection");
  auto flags = std::make_shared<LintFlags>();
  AddLintFlags(*command, *flags);
  command->callback([flags, command, &action] {
    flags->exclude_given = command->count("--exclude") > 0;
    action = [flags] { return RunLint(*flags); };
  });
}

}  // namespace opmfu::cli
