#include "lint/formula_check.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/text_edit.h"
#include "registry/edit.h"
#include "registry/formulas.h"
#include "rules/registry_checks.h"
#include "rules/rule_table.h"

namespace opmfu::lint {

namespace {

// Applies the safe fixes of `found` to `file`, checking the text again after each pass, until
// none is left or the file no longer parses cleanly. Leaves in `found` the last check's findings.
Status FixFormulaFile(registry::FormulaFile& file, const std::map<std::string, std::optional<Severity>>& rules,
                      std::vector<Diagnostic>& found, FormulaCheckReport& report) {
  const std::string original = file.tree.source();
  std::size_t applied = 0;
  for (int pass = 0; file.parsed_cleanly(); ++pass) {
    std::vector<TextEdit> edits = SafeFixEdits(found);
    if (edits.empty()) break;
    if (pass == kMaxFixPasses) {
      report.settled = false;
      break;
    }
    const auto count = static_cast<std::size_t>(
        std::count_if(found.begin(), found.end(), [](const Diagnostic& d) { return d.fix && d.fix->safe; }));
    auto text = ApplyEdits(file.tree.source(), std::move(edits));
    if (!text.ok()) return Error::Input(file.path + ": the fixes overlap: " + text.error().message);
    if (*text == file.tree.source()) break;
    // The fixed file must compile; else it keeps the last pass's text and says why.
    if (auto problem = FixedTextProblem(file.path, *text)) {
      report.withheld.push_back(std::move(*problem));
      break;
    }
    OPMFU_ASSIGN_OR_RETURN(file, registry::ParseFormulaFile(file.path, std::move(*text)));
    found = rules::CheckFormulaFile(file, rules);
    applied += count;
  }
  if (applied > 0) report.fixed.push_back({file.path, original, file.tree.source(), applied});
  return Ok();
}

}  // namespace

FormulaCheckReport CheckFormulaFiles(const std::vector<std::string>& paths, const FormulaCheckOptions& options) {
  const std::vector<RuleDescriptor> descriptors = rules::RuleDescriptors(rules::RuleScope::kRegistry);
  FormulaCheckReport report;
  for (const std::string& path : paths) {
    Config config;
    if (options.use_config) {
      auto loaded = ConfigFor(path, descriptors);
      if (!loaded.ok()) {
        report.stopped = loaded.take_error();
        return report;
      }
      config = std::move(*loaded);
      if (config.fail_on) report.fail_on = config.fail_on;
    }
    auto file = registry::LoadFormulaFile(path);
    if (!file.ok()) {
      report.file_errors.push_back(file.take_error());
      continue;
    }
    const auto rules = EffectiveRules(config, options.overrides, descriptors, path);
    std::vector<Diagnostic> found = rules::CheckFormulaFile(*file, rules);
    if (options.fix) {
      if (Status fixed = FixFormulaFile(*file, rules, found, report); !fixed.ok()) {
        report.stopped = fixed.error();
        return report;
      }
    }
    report.diagnostics.insert(report.diagnostics.end(), std::make_move_iterator(found.begin()),
                              std::make_move_iterator(found.end()));
  }
  return report;
}

// Findings on the inserted function, moved back to where the user wrote it (the --from file).
std::vector<Diagnostic> FindingsOnAddition(const registry::FormulaFile& edited, const registry::PlannedAddition& plan,
                                           const std::string& from_path) {
  const std::vector<RuleDescriptor> rules = rules::RuleDescriptors(rules::RuleScope::kRegistry);
  auto config = ConfigFor(edited.path, rules);
  const auto effective = EffectiveRules(config.ok() ? *config : Config{}, {}, rules, edited.path);
  std::vector<Diagnostic> mine;
  for (Diagnostic& d : rules::CheckFormulaFile(edited, effective)) {
    const int line = d.range.start.line;
    if (line < plan.decorator_line || line >= plan.decorator_line + plan.inserted_line_count) continue;
    if (d.severity == Severity::kInfo) continue;
    const int shift = plan.source_def_line - plan.function_line;
    if (line == plan.decorator_line) {
      d.notes.push_back({"", std::nullopt, "on the decorator opmfu would add: " + d.snippet});
      d.range = {{plan.source_def_line, 1}, {plan.source_def_line, 2}};
      d.snippet.clear();
    } else {
      d.range.start.line += shift;
      d.range.end.line += shift;
    }
    for (Note& note : d.notes) {
      if (note.file != edited.path || !note.position) continue;
      note.file = from_path;
      note.position->line += shift;
    }
    d.file = from_path;
    d.fix.reset();  // its byte offsets point into the edited formulas file
    mine.push_back(std::move(d));
  }
  return mine;
}

}  // namespace opmfu::lint
