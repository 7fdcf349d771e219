#include "common/python_split.h"

#include <algorithm>
#include <cctype>

namespace opmfu {

namespace {

// One logical line: a statement line with its continuations (brackets, backslashes, strings).
// Blank and comment-only lines are not logical lines.
struct LogicalLine {
  std::size_t begin = 0;  ///< start of its first physical line
  std::size_t begin_row = 0;
  std::size_t content = 0;  ///< first non-blank byte
  bool indented = false;
  bool ends_with_colon = false;  ///< its last token is ':' (a compound statement's header)
};

// Splits the source into logical lines; nullopt on an unterminated string or unbalanced brackets,
// where tree-sitter's error recovery, not ours, should decide what belongs together.
std::optional<std::vector<LogicalLine>> LogicalLines(std::string_view s) {
  std::vector<LogicalLine> lines;
  std::size_t row = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    // At a physical line start, outside any logical line.
    const std::size_t line_begin = i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == '\r')) ++i;
    if (i == s.size()) break;
    if (s[i] == '\n' || s[i] == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      ++i;
      ++row;
      continue;
    }
    LogicalLine line{line_begin, row, i, i > line_begin, false};
    int depth = 0;
    char last = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '\n') {
        ++row;
        ++i;
        if (depth == 0) break;
        continue;
      }
      if (c == '#') {
        while (i < s.size() && s[i] != '\n') ++i;
        continue;
      }
      if (c == '\\') {
        if (i + 1 < s.size() && s[i + 1] == '\n') ++row;
        i += 2;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++i;
        continue;
      }
      last = c;
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) return std::nullopt;
      } else if (c == '\'' || c == '"') {
        const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
        i += triple ? 3 : 1;
        bool closed = false;
        while (i < s.size()) {
          if (s[i] == '\\') {
            if (i + 1 < s.size() && s[i + 1] == '\n') ++row;
            i += 2;
            continue;
          }
          if (s[i] == '\n') {
            if (!triple) return std::nullopt;
            ++row;
          }
          if (s[i] == c && (!triple || (i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c))) {
            i += triple ? 3 : 1;
            closed = true;
            break;
          }
          ++i;
        }
        if (!closed) return std::nullopt;
        continue;
      }
      ++i;
    }
    if (depth != 0) return std::nullopt;
    line.ends_with_colon = last == ':';
    lines.push_back(line);
  }
  return lines;
}

bool StartsWithKeyword(std::string_view text, std::string_view keyword) {
  if (text.substr(0, keyword.size()) != keyword) return false;
  if (text.size() == keyword.size()) return true;
  const auto next = static_cast<unsigned char>(text[keyword.size()]);
  return !(std::isalnum(next) || next == '_');
}

std::string_view ContentOf(std::string_view s, const LogicalLine& line) {
  return s.substr(line.content, std::min<std::size_t>(16, s.size() - line.content));
}

// Lines that continue the statement before them rather than starting a new one.
bool ContinuesCompoundStatement(std::string_view text) {
  for (std::string_view keyword : {"else", "elif", "except", "finally"}) {
    if (StartsWithKeyword(text, keyword)) return true;
  }
  return false;
}

bool IsFunctionHeader(std::string_view text) {
  if (StartsWithKeyword(text, "def")) return true;
  if (!StartsWithKeyword(text, "async")) return false;
  std::size_t i = 5;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return StartsWithKeyword(text.substr(i), "def");
}

std::size_t RowsIn(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

std::vector<SplitPoint> TopLevelSplitPoints(std::string_view s, std::size_t parts) {
  if (parts < 2 || s.empty()) return {};
  const auto lines = LogicalLines(s);
  if (!lines) return {};
  std::vector<SplitPoint> candidates;
  bool after_decorator = false;
  for (const LogicalLine& line : *lines) {
    if (line.indented) continue;
    const std::string_view text = ContentOf(s, line);
    if (!after_decorator && line.begin > 0 && !ContinuesCompoundStatement(text)) {
      candidates.push_back({line.begin, line.begin_row});
    }
    after_decorator = text.front() == '@';
  }
  std::vector<SplitPoint> cuts;
  for (std::size_t k = 1; k < parts; ++k) {
    const std::size_t target = s.size() * k / parts;
    auto it = std::lower_bound(candidates.begin(), candidates.end(), target,
                               [](const SplitPoint& point, std::size_t value) { return point.byte < value; });
    if (it == candidates.end()) break;
    if (!cuts.empty() && it->byte <= cuts.back().byte) continue;
    cuts.push_back(*it);
  }
  return cuts;
}

std::optional<std::vector<SourceSpan>> SignatureSpans(std::string_view s) {
  const auto lines = LogicalLines(s);
  if (!lines) return std::nullopt;
  const std::size_t total_rows = RowsIn(s);
  std::vector<SourceSpan> kept;
  std::size_t cursor = 0;
  std::size_t cursor_row = 0;
  const std::size_t count = lines->size();
  for (std::size_t i = 0; i < count; ++i) {
    const LogicalLine& header = (*lines)[i];
    if (header.indented || !header.ends_with_colon || !IsFunctionHeader(ContentOf(s, header))) continue;
    // The body: indented lines up to the next top-level one. Keep its first statement (the
    // docstring, if any) unless that statement is compound.
    std::size_t next_top = i + 1;
    while (next_top < count && (*lines)[next_top].indented) ++next_top;
    const std::size_t first = i + 1;
    const std::size_t second = i + 2;
    if (first >= next_top || second >= next_top || (*lines)[first].ends_with_colon) continue;
    const std::size_t skip_begin = (*lines)[second].begin;
    const std::size_t skip_begin_row = (*lines)[second].begin_row;
    const std::size_t skip_end = next_top < count ? (*lines)[next_top].begin : s.size();
    const std::size_t skip_end_row = next_top < count ? (*lines)[next_top].begin_row : total_rows;
    if (skip_begin > cursor) kept.push_back({cursor, skip_begin, cursor_row, skip_begin_row});
    cursor = skip_end;
    cursor_row = skip_end_row;
    i = next_top - 1;
  }
  if (cursor < s.size() || kept.empty()) kept.push_back({cursor, s.size(), cursor_row, total_rows});
  return kept;
}

}  // namespace opmfu
