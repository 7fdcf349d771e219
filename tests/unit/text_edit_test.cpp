#include "common/text_edit.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace opmfu {
namespace {

TEST(ApplyEdits, AppliesInAnyOrder) {
  auto result = ApplyEdits("hello world", {{6, 11, "there"}, {0, 5, "HELLO"}, {11, 11, "!"}});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, "HELLO there!");
}

TEST(ApplyEdits, RejectsOverlapsAndOutOfRange) {
  EXPECT_FALSE(ApplyEdits("abcdef", {{0, 3, "x"}, {2, 4, "y"}}).ok());
  EXPECT_FALSE(ApplyEdits("abc", {{2, 9, "x"}}).ok());
  EXPECT_FALSE(ApplyEdits("abc", {{2, 1, "x"}}).ok());
}

TEST(ApplyEdits, JoinsInsertionsIntoOneEmptyListWithTheirSeparator) {
  // Two fixes that each add an argument to `profile()` make one argument list, not `a=1b=2`.
  auto joined = ApplyEdits("f()", {{2, 2, "a=1", {}, ", "}, {2, 2, "b=2", {}, ", "}, {2, 2, "a=1", {}, ", "}});
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, "f(a=1, b=2)");
  // Without a separator (or with different ones) the texts are put side by side, as before.
  auto plain = ApplyEdits("f()", {{2, 2, "a"}, {2, 2, "b"}});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "f(ab)");
  EXPECT_EQ(UnifiedDiff("x.py", "f()\n", {{2, 2, "a=1", {}, ", "}, {2, 2, "b=2", {}, ", "}}),
            "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-f()\n+f(a=1, b=2)\n");
}

TEST(ApplyEdits, KeepsTheTextsCrlfLineEndings) {
  auto crlf = ApplyEdits("f(a,\r\n  b)\r\n", {{9, 9, ",\n  c"}, {0, 0, "# x\r\n"}});
  ASSERT_TRUE(crlf.ok());
  EXPECT_EQ(*crlf, "# x\r\nf(a,\r\n  b,\r\n  c)\r\n");
  auto lf = ApplyEdits("f(a,\n  b)\n", {{8, 8, ",\n  c"}});
  ASSERT_TRUE(lf.ok());
  EXPECT_EQ(*lf, "f(a,\n  b,\n  c)\n");
}

TEST(UnifiedDiff, InsertionOfWholeLinesKeepsThreeLinesOfContext) {
  const std::string text = "1\n2\n3\n4\n5\n6\n";
  const std::string diff = UnifiedDiff("f.py", text, {{6, 6, "new\n"}});
  EXPECT_EQ(diff,
            "--- a/f.py\n+++ b/f.py\n"
            "@@ -1,6 +1,7 @@\n 1\n 2\n 3\n+new\n 4\n 5\n 6\n");
}

TEST(UnifiedDiff, ReplacementInsideALine) {
  const std::string text = "a\nb = 1\nc\n";
  const std::string diff = UnifiedDiff("x.py", text, {{6, 7, "2"}}, 0);
  EXPECT_EQ(diff, "--- a/x.py\n+++ b/x.py\n@@ -2 +2 @@\n-b = 1\n+b = 2\n");
}

TEST(UnifiedDiff, DistantEditsGetSeparateHunksWithShiftedNumbers) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += std::to_string(i) + "\n";
  // Insert a line after "1" and replace "20".
  const std::size_t twenty = text.find("20\n");
  const std::string diff = UnifiedDiff("n", text, {{2, 2, "x\n"}, {twenty, twenty + 2, "XX"}}, 1);
  EXPECT_EQ(diff,
            "--- a/n\n+++ b/n\n"
            "@@ -1,2 +1,3 @@\n 1\n+x\n 2\n"
            "@@ -19,2 +20,2 @@\n 19\n-20\n+XX\n");
}

TEST(UnifiedDiff, MarksAMissingFinalNewline) {
  const std::string diff = UnifiedDiff("f", "a\nb", {{3, 3, "c"}}, 0);
  EXPECT_EQ(diff,
            "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+bc\n\\ No newline at end of file\n");
}

TEST(UnifiedDiff, EmptyWhenNothingChanges) {
  EXPECT_EQ(UnifiedDiff("f", "abc\n", {}), "");
  EXPECT_EQ(UnifiedDiff("f", "abc\n", {{0, 3, "abc"}}), "");
}

TEST(UnifiedDiff, AbsolutePathsGetNoPrefixes) {
  EXPECT_EQ(UnifiedDiff("/tmp/f", "a\n", {{0, 1, "b"}}, 0), "--- /tmp/f\n+++ /tmp/f\n@@ -1 +1 @@\n-a\n+b\n");
}

// LineEditsBetween turns two texts into edits: applying them gives the second text back, and the
// diff shows only the lines that changed.
TEST(LineEditsBetween, ApplyingTheEditsGivesTheSecondText) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"a\n", "a\n"},
      {"", "a\nb\n"},
      {"a\nb\n", ""},
      {"a\nb\nc\n", "a\nB\nc\n"},
      {"a\nb\nc\nd\ne\n", "x\na\nc\nd\ny\ne\n"},
      {"a\nb\nc", "a\nb\nc\n"},
      {"one\ntwo\nthree\nfour\n", "four\nthree\ntwo\none\n"},
      {"p(x)\nq(y)\nr(z)\n", "p(x, mstx=True)\nq(y)\nr(z, mstx=True)\n"},
  };
  for (const auto& [before, after] : cases) {
    auto applied = ApplyEdits(before, LineEditsBetween(before, after));
    ASSERT_TRUE(applied.ok()) << before;
    EXPECT_EQ(*applied, after) << "from '" << before << "'";
  }
}

TEST(LineEditsBetween, TwoDistantChangesAreTwoHunks) {
  std::string before;
  for (int i = 0; i < 20; ++i) before += "line " + std::to_string(i) + "\n";
  std::string after = before;
  after.replace(after.find("line 2\n"), 7, "line 2 fixed\n");
  after.replace(after.find("line 17\n"), 8, "line 17 fixed\n");
  const std::vector<TextEdit> edits = LineEditsBetween(before, after);
  ASSERT_EQ(edits.size(), 2U);
  const std::string diff = UnifiedDiff("f.py", before, edits);
  EXPECT_NE(diff.find("@@ -1,6 +1,6 @@"), std::string::npos) << diff;
  EXPECT_NE(diff.find("@@ -15,6 +15,6 @@"), std::string::npos) << diff;
  EXPECT_NE(diff.find("-line 2\n+line 2 fixed\n"), std::string::npos) << diff;
}

TEST(LineEditsBetween, AMiddleTooLargeToCompareIsOneEdit) {
  std::string before;
  std::string after;
  for (int i = 0; i < 3000; ++i) {
    before += "a" + std::to_string(i) + "\n";
    after += "b" + std::to_string(i) + "\n";
  }
  const std::vector<TextEdit> edits = LineEditsBetween(before, after);  // 9,000,000 pairs > kMaxDiffCells
  ASSERT_EQ(edits.size(), 1U);
  auto applied = ApplyEdits(before, edits);
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(*applied, after);
}

}  // namespace
}  // namespace opmfu
