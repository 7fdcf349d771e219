// The depth and size bounds every JSON and TOML input goes through (common/json_input,
// common/config_toml): what stays inside them parses as before, what goes past is one error line
// naming the file, the limit and where.

#include <gtest/gtest.h>

#include <string>

#include "common/config_toml.h"
#include "common/json_input.h"
#include "common/tree_sitter.h"

namespace opmfu {
namespace {

std::string Repeat(const std::string& text, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}

TEST(JsonNesting, DocumentsAtTheLimitParse) {
  const std::string deep = Repeat("[", kMaxJsonDepth) + Repeat("]", kMaxJsonDepth);
  auto parsed = ParseJsonWithinLimits(deep, "info.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->is_array());
}

TEST(JsonNesting, OneLevelPastTheLimitIsRefusedNamingFileLimitAndLine) {
  const std::string deep = "{\n\"a\":" + Repeat("[", kMaxJsonDepth) + Repeat("]", kMaxJsonDepth) + "}";
  auto parsed = ParseJsonWithinLimits(deep, "dir/info.json.0");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message,
            "dir/info.json.0: JSON nested deeper than 256 levels (a limit of opmfu), at line 2");
}

TEST(JsonNesting, HundredThousandDeepIsRefusedWithoutBuildingATree) {
  const std::string deep = Repeat("[", 100000) + Repeat("]", 100000);
  EXPECT_FALSE(CheckJsonNesting(deep, "x.json").ok());
  // Unterminated, too: the scan never needs the closing half.
  EXPECT_FALSE(CheckJsonNesting(Repeat("[1,", 40000), "x.json").ok());
}

TEST(JsonNesting, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"k\": \"" + Repeat("[{", 1000) + "\\\"" + Repeat("[", 1000) + "\"}";
  auto parsed = ParseJsonWithinLimits(text, "x.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->at("k").get<std::string>().size(), 3001U);
}

TEST(JsonNesting, ASyntaxErrorIsADiscardedValueForTheCallerToName) {
  auto parsed = ParseJsonWithinLimits("{\"DeviceInfo\": [", "info.json");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->is_discarded());
}

TEST(TomlLimits, ARealPyprojectPasses) {
  const std::string text = R"([project]
name = "x.y"  # a comment with [brackets] and a.b.c = dots
version = "1.2.3"
dependencies = ["torch>=2.1", 'torch_npu==2.1.0.post3']
description = """
multi "line" with [ and { and a = b.c.d
"""
literal = '''a.b.c = [[[['''
[tool.opmfu]
select = ["OPM1", "OPM5"]
per-file-ignores = { "legacy/*.py" = ["OPM509"], "a.b" = [] }
[tool.ruff.lint.per-file-ignores]
"tests/*" = ["E501"]
[[tool.mypy.overrides]]
module = "a.b.*"
x.y.z = 1.5e3
)";
  EXPECT_TRUE(CheckTomlLimits("pyproject.toml", text).ok());
  auto tree = TomlConfigTree("pyproject.toml", text, false);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  ASSERT_TRUE(tree->has_value());
  EXPECT_EQ((**tree)["select"].size(), 2U);
}

TEST(TomlLimits, ADottedKeyOfThirtyThousandPartsIsRefusedBeforeTomlPlusPlus) {
  std::string key = "a";
  for (int i = 0; i < 30000; ++i) key += ".a";
  auto tree = TomlConfigTree("p/pyproject.toml", "[tool.opmfu]\n" + key + " = 1\n", false);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().message,
            "p/pyproject.toml:2: TOML nested deeper than 128 levels (dotted key parts, tables and arrays; a limit of "
            "opmfu)");
}

TEST(TomlLimits, DepthAddsUpAcrossHeadersKeysInlineTablesAndArrays) {
  // [a.b] is 2, c.d 2 more, each inline table's key and each array one more.
  std::string value = "1";
  for (int i = 0; i < 50; ++i) value = "{ k.k = [" + value + "] }";
  EXPECT_FALSE(CheckTomlLimits("x.toml", "[a.b]\nc.d = " + value + "\n").ok());
  std::string shallow = "1";
  for (int i = 0; i < 30; ++i) shallow = "{ k = [" + shallow + "] }";
  EXPECT_TRUE(CheckTomlLimits("x.toml", "[a.b]\nc.d = " + shallow + "\n").ok());
  EXPECT_FALSE(CheckTomlLimits("x.toml", "x = " + Repeat("[", 200) + Repeat("]", 200) + "\n").ok());
  std::string header = "[a";
  for (int i = 0; i < 200; ++i) header += ".a";
  EXPECT_FALSE(CheckTomlLimits("x.toml", header + "]\n").ok());
}

