#include "lint/add_noqa.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>

#include "common/text_edit.h"
#include "common/tree_sitter.h"
#include "lint/inputs.h"
#include "lint/stage.h"
#include "linter/suppressions.h"
#include "rules/rule_table.h"

namespace opmfu::lint {

namespace {

// A finding a noqa can hide: not one of the checks of the linting itself (a syntax error, a
// suppression, a limit, "nothing was checked"), which are reported whatever a noqa says.
bool TakesNoqa(std::string_view rule_id) {
  const rules::RuleInfo* rule = rules::FindRule(rule_id);
  return rule != nullptr && rule->scope != rules::RuleScope::kMeta &&
         !std::holds_alternative<rules::MetaCheck>(rule->check);
}

// The deepest node holding the byte at `at`, in whichever part of the file holds it.
TSNode NodeAt(const SyntaxTree& tree, std::uint32_t at) {
  for (TSNode root : tree.roots()) {
    if (ts_node_start_byte(root) <= at && at < ts_node_end_byte(root)) {
      return ts_node_descendant_for_byte_range(root, at, at + 1);
    }
  }
  return TSNode{};
}

// A string or heredoc that goes on past the line's end: a `#` there would be part of its text.
// (Python's implicit concatenation across lines is not one: a comment may stand between the parts.)
bool InsideMultiLineText(TSNode node, std::uint32_t line_end) {
  static constexpr std::string_view kTexts[] = {"string",       "string_content",  "raw_string",       "ansi_c_string",
                                                "heredoc_body", "heredoc_content", "translated_string"};
  for (; !ts_node_is_null(node); node = ts_node_parent(node)) {
    const std::string_view type = ts_node_type(node);
    if (std::find(std::begin(kTexts), std::end(kTexts), type) != std::end(kTexts) &&
        ts_node_end_byte(node) > line_end) {
      return true;
    }
  }
  return false;
}

std::string NoqaComment(const std::set<std::string>& codes) {
  std::string text = "# noqa: ";
  for (const std::string& code : codes) text += (text.back() == ' ' ? "" : ", ") + code;
  return text;
}

// The edit that puts `codes` in a noqa at the end of the line [start, end) of `tree`'s source;
// nullopt when the line cannot take one.
std::optional<TextEdit> NoqaEdit(const SyntaxTree& tree, std::uint32_t start, std::uint32_t end,
                                 std::set<std::string> codes, bool continued_into) {
  const std::string_view line = std::string_view(tree.source()).substr(start, end - start);
  const std::size_t last = line.find_last_not_of(" \t\r");
  // A blank line a `\` runs into ends that command: the directive goes there alone.
  if (last == std::string_view::npos && continued_into) {
    const auto at = static_cast<std::uint32_t>(start + std::min(line.size(), line.find_first_of('\r')));
    return TextEdit{at, at, NoqaComment(codes) + (at == tree.source().size() ? "\n" : "")};
  }
  if (last == std::string_view::npos || linter::ContinuesOnNextLine(line))
    return std::nullopt;  // blank, or continued to the end
  const auto at = static_cast<std::uint32_t>(start + last);
  const TSNode node = NodeAt(tree, at);
  if (ts_node_is_null(node) || InsideMultiLineText(node, end)) return std::nullopt;
  if (std::string_view(ts_node_type(node)) != "comment" || ts_node_start_byte(node) < start) {
    return TextEdit{at + 1, at + 1, "  " + NoqaComment(codes)};
  }
  // The line has a comment already: a plain one becomes the directive's reason, a noqa takes the
  // codes it lacks, another directive is left as it is (its own reason would swallow ours).
  const std::string_view comment = tree.Text(node);
  const linter::RawDirective directive = linter::ParseDirective(comment);
  if (directive.kind == linter::RawDirective::Kind::kNone) {
    return TextEdit{ts_node_start_byte(node), ts_node_start_byte(node), NoqaComment(codes) + "  "};
  }
  if (directive.kind != linter::RawDirective::Kind::kNoqa) return std::nullopt;
  const bool covered = std::all_of(codes.begin(), codes.end(), [&](const std::string& code) {
    return std::find(directive.codes.begin(), directive.codes.end(), code) != directive.codes.end();
  });
  if (covered) return std::nullopt;  // reported all the same: the directive does not reach the finding
  codes.insert(directive.codes.begin(), directive.codes.end());
  const std::size_t reason = comment.find('#', 1);
  std::string text = NoqaComment(codes);
  if (reason != std::string_view::npos) text += "  " + std::string(comment.substr(reason));
  return TextEdit{ts_node_start_byte(node), ts_node_end_byte(node), std::move(text)};
}

}  // namespace

NoqaEdits AddNoqaDirectives(const LintReport& report, const LintOptions& options) {
  NoqaEdits out;
  const FileReader& files = FilesOf(options);
  // Each finding goes to the file it is reported in, whichever file's list holds it and by
  // whichever name (a launcher named, and reached again from another one).
  std::map<std::string, std::string> identity_of;
  const auto identity = [&](const std::string& path) -> const std::string& {
    auto found = identity_of.find(path);
    if (found == identity_of.end()) found = identity_of.emplace(path, Identity(files, path)).first;
    return found->second;
  };
  std::map<std::string, std::vector<const Diagnostic*>, std::less<>> findings_in;
  for (const LintedFile& file : report.files) findings_in[identity(file.path)];
  // One finding may be in two files' lists (a launcher's, and the script's it was found through).
  std::set<std::tuple<std::string, int, int, std::string_view, std::string_view>> seen;
  for (const LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (!seen.emplace(identity(d.file), d.range.start.line, d.range.start.column, d.rule_id, d.message).second) {
        continue;
      }
      const auto target = findings_in.find(identity(d.file));
      if (target == findings_in.end() || !TakesNoqa(d.rule_id)) {
        ++out.left_reported;
        continue;
      }
      target->second.push_back(&d);
    }
  }
  std::set<std::string> edited;  // by identity: a file listed twice is edited once
  for (const LintedFile& file : report.files) {
    if (!edited.insert(identity(file.path)).second) continue;
    const std::vector<const Diagnostic*>& findings = findings_in[identity(file.path)];
    if (findings.empty()) continue;
    if (!file.parsed_cleanly || file.path.ends_with(".json") || file.source.empty()) {
      out.left_reported += findings.size();
      continue;
    }
    auto tree = ParseSource(file.path.ends_with(".py") ? Grammar::kPython : Grammar::kBash, file.source);
    if (!tree.ok()) {
      out.left_reported += findings.size();
      continue;
    }
    std::vector<std::uint32_t> line_starts{0};
    for (std::uint32_t i = 0; i < file.source.size(); ++i) {
      if (file.source[i] == '\n') line_starts.push_back(i + 1);
    }
    const int lines = static_cast<int>(line_starts.size());
    // [start, end) of a 1-based line, without its line break.
    const auto bounds = [&](int line) {
      const std::uint32_t start = line_starts[static_cast<std::size_t>(line - 1)];
      const std::uint32_t end = line < lines ? line_starts[static_cast<std::size_t>(line)] - 1
                                             : static_cast<std::uint32_t>(file.source.size());
      return std::pair{start, end};
    };
    const auto continued = [&](int line) {
      const auto [start, end] = bounds(line);
      return linter::ContinuesOnNextLine(std::string_view(file.source).substr(start, end - start));
    };
    // A finding on a line continued with `\` takes its directive at the command's last line, which
    // covers the whole command (linter/suppressions.h).
    std::map<int, std::set<std::string>> codes_by_line;
    std::map<int, std::size_t> findings_by_line;
    for (const Diagnostic* d : findings) {
      int line = d->range.start.line;
      if (line < 1 || line > lines) {
        ++out.left_reported;
        continue;
      }
      while (line < lines && continued(line)) ++line;
      codes_by_line[line].insert(d->rule_id);
      ++findings_by_line[line];
    }
    std::vector<TextEdit> edits;
    std::size_t covered = 0;
    for (const auto& [line, codes] : codes_by_line) {
      const std::size_t count = findings_by_line[line];
      const auto [start, end] = bounds(line);
      std::optional<TextEdit> edit = NoqaEdit(*tree, start, end, codes, line > 1 && continued(line - 1));
      if (!edit) {
        out.left_reported += count;
        continue;
      }
      edits.push_back(std::move(*edit));
      covered += count;
    }
    if (edits.empty()) continue;
    auto fixed = ApplyEdits(file.source, edits);
    if (!fixed.ok()) {
      out.left_reported += findings.size();
      continue;
    }
    out.directives += edits.size();
    out.files.push_back({file.path, file.source, std::move(*fixed), covered, false});
  }
  return out;
}

}  // namespace opmfu::lint
