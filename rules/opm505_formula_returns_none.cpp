#include "python/syntax.h"
#include "rules/formula_body.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

namespace {

bool BlockExits(const SyntaxTree& tree, TSNode block);

TSNode LastBlockChild(TSNode node) {
  for (std::uint32_t i = ts_node_named_child_count(node); i > 0; --i) {
    TSNode child = ts_node_named_child(node, i - 1);
    if (IsType(child, "block")) return child;
  }
  return TSNode{};
}

// Whether control can never run past the end of `statement`.
bool StatementExits(const SyntaxTree& tree, TSNode statement) {
  const std::string_view type = ts_node_type(statement);
  if (type == "return_statement" || type == "raise_statement") return true;
  if (type == "if_statement") {
    if (!BlockExits(tree, ChildByField(statement, "consequence"))) return false;
    bool has_else = false;
    const std::uint32_t count = ts_node_named_child_count(statement);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode clause = ts_node_named_child(statement, i);
      if (IsType(clause, "elif_clause") && !BlockExits(tree, ChildByField(clause, "consequence"))) return false;
      if (IsType(clause, "else_clause")) {
        has_else = true;
        if (!BlockExits(tree, ChildByField(clause, "body"))) return false;
      }
    }
    return has_else;
  }
  if (type == "try_statement") {
    bool handlers_exit = BlockExits(tree, ChildByField(statement, "body"));
    const std::uint32_t count = ts_node_named_child_count(statement);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode clause = ts_node_named_child(statement, i);
      if (IsType(clause, "finally_clause") && BlockExits(tree, LastBlockChild(clause))) return true;
      if (IsType(clause, "except_clause") || IsType(clause, "except_group_clause")) {
        handlers_exit = handlers_exit && BlockExits(tree, LastBlockChild(clause));
      }
    }
    return handlers_exit;
  }
  if (type == "with_statement") return BlockExits(tree, ChildByField(statement, "body"));
  if (type == "while_statement") {
    // `while True:` without a break only ends by returning or raising.
    if (!IsType(ChildByField(statement, "condition"), "true")) return false;
    bool breaks = false;
    WalkTree(ChildByField(statement, "body"), [&](TSNode node) {
      const std::string_view inner = ts_node_type(node);
      if (inner == "break_statement") breaks = true;
      return !breaks && inner != "while_statement" && inner != "for_statement" && inner != "function_definition";
    });
    return !breaks;
  }
  return false;
}

bool BlockExits(const SyntaxTree& tree, TSNode block) {
  if (ts_node_is_null(block)) return false;
  const std::uint32_t count = ts_node_named_child_count(block);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (StatementExits(tree, ts_node_named_child(block, i))) return true;
  }
  return false;
}

}  // namespace

void CheckFormulaReturnsNone(RuleCheckContext& context) {
  const SyntaxTree& tree = context.file.tree;
  const std::string help =
      "return an int on every path, and raise (for example ValueError) on shapes the formula "
      "cannot handle: the hook skips the record then";
  for (const registry::Registration& registration : context.file.registrations) {
    if (!IsType(registration.function, "function_definition")) continue;
    const std::string name = "formula `" + registration.function_name + "`";
    ForEachBodyNode(registration.function, [&](TSNode node) {
      if (!IsType(node, "return_statement")) return;
      if (ts_node_named_child_count(node) == 0) {
        context.Report(node, name + " returns None here (a bare `return`), so no FLOPs record is written", help);
      } else if (python::ClassifyLiteral(tree, ts_node_named_child(node, 0)) == python::LiteralKind::kNone) {
        context.Report(node, name + " returns None here, so no FLOPs record is written", help);
      }
    });
    if (!BlockExits(tree, ChildByField(registration.function, "body"))) {
      context.Report(ChildByField(registration.function, "name"),
                     name + " can reach the end of its body without `return`, returning None", help);
    }
  }
}

}  // namespace opmfu::rules
