// Which bindings of a name reach a use: the branches a traced condition decides.
#include <algorithm>

#include "python/evaluator/internal.h"

namespace opmfu::python {

std::optional<bool> Tracer::EvaluateCondition(TSNode node, int depth) const {
  if (ts_node_is_null(node) || depth > kMaxDepth) return std::nullopt;
  const std::string_view type = ts_node_type(node);
  if (type == "parenthesized_expression") return EvaluateCondition(ts_node_named_child(node, 0), depth + 1);
  if (type == "not_operator") {
    auto inner = EvaluateCondition(ChildByField(node, "argument"), depth + 1);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (type == "boolean_operator") {
    auto left = EvaluateCondition(ChildByField(node, "left"), depth + 1);
    auto right = EvaluateCondition(ChildByField(node, "right"), depth + 1);
    const bool is_and = module_->tree().Text(ChildByField(node, "operator")) == "and";
    if (is_and) {
      if ((left && !*left) || (right && !*right)) return false;
      if (left && right) return true;
    } else {
      if ((left && *left) || (right && *right)) return true;
      if (left && right) return false;
    }
    return std::nullopt;
  }
  const auto literal = [](const Value& v) {
    return v.kind == ValueKind::kString || v.kind == ValueKind::kEnum || v.kind == ValueKind::kBool ||
           v.kind == ValueKind::kInt || v.kind == ValueKind::kNone;
  };
  std::optional<bool> agreed;
  bool disagree = false;
  const auto agree = [&](bool result) {
    if (agreed && *agreed != result) disagree = true;
    agreed = result;
  };
  if (type == "comparison_operator") {
    if (ts_node_named_child_count(node) != 2) return std::nullopt;
    std::string op;
    for (std::uint32_t i = 0; i < ts_node_child_count(node); ++i) {
      TSNode child = ts_node_child(node, i);
      if (!ts_node_is_named(child)) op += (op.empty() ? "" : " ") + std::string(module_->tree().Text(child));
    }
    const Values left = ResolveIn(ts_node_named_child(node, 0), depth + 1);
    const Values right = ResolveIn(ts_node_named_child(node, 1), depth + 1);
    for (const Value& l : left) {
      if (!literal(l)) return std::nullopt;
      for (const Value& r : right) {
        if (op == "==" || op == "!=" || op == "is" || op == "is not") {
          if (!literal(r)) return std::nullopt;
          const bool equal = SameLiteral(l, r);
          agree(op == "==" || op == "is" ? equal : !equal);
        } else if (op == "in" || op == "not in") {
          if (r.kind != ValueKind::kSequence && r.kind != ValueKind::kDict) return std::nullopt;
          const auto& members = r.kind == ValueKind::kDict ? r.keys : r.items;
          bool found = false;
          for (const Value& member : members) {
            if (!literal(member)) return std::nullopt;
            found = found || SameLiteral(l, member);
          }
          agree(op == "in" ? found : !found);
        } else {
          return std::nullopt;
        }
      }
    }
    return disagree ? std::nullopt : agreed;
  }
  // Truthiness of a traced value.
  for (const Value& v : ResolveIn(node, depth + 1)) {
    if (!literal(v)) return std::nullopt;
    const bool truthy = v.kind == ValueKind::kBool   ? v.boolean
                        : v.kind == ValueKind::kInt  ? v.integer != 0
                        : v.kind == ValueKind::kNone ? false
                                                     : !v.text.empty();
    agree(truthy);
  }
  return disagree ? std::nullopt : agreed;
}

Tracer::Branch Tracer::BranchTaken(TSNode statement, TSNode node, int depth) const {
  if (context_->every_path) return Branch::kMaybe;
  // Branches in order: the consequence, each elif, the else. One runs: the first whose condition
  // holds.
  bool earlier_maybe = false;
  const std::uint32_t count = ts_node_named_child_count(statement);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode branch = ts_node_named_child(statement, i);
    const std::string_view type = ts_node_type(branch);
    std::optional<bool> condition;
    if (type == "block") {
      condition = EvaluateCondition(ChildByField(statement, "condition"), depth + 1);
    } else if (type == "elif_clause") {
      condition = EvaluateCondition(ChildByField(branch, "condition"), depth + 1);
    } else if (type == "else_clause") {
      condition = true;
    } else {
      continue;
    }
    if (Contains(branch, node)) {
      if (condition && !*condition) return Branch::kNever;
      return condition && !earlier_maybe ? Branch::kAlways : Branch::kMaybe;
    }
    if (condition && *condition) return earlier_maybe ? Branch::kMaybe : Branch::kNever;
    if (!condition) earlier_maybe = true;
  }
  return Branch::kMaybe;
}

std::vector<const Tracer::Binding*> Tracer::Reaching(std::uint32_t scope, std::string_view name, std::uint32_t before,
                                                     int depth) const {
  std::vector<const Binding*> out;
  const std::vector<Binding>* found = module_->BindingsOf(scope, name);
  if (found == nullptr) return out;
  const std::vector<Binding>& all = *found;
  // The bindings that can reach `before`: walking back from the nearest one, every binding up to
  // and including one that runs on every path to the use.
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (ts_node_start_byte(it->target) >= before) continue;
    // `x = x + [...]`: the `x` on the right reads the value from before this assignment.
    if (!ts_node_is_null(it->value) && ts_node_start_byte(it->value) <= before && before < ts_node_end_byte(it->value))
      continue;
    // Conditional blocks around the binding that do not also hold the use make it conditional,
    // unless an if/else assigns the name in every branch. An if branch whose condition the traced
    // values decide is either skipped or as good as unconditional.
    TSNode exhaustive_if{};
    bool conditional = it->from_function;
    bool never = false;
    for (TSNode up = ts_node_parent(it->target); !ts_node_is_null(up); up = ts_node_parent(up)) {
      const std::string_view type = ts_node_type(up);
      if (IsScopeNode(type) || type == "module") break;
      if (!IsConditional(type) || ts_node_end_byte(up) > before) continue;
      if (type == "block" || type == "elif_clause" || type == "else_clause") continue;
      if (type == "if_statement") {
        const Branch taken = BranchTaken(up, it->target, depth);
        if (taken == Branch::kNever) never = true;
        if (taken == Branch::kAlways) continue;
        exhaustive_if = up;
      }
      conditional = true;
    }
    if (never) continue;
    out.push_back(&*it);
    if (!conditional) break;
    if (!ts_node_is_null(exhaustive_if) && ts_node_end_byte(exhaustive_if) <= before) {
      bool has_else = false;
      bool every_branch = true;
      const std::uint32_t count = ts_node_named_child_count(exhaustive_if);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode branch = ts_node_named_child(exhaustive_if, i);
        const std::string_view type = ts_node_type(branch);
        if (type == "else_clause") has_else = true;
        if (type != "block" && type != "elif_clause" && type != "else_clause") continue;
        const bool assigns =
            std::any_of(all.begin(), all.end(), [&](const Binding& b) { return Contains(branch, b.target); });
        every_branch = every_branch && assigns;
      }
      if (has_else && every_branch) {
        // Take the rest of this if statement's bindings, then stop.
        for (++it; it != all.rend() && Contains(exhaustive_if, it->target); ++it) out.push_back(&*it);
        break;
      }
    }
  }
  return out;
}

}  // namespace opmfu::python
