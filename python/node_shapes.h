#pragma once
// Shapes of Python syntax nodes that both the index (python/module_index.cpp) and the tracer's
// evaluator (python/evaluator/) ask about. Not part of the layer's interface: include only from
// python/.

#include <string_view>

#include "common/tree_sitter.h"

namespace opmfu::python {

inline bool IsScopeNode(std::string_view type) { return type == "function_definition" || type == "class_definition"; }

inline bool IsConditional(std::string_view type) {
  return type == "if_statement" || type == "elif_clause" || type == "else_clause" || type == "for_statement" ||
         type == "while_statement" || type == "try_statement" || type == "except_clause" || type == "finally_clause" ||
         type == "match_statement" || type == "case_clause" || type == "block";
}

inline bool Contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

// `name.append(x)`, `.extend(xs)`, `.insert(i, x)`, `.add(x)` written as a statement of its own.
inline bool IsListUpdate(const SyntaxTree& tree, TSNode call, TSNode function) {
  // Runs for every call of every file: the method name first, the parent (costly) last.
  if (!IsType(function, "attribute")) return false;
  const std::string_view method = tree.Text(ChildByField(function, "attribute"));
  if (method != "append" && method != "extend" && method != "insert" && method != "add") return false;
  if (!IsType(ChildByField(function, "object"), "identifier")) return false;
  TSNode parent = ts_node_parent(call);
  return !ts_node_is_null(parent) && IsType(parent, "expression_statement");
}

inline bool IsListUpdate(const SyntaxTree& tree, TSNode call) {
  return IsListUpdate(tree, call, ChildByField(call, "function"));
}

// Inside a helper whose own name says it changes choices (`add_parser_argument_choices_value`):
// its calls name the options it changes, so its body does not open every option.
inline bool InChoicesHelper(const SyntaxTree& tree, TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (IsType(up, "function_definition")) {
      return tree.Text(ChildByField(up, "name")).find("choices") != std::string_view::npos;
    }
  }
  return false;
}

}  // namespace opmfu::python
