#pragma once
// Walking a formula function's own statements: nested functions, lambdas and classes have their
// own returns and are skipped.

#include "common/tree_sitter.h"

namespace opmfu::rules {

template <typename Visit>
void ForEachBodyNode(TSNode function, Visit&& visit) {
  TSNode body = ChildByField(function, "body");
  if (ts_node_is_null(body)) return;
  WalkTree(body, [&](TSNode node) {
    const std::string_view type = ts_node_type(node);
    if (type == "function_definition" || type == "lambda" || type == "class_definition") return false;
    visit(node);
    return true;
  });
}

}  // namespace opmfu::rules
