#include <set>

#include "python/syntax.h"
#include "rules/formula_body.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

namespace {

struct FloatEvidence {
  TSNode node;
  std::string why;
};

// Finds a sub-expression that makes `expression` a float, following local names through their
// assignments. Calls we do not know (helpers) are assumed to return what they should.
class FloatFinder {
 public:
  FloatFinder(const SyntaxTree& tree, TSNode function) : tree_(tree), function_(function) {}

  std::optional<FloatEvidence> Find(TSNode expression, int depth = 0) {
    if (ts_node_is_null(expression) || depth > kMaxDepth) return std::nullopt;
    const std::string_view type = ts_node_type(expression);
    if (type == "float") return FloatEvidence{expression, "the float literal " + std::string(tree_.Text(expression))};
    if (type == "parenthesized_expression" || type == "unary_operator") {
      return Find(ts_node_named_child(expression, ts_node_named_child_count(expression) - 1), depth + 1);
    }
    if (type == "binary_operator") {
      TSNode op = ChildByField(expression, "operator");
      if (!ts_node_is_null(op) && tree_.Text(op) == "/") {
        return FloatEvidence{expression, "true division `" + Short(expression) + "`"};
      }
      if (auto left = Find(ChildByField(expression, "left"), depth + 1)) return left;
      return Find(ChildByField(expression, "right"), depth + 1);
    }
    if (type == "conditional_expression") {
      if (auto body = Find(ts_node_named_child(expression, 0), depth + 1)) return body;
      return Find(ts_node_named_child(expression, 2), depth + 1);
    }
    if (type == "call") {
      const std::string_view callee = tree_.Text(ChildByField(expression, "function"));
      if (callee == "float") return FloatEvidence{expression, "`" + Short(expression) + "`"};
      return std::nullopt;  // int(), round(), math.ceil(), helpers: not a float as far as we can tell
    }
    if (type == "identifier") return FindInAssignments(tree_.Text(expression), depth);
    return std::nullopt;
  }

 private:
  static constexpr int kMaxDepth = 24;

  std::string Short(TSNode node) const {
    std::string text(tree_.Text(node));
    for (char& c : text) {
      if (c == '\n') c = ' ';
    }
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }

  std::optional<FloatEvidence> FindInAssignments(std::string_view name, int depth) {
    if (!visiting_.insert(std::string(name)).second) return std::nullopt;
    std::optional<FloatEvidence> found;
    ForEachBodyNode(function_, [&](TSNode node) {
      if (found) return;
      const bool assignment = IsType(node, "assignment");
      const bool augmented = IsType(node, "augmented_assignment");
      if (!assignment && !augmented) return;
      TSNode left = ChildByField(node, "left");
      if (!IsType(left, "identifier") || tree_.Text(left) != name) return;
      if (augmented && tree_.Text(ChildByField(node, "operator")) == "/=") {
        found = FloatEvidence{node, "true division `" + Short(node) + "`"};
        return;
      }
      found = Find(ChildByField(node, "right"), depth + 1);
    });
    visiting_.erase(std::string(name));
    return found;
  }

  const SyntaxTree& tree_;
  TSNode function_;
  std::set<std::string, std::less<>> visiting_;
};

}  // namespace

void CheckFormulaReturnsFloat(RuleCheckContext& context) {
  for (const registry::Registration& registration : context.file.registrations) {
    if (!IsType(registration.function, "function_definition")) continue;
    FloatFinder finder(context.file.tree, registration.function);
    ForEachBodyNode(registration.function, [&](TSNode node) {
      if (!IsType(node, "return_statement") || ts_node_named_child_count(node) == 0) return;
      auto evidence = finder.Find(ts_node_named_child(node, 0));
      if (!evidence) return;
      Diagnostic& diagnostic = context.Report(
          evidence->node, "formula `" + registration.function_name + "` can return a float: " + evidence->why,
          "FLOPs records must be integers: use `//`, or wrap the result in int(...)");
      if (ts_node_start_point(evidence->node).row != ts_node_start_point(node).row) {
        diagnostic.notes.push_back({context.file.path, context.file.tree.RangeOf(node).start, "it is returned here"});
      }
    });
  }
}

}  // namespace opmfu::rules
