// The questions from outside (Resolve, CalleeName, Callees, Along, OnEveryPath) and the
// dispatch of an expression to the file of its kind.
#include <algorithm>
#include <set>

#include "python/evaluator/internal.h"

namespace opmfu::python {

std::optional<std::string> Tracer::CalleeName(TSNode call) const {
  TSNode function = ChildByField(call, "function");
  if (ts_node_is_null(function)) return std::nullopt;
  for (const Value& callee : ResolveIn(function, 0)) {
    if (callee.kind == ValueKind::kModule || callee.kind == ValueKind::kFunction) return callee.text;
  }
  return QualifiedName(module_->tree(), function, module_->imports());
}

std::vector<Tracer::Callee> Tracer::Callees(TSNode call) const {
  const std::optional<std::string> everywhere = CalleeName(call);
  std::vector<Callee> out;
  // The name the callee is read through: `prof` of `prof.profile` or of `prof.a.profile`.
  TSNode root = ChildByField(call, "function");
  while (IsType(root, "attribute")) root = ChildByField(root, "object");
  if (IsType(root, "identifier")) {
    const std::string name(module_->tree().Text(root));
    const std::uint32_t scope = ScopeOf(root);
    context_->steps_taken = 0;
    const std::vector<const Binding*> reaching = Reaching(scope, name, ts_node_start_byte(root), 0);
    if (reaching.size() > 1) {
      for (const Binding* binding : reaching) {
        Path path{module_, scope, name, ts_node_start_byte(binding->target)};
        const std::optional<std::string> callee = Along(path).CalleeName(call);
        if (!callee) continue;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const Callee& c) { return c.name == *callee; });
        if (!seen) out.push_back({*callee, std::move(path)});
      }
    }
  }
  if (out.size() > 1) return out;
  if (!everywhere) return {};
  return {{*everywhere, std::nullopt}};
}

Tracer Tracer::Along(const Path& path) const {
  auto context = std::make_unique<Context>(*context_);
  context->path = path;
  Tracer along(*module_, *context);
  along.owned_ = std::move(context);
  return along;
}

Tracer Tracer::OnEveryPath() const {
  auto context = std::make_unique<Context>(*context_);
  context->every_path = true;
  Tracer every(*module_, *context);
  every.owned_ = std::move(context);
  return every;
}

Values Tracer::Resolve(TSNode expression) const { return ResolveIn(expression, 0); }

Values Tracer::ResolveIn(TSNode node, int depth) const {
  Values values = ResolveOnce(node, depth);
  if (values.size() <= kMaxValues) return values;
  // Many paths with few distinct values (a wrapper passing one argument on several ways): keep
  // one of each. Past the bound, the rest is unknown, so no rule calls the kept values "every path".
  Values distinct;
  std::set<std::string, std::less<>> seen;
  for (Value& value : values) {
    std::string key = std::to_string(static_cast<int>(value.kind)) + value.Describe() + "\n" + value.unknown_reason;
    if (seen.insert(std::move(key)).second) distinct.push_back(std::move(value));
  }
  if (distinct.size() > kMaxValues) {
    distinct.resize(kMaxValues - 1);
    distinct.push_back(Unknown(node, "the value can be reached along too many paths to follow"));
  }
  return distinct;
}

Values Tracer::ResolveOnce(TSNode node, int depth) const {
  if (ts_node_is_null(node)) return {Unknown(node, "no expression")};
  if (depth == 0) context_->steps_taken = 0;
  if (depth > kMaxDepth) return {Unknown(node, "the value is defined through too many steps")};
  if (++context_->steps_taken > context_->step_budget)
    return {Unknown(node, "the value can be reached along too many paths to follow")};
  // One file per kind of expression (python/evaluator/): literals, containers, operators, names,
  // attributes, calls, subscripts.
  const std::string_view type = ts_node_type(node);
  if (type == "true" || type == "false" || type == "none" || type == "integer" || type == "float" || type == "string" ||
      type == "concatenated_string") {
    return ResolveLiteral(node);
  }
  if (type == "parenthesized_expression") return ResolveIn(ts_node_named_child(node, 0), depth + 1);
  if (type == "list" || type == "tuple" || type == "set" || type == "expression_list") {
    return ResolveSequence(node, depth);
  }
  if (type == "dictionary") return ResolveDictionary(node, depth);
  if (type == "conditional_expression" || type == "boolean_operator") return ResolveAlternatives(node, depth);
  if (type == "not_operator" || type == "unary_operator") return ResolveUnary(node, depth);
  if (type == "binary_operator") return ResolveBinary(node, depth);
  if (type == "identifier") return ResolveName(module_->tree().Text(node), node, depth);
  if (type == "attribute") return ResolveAttribute(node, depth);
  if (type == "call") return ResolveCall(node, depth);
  if (type == "subscript") return ResolveSubscript(node, depth);
  if (type == "lambda") {
    Value value;
    value.node = node;
    value.kind = ValueKind::kFunction;
    value.text = "lambda";
    return {value};
  }
  return {Unknown(node, "computed by `" + Spelling(node) + "`")};
}

}  // namespace opmfu::python
