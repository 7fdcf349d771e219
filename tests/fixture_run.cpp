#include "tests/fixture_run.h"

#include <algorithm>

#include "lint/lint.h"
#include "registry/formulas.h"
#include "rules/registry_checks.h"
#include "rules/rule_table.h"
#include "tests/test_support.h"

namespace opmfu::testing {

namespace fs = std::filesystem;

std::vector<Fixture> AllFixtures() {
  std::vector<Fixture> fixtures;
  const fs::path base = SourceDir() / "tests" / "fixtures";
  const auto add = [&](FixtureKind kind, const std::string& folder, bool directories) {
    for (const auto& entry : fs::directory_iterator(base / folder)) {
      const bool wanted = directories ? entry.is_directory() : entry.path().extension() == ".py";
      if (!wanted) continue;
      const std::string stem = directories ? entry.path().filename().string() : entry.path().stem().string();
      fixtures.push_back(
          {kind, fs::path("tests") / "fixtures" / folder / entry.path().filename(), folder + "/" + stem});
    }
  };
  add(FixtureKind::kLint, "lint", false);
  add(FixtureKind::kLaunch, "launch", true);
  add(FixtureKind::kRegistry, "registry", false);
  std::sort(fixtures.begin(), fixtures.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  return fixtures;
}

void PrintTo(const Fixture& fixture, std::ostream* out) { *out << fixture.name; }

std::string TestName(const Fixture& fixture) {
  std::string name = fixture.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

WorkingDirectory::WorkingDirectory(const fs::path& to) : previous_(fs::current_path()) { fs::current_path(to); }

WorkingDirectory::~WorkingDirectory() {
  std::error_code ec;
  fs::current_path(previous_, ec);
}

FixtureRun RunFixture(const Fixture& fixture, const fs::path& root) {
  WorkingDirectory in_root(root);
  FixtureRun run;
  if (fixture.kind == FixtureKind::kRegistry) {
    auto file = registry::LoadFormulaFile(fixture.path);
    if (!file.ok()) {
      run.errors.push_back(file.error().message);
      return run;
    }
    run.diagnostics = rules::CheckFormulaFile(*file);
    run.files.push_back(
        {fixture.path.generic_string(), std::string(file->tree.source()), file->parsed_cleanly(), run.diagnostics});
  } else {
    lint::LintOptions options;
    options.use_config = false;
    options.keep_sources = true;
    auto report = lint::LintPaths({fixture.path.generic_string()}, options);
    if (!report.ok()) {
      run.errors.push_back(report.error().message);
      return run;
    }
    for (const Error& error : report->errors) run.errors.push_back(error.message);
    for (const std::string& warning : report->warnings) run.warnings.push_back(warning);
    for (lint::LintedFile& file : report->files) {
      run.diagnostics.insert(run.diagnostics.end(), file.diagnostics.begin(), file.diagnostics.end());
      run.files.push_back({file.path, std::move(file.source), file.parsed_cleanly, std::move(file.diagnostics)});
    }
  }
  SortDiagnostics(run.diagnostics);
  return run;
}

std::vector<RuleDescriptor> FixtureRules(FixtureKind kind) {
  return kind == FixtureKind::kRegistry ? rules::RuleDescriptors(rules::RuleScope::kRegistry)
                                        : lint::LintRuleDescriptors();
}

}  // namespace opmfu::testing
