// The meta rules (OPM001-004, OPM010) are rules like the others: they run through the rule runner,
// from facts the lint stages gather, and the per-rule settings turn them off.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "common/tree_sitter.h"
#include "linter/suppressions.h"
#include "rules/meta_checks.h"

namespace opmfu::rules {
namespace {

using Effective = std::map<std::string, std::optional<Severity>>;

TEST(MetaRules, NoProfilerCallIsReportedOnTheLandingFileUnlessTurnedOff) {
  const MetaFacts nothing_checked = RunSummary{false, "train.py"};
  const auto findings = CheckMeta(nothing_checked, {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings.front().rule_id, "OPM010");
  EXPECT_EQ(findings.front().file, "train.py");
  EXPECT_EQ(findings.front().severity, Severity::kInfo);
  EXPECT_TRUE(CheckMeta(nothing_checked, Effective{{"OPM010", std::nullopt}}).empty());
  EXPECT_TRUE(CheckMeta(RunSummary{true, "train.py"}, {}).empty());
}

TEST(MetaRules, UnusedSuppressionOnlyWhenEveryRuleItNamesRan) {
  linter::Suppressions suppressions;
  linter::Suppression unused;
  unused.codes = {"OPM104"};
  unused.first_line = unused.last_line = 3;
  unused.comment = {{3, 10}, {3, 36}};
  unused.line = "x = 1  # opmfu: ignore[OPM104]";
  suppressions.entries.push_back(unused);
  const std::string path = "train.py";
  const Effective defaults;
  const auto findings = CheckMeta(SuppressionUse{path, suppressions, defaults}, defaults);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings.front().rule_id, "OPM003");
  EXPECT_EQ(findings.front().message, "unused suppression: no OPM104 finding here");
  EXPECT_EQ(findings.front().range.start.line, 3);
  // OPM104 turned off: the comment may be for a run that has it on.
  const Effective without_104{{"OPM104", std::nullopt}};
  EXPECT_TRUE(CheckMeta(SuppressionUse{path, suppressions, without_104}, without_104).empty());
  suppressions.entries.front().used = true;
  EXPECT_TRUE(CheckMeta(SuppressionUse{path, suppressions, defaults}, defaults).empty());
}

TEST(MetaRules, APythonParseErrorIsASyntaxErrorAtItsFirstError) {
  auto tree = ParseSource(Grammar::kPython, "def f(:\n    pass\n");
  ASSERT_TRUE(tree.ok());
  const std::string path = "bad.py";
  const auto findings = CheckMeta(PythonParse{path, *tree}, {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings.front().rule_id, "OPM001");
  EXPECT_EQ(findings.front().range.start.line, 1);
  EXPECT_EQ(findings.front().severity, Severity::kError);
}

TEST(MetaRules, ALauncherParseErrorBashCannotConfirmIsAtMostAWarning) {
  auto tree = ParseSource(Grammar::kBash, "X=${X:-$(((1 + 2) * 2))}\n");
  ASSERT_TRUE(tree.ok());
  ASSERT_TRUE(tree->has_error()) << "the fixture must be one tree-sitter-bash rejects";
  const std::string path = "run.sh";
  int asked = 0;
  const auto unavailable = [&] {
    ++asked;
    return linter::BashVerdict{linter::BashVerdict::Kind::kUnavailable, 0, "no bash"};
  };
  const auto findings = CheckMeta(LauncherParse{path, *tree, unavailable}, {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings.front().severity, Severity::kWarning);
  EXPECT_EQ(asked, 1);
  // Turned off, bash is never asked.
  EXPECT_TRUE(CheckMeta(LauncherParse{path, *tree, unavailable}, Effective{{"OPM001", std::nullopt}}).empty());
  EXPECT_EQ(asked, 1);
}

}  // namespace
}  // namespace opmfu::rules
