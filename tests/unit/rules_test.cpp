// Registry rules against annotated fixtures: `# expect: OPMnnn` marks a line a finding must land
// on, `# ok: OPMnnn` a line it must not. Every finding must be expected.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "common/text.h"
#include "registry/formulas.h"
#include "rules/registry_checks.h"
#include "rules/rule_table.h"
#include "tests/test_support.h"

namespace opmfu::rules {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Fixtures() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() / "tests" / "fixtures" / "registry")) {
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

using Expectations = std::set<std::pair<int, std::string>>;

void ReadAnnotations(const std::string& source, Expectations& expected, Expectations& forbidden) {
  static const std::regex annotation(R"(#\s*(expect|ok):\s*(OPM\d{3}(?:\s*,\s*OPM\d{3})*))");
  const std::vector<std::string> lines = SplitString(source, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    if (!std::regex_search(lines[i], match, annotation)) continue;
    for (const std::string& id : SplitString(match[2].str(), ',')) {
      auto& target = match[1] == "expect" ? expected : forbidden;
      target.insert({static_cast<int>(i) + 1, std::string(TrimWhitespace(id))});
    }
  }
}

class RegistryFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(RegistryFixture, FindingsMatchTheAnnotations) {
  auto file = registry::LoadFormulaFile(GetParam());
  ASSERT_TRUE(file.ok()) << file.error().message;
  Expectations expected;
  Expectations forbidden;
  ReadAnnotations(file->tree.source(), expected, forbidden);

  Expectations actual;
  for (const Diagnostic& d : CheckFormulaFile(*file)) actual.insert({d.range.start.line, d.rule_id});
  for (const auto& [line, id] : expected) {
    EXPECT_TRUE(actual.count({line, id})) << GetParam().filename() << ":" << line << ": expected " << id;
  }
  for (const auto& [line, id] : actual) {
    EXPECT_TRUE(expected.count({line, id})) << GetParam().filename() << ":" << line << ": unexpected " << id;
  }
  for (const auto& entry : forbidden) EXPECT_FALSE(actual.count(entry));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RegistryFixture, ::testing::ValuesIn(Fixtures()),
                         [](const auto& param_info) { return param_info.param.stem().string(); });

TEST(RegistryRules, EveryRegistryRuleHasAFixtureThatTriggersIt) {
  std::set<std::string> triggered;
  for (const fs::path& path : Fixtures()) {
    Expectations expected;
    Expectations forbidden;
    ReadAnnotations(testing::ReadFile(path), expected, forbidden);
    for (const auto& entry : expected) triggered.insert(entry.second);
  }
  for (const RuleInfo& rule : AllRules()) {
    if (rule.registry_check != nullptr) {
      EXPECT_TRUE(triggered.count(std::string(rule.id))) << rule.id << " has no fixture";
    }
  }
}

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
