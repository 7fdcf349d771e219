#include "lint/merge.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

#include "lint/inputs.h"
#include "lint/suppression_stage.h"
#include "linter/suppressions.h"
#include "rules/meta_checks.h"

namespace opmfu::lint {

void MergeOutcomes(const FileReader& files, std::vector<FileOutcome>& outcomes, std::vector<LauncherState>& launchers,
                   const std::set<std::string>& followed, const Effective* first_effective, bool any_profiler_call,
                   LintReport& report) {
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    if (outcome.error) report.errors.push_back(std::move(*outcome.error));
    if (outcome.skipped) ++report.skipped_without_profiler;
    if (!outcome.skipped_because.empty()) report.skipped_notes.push_back(std::move(outcome.skipped_because));
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
    launcher_by_identity.emplace(Identity(files, launcher.lint.facts.path), launcher.lint.facts.path);
  }
  std::map<std::string, LauncherState*> launcher_by_path;
  for (LauncherState& launcher : launchers) launcher_by_path.emplace(launcher.lint.facts.path, &launcher);
  // A finding in another launcher (one this one runs or sources) is hidden by that launcher's
  // suppressions, not this one's: applied first, so that they count as used before OPM003 looks.
  for (LauncherState& launcher : launchers) {
    const std::string& path = launcher.lint.facts.path;
    std::erase_if(launcher.diagnostics, [&](Diagnostic& d) {
      if (d.file == path) return false;
      if (auto same = launcher_by_identity.find(Identity(files, d.file)); same != launcher_by_identity.end()) {
        d.file = same->second;
      }
      const auto owner = launcher_by_path.find(d.file);
      if (owner == launcher_by_path.end() || owner->second == &launcher) return false;
      return linter::Suppresses(owner->second->suppressions, d);
    });
  }
  std::set<std::tuple<std::string, int, int, std::string, std::string>> launcher_findings;
  for (LauncherState& launcher : launchers) {
    const linter::LauncherFacts& facts = launcher.lint.facts;
    Suppress(launcher.suppressions, facts.path, *launcher.effective, launcher.diagnostics);
    std::erase_if(launcher.diagnostics, [&](const Diagnostic& d) {
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
  for (LintedFile& file : report.files) {
    if (file.diagnostics.size() <= kMaxFindingsPerFile) continue;
    report.limits.push_back(file.path + ": more than " + std::to_string(kMaxFindingsPerFile) +
                            " findings, the most opmfu reports per file (a limit of opmfu): the first ones are shown");
    SortDiagnostics(file.diagnostics);
    file.diagnostics.resize(kMaxFindingsPerFile);
  }

  if (!report.files.empty() && first_effective != nullptr) {
    // On a file the user named (or found in a named directory), where a suppression can reach
    // it: not on a module the lint followed into.
    auto named = std::find_if(report.files.begin(), report.files.end(),
                              [&](const LintedFile& file) { return !followed.contains(file.path); });
    LintedFile& file = named == report.files.end() ? report.files.front() : *named;
    std::vector<Diagnostic> found = rules::CheckMeta(rules::RunSummary{any_profiler_call, file.path}, *first_effective);
    file.diagnostics.insert(file.diagnostics.begin(), std::make_move_iterator(found.begin()),
                            std::make_move_iterator(found.end()));
  }
}

}  // namespace opmfu::lint
