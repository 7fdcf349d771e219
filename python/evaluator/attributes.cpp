// Attributes: `self.x` in a method, a member of a module (a library constant, a value of another
// module), an argparse namespace's option.
#include <algorithm>

#include "python/evaluator/internal.h"

namespace opmfu::python {

std::optional<std::uint32_t> Tracer::EnclosingClass(TSNode node) const {
  for (std::uint32_t scope = ScopeOf(node); scope != 0;) {
    const Scope& current = module_->ScopeAt(scope);
    if (IsType(current.definition, "function_definition") &&
        IsType(module_->ScopeAt(current.parent).definition, "class_definition")) {
      return current.parent;
    }
    scope = current.parent;
  }
  return std::nullopt;
}

std::optional<Values> Tracer::ResolveSelfAttribute(TSNode attribute, int depth) const {
  TSNode object = ChildByField(attribute, "object");
  if (!IsType(object, "identifier") || module_->tree().Text(object) != "self") return std::nullopt;
  const std::optional<std::uint32_t> owner = EnclosingClass(attribute);
  if (!owner) return std::nullopt;
  const std::string member(module_->tree().Text(ChildByField(attribute, "attribute")));
  const std::vector<TSNode>* assigned = module_->SelfAttributeValues(*owner, member);
  if (assigned == nullptr) return std::nullopt;
  Values out;
  for (TSNode value : *assigned) {
    if (Contains(value, attribute)) continue;  // `self.x = f(self.x)`: the earlier values
    for (Value v : ResolveIn(value, depth + 1)) {
      out.push_back(WithStep(std::move(v), StepAt(ts_node_parent(value), "`self." + member + "`")));
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

void Tracer::ResolveModuleMember(const Value& owner, const std::string& member, TSNode at, int depth,
                                 Values& out) const {
  Value value;
  value.node = at;
  value.chain = owner.chain;
  const std::string qualified = owner.text + "." + member;
  if (auto constant =
          module_->knowledge().constant != nullptr ? module_->knowledge().constant(qualified) : std::nullopt) {
    value.kind = ValueKind::kEnum;
    value.container = std::string(constant->type);
    value.text = std::string(constant->value);
    if (constant->member != constant->value) value.member = std::string(constant->member);
    if (!constant->patched_value.empty() && ImportsPatch()) {
      // transfer_to_npu patches torch's CUDA activity to torch_npu's NPU
      value.text = std::string(constant->patched_value);
      value.member.clear();
      value.chain.push_back(StepAt(at, "`" + Spelling(at) + "` is " + value.text + " after " +
                                           std::string(LastComponent(module_->knowledge().patch_module))));
    }
  } else if (auto imported = ResolveImported(qualified, depth)) {
    for (Value& found : *imported) out.push_back(WithStep(std::move(found), StepAt(at, "`" + Spelling(at) + "`")));
    return;
  } else {
    value.kind = ValueKind::kModule;
    value.text = qualified;
  }
  out.push_back(std::move(value));
}

Values Tracer::ResolveAttribute(TSNode attribute, int depth) const {
  if (auto assigned = ResolveSelfAttribute(attribute, depth)) return *assigned;
  TSNode object = ChildByField(attribute, "object");
  const std::string member(module_->tree().Text(ChildByField(attribute, "attribute")));
  Values out;
  const Values owners = ResolveIn(object, depth + 1);
  // `x.attr` raises when x is None, so a path where x is None does not get here: those values are
  // left out while any other remains (`_ARGS = None` at the top, set later through `global`).
  const bool any_other =
      std::any_of(owners.begin(), owners.end(), [](const Value& owner) { return owner.kind != ValueKind::kNone; });
  for (const Value& owner : owners) {
    if (owner.kind == ValueKind::kNone && any_other) continue;
    if (owner.kind == ValueKind::kModule) {
      ResolveModuleMember(owner, member, attribute, depth, out);
    } else if (owner.kind == ValueKind::kNamespace) {
      for (Value value : ResolveArgparse(member, attribute, depth)) {
        if (!owner.text.empty() && value.kind == ValueKind::kUnknown &&
            value.unknown_reason.starts_with("no add_argument")) {
          // A framework's get_args(): its parser is outside the project root.
          value.unknown_reason = "`" + Spelling(attribute) + "` is read from what " + owner.text +
                                 "() returns, defined outside the project root, and no launch passes it";
        }
        out.push_back(WithStep(std::move(value), StepAt(attribute, "`" + Spelling(attribute) + "`")));
      }
    } else if (owner.kind == ValueKind::kUnknown) {
      out.push_back(owner);
    } else {
      std::string where =
          owner.kind == ValueKind::kCall && !owner.unknown_reason.empty() ? ", " + owner.unknown_reason : std::string();
      out.push_back(Unknown(attribute, "`" + Spelling(attribute) + "` is an attribute of " + owner.Describe() + where));
    }
  }
  return out;
}

}  // namespace opmfu::python
