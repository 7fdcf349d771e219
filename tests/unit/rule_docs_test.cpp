// The documentation the rule table says (rules/rule_docs.h) against the files: the header of
// every docs/rules/*.md page and the README's rule list. UPDATE_RULE_DOCS=1 rewrites the files
// from the table; review the diff as for goldens.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "rules/rule_docs.h"
#include "rules/rule_table.h"
#include "tests/test_support.h"

namespace opmfu::rules {
namespace {

namespace fs = std::filesystem;

bool Updating() {
  const char* update = std::getenv("UPDATE_RULE_DOCS");
  return update != nullptr && std::string(update) == "1";
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(RuleDocs, EveryPageHeaderIsTheTables) {
  for (const RuleInfo& rule : AllRules()) {
    const fs::path page = testing::SourceDir() / "docs" / "rules" / (std::string(rule.id) + ".md");
    ASSERT_TRUE(fs::exists(page)) << page;
    const std::string text = testing::ReadFile(page);
    const std::optional<std::string> generated = WithRulePageHeader(text, rule);
    ASSERT_TRUE(generated.has_value()) << page << " has no `**Severity:**` line under its title";
    if (Updating()) {
      if (*generated != text) Write(page, *generated);
      continue;
    }
    EXPECT_EQ(text.substr(0, RulePageHeader(rule).size()), RulePageHeader(rule))
        << page << ": the header comes from rules/rule_table.cpp; run with UPDATE_RULE_DOCS=1";
  }
}

TEST(RuleDocs, TheReadmeRuleListIsTheTables) {
  const fs::path readme = testing::SourceDir() / "README.md";
  const std::string text = testing::ReadFile(readme);
  const std::optional<std::string> generated = WithRuleList(text);
  ASSERT_TRUE(generated.has_value()) << "README.md lacks the rule list's marker comments";
  if (Updating()) {
    if (*generated != text) Write(readme, *generated);
    return;
  }
  EXPECT_EQ(text, *generated) << "README.md's rule list comes from rules/rule_table.cpp; run with UPDATE_RULE_DOCS=1";
}

TEST(RuleDocs, AHeaderSaysWhatTheRowSays) {
  const RuleInfo* rule = FindRule("OPM101");
  ASSERT_NE(rule, nullptr);
  const std::string header = RulePageHeader(*rule);
  EXPECT_EQ(header.rfind("# OPM101 with-flops-not-true\n\n**Severity:** error · ", 0), 0U) << header;
  EXPECT_NE(header.find("**Reported by:** `opmfu lint`"), std::string::npos) << header;
  EXPECT_NE(header.find("**Applies to:** Python scripts, dynamic-profiler"), std::string::npos) << header;
  EXPECT_NE(header.find("**Fix:** sometimes, safe"), std::string::npos) << header;
  // A page's own text after the header is kept.
  const std::optional<std::string> page =
      WithRulePageHeader("# old title\n\n**Severity:** info · stale\n\nBody.\n", *rule);
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(*page, header + "\nBody.\n");
  EXPECT_FALSE(WithRulePageHeader("# no facts line\n\nBody.\n", *rule).has_value());
  const std::string list = RuleListMarkdown();
  EXPECT_NE(list.find("| [OPM304](docs/rules/OPM304.md) | dynamic-trace-not-parsed | error | json | none |"),
            std::string::npos)
      << list;
}

}  // namespace
}  // namespace opmfu::rules
