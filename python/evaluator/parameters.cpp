// A function's parameter: the arguments its calls pass (in this file and the program's other
// modules) or its default.
#include <filesystem>

#include "python/evaluator/internal.h"
#include "python/project.h"

namespace opmfu::python {

Values Tracer::ResolveParameter(const FunctionInfo& function, TSNode parameter, std::string_view name,
                                int depth) const {
  const std::string function_name(module_->tree().Text(ChildByField(function.definition, "name")));
  TSNode default_value = ChildByField(parameter, "value");
  // Its position among the positional parameters (a method's `self` is not passed).
  TSNode parameters = ts_node_parent(parameter);
  int position = -1;
  int index = 0;
  const bool method = IsType(module_->ScopeAt(function.scope).definition, "class_definition");
  const std::uint32_t count = ts_node_named_child_count(parameters);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    const std::string_view type = ts_node_type(p);
    if (type == "keyword_separator" || type == "list_splat_pattern" || type == "dictionary_splat_pattern") break;
    if (ts_node_eq(p, parameter)) {
      position = index;
      break;
    }
    ++index;
  }
  if (method && position >= 0) {
    TSNode first = ts_node_named_child(parameters, 0);
    if (module_->tree().Text(first) == "self" || module_->tree().Text(first) == "cls") --position;
  }

  const std::string label = "parameter `" + std::string(name) + "` of `" + function_name + "`";
  Values out;
  bool any_call = false;
  // A constructor's arguments are passed by calls of its class.
  const std::string called =
      method && function_name == "__init__"
          ? std::string(module_->tree().Text(ChildByField(module_->ScopeAt(function.scope).definition, "name")))
          : function_name;
  const std::vector<TSNode>* named = module_->CallsNamed(called);
  for (TSNode call : named == nullptr ? std::vector<TSNode>() : *named) {
    // `obj.profile(...)` calls some other object's method, not this file's function `profile`;
    // a method is called through an attribute (`self.run(...)`), a function by its name.
    const bool by_name = IsType(ChildByField(call, "function"), "identifier");
    if (by_name == (method && function_name != "__init__")) continue;
    any_call = true;
    auto argument = FindArgumentIn(call, name, position, depth + 1);
    if (argument) {
      for (Value value : argument->values) {
        out.push_back(WithStep(std::move(value), StepAt(argument->node, label + ", passed by `" + called + "(...)`")));
      }
    } else if (!ts_node_is_null(default_value)) {
      for (Value value : ResolveIn(default_value, depth + 1)) {
        out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
      }
    } else {
      out.push_back(Unknown(call, label + " is not passed by this call"));
    }
  }
  if (!any_call && program() != nullptr && function.scope == 0) {
    // A top-level function called from other modules of the program.
    for (const PythonModule* other : program()->Containing(function_name, module_)) {
      const std::vector<TSNode>* calls = other->CallsNamed(function_name);
      if (calls == nullptr) continue;
      for (TSNode call : *calls) {
        const std::optional<std::string> callee = In(*other).CalleeName(call);
        if (!callee || callee->rfind('.') == std::string::npos) continue;
        auto defined_in = program()->locator().Locate(callee->substr(0, callee->rfind('.')), other->path());
        if (!defined_in || !program()->IsFileOf(*defined_in, *module_)) continue;
        any_call = true;
        const std::string passed = label + ", passed by `" + function_name + "(...)` in " +
                                   std::filesystem::path(other->path()).filename().string();
        if (auto argument = In(*other).FindArgumentIn(call, name, position, depth + 1)) {
          for (Value value : FromOtherModule(argument->values, other)) {
            out.push_back(WithStep(std::move(value), other->StepAt(argument->node, passed)));
          }
        } else if (!ts_node_is_null(default_value)) {
          for (Value value : ResolveIn(default_value, depth + 1)) {
            out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
          }
        }
      }
    }
  }
  if (any_call) return out;
  if (!ts_node_is_null(default_value)) {
    for (Value value : ResolveIn(default_value, depth + 1)) {
      out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
    }
    return out;
  }
  return {Unknown(parameter, label + " has no default and no call in this file")};
}

}  // namespace opmfu::python
