#include "linter/shell/syntax.h"

#include <utility>

namespace opmfu::linter::shell {

namespace {

const SymbolKinds& Kinds() {
  static const SymbolKinds kinds(Grammar::kBash, {"word",
                                                  "number",
                                                  "extglob_pattern",
                                                  "raw_string",
                                                  "string",
                                                  "string_content",
                                                  "concatenation",
                                                  "simple_expansion",
                                                  "expansion",
                                                  "comment",
                                                  "variable_assignment",
                                                  "declaration_command",
                                                  "function_definition",
                                                  "if_statement",
                                                  "case_statement",
                                                  "for_statement",
                                                  "while_statement",
                                                  "c_style_for_statement",
                                                  "command",
                                                  "heredoc_body",
                                                  "heredoc_redirect",
                                                  "elif_clause",
                                                  "else_clause",
                                                  "case_item",
                                                  "array",
                                                  "subscript",
                                                  "command_name",
                                                  "herestring_redirect",
                                                  "file_redirect",
                                                  "variable_name",
                                                  "special_variable_name",
                                                  "command_substitution",
                                                  "list",
                                                  "redirected_statement"});
  return kinds;
}

}  // namespace

Kind KindOf(TSNode node) { return static_cast<Kind>(Kinds().Of(node)); }

TSFieldId BashField(std::string_view name) {
  return ts_language_field_id_for_name(LanguageOf(Grammar::kBash), name.data(),
                                       static_cast<std::uint32_t>(name.size()));
}

std::vector<TSNode> NamedChildren(TSNode node) {
  // Without the field ids: tree-sitter finds a child's field by walking up the cursor's stack,
  // which grows with the hidden nodes error recovery nests (40,000 unclosed `case x in`).
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) out.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<TSNode> ListCommands(TSNode list) {
  std::vector<TSNode> commands;
  std::vector<TSNode> pending = {list};
  while (!pending.empty()) {
    const TSNode node = pending.back();
    pending.pop_back();
    if (KindOf(node) != kList) {
      if (KindOf(node) != kHeredocBody && KindOf(node) != kHeredocRedirect) commands.push_back(node);
      continue;
    }
    std::vector<TSNode> children = NamedChildren(node);
    pending.insert(pending.end(), children.rbegin(), children.rend());
  }
  return commands;
}

bool SimpleCommands(TSNode node, std::vector<TSNode>& commands) {
  std::vector<TSNode> leaves;
  for (TSNode child : NamedChildren(node)) {
    if (KindOf(child) == kList) {
      std::vector<TSNode> chain = ListCommands(child);
      leaves.insert(leaves.end(), chain.begin(), chain.end());
    } else {
      leaves.push_back(child);
    }
    if (leaves.size() > 64) return false;  // far more than the idioms have: not one of them
  }
  for (TSNode leaf : leaves) {
    const Kind kind = KindOf(leaf);
    if (kind == kCommand) {
      commands.push_back(leaf);
    } else if (kind == kRedirectedStatement) {
      TSNode body = ChildByField(leaf, "body");
      if (ts_node_is_null(body) || KindOf(body) != kCommand) return false;
      commands.push_back(body);
    } else if (kind != kComment) {
      return false;
    }
  }
  return !commands.empty() && commands.size() <= 8;
}

Result<SyntaxTree> ParseLauncher(std::string source, std::string_view file) {
  std::size_t end = source.size();
  if (end > 0 && source[end - 1] == '\n') --end;
  if (end > 0 && source[end - 1] == '\\') {
    std::size_t backslashes = 0;
    for (std::size_t i = end; i > 0 && source[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 1) source += end == source.size() ? "\n\n" : "\n";
  }
  ParseOptions options;
  options.file = file;
  return ParseSource(Grammar::kBash, std::move(source), options);
}

}  // namespace opmfu::linter::shell
