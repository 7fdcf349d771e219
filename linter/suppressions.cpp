#include "linter/suppressions.h"

#include <algorithm>
#include <cctype>

#include "common/text.h"

namespace opmfu::linter {

namespace {

std::vector<std::string> SplitCodes(std::string_view list) {
  std::vector<std::string> codes;
  for (std::string_view part : SplitString(list, ',')) {
    const std::string_view code = TrimWhitespace(part);
    if (!code.empty()) codes.emplace_back(code);
  }
  return codes;
}

// ruff's codes go with commas or spaces.
std::vector<std::string> NoqaCodes(std::string_view list) {
  std::vector<std::string> codes;
  for (std::string& code : SplitCodes(list)) {
    for (std::string_view word : SplitString(code, ' ')) {
      if (!TrimWhitespace(word).empty()) codes.emplace_back(TrimWhitespace(word));
    }
  }
  return codes;
}

// `noqa` in any case (`# NOQA: OPM104`, as flake8 and ruff read it).
bool StartsWithNoqa(std::string_view text) {
  if (text.size() < 4) return false;
  return std::equal(text.begin(), text.begin() + 4, "noqa",
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

}  // namespace

RawDirective ParseDirective(std::string_view comment) {
  RawDirective directive;
  std::string_view text = comment;
  if (text.starts_with('#')) text.remove_prefix(1);
  text = TrimWhitespace(text);
  // The reason after a second '#'.
  if (const std::size_t hash = text.find('#'); hash != std::string_view::npos)
    text = TrimWhitespace(text.substr(0, hash));
  if (StartsWithNoqa(text)) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return directive;  // bare noqa: not ours
    directive.kind = RawDirective::Kind::kNoqa;
    directive.codes = NoqaCodes(text.substr(colon + 1));
    return directive;
  }
  if (!text.starts_with("opmfu:")) return directive;
  text = TrimWhitespace(text.substr(6));
  // ruff's file-level `# ruff: noqa` (every rule) and `# ruff: noqa: F401` (those rules), spelled for opmfu.
  if (StartsWithNoqa(text)) {
    directive.kind = RawDirective::Kind::kFileIgnore;
    const std::string_view rest = TrimWhitespace(text.substr(4));
    if (rest.empty()) {
      directive.codes = {std::string(kEveryRule)};
    } else if (rest.starts_with(':') && !(directive.codes = NoqaCodes(rest.substr(1))).empty()) {
    } else {
      directive.kind = RawDirective::Kind::kMalformed;
      directive.problem = "`opmfu: noqa` takes the rules after a colon, e.g. `opmfu: noqa: OPM104`, or none for all";
    }
    return directive;
  }
  const std::size_t open = text.find('[');
  const std::string_view verb = TrimWhitespace(text.substr(0, open));
  static constexpr std::pair<std::string_view, RawDirective::Kind> kVerbs[] = {
      {"ignore", RawDirective::Kind::kIgnore},
      {"disable", RawDirective::Kind::kDisable},
      {"enable", RawDirective::Kind::kEnable},
      {"file-ignore", RawDirective::Kind::kFileIgnore}};
  const auto found = std::find_if(std::begin(kVerbs), std::end(kVerbs), [&](const auto& v) { return v.first == verb; });
  directive.kind = RawDirective::Kind::kMalformed;
  if (found == std::end(kVerbs)) {
    directive.problem =
        "unknown directive `opmfu: " + std::string(verb) + "` (expected ignore, disable, enable or file-ignore)";
    return directive;
  }
  const std::size_t close = text.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    directive.problem =
        "`opmfu: " + std::string(verb) + "` needs the rules in brackets, e.g. `" + std::string(verb) + "[OPM104]`";
    return directive;
  }
  directive.codes = SplitCodes(text.substr(open + 1, close - open - 1));
  if (directive.codes.empty()) {
    directive.problem = "`opmfu: " + std::string(verb) + "[]` names no rule";
    return directive;
  }
  directive.kind = found->second;
  return directive;
}

std::pair<int, int> NextStatementLines(const SyntaxTree& tree, TSNode comment) {
  // The first named node that starts after the comment and is not a comment: climb to the
  // outermost node starting there, so a multi-line call is covered whole.
  TSNode node = ts_node_next_named_sibling(comment);
  while (!ts_node_is_null(node) && IsType(node, "comment")) node = ts_node_next_named_sibling(node);
  const int line = tree.RangeOf(comment).start.line;
  if (ts_node_is_null(node)) return {line + 1, line + 1};
  return {tree.RangeOf(node).start.line, tree.RangeOf(node).end.line};
}

bool ContinuesOnNextLine(std::string_view line) {
  const std::size_t last = line.find_last_not_of(" \t\r\n");
  return last != std::string_view::npos && line[last] == '\\';
}

int FirstContinuedLine(const SyntaxTree& tree, TSNode comment) {
  const std::string& source = tree.source();
  int line = tree.RangeOf(comment).start.line;
  std::size_t start = tree.LineOf(ts_node_start_byte(comment)).data() - source.data();
  while (start > 0) {
    const std::string_view before = tree.LineOf(static_cast<std::uint32_t>(start - 1));
    if (!ContinuesOnNextLine(before)) break;
    --line;
    start = before.data() - source.data();
  }
  return line;
}

bool Suppresses(Suppressions& suppressions, const Diagnostic& d) {
  bool suppressed = false;
  for (Suppression& s : suppressions.entries) {
    if (d.range.start.line < s.first_line || d.range.start.line > s.last_line) continue;
    if (std::find(s.codes.begin(), s.codes.end(), d.rule_id) == s.codes.end() &&
        std::find(s.codes.begin(), s.codes.end(), kEveryRule) == s.codes.end()) {
      continue;
    }
    s.used = true;
    suppressed = true;
  }
  return suppressed;
}

void ApplySuppressions(Suppressions& suppressions, std::vector<Diagnostic>& diagnostics) {
  std::erase_if(diagnostics, [&](const Diagnostic& d) { return Suppresses(suppressions, d); });
}

}  // namespace opmfu::linter
