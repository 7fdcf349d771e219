#pragma once
// The first stage of reading a launcher: tree-sitter-bash's tree, and the walks over it the
// later stages share (node kinds numbered once, children in one pass, `a && b` chains flattened).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/tree_sitter.h"

namespace opmfu::linter::shell {

// The node types the evaluator tests, numbered once (SymbolKinds) in this order: it tests
// several on every node of every launcher.
enum Kind : std::uint8_t {
  kOther,
  kWord,
  kNumber,
  kExtglobPattern,
  kRawString,
  kString,
  kStringContent,
  kConcatenation,
  kSimpleExpansion,
  kExpansion,
  kComment,
  kVariableAssignment,
  kDeclarationCommand,
  kFunctionDefinition,
  kIfStatement,
  kCaseStatement,
  kForStatement,
  kWhileStatement,
  kCStyleForStatement,
  kCommand,
  kHeredocBody,
  kHeredocRedirect,
  kElifClause,
  kElseClause,
  kCaseItem,
  kArray,
  kSubscript,
  kCommandName,
  kHerestringRedirect,
  kFileRedirect,
  kVariableName,
  kSpecialVariableName,
  kCommandSubstitution,
  kList,
  kRedirectedStatement,
};

Kind KindOf(TSNode node);

/// The id of a field of the bash grammar ("condition", "value", ...).
TSFieldId BashField(std::string_view name);

/// Calls visit(child, field id) for a node's named children in one pass (tree-sitter's
/// ts_node_named_child and ts_node_field_name_for_child walk from the first child on every call).
template <typename Visit>
void ForEachNamedChild(TSNode node, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) visit(child, ts_tree_cursor_current_field_id(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

std::vector<TSNode> NamedChildren(TSNode node);

/// The operands of a chain of lists (`a && b || c`), in order, lists inside it flattened
/// (iteratively: a chain of 30,000 is a valid script); heredoc bodies left out.
std::vector<TSNode> ListCommands(TSNode list);

/// The commands of a substitution that is only commands in sequence (`;`, `&&`, redirections),
/// at most 8; false for anything else.
bool SimpleCommands(TSNode node, std::vector<TSNode>& commands);

/// Parses launcher text. bash ends a command continued by `\` at the end of the file (the next
/// "line" is empty); tree-sitter-bash calls it an error and drops the command's last word. A
/// newline added after the backslash is the same program to bash and parses cleanly; offsets
/// before it are unchanged.
Result<SyntaxTree> ParseLauncher(std::string source, std::string_view file = {});

}  // namespace opmfu::linter::shell
