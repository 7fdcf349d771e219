#include "common/python_split.h"

#include <gtest/gtest.h>

#include "common/tree_sitter.h"
#include "registry/formulas.h"
#include "registry/listing.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

std::vector<std::size_t> CutBytes(std::string_view source, std::size_t parts) {
  std::vector<std::size_t> bytes;
  for (const SplitPoint& cut : TopLevelSplitPoints(source, parts)) bytes.push_back(cut.byte);
  return bytes;
}

TEST(TopLevelSplitPoints, CutsOnlyAtStatementStarts) {
  const std::string source =
      "import os\n"
      "x = (1,\n2)\n"                      // a bracket spans a line start
      "s = '''\nnot = a statement\n'''\n"  // so does a string
      "@decorator\n"                       // a decorator and its def stay together
      "def f():\n    return 1\n"
      "if x:\n    pass\nelse:\n    pass\n"  // else continues the if
      "y = 2 \\\n  + 3\n"                   // a backslash continuation
      "z = 3\n";
  const auto cuts = TopLevelSplitPoints(source, 1000);
  std::vector<std::size_t> bytes;
  for (const SplitPoint& cut : cuts) bytes.push_back(cut.byte);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{source.find("x = (1"), source.find("s = '"), source.find("@decorator"),
                                             source.find("if x:"), source.find("y = 2"), source.find("z = 3")}));
  EXPECT_EQ(cuts[2].row, 6U);
  EXPECT_EQ(cuts.back().row, 15U);
}

TEST(TopLevelSplitPoints, GivesUpWhereTheLayoutIsUnclear) {
  EXPECT_TRUE(CutBytes("x = 'unterminated\ny = 1\n", 2).empty());
  EXPECT_TRUE(CutBytes("x = (1,\ny = 2\n", 2).empty());
  EXPECT_TRUE(CutBytes("x = 1)\ny = 2\n", 2).empty());
  EXPECT_TRUE(CutBytes("x = 1\n", 1).empty());
}

TEST(SignatureSpans, SkipsFunctionBodiesAfterTheFirstStatement) {
  const std::string source =
      "@reg(target='torch:mm')\n"     // row 0
      "def mm(a, b, **kwargs):\n"     // 1
      "    \"\"\"Doc.\"\"\"\n"        // 2
      "    m = a.shape[0]\n"          // 3: skipped
      "    return 2 * m\n"            // 4: skipped
      "\n"                            // 5: skipped
      "def compound(x):\n"            // 6
      "    if x:\n"                   // 7: first statement is compound: body kept
      "        return 1\n"            // 8
      "    return 2\n"                // 9
      "def one_liner(x): return 1\n"  // 10
      "z = 1";                        // 11 (no final newline)
  const auto spans = SignatureSpans(source);
  ASSERT_TRUE(spans);
  ASSERT_EQ(spans->size(), 2U);
  EXPECT_EQ((*spans)[0].begin, 0U);
  EXPECT_EQ(source.substr((*spans)[0].begin, (*spans)[0].end), source.substr(0, source.find("    m = ")));
  EXPECT_EQ((*spans)[0].end_row, 3U);
  EXPECT_EQ((*spans)[1].begin, source.find("def compound"));
  EXPECT_EQ((*spans)[1].begin_row, 6U);
  EXPECT_EQ((*spans)[1].end, source.size());
  EXPECT_EQ((*spans)[1].end_row, 11U);
}

TEST(SignatureSpans, ParsedSignaturesListExactlyLikeAFullParse) {
  for (const char* name :
       {"examples/_flops_formulas.py", "examples/broken_formulas.py", "tests/fixtures/registry/registration_forms.py",
        "tests/fixtures/registry/none_results.py"}) {
    const std::string source = testing::ReadFile(testing::SourceDir() / name);
    auto full = registry::ParseFormulaFile(name, source, registry::ParseDepth::kFull);
    auto signatures = registry::ParseFormulaFile(name, source, registry::ParseDepth::kSignatures);
    ASSERT_TRUE(full.ok() && signatures.ok());
    EXPECT_TRUE(signatures->tree.bodies_skipped()) << name;
    EXPECT_EQ(registry::RenderListing(*signatures, registry::ListFormat::kJson),
              registry::RenderListing(*full, registry::ListFormat::kJson))
        << name;
  }
}

// A generated file large enough to be cut into parts.
std::string LargeFormulas(int count) {
  std::string source = "from torch_npu.profiler._flops_registry import register_npu_flop\n\n";
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    source += "@register_npu_flop(\n    target='torch_npu:op_" + n + "',\n    is_default=True,\n)\ndef op_" + n +
              "(x, w, *args, **kwargs):\n    \"\"\"Doc " + n +
              ".\"\"\"\n    m, k = x.shape\n    return 2 * m * k * w.shape[-1]\n\n\n";
  }
  return source;
}

TEST(ParseSource, PartsAndSignaturesGiveTheSameRegistrationsAsOnePiece) {
  const std::string source = LargeFormulas(3000);
  auto whole = ParseSource(Grammar::kPython, source, {.threads = 1, .parallel_threshold = SIZE_MAX});
  auto parts = ParseSource(Grammar::kPython, source, {.threads = 2, .parallel_threshold = 0});
  ASSERT_TRUE(whole.ok() && parts.ok());
  EXPECT_EQ(whole->roots().size(), 1U);
  EXPECT_EQ(parts->roots().size(), 2U);
  EXPECT_FALSE(parts->has_error());

  auto full = registry::ParseFormulaFile("f.py", source, registry::ParseDepth::kFull);
  auto signatures = registry::ParseFormulaFile("f.py", source, registry::ParseDepth::kSignatures);
  ASSERT_TRUE(full.ok() && signatures.ok());
  ASSERT_EQ(full->registrations.size(), 3000U);
  EXPECT_GT(signatures->tree.roots().size(), 2U);  // many ranges: many parts
  EXPECT_EQ(registry::RenderListing(*signatures, registry::ListFormat::kCsv),
            registry::RenderListing(*full, registry::ListFormat::kCsv));
  // Positions are file-absolute in every part.
  const registry::Registration& last = signatures->registrations.back();
  EXPECT_EQ(last.line, static_cast<int>(full->registrations.back().line));
  EXPECT_EQ(signatures->tree.RangeOf(last.target.node).start,
            full->tree.RangeOf(full->registrations.back().target.node).start);
}

TEST(ParseSource, AnErrorInOnePartFallsBackToOneWholeParse) {
  std::string source = LargeFormulas(2000);
  source.insert(source.size() / 2, "\ndef broken(:\n    pass\n");
  auto tree = ParseSource(Grammar::kPython, source, {.threads = 2, .parallel_threshold = 0});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(tree->roots().size(), 1U);
  EXPECT_TRUE(tree->has_error());
}

}  // namespace
}  // namespace opmfu
