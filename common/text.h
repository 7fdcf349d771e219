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

/// The one escaper for everything printed that came from an input (names, keys, DB strings, paths):
/// `text` as one printable line, control characters written as escapes (`\n`, `\t`, `\x1b`), the C1
/// controls, line separators and bidirectional controls as `\u009b`, and bytes that are not UTF-8
/// as `\xff`. A message quoting hostile input thus stays one line and puts no byte on a terminal
/// that the terminal acts on. Printable text, UTF-8 included, comes back unchanged.
std::string EscapeControlCharacters(std::string_view text);

/// The digits of a name of fixed shape: when `text` is `prefix`, then 1 to `max_digits` ASCII digits,
/// then `suffix`, those digits ("device_12" with "device_", "", 2 gives "12"); else nullopt. File
/// names opmfu recognises have this shape; std::regex for them cost about 15 s of compile time per
/// file at -O2 and was slower at run time.
std::optional<std::string_view> DigitsBetween(std::string_view text, std::string_view prefix, std::string_view suffix,
                                              std::size_t max_digits);

/// The encoding a Python source declares (PEP 263: `# -*- coding: gbk -*-` on its first line, or on
/// its second when the first is blank or a comment), lower-cased; nullopt without a declaration.
std::optional<std::string> DeclaredPythonEncoding(std::string_view source);

/// `text` in an ASCII-compatible encoding Python knows (gbk, gb18030, big5, shift_jis, latin-1,
/// cp1252, ...) as UTF-8 that keeps its ASCII bytes where they are and puts U+FFFD for each other
/// character, found by the encoding's byte structure: what linting needs of a file PEP 263 declares
/// another encoding for, without a decoder table (glibc's iconv would load gconv modules, which the
/// static binary must not). nullopt when the encoding is unknown or a character is cut short
/// (`error` then says where).
std::optional<std::string> AsciiCompatibleText(std::string_view text, std::string_view encoding, std::string& error);

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

/// `text` as a Python string literal in single quotes, as Python's repr() writes one: `'` and `\`
/// escaped, then control characters as EscapeControlCharacters writes them (`\n`, `\x1b`, `\u009b`),
/// which are Python escapes too. So the literal is one printable line, and Python reads it back as
/// `text` whenever `text` is UTF-8.
std::string PythonStringLiteral(std::string_view text);

/// Quotes a value for a one-line message: 'value', shortened to `max_length` code points, then
/// escaped by EscapeControlCharacters.
std::string QuoteForMessage(std::string_view value, std::size_t max_length = 80);

}  // namespace opmfu
