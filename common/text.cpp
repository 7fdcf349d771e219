#include "common/text.h"

#include <cctype>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <memory>

namespace opmfu {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> SuggestSpelling(std::string_view word, std::span<const std::string> candidates) {
  const std::size_t budget = std::clamp<std::size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = budget + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, std::span<const std::string> candidates) {
  auto suggestion = SuggestSpelling(word, candidates);
  return suggestion ? " (did you mean '" + *suggestion + "'?)" : std::string();
}

namespace {

// Length of the well-formed UTF-8 sequence at text[pos], or 0 when it is ill-formed.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  if (byte(pos + 1) < second_min || byte(pos + 1) > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

}  // namespace

std::optional<std::size_t> FirstInvalidUtf8(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, pos);
    if (length == 0) return pos;
    pos += length;
  }
  return std::nullopt;
}

bool IsValidUtf8(std::string_view text) { return !FirstInvalidUtf8(text).has_value(); }

namespace {

void AppendHexByte(std::string& out, unsigned char byte) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// A code point a terminal acts on or that reorders or breaks the line around it: the C1 controls
// (U+009B is CSI, as ESC [ is), the line and paragraph separators, the bidirectional controls.
bool IsInvisibleControl(char32_t code_point) {
  return (code_point >= 0x80 && code_point <= 0x9f) || code_point == 0x2028 || code_point == 0x2029 ||
         (code_point >= 0x202a && code_point <= 0x202e) || (code_point >= 0x2066 && code_point <= 0x2069) ||
         code_point == 0x200e || code_point == 0x200f || code_point == 0x061c;
}

char32_t DecodeUtf8(std::string_view sequence) {
  const auto byte = [&](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(sequence[i])); };
  switch (sequence.size()) {
    case 2:
      return ((byte(0) & 0x1f) << 6) | (byte(1) & 0x3f);
    case 3:
      return ((byte(0) & 0x0f) << 12) | ((byte(1) & 0x3f) << 6) | (byte(2) & 0x3f);
    default:
      return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3f) << 12) | ((byte(2) & 0x3f) << 6) | (byte(3) & 0x3f);
  }
}

}  // namespace

std::string EscapeControlCharacters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[pos++];
      continue;
    }
    if (byte < 0x80) {
      if (byte == '\n') {
        out += "\\n";
      } else if (byte == '\t') {
        out += "\\t";
      } else if (byte == '\r') {
        out += "\\r";
      } else {
        AppendHexByte(out, byte);
      }
      ++pos;
      continue;
    }
    const std::size_t length = Utf8SequenceLength(text, pos);
    if (length == 0) {  // not UTF-8: the byte, visibly
      AppendHexByte(out, byte);
      ++pos;
      continue;
    }
    const std::string_view sequence = text.substr(pos, length);
    if (const char32_t code_point = DecodeUtf8(sequence); IsInvisibleControl(code_point)) {
      std::array<char, 12> escaped{};
      std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(code_point));
      out += escaped.data();
    } else {
      out += sequence;
    }
    pos += length;
  }
  return out;
}

std::string SanitizeUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, pos);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++pos;
    } else {
      out.append(text.substr(pos, length));
      pos += length;
    }
  }
  return out;
}

