// `opmfu registry check`: flags, lint::CheckFormulaFiles, one render per format.

#include <iostream>

#include "cli/registry_command.h"
#include "common/config.h"
#include "common/diagnostic_format.h"
#include "lint/formula_check.h"
#include "rules/rule_table.h"

namespace opmfu::cli {
namespace {

struct CheckFlags {
  LocateFlags locate;
  DiagnosticFlags diagnostics;
  std::vector<std::string> files;
  bool fix = false;
  bool diff = false;
};

int RunCheck(const CheckFlags& flags) {
  const std::vector<RuleDescriptor> rules = rules::RuleDescriptors(rules::RuleScope::kRegistry);
  auto parsed = flags.diagnostics.Parse(rules);
  if (!parsed.ok()) return ReportError(parsed.error());
  const OutputFormat format = parsed->format;
  const std::optional<Severity> fail_on_flag = parsed->fail_on;

  std::vector<std::string> files = flags.files;
  if (files.empty()) {
    auto located = flags.locate.Locate();
    if (!located.ok()) return ReportError(located.error());
    files.push_back(located->path.string());
  }
  const std::vector<std::filesystem::path> inputs(files.begin(), files.end());
  if (Status safe = RefuseOutputOverInput(flags.diagnostics.output, inputs); !safe.ok()) {
    return ReportError(safe.error());
  }

  lint::FormulaCheckOptions check;
  check.overrides = parsed->overrides;
  check.use_config = !flags.diagnostics.no_config;
  check.fix = flags.fix || flags.diff;
  const lint::FormulaCheckReport checked = lint::CheckFormulaFiles(files, check);
  int exit_code = kExitOk;
  for (const Error& error : checked.file_errors) exit_code = ReportError(error);  // the others were still checked
  if (checked.stopped) return ReportError(*checked.stopped);
  const Severity fail_on = fail_on_flag.value_or(checked.fail_on.value_or(Severity::kWarning));
  const std::vector<Diagnostic>& diagnostics = checked.diagnostics;
  const std::string diff = flags.diff ? lint::FixDiff(checked.fixed) : std::string();
  if (flags.fix && !flags.diff) {
    if (Status written = lint::WriteFixes(checked.fixed); !written.ok()) return ReportError(written.error());
    for (const lint::FixedFile& file : checked.fixed) {
      std::cerr << "Fixed " << file.findings << (file.findings == 1 ? " finding" : " findings") << " in " << file.path
                << ".\n";
    }
  }
  for (const std::string& withheld : checked.withheld) ReportWarning(withheld);
  if (!checked.settled) {
    ReportWarning("--fix stopped after " + std::to_string(lint::kMaxFixPasses) +
                  " passes with safe fixes still pending; the findings shown are those of the text as it is");
  }

  if (flags.diff) {
    // --diff previews the fixes instead of listing findings (ruff's convention): exit 1 if any.
    if (Status written = EmitOutput(diff, flags.diagnostics.output); !written.ok()) return ReportError(written.error());
    if (exit_code != kExitOk) return exit_code;
    return diff.empty() ? kExitOk : kExitFindings;
  }
  FormatOptions options;
  options.tool_version = OPMFU_VERSION;
  options.rules = rules;
  options.color = UseColor(flags.diagnostics.color, !flags.diagnostics.output.empty());
  if (Status written = EmitOutput(FormatDiagnostics(diagnostics, format, options), flags.diagnostics.output);
      !written.ok()) {
    return ReportError(written.error());
  }
  const DiagnosticCounts counts = CountDiagnostics(diagnostics);
  if (IsTerminalFormat(format)) {
    std::cerr << SummaryLine(counts) << "\n";
  }
  if (exit_code != kExitOk) return exit_code;
  const bool failed =
      std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.severity >= fail_on; });
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void AddRegistryCheckCommand(CLI::App& registry, Action& action) {
  auto check = std::make_shared<CheckFlags>();
  CLI::App* check_command =
      registry.add_subcommand("check", "validate registrations: duplicates, malformed targets, unsafe formulas");
  check_command->add_option("files", check->files, "formulas files (default: the one --formulas/--python find)");
  check->locate.Add(*check_command);
  check->diagnostics.Add(*check_command);
  check_command->add_flag("--fix", check->fix, "apply the safe fixes in place (files that parse cleanly only)");
  check_command->add_flag("--diff", check->diff, "print the safe fixes as a unified diff and change nothing");
  check_command->callback([check, &action] { action = [check] { return RunCheck(*check); }; });
}

}  // namespace opmfu::cli
