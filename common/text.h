#pragma once
// Small text helpers: spelling suggestions, UTF-8 columns and repair, line access.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opmfu {

/// Levenshtein distance, for "did you mean" hints.
std::size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, if it is close enough to be a plausible typo
/// (ninja's SpellcheckString: at most a third of the word's length, at least 1, at most 3 edits).
std::optional<std::string> SuggestSpelling(std::string_view word, std::span<const std::string> candidates);

/// " (did you mean 'x'?)" or "".
std::string DidYouMean(std::string_view word, std::span<const std::string> candidates);

/// True when `text` is well-formed UTF-8.
bool IsValidUtf8(std::string_view text);

/// Byte offset of the first ill-formed UTF-8 sequence, if any.
std::optional<std::size_t> FirstInvalidUtf8(std::string_view text);

/// `text` with every ill-formed UTF-8 sequence replaced by U+FFFD, so it can go into JSON or a
/// terminal; valid input comes back unchanged.
std::string SanitizeUtf8(std::string_view text);

/// `text` as one printable line: control characters written as escapes (`\n`, `\t`, `\x01`), so a
/// message quoting hostile input stays one line and puts no raw control byte on a terminal.
std::string EscapeControlCharacters(std::string_view text);

/// The digits of a name of fixed shape: when `text` is `prefix`, then 1 to `max_digits` ASCII digits,
/// then `suffix`, those digits ("device_12" with "device_", "", 2 gives "12"); else nullopt. File
/// names opmfu recognises have this shape; std::regex for them cost about 15 s of compile time per
/// file at -O2 and was slower at run time.
std::optional<std::string_view> DigitsBetween(std::string_view text, std::string_view prefix, std::string_view suffix,
                                              std::size_t max_digits);

/// The value of a run of ASCII decimal digits (leading zeros allowed, as Python's int() reads them):
/// nullopt when `digits` is empty, holds anything else, or is above INT64_MAX.
std::optional<std::int64_t> DecimalInt64(std::string_view digits);

/// Number of code points in the first `byte_count` bytes of `line` (clamped to the line).
int CodePointCount(std::string_view line, std::size_t byte_count);

/// Byte offsets where each line starts; lines end at '\n'.
std::vector<std::size_t> LineStarts(std::string_view text);

/// Line `index` (0-based) of `text` without its line break; empty past the end.
std::string_view LineAt(std::string_view text, std::size_t index);

std::string_view TrimWhitespace(std::string_view text);
/// ASCII lower and upper case (identifiers, option names, enum spellings).
std::string AsciiLower(std::string_view text);
std::string AsciiUpper(std::string_view text);
bool StartsWith(std::string_view text, std::string_view prefix);
std::vector<std::string> SplitString(std::string_view text, char separator);
/// The parts with `separator` between them.
std::string Join(std::span<const std::string> parts, std::string_view separator);

/// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, quote or newline.
std::string CsvField(std::string_view text);

/// Quotes a value for a one-line message: 'value', with control characters escaped and
/// long values shortened.
std::string QuoteForMessage(std::string_view value, std::size_t max_length = 80);

}  // namespace opmfu