int CodePointCount(std::string_view line, std::size_t byte_count) {
  byte_count = std::min(byte_count, line.size());
  int count = 0;
  for (std::size_t i = 0; i < byte_count; ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::vector<std::size_t> LineStarts(std::string_view text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

std::string_view LineAt(std::string_view text, std::size_t index) {
  std::size_t start = 0;
  for (std::size_t line = 0; line < index; ++line) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(start, end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view TrimWhitespace(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n\f\v");
  return text.substr(first, last - first + 1);
}

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::vector<std::string> SplitString(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t found = text.find(separator, start);
    parts.emplace_back(text.substr(start, found - start));
    if (found == std::string_view::npos) break;
    start = found + 1;
  }
  return parts;
}

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string PythonStringLiteral(std::string_view text) {
  std::string quoted;
  quoted.reserve(text.size());
  for (char c : text) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return "'" + EscapeControlCharacters(quoted) + "'";
}

std::string QuoteForMessage(std::string_view value, std::size_t max_length) {
  // Shortened by code points, never inside a UTF-8 sequence, then escaped as every printed input is.
  std::size_t cut = 0;
  std::size_t shown = 0;
  while (cut < value.size() && shown < max_length) {
    cut += std::max<std::size_t>(1, Utf8SequenceLength(value, cut));
    ++shown;
  }
  cut = std::min(cut, value.size());
  return "'" + EscapeControlCharacters(value.substr(0, cut)) + (cut < value.size() ? "...'" : "'");
}

std::string Join(std::span<const std::string> parts, std::string_view separator) {
  std::string joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined += separator;
    joined += parts[i];
  }
  return joined;
}

std::optional<std::string_view> DigitsBetween(std::string_view text, std::string_view prefix, std::string_view suffix,
                                              std::size_t max_digits) {
  if (text.size() <= prefix.size() + suffix.size() || !text.starts_with(prefix) || !text.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
  if (digits.size() > max_digits) return std::nullopt;
  const bool all_digits = std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!all_digits) return std::nullopt;
  return digits;
}

std::optional<std::int64_t> DecimalInt64(std::string_view digits) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

namespace {

// `coding[:=][ \t]*<name>` in a comment line, as PEP 263's regular expression finds it.
std::optional<std::string> CodingInCommentLine(std::string_view line) {
  const std::size_t hash = line.find_first_not_of(" \t\f");
  if (hash == std::string_view::npos || line[hash] != '#') return std::nullopt;
  for (std::size_t at = line.find("coding", hash); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    std::size_t pos = at + 6;
    if (pos >= line.size() || (line[pos] != ':' && line[pos] != '=')) continue;
    ++pos;
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && (std::isalnum(static_cast<unsigned char>(line[pos])) != 0 || line[pos] == '-' ||
                                 line[pos] == '_' || line[pos] == '.'))
      ++pos;
    if (pos > start) return AsciiLower(line.substr(start, pos - start));
  }
  return std::nullopt;
}

// How an ASCII-compatible encoding Python knows spans one character beyond ASCII: the bytes a lead
// byte takes. Double-byte encodings matter most: their second byte can be ASCII ('\\' is 0x5C), so
// reading them byte by byte would end a string literal early.
enum class ByteStructure { kSingle, kDoubleByte, kGb18030, kShiftJis, kEucJp };

std::optional<ByteStructure> StructureOf(std::string_view encoding) {
  std::string name = AsciiLower(encoding);
  std::replace(name.begin(), name.end(), '_', '-');
  static const char* const kDouble[] = {"gbk",   "gb2312",    "cp936", "ms936", "936", "euc-cn", "big5",  "cp950",
                                        "ms950", "big5hkscs", "cp949", "ms949", "uhc", "euc-kr", "johab", "hz"};
  static const char* const kSingle[] = {"ascii",  "us-ascii", "latin-1", "latin1",      "l1",     "iso-8859-1",
                                        "cp1250", "cp1251",   "cp1252",  "cp1253",      "cp1254", "cp1255",
                                        "cp1256", "cp1257",   "cp1258",  "koi8-r",      "koi8-u", "mac-roman",
                                        "cp437",  "cp850",    "cp866",   "windows-1252"};
  for (const char* known : kDouble) {
    if (name == known) return ByteStructure::kDoubleByte;
  }
  if (name == "gb18030") return ByteStructure::kGb18030;
  if (name == "shift-jis" || name == "sjis" || name == "cp932" || name == "ms932" || name == "shiftjis")
    return ByteStructure::kShiftJis;
  if (name == "euc-jp" || name == "eucjp") return ByteStructure::kEucJp;
  for (const char* known : kSingle) {
    if (name == known) return ByteStructure::kSingle;
  }
  if (name.rfind("iso-8859-", 0) == 0 || name.rfind("windows-125", 0) == 0) return ByteStructure::kSingle;
  return std::nullopt;
}

// The bytes of the character starting at `pos` (a byte >= 0x80), or 0 when it is cut short.
std::size_t CharacterLength(std::string_view text, std::size_t pos, ByteStructure structure) {
  const auto at = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0U; };
  const unsigned lead = at(pos);
  const unsigned second = at(pos + 1);
  switch (structure) {
    case ByteStructure::kSingle:
      return 1;
    case ByteStructure::kDoubleByte:
      return lead >= 0x81 && lead <= 0xfe && second >= 0x40 && second != 0x7f && second != 0xff ? 2 : 0;
    case ByteStructure::kGb18030:
      if (lead == 0x80 || lead == 0xff) return 0;
      if (second >= 0x30 && second <= 0x39) return at(pos + 2) >= 0x81 && at(pos + 3) >= 0x30 ? 4 : 0;
      return second >= 0x40 && second != 0x7f && second != 0xff ? 2 : 0;
    case ByteStructure::kShiftJis:
      if (lead >= 0xa1 && lead <= 0xdf) return 1;  // half-width katakana
      return ((lead >= 0x81 && lead <= 0x9f) || (lead >= 0xe0 && lead <= 0xfc)) && second >= 0x40 && second != 0x7f ? 2
                                                                                                                    : 0;
    case ByteStructure::kEucJp:
      if (lead == 0x8f) return second >= 0xa1 && at(pos + 2) >= 0xa1 ? 3 : 0;
      return second >= 0xa1 || (lead == 0x8e && second >= 0xa1) ? 2 : 0;
  }
  return 0;
}

}  // namespace

std::optional<std::string> DeclaredPythonEncoding(std::string_view source) {
  const std::string_view first = LineAt(source, 0);
  if (auto found = CodingInCommentLine(first)) return found;
  const std::size_t content = first.find_first_not_of(" \t\f\r");
  if (content != std::string_view::npos && first[content] != '#') return std::nullopt;
  return CodingInCommentLine(LineAt(source, 1));
}

std::optional<std::string> AsciiCompatibleText(std::string_view text, std::string_view encoding, std::string& error) {
  const std::optional<ByteStructure> structure = StructureOf(encoding);
  if (!structure) {
    error = "unknown encoding '" + std::string(encoding) + "'";
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  for (std::size_t pos = 0; pos < text.size();) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      out += text[pos++];
      continue;
    }
    const std::size_t length = CharacterLength(text, pos, *structure);
    if (length == 0 || pos + length > text.size()) {
      error = "not valid " + std::string(encoding) + " at byte " + std::to_string(pos);
      return std::nullopt;
    }
    out += "\xEF\xBF\xBD";  // one character, one code point: columns stay where Python counts them
    pos += length;
  }
  return out;
}

}  // namespace opmfu
