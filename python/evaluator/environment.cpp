// The environment: `os.getenv(...)` and `os.environ.get(...)` from what the launches export.
#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveEnvironment(TSNode call, int depth) const {
  TSNode arguments = ChildByField(call, "arguments");
  TSNode key = ts_node_named_child_count(arguments) > 0 ? ts_node_named_child(arguments, 0) : TSNode{};
  const std::string name =
      ts_node_is_null(key) ? "?" : StringLiteralValue(module_->tree(), key).value_or(Spelling(key));
  Values exported;
  bool unset_somewhere = invocations().empty();
  for (const ScriptInvocation& invocation : invocations()) {
    auto found = invocation.environment.find(name);
    if (found == invocation.environment.end()) {
      unset_somewhere = true;
      continue;
    }
    Value value;
    value.node = call;
    if (found->second.known) {
      value.kind = ValueKind::kString;
      value.text = found->second.text;
    } else {
      value.kind = ValueKind::kDynamicString;
    }
    Note step = found->second.origin;
    step.message = "$" + name + " set by the launcher";
    value.chain = {step};
    exported.push_back(std::move(value));
  }
  if (!unset_somewhere) return exported;
  if (ts_node_named_child_count(arguments) < 2) {
    Value none;
    none.kind = ValueKind::kNone;
    none.node = call;
    exported.push_back(WithStep(none, StepAt(call, "$" + name + " when unset")));
    return exported;
  }
  TSNode fallback = ts_node_named_child(arguments, 1);
  Values out = std::move(exported);
  for (Value value : ResolveIn(fallback, depth + 1)) {
    out.push_back(WithStep(std::move(value), StepAt(fallback, "default of $" + name + " (when unset)")));
  }
  return out;
}

}  // namespace opmfu::python
