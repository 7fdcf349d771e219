#include "common/text.h"

#include <gtest/gtest.h>

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

TEST(QuoteForMessage, EscapesControlCharactersAndShortens) {
  EXPECT_EQ(QuoteForMessage("a\nb\x01"), "'a\\nb\\x01'");
  EXPECT_EQ(QuoteForMessage("abcdef", 3), "'abc...'");
}

}  // namespace
}  // namespace opmfu