TEST(TomlLimits, DotsInStringsValuesAndCommentsAreNotKeyParts) {
  const std::string dots = Repeat(".", 500);
  const std::string text = "\"" + dots + "\" = '" + dots + "'\nf = 1.5 # " + dots + "\n'" + dots + "'.x = 2\n";
  EXPECT_TRUE(CheckTomlLimits("x.toml", text).ok());
}

TEST(TomlLimits, MoreKeysThanTheLimitAreRefusedNamingTheLine) {
  std::string many;
  for (std::size_t i = 0; i <= kMaxTomlKeys; ++i) many += "k" + std::to_string(i) + " = 1\n";
  const Status status = CheckTomlLimits("big.toml", many);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "big.toml:10001: more than 10000 TOML keys (a limit of opmfu)");
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

TEST(ParseBounds, PythonBracketsPastCPythonsLimitAreRefusedNamingFileAndLine) {
  const std::string ok = "x = " + Repeat("(", kMaxPythonBracketDepth) + Repeat(")", kMaxPythonBracketDepth) + "\n";
  EXPECT_TRUE(ParseSource(Grammar::kPython, ok, {.file = "ok.py"}).ok());
  auto deep = ParseSource(Grammar::kPython, "import x\ny = " + Repeat("f(", 40000) + "\n", {.file = "deep.py"});
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message,
            "deep.py:2: brackets nested deeper than 200 levels (a limit of opmfu; CPython refuses more than 200), so "
            "the file was not read");
}

TEST(ParseBounds, BracketsInStringsAndCommentsDoNotCount) {
  const std::string brackets = Repeat("([{", 300);
  const std::string source = "a = '" + brackets + "'\nb = \"\"\"\n" + brackets + "\n\"\"\"\n# " + brackets +
                             "\nc = r'\\'" + brackets + "'\nd = f\"{x}" + brackets + "\"\n";
  EXPECT_LE(DeepestBrackets(source, Grammar::kPython, 1000).depth, 1U);
  EXPECT_TRUE(ParseSource(Grammar::kPython, source, {.file = "s.py"}).ok());
  // An unterminated one-line string ends at its line: the brackets after it count again.
  EXPECT_EQ(DeepestBrackets("a = 'x\n((( ", Grammar::kPython, 1000).depth, 3U);
  EXPECT_EQ(DeepestBrackets("a = 'x\n((( ", Grammar::kPython, 1000).line, 2U);
}

TEST(ParseBounds, JsonArraysPastTheLimitAreRefused) {
  EXPECT_TRUE(ParseSource(Grammar::kJson, Repeat("[", 256) + Repeat("]", 256), {.file = "c.json"}).ok());
  auto deep = ParseSource(Grammar::kJson, "{\"a\": " + Repeat("[1,", 40000), {.file = "profiler_config.json"});
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message,
            "profiler_config.json:1: brackets nested deeper than 256 levels (a limit of opmfu), so the file was not "
            "read");
  // Comments and strings in the JSON tree-sitter reads are skipped.
  EXPECT_EQ(DeepestBrackets("// [[[[\n/* [[[[ */ {\"[[[\": [1]}", Grammar::kJson, 1000).depth, 2U);
}

TEST(ParseBounds, AParseThatRunsPastItsTimeIsOneErrorNamingTheFile) {
  std::string big;
  for (int i = 0; i < 50000; ++i) big += "x" + std::to_string(i) + " = f(" + std::to_string(i) + ")\n";
  auto slow = ParseSource(Grammar::kPython, big,
                          {.threads = 2, .parallel_threshold = 0, .file = "big.py", .timeout_micros = 1});
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().message, "big.py: parsing took longer than 1 us (a limit of opmfu), so the file was not read");
}

}  // namespace
}  // namespace opmfu
