// Operators: `a if c else b`, `and`/`or`, `not`, unary minus, and the binary `+` and `/` of
// strings, integers and sequences.
#include <algorithm>
#include <limits>

#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveAlternatives(TSNode node, int depth) const {
  const std::string_view type = ts_node_type(node);
  if (type == "conditional_expression") {
    // `a if c else b`: one side when the traced values decide c.
    if (auto condition =
            context_->every_path ? std::nullopt : EvaluateCondition(ts_node_named_child(node, 1), depth + 1)) {
      return ResolveIn(ts_node_named_child(node, *condition ? 0 : 2), depth + 1);
    }
  }
  // `a if c else b`, `a or b`, `a and b`: any operand can be the result.
  Values out;
  const std::uint32_t count = ts_node_named_child_count(node);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (type == "conditional_expression" && i == 1) continue;  // the condition
    Append(out, ResolveIn(ts_node_named_child(node, i), depth + 1));
  }
  return out;
}

Values Tracer::ResolveUnary(TSNode node, int depth) const {
  Values out;
  if (IsType(node, "not_operator")) {
    for (Value inner : ResolveIn(ChildByField(node, "argument"), depth + 1)) {
      if (inner.kind != ValueKind::kBool) return {Unknown(node, "`not` of a value that is not a bool literal")};
      inner.boolean = !inner.boolean;
      inner.node = node;
      out.push_back(std::move(inner));
    }
    return out;
  }
  const bool minus = module_->tree().Text(ChildByField(node, "operator")) == "-";
  for (Value inner : ResolveIn(ChildByField(node, "argument"), depth + 1)) {
    if (inner.kind == ValueKind::kInt && minus) {
      if (inner.integer == std::numeric_limits<std::int64_t>::min()) {
        out.push_back(BeyondInt64(node));
        continue;
      }
      inner.integer = -inner.integer;
    }
    if (inner.kind == ValueKind::kFloat && minus) inner.real = -inner.real;
    inner.node = node;
    out.push_back(std::move(inner));
  }
  return out;
}

Values Tracer::ResolveBinary(TSNode node, int depth) const {
  Value value;
  value.node = node;
  // Paths: `a + b` and `a / b` (pathlib) on strings. Known only when both sides are literals.
  Values left = ResolveIn(ChildByField(node, "left"), depth + 1);
  Values right = ResolveIn(ChildByField(node, "right"), depth + 1);
  const std::string_view op = module_->tree().Text(ChildByField(node, "operator"));
  if (op == "+" && left.size() == 1 && right.size() == 1 && left[0].kind == ValueKind::kString &&
      right[0].kind == ValueKind::kString) {
    value.kind = ValueKind::kString;
    value.text = left[0].text + right[0].text;
    return {value};
  }
  if (op == "+" && left.size() == 1 && right.size() == 1 && left[0].kind == ValueKind::kInt &&
      right[0].kind == ValueKind::kInt) {
    value.kind = ValueKind::kInt;
    if (__builtin_add_overflow(left[0].integer, right[0].integer, &value.integer)) return {BeyondInt64(node)};
    return {value};
  }
  if (op == "+" && !left.empty() && !right.empty() &&
      std::all_of(left.begin(), left.end(), [](const Value& v) { return v.kind == ValueKind::kSequence; })) {
    Values joined;
    for (const Value& l : left) {
      for (const Value& r : right) {
        if (joined.size() >= kMaxCombinations) break;
        if (auto sum = Concatenate(l, r)) {
          joined.push_back(std::move(*sum));
        } else {
          joined.push_back(r.kind == ValueKind::kUnknown ? r : Unknown(node, "computed by `" + Spelling(node) + "`"));
        }
      }
    }
    return joined;
  }
  const auto is_text = [](const Values& values) {
    return std::all_of(values.begin(), values.end(), [](const Value& v) {
      return v.kind == ValueKind::kString || v.kind == ValueKind::kDynamicString;
    });
  };
  if ((op == "+" || op == "/") && (is_text(left) || is_text(right))) {
    value.kind = ValueKind::kDynamicString;
    return {value};
  }
  return {Unknown(node, "computed by `" + Spelling(node) + "`")};
}

}  // namespace opmfu::python
