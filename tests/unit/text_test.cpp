#include "common/text.h"
#include "common/text_location.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/diagnostic.h"
#include "common/tree_sitter.h"

namespace opmfu {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0U);
  EXPECT_EQ(EditDistance("select", "selct"), 1U);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3U);
  EXPECT_EQ(EditDistance("abc", ""), 3U);
}

TEST(SuggestSpelling, OffersOnlyPlausibleTypos) {
  const std::vector<std::string> keys = {"select", "ignore", "severity", "exclude"};
  EXPECT_EQ(SuggestSpelling("selct", keys), "select");
  EXPECT_EQ(SuggestSpelling("severty", keys), "severity");
  EXPECT_EQ(SuggestSpelling("banana", keys), std::nullopt);
  EXPECT_EQ(DidYouMean("ignor", keys), " (did you mean 'ignore'?)");
  EXPECT_EQ(DidYouMean("zzz", keys), "");
}

TEST(Utf8, ValidatesAndRepairs) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("h\xC3\xA9llo \xE4\xB8\xAD"));
  EXPECT_FALSE(IsValidUtf8("bad \xFF byte"));
  EXPECT_FALSE(IsValidUtf8("overlong \xC0\xAF"));
  EXPECT_FALSE(IsValidUtf8("surrogate \xED\xA0\x80"));
  EXPECT_FALSE(IsValidUtf8("truncated \xE4\xB8"));
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF"), 2U);
  EXPECT_EQ(SanitizeUtf8("a\xFFz"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(SanitizeUtf8("h\xC3\xA9"), "h\xC3\xA9");
}

TEST(Utf8, ColumnsCountCodePoints) {
  EXPECT_EQ(CodePointCount("abc", 2), 2);
  EXPECT_EQ(CodePointCount("\xC3\xA9t\xC3\xA9", 5), 3);  // é t é
  EXPECT_EQ(CodePointCount("short", 100), 5);
}

TEST(Lines, SplitsAndFinds) {
  EXPECT_EQ(LineStarts("a\nbb\n"), (std::vector<std::size_t>{0, 2, 5}));
  EXPECT_EQ(LineAt("one\ntwo\r\nthree", 1), "two");
  EXPECT_EQ(LineAt("one\ntwo", 5), "");
  EXPECT_EQ(SplitString("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(TrimWhitespace("  x y \n"), "x y");
}

TEST(PythonStringLiteral, IsOnePrintableLinePythonReadsBack) {
  EXPECT_EQ(PythonStringLiteral("BNSD"), "'BNSD'");
  EXPECT_EQ(PythonStringLiteral("it's a\\b"), "'it\\'s a\\\\b'");
  // Every control character as a Python escape: nothing reaches a terminal that it acts on.
  EXPECT_EQ(PythonStringLiteral("a\nb\tc\rd\x1b[2J\a"), "'a\\nb\\tc\\rd\\x1b[2J\\x07'");
  EXPECT_EQ(PythonStringLiteral("\xc2\x9b"), "'\\u009b'");           // a C1 control
  EXPECT_EQ(PythonStringLiteral("\xe5\x90\x8d"), "'\xe5\x90\x8d'");  // printable UTF-8 unchanged
  EXPECT_EQ(PythonStringLiteral("\xff"), "'\\xff'");                 // a byte that is not UTF-8, visibly
}

TEST(QuoteForMessage, EscapesControlCharactersAndShortens) {
  EXPECT_EQ(QuoteForMessage("a\nb\x01"), "'a\\nb\\x01'");
  EXPECT_EQ(QuoteForMessage("abcdef", 3), "'abc...'");
}

TEST(EscapeControlCharacters, KeepsAMessageOnOneLine) {
  EXPECT_EQ(EscapeControlCharacters(std::string("torch:\n\x01x\t\x7f caf\xc3\xa9")),
            "torch:\\n\\x01x\\t\\x7f caf\xc3\xa9");
  EXPECT_EQ(EscapeControlCharacters("plain"), "plain");
}

// Issue 47: the one escaper also takes what a terminal acts on beyond C0: a C1 CSI (U+009B), bytes
// that are not UTF-8, line separators and bidirectional overrides; other text passes unchanged.
TEST(EscapeControlCharacters, LeavesNothingATerminalActsOn) {
  EXPECT_EQ(EscapeControlCharacters("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
  EXPECT_EQ(EscapeControlCharacters("\xc2\x9b"
                                    "2J"),
            "\\u009b2J");
  EXPECT_EQ(EscapeControlCharacters("k\xff\xfe"), "k\\xff\\xfe");
  EXPECT_EQ(EscapeControlCharacters("\xe2\x80\xae"
                                    "evil\xe2\x80\xa8"),
            "\\u202eevil\\u2028");
  EXPECT_EQ(EscapeControlCharacters("\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80"),
            "\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80");
  EXPECT_EQ(QuoteForMessage("\x1b\xff"), "'\\x1b\\xff'");
  EXPECT_EQ(QuoteForMessage("\xe4\xb8\xad\xe6\x96\x87", 1), "'\xe4\xb8\xad...'");  // never cut inside a character
}

TEST(DeclaredPythonEncoding, ReadsPep263CodingLines) {
  EXPECT_EQ(DeclaredPythonEncoding("# -*- coding: gbk -*-\nx = 1\n"), "gbk");
  EXPECT_EQ(DeclaredPythonEncoding("#!/usr/bin/env python\n# vim: set fileencoding=Latin-1 :\n"), "latin-1");
  EXPECT_EQ(DeclaredPythonEncoding("x = 1\n# coding: gbk\n"), std::nullopt);  // only after a comment line
  EXPECT_EQ(DeclaredPythonEncoding("x = 1  # coding: gbk\n"), std::nullopt);  // not a comment-only line
  EXPECT_EQ(DeclaredPythonEncoding("\n\n# coding: gbk\n"), std::nullopt);     // the third line is too late
  std::string error;
  // Each character beyond ASCII is one U+FFFD; a GBK second byte that is a backslash stays inside
  // its character.
  EXPECT_EQ(AsciiCompatibleText("# \xd6\xd0\xce\xc4 \"\x81\x5c\"\n", "gbk", error),
            "# \xef\xbf\xbd\xef\xbf\xbd \"\xef\xbf\xbd\"\n");
  EXPECT_EQ(AsciiCompatibleText("caf\xe9", "Latin-1", error), "caf\xef\xbf\xbd");
  EXPECT_EQ(AsciiCompatibleText("\x81\x30\x81\x30x", "gb18030", error), "\xef\xbf\xbdx");
  EXPECT_EQ(AsciiCompatibleText("x", "no-such-encoding", error), std::nullopt);
  EXPECT_NE(error.find("unknown encoding"), std::string::npos);
  EXPECT_EQ(AsciiCompatibleText("ab\xd6", "gbk", error), std::nullopt);
  EXPECT_EQ(error, "not valid gbk at byte 2");
}

TEST(DecimalInt64, ReadsDigitsAsPythonsIntDoes) {
  EXPECT_EQ(DecimalInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(DecimalInt64("0000000000000000000007"), 7);
  EXPECT_EQ(DecimalInt64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(DecimalInt64(""), std::nullopt);
  EXPECT_EQ(DecimalInt64("-1"), std::nullopt);
  EXPECT_EQ(DecimalInt64("1 "), std::nullopt);
}

std::string Lines(const std::string& line, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += line;
  return out;
}

TEST(ParseSource, SurvivesLongCommentRunsThatTreeSitterCannotHold) {
  // 65,535 comments in a row wrap tree-sitter 0.20's 16-bit count and corrupt the tree.
  const std::string source = "import x\n" + Lines("# c\n", 70000) + "y = 1\n" + Lines("# kept\n", 3) + "z = 2\n";
  EXPECT_FALSE(WithoutLongCommentRuns("x = 1\n# a\n\n# b\n", Grammar::kPython).has_value());  // usually no copy
  const auto blanked = WithoutLongCommentRuns(source, Grammar::kPython);
  ASSERT_TRUE(blanked.has_value());
  EXPECT_EQ(blanked->size(), source.size());
  auto tree = ParseSource(Grammar::kPython, source, {.threads = 1});  // one part: one root to count in
  ASSERT_TRUE(tree.ok());
  EXPECT_FALSE(tree->has_error());
  EXPECT_EQ(tree->source(), source);  // the tree keeps the text as written
  const TSNode root = tree->root();
  // import, y = 1, the three comments of the short run, z = 2: the long run is blank to the parser.
  ASSERT_EQ(ts_node_named_child_count(root), 6U);
  EXPECT_EQ(tree->Text(ts_node_named_child(root, 1)), "y = 1");
  EXPECT_EQ(tree->Text(ts_node_named_child(root, 2)), "# kept");
  EXPECT_EQ(tree->RangeOf(ts_node_named_child(root, 5)).start.line, 70006);
  for (const Grammar grammar : {Grammar::kBash, Grammar::kJson}) {
    const std::string marker = grammar == Grammar::kJson ? "// c\n" : "# c\n";
    auto other = ParseSource(grammar, Lines(marker, 70000) + (grammar == Grammar::kJson ? "{}\n" : "true\n"));
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(ts_node_named_child_count(other->root()), 1U);
  }
}

TEST(ParseSource, CommentsInABlockTakeLinearTime) {
  // tree-sitter-python looks ahead over the rest of a comment run at each comment in a block.
  const std::string source = "def f():\n" + Lines("    # c\n", 70000) + "    pass\n";
  const auto start = std::chrono::steady_clock::now();
  auto tree = ParseSource(Grammar::kPython, source);
  ASSERT_TRUE(tree.ok());
  EXPECT_FALSE(tree->has_error());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // about 0.05 s; it was minutes
}

TEST(SetSnippet, KeepsOnlyAWindowOfALongLine) {
  Diagnostic d;
  d.range.start = {1, 200001};
  const std::string line = std::string(200000, 'a') + "KEY" + std::string(200000, 'b');
  SetSnippet(d, line);
  EXPECT_LT(d.snippet.size(), 1000U);
  EXPECT_EQ(d.snippet.substr(static_cast<std::size_t>(d.range.start.column - d.snippet_first_column), 3), "KEY");
  SetSnippet(d, "short line");
  EXPECT_EQ(d.snippet, "short line");
  EXPECT_EQ(d.snippet_first_column, 1);
}

TEST(DigitsBetween, MatchesOnlyTheFixedShape) {
  EXPECT_EQ(DigitsBetween("device_12", "device_", "", 2), "12");
  EXPECT_EQ(DigitsBetween("device_0", "device_", "", 2), "0");
  EXPECT_EQ(DigitsBetween("device_123", "device_", "", 2), std::nullopt);  // more digits than allowed
  EXPECT_EQ(DigitsBetween("device_", "device_", "", 2), std::nullopt);     // no digit
  EXPECT_EQ(DigitsBetween("device_1a", "device_", "", 2), std::nullopt);
  EXPECT_EQ(DigitsBetween("xdevice_1", "device_", "", 2), std::nullopt);
  EXPECT_EQ(DigitsBetween("profiler_info_7.json", "profiler_info_", ".json", 9), "7");
  EXPECT_EQ(DigitsBetween("profiler_info_7.json.bak", "profiler_info_", ".json", 9), std::nullopt);
  EXPECT_EQ(DigitsBetween("profiler_info_-7.json", "profiler_info_", ".json", 9), std::nullopt);
  EXPECT_EQ(DigitsBetween("profiler_info_\xd9\xa3.json", "profiler_info_", ".json", 9), std::nullopt);  // not ASCII
  EXPECT_EQ(DigitsBetween("a.db", "a", ".db", 9), std::nullopt);  // prefix and suffix overlap nothing
}

// TextSource's indexed positions are PositionInText's, at every offset of texts with empty
// lines, a final line without a newline, CRLF and multi-byte characters.
TEST(TextSource, IndexedPositionsEqualPositionInTextAtEveryOffset) {
  for (const std::string& text : {std::string(), std::string("\n"), std::string("a\nbc\n\nd"),
                                  std::string("x = 1\r\ny = \"\xc3\xa9\xe4\xb8\xad\"\n\n  z\n")}) {
    const auto source = std::make_shared<const TextSource>("t", std::make_shared<const std::string>(text));
    for (std::size_t offset = 0; offset <= text.size() + 2; ++offset) {
      const SourcePosition indexed = source->PositionOf(offset);
      const SourcePosition scanned = PositionInText(text, offset);
      EXPECT_EQ(indexed.line, scanned.line) << offset;
      EXPECT_EQ(indexed.column, scanned.column) << offset;
    }
  }
}

}  // namespace
}  // namespace opmfu
