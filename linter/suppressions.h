#pragma once
// Suppression comments, the same for Python and bash (both use `#`):
//   # opmfu: ignore[OPM104]         this line (trailing; the whole command when it ends one continued
//                                   with `\`) or the next statement (own line)
//   # opmfu: disable[OPM104] ... # opmfu: enable[OPM104]
//   # opmfu: file-ignore[OPM104]
//   # opmfu: noqa                   the whole file, every rule (ruff's `# ruff: noqa`); `noqa: OPM104` those
//   # noqa: OPM104                  explicit OPM codes only (any case: `# NOQA:`); a bare `# noqa` hides nothing
// Text after a second `#` is a reason and is ignored.

#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/tree_sitter.h"

namespace opmfu::linter {

/// The code a file-level `# opmfu: noqa` suppresses: every rule.
inline constexpr std::string_view kEveryRule = "*";

struct Suppression {
  std::vector<std::string> codes;  ///< rule ids, as written (names are mapped to ids by the caller)
  int first_line = 0;              ///< inclusive, 1-based
  int last_line = 0;
  SourceRange comment;
  std::uint32_t comment_byte = 0;
  std::string line;  ///< the comment's source line, for findings about the suppression itself
  bool used = false;
};

struct MalformedDirective {
  SourceRange comment;
  std::uint32_t comment_byte = 0;
  std::string line;
  std::string message;
};

struct Suppressions {
  std::vector<Suppression> entries;
  std::vector<MalformedDirective> malformed;
};

/// Reads the directives of a file's comment nodes. `known_code` maps an id or name to a rule id,
/// or returns an empty string for an unknown one.
template <typename KnownCode>
Suppressions ReadSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments, KnownCode&& known_code);

/// Drops the diagnostics a suppression covers and marks those suppressions used.
void ApplySuppressions(Suppressions& suppressions, std::vector<Diagnostic>& diagnostics);
/// Whether a suppression covers `d` (those that do are marked used).
bool Suppresses(Suppressions& suppressions, const Diagnostic& d);

// ---- implementation details the template needs --------------------------------------------------

struct RawDirective {
  enum class Kind { kNone, kIgnore, kDisable, kEnable, kFileIgnore, kNoqa, kMalformed };
  Kind kind = Kind::kNone;
  std::vector<std::string> codes;
  std::string problem;
};
/// Parses one comment's text ("# opmfu: ignore[OPM104]  # reason").
RawDirective ParseDirective(std::string_view comment);
/// The lines an own-line `ignore` covers: the next statement after the comment.
std::pair<int, int> NextStatementLines(const SyntaxTree& tree, TSNode comment);
/// The first line of the command a trailing comment ends: its own line, or the first of the lines
/// before it continued with a `\` (one line to bash and Python).
int FirstContinuedLine(const SyntaxTree& tree, TSNode comment);
/// A line that ends in `\` (trailing blanks aside), which joins the next one to it.
bool ContinuesOnNextLine(std::string_view line);

template <typename KnownCode>
Suppressions ReadSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments, KnownCode&& known_code) {
  Suppressions out;
  std::vector<Suppression> open_ranges;
  const int last_line = tree.PositionAt(static_cast<std::uint32_t>(tree.source().size())).line;
  for (TSNode comment : comments) {
    RawDirective directive = ParseDirective(tree.Text(comment));
    if (directive.kind == RawDirective::Kind::kNone) continue;
    const SourceRange range = tree.RangeOf(comment);
    const std::string line_text(tree.LineOf(ts_node_start_byte(comment)));
    if (directive.kind == RawDirective::Kind::kMalformed) {
      out.malformed.push_back({range, ts_node_start_byte(comment), line_text, directive.problem});
      continue;
    }
    std::vector<std::string> codes;
    for (const std::string& code : directive.codes) {
      std::string id = code == kEveryRule ? code : known_code(code);
      if (id.empty()) {
        if (directive.kind == RawDirective::Kind::kNoqa) continue;  // another tool's code
        out.malformed.push_back(
            {range, ts_node_start_byte(comment), line_text, "unknown rule `" + code + "` in a suppression"});
        continue;
      }
      codes.push_back(std::move(id));
    }
    if (codes.empty()) continue;
    Suppression entry;
    entry.codes = codes;
    entry.comment = range;
    entry.comment_byte = ts_node_start_byte(comment);
    entry.line = line_text;
    const int line = range.start.line;
    // Trailing: code before the comment on its line.
    const std::string_view text_line = tree.LineOf(ts_node_start_byte(comment));
    // Trailing: code before the comment on its line, or a line before it continued into it.
    const int first_line = FirstContinuedLine(tree, comment);
    const bool trailing = first_line < line || text_line.find_first_not_of(" \t") <
                                                   static_cast<std::size_t>(ts_node_start_byte(comment) -
                                                                            (text_line.data() - tree.source().data()));
    switch (directive.kind) {
      case RawDirective::Kind::kIgnore:
      case RawDirective::Kind::kNoqa:
        if (trailing) {
          entry.first_line = first_line;
          entry.last_line = line;
        } else if (directive.kind == RawDirective::Kind::kNoqa) {
          entry.first_line = entry.last_line = line;
        } else {
          std::tie(entry.first_line, entry.last_line) = NextStatementLines(tree, comment);
        }
        out.entries.push_back(entry);
        break;
      case RawDirective::Kind::kFileIgnore:
        entry.first_line = 1;
        entry.last_line = last_line;
        out.entries.push_back(entry);
        break;
      case RawDirective::Kind::kDisable:
        entry.first_line = line;
        entry.last_line = last_line;
        open_ranges.push_back(entry);
        break;
      case RawDirective::Kind::kEnable: {
        bool closed = false;
        for (auto it = open_ranges.begin(); it != open_ranges.end();) {
          if (it->codes == codes) {
            it->last_line = line;
            out.entries.push_back(*it);
            it = open_ranges.erase(it);
            closed = true;
          } else {
            ++it;
          }
        }
        if (!closed)
          out.malformed.push_back({range, ts_node_start_byte(comment), line_text,
                                   "`enable` without a matching `disable` for the same rules"});
        break;
      }
      default:
        break;
    }
  }
  for (Suppression& unclosed : open_ranges) {
    out.malformed.push_back({unclosed.comment, unclosed.comment_byte, unclosed.line,
                             "`disable` is never closed by an `enable`: it covers the rest of the file"});
    out.entries.push_back(unclosed);
  }
  return out;
}

}  // namespace opmfu::linter
