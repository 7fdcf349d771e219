// The rule table, and registry rules beyond their annotated fixtures (fixture_test.cpp).

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <variant>

#include "common/text.h"
#include "registry/formulas.h"
#include "rules/registry_checks.h"
#include "rules/rule_table.h"
#include "tests/test_support.h"

namespace opmfu::rules {
namespace {

namespace fs = std::filesystem;

TEST(RegistryRules, SeverityOverridesAndDisabledRules) {
  auto file = registry::LoadFormulaFile(testing::SourceDir() / "tests/fixtures/registry/signatures.py");
  ASSERT_TRUE(file.ok());
  auto raised = CheckFormulaFile(*file, {{"OPM506", Severity::kError}});
  ASSERT_FALSE(raised.empty());
  for (const Diagnostic& d : raised) EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_TRUE(CheckFormulaFile(*file, {{"OPM506", std::nullopt}}).empty());
}

TEST(RegistryRules, MissingKwargsFixProducesValidPython) {
  auto file = registry::LoadFormulaFile(testing::SourceDir() / "tests/fixtures/registry/signatures.py");
  ASSERT_TRUE(file.ok());
  std::vector<TextEdit> edits;
  for (const Diagnostic& d : CheckFormulaFile(*file)) {
    ASSERT_TRUE(d.fix.has_value());
    edits.insert(edits.end(), d.fix->edits.begin(), d.fix->edits.end());
  }
  auto fixed = ApplyEdits(file->tree.source(), edits);
  ASSERT_TRUE(fixed.ok());
  EXPECT_NE(fixed->find("def no_parameters(**kwargs):"), std::string::npos);
  EXPECT_NE(fixed->find("def no_kwargs(x, weight, *args, **kwargs):"), std::string::npos);
  auto reparsed = registry::ParseFormulaFile("fixed.py", *fixed);
  ASSERT_TRUE(reparsed.ok());
  EXPECT_TRUE(reparsed->parsed_cleanly());
  EXPECT_TRUE(CheckFormulaFile(*reparsed).empty());
}

// A check of one kind reads one kind of input: the row says which, and the runner keeps to it.
TEST(RuleTable, EachRowsCheckKindScopeAndInputsAgree) {
  using enum InputKind;
  for (const RuleInfo& rule : AllRules()) {
    EXPECT_FALSE(rule.applies_to.empty()) << rule.id;
    const bool lint_inputs = rule.applies_to.Contains(kPython) || rule.applies_to.Contains(kDynamicConfig) ||
                             rule.applies_to.Contains(kKnownLauncher) || rule.applies_to.Contains(kLauncher);
    EXPECT_EQ(rule.scope == RuleScope::kRegistry, rule.applies_to == InputKinds(kFormulas)) << rule.id;
    EXPECT_EQ(rule.scope == RuleScope::kLint, !rule.applies_to.Contains(kFormulas)) << rule.id;
    EXPECT_EQ(rule.scope == RuleScope::kMeta, lint_inputs && rule.applies_to.Contains(kFormulas)) << rule.id;
    if (std::holds_alternative<RegistryCheck>(rule.check)) {
      EXPECT_TRUE(rule.applies_to.Contains(kFormulas)) << rule.id;
      EXPECT_NE(std::get<RegistryCheck>(rule.check).run, nullptr) << rule.id;
    }
    if (std::holds_alternative<SettingsCheck>(rule.check)) {
      EXPECT_TRUE(rule.applies_to.Contains(kPython) || rule.applies_to.Contains(kDynamicConfig) ||
                  rule.applies_to.Contains(kKnownLauncher))
          << rule.id;
      EXPECT_NE(std::get<SettingsCheck>(rule.check).run, nullptr) << rule.id;
    }
    if (std::holds_alternative<LauncherCheck>(rule.check)) {
      EXPECT_TRUE(rule.applies_to.Contains(kLauncher)) << rule.id;
      EXPECT_NE(std::get<LauncherCheck>(rule.check).run, nullptr) << rule.id;
    }
    if (std::holds_alternative<MetaCheck>(rule.check)) {
      EXPECT_NE(rule.scope, RuleScope::kRegistry) << rule.id;
      EXPECT_NE(std::get<MetaCheck>(rule.check).run, nullptr) << rule.id;
    }
    if (rule.meta.run != nullptr) {
      EXPECT_NE(rule.scope, RuleScope::kRegistry) << rule.id;
    }
    EXPECT_EQ(rule.fix == FixAvailability::kNone, rule.fix_note.empty())
        << rule.id << ": a fix is described iff there is one";
  }
}

// A rule is a row, a file (rules/opmnnn_*.cpp, built), a page and a fixture (the last two: below
// and FixtureSnapshots.EveryRuleHasAFixtureThatExpectsIt). The rules the lint driver reports
// itself have no file of their own.
TEST(RuleTable, EveryRuleWithACheckHasItsFileAndEveryRuleFileItsRule) {
  const fs::path rules_dir = testing::SourceDir() / "rules";
  const std::string cmake = testing::ReadFile(rules_dir / "CMakeLists.txt");
  std::map<std::string, std::vector<std::string>> files;  // id -> files
  for (const auto& entry : fs::directory_iterator(rules_dir)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, std::regex(R"(opm(\d{3})_\w+\.cpp)"))) continue;
    files["OPM" + match[1].str()].push_back(name);
    EXPECT_NE(FindRule("OPM" + match[1].str()), nullptr) << name << " belongs to no rule in rules/rule_table.cpp";
    EXPECT_NE(cmake.find("  " + name + "\n"), std::string::npos) << name << " is not in rules/CMakeLists.txt";
  }
  for (const RuleInfo& rule : AllRules()) {
    const auto found = files.find(std::string(rule.id));
    ASSERT_NE(found, files.end()) << rule.id << " has no rules/" << AsciiLower(rule.id) << "_*.cpp";
    EXPECT_EQ(found->second.size(), 1U) << rule.id << " has several files";
    if (!found->second.empty()) {
      const std::string stem = AsciiLower(rule.id) + "_";
      EXPECT_EQ(found->second.front().rfind(stem, 0), 0U);
    }
  }
}

TEST(RuleTable, IdsAreUniqueOrderedAndDocumented) {
  std::string previous;
  std::set<std::string> names;
  for (const RuleInfo& rule : AllRules()) {
    EXPECT_LT(previous, std::string(rule.id));
    previous = rule.id;
    EXPECT_TRUE(std::regex_match(std::string(rule.id), std::regex("OPM\\d{3}")));
    EXPECT_TRUE(std::regex_match(std::string(rule.name), std::regex("[a-z0-9]+(-[a-z0-9]+)*")));
    EXPECT_TRUE(names.insert(std::string(rule.name)).second) << rule.name;
    const fs::path page = testing::SourceDir() / "docs" / "rules" / (std::string(rule.id) + ".md");
    ASSERT_TRUE(fs::exists(page)) << page;
    const std::string text = testing::ReadFile(page);
    EXPECT_EQ(text.rfind("# " + std::string(rule.id) + " " + std::string(rule.name), 0), 0U) << page;
    for (const char* section : {"## Why", "## Example", "## Fix"}) {
      EXPECT_NE(text.find(section), std::string::npos) << page << " lacks " << section;
    }
    EXPECT_EQ(FindRule(rule.id), &rule);
    EXPECT_EQ(FindRule(rule.name), &rule);
  }
  // Every page belongs to a rule.
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() / "docs" / "rules")) {
    EXPECT_NE(FindRule(entry.path().stem().string()), nullptr) << entry.path();
  }
}

}  // namespace
}  // namespace opmfu::rules
