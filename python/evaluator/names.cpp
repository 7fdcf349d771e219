// Names: the bindings that reach a use, updates of a list or counter, enclosing scopes and imports.
#include <algorithm>

#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveBindings(const std::vector<const Binding*>& reaching, std::string_view name, int depth) const {
  const std::string label = "`" + std::string(name) + "`";
  Values out;
  for (const Binding* binding : reaching) {
    if (ts_node_is_null(binding->value)) {
      out.push_back(
          WithStep(Unknown(binding->target, label + " is bound by " + binding->how), StepAt(binding->target, label)));
      continue;
    }
    if (IsType(binding->value, "augmented_assignment") || IsType(binding->value, "call")) {
      if (IsType(binding->value, "augmented_assignment") || IsListUpdate(module_->tree(), binding->value)) {
        for (Value value : ResolveUpdate(*binding, name, depth)) {
          out.push_back(WithStep(std::move(value), StepAt(binding->value, "`" + Spelling(binding->value) + "`")));
        }
        continue;
      }
    }
    if (IsType(binding->value, "function_definition")) {
      Value function;
      function.kind = ValueKind::kFunction;
      function.text = std::string(name);
      function.node = binding->value;
      out.push_back(function);
      continue;
    }
    for (Value value : ResolveIn(binding->value, depth + 1)) {
      if (binding->element >= 0) {
        const auto element = static_cast<std::size_t>(binding->element);
        if (value.kind == ValueKind::kSequence && value.container != "set" && element < value.items.size()) {
          Value item = value.items[element];
          PrependNotes(item.chain, value.chain);
          value = std::move(item);
        } else if (value.kind != ValueKind::kUnknown) {
          value = Unknown(binding->target, label + " is bound by unpacking " + value.Describe());
        }
      }
      out.push_back(WithStep(std::move(value), StepAt(binding->target, label)));
    }
  }
  return out;
}

Values Tracer::ResolveUpdate(const Binding& binding, std::string_view name, int depth) const {
  TSNode update = binding.value;
  const std::string label = "`" + Spelling(update) + "`";
  const Values before = ResolveName(name, binding.target, depth + 1);
  Values out;
  const auto keep = [&](Value value) {
    if (out.size() < kMaxCombinations) out.push_back(std::move(value));
  };
  const auto cannot = [&](const Value& base) {
    keep(base.kind == ValueKind::kUnknown ? base
                                          : Unknown(update, "`" + std::string(name) + "` is changed by " + label));
  };
  if (IsType(update, "augmented_assignment")) {
    const bool plus = module_->tree().Text(ChildByField(update, "operator")) == "+=";
    const Values right = ResolveIn(ChildByField(update, "right"), depth + 1);
    for (const Value& base : before) {
      for (const Value& added : right) {
        std::optional<Value> sum = plus ? Concatenate(base, added) : std::nullopt;
        if (plus && !sum && base.kind == ValueKind::kInt && added.kind == ValueKind::kInt) {
          sum = base;
          if (__builtin_add_overflow(base.integer, added.integer, &sum->integer)) sum = BeyondInt64(update);
        }
        if (plus && !sum && base.kind == ValueKind::kString && added.kind == ValueKind::kString) {
          sum = base;
          sum->text += added.text;
        }
        if (sum) {
          keep(std::move(*sum));
        } else {
          cannot(base);
        }
      }
    }
    return out;
  }
  const std::string_view method = module_->tree().Text(ChildByField(ChildByField(update, "function"), "attribute"));
  std::vector<TSNode> arguments;
  TSNode list = ChildByField(update, "arguments");
  const std::uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(list, i);
    if (!IsType(child, "comment")) arguments.push_back(child);
  }
  const std::size_t wanted = method == "insert" ? 2 : 1;
  for (const Value& base : before) {
    const bool set_add = method == "add" && base.container == "set";
    const bool list_change = method != "add" && base.container == "list";
    if (base.kind != ValueKind::kSequence || (!set_add && !list_change) || arguments.size() != wanted ||
        IsType(arguments.back(), "keyword_argument") || IsType(arguments.back(), "list_splat")) {
      cannot(base);
      continue;
    }
    std::size_t at = base.items.size();  // append, add, extend: at the end
    bool position_known = true;
    if (method == "insert") {
      // list.insert clamps the index to the list, as Python does; negative counts from the end.
      const Values index = ResolveIn(arguments[0], depth + 1);
      position_known = index.size() == 1 && index[0].kind == ValueKind::kInt;
      if (position_known) {
        const auto size = static_cast<std::int64_t>(base.items.size());
        const std::int64_t i = index[0].integer < 0 ? index[0].integer + size : index[0].integer;
        at = static_cast<std::size_t>(std::clamp<std::int64_t>(i, 0, size));
      }
    }
    for (const Value& item : ResolveIn(arguments.back(), depth + 1)) {
      if (!position_known || (method == "extend" && item.kind != ValueKind::kSequence)) {
        cannot(item.kind == ValueKind::kUnknown ? item : base);
        continue;
      }
      Value changed = base;
      if (method == "extend") {
        changed.items.insert(changed.items.end(), item.items.begin(), item.items.end());
      } else {
        changed.items.insert(changed.items.begin() + static_cast<std::ptrdiff_t>(at), item);
      }
      keep(std::move(changed));
    }
  }
  return out;
}

namespace {

// The if/elif/else clauses `node` lies in, innermost first: each (the if statement's start byte,
// the start byte of its consequence block, elif_clause or else_clause holding the node).
std::vector<std::pair<std::uint32_t, std::uint32_t>> ClausesAround(TSNode node) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> clauses;
  for (TSNode child = node, parent = ts_node_parent(node); !ts_node_is_null(parent);
       child = parent, parent = ts_node_parent(parent)) {
    if (IsType(parent, "if_statement") &&
        (IsType(child, "block") || IsType(child, "elif_clause") || IsType(child, "else_clause"))) {
      clauses.emplace_back(ts_node_start_byte(parent), ts_node_start_byte(child));
    }
  }
  return clauses;
}

// Whether two places lie in different clauses of one if statement: no run reaches both.
bool Exclusive(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& a,
               const std::vector<std::pair<std::uint32_t, std::uint32_t>>& b) {
  return std::any_of(a.begin(), a.end(), [&](const auto& clause) {
    return std::any_of(b.begin(), b.end(),
                       [&](const auto& other) { return other.first == clause.first && other.second != clause.second; });
  });
}

}  // namespace

Values Tracer::ResolveName(std::string_view name, TSNode use, int depth) const {
  const std::string label = "`" + std::string(name) + "`";
  const std::uint32_t use_scope = ScopeOf(use);
  for (std::uint32_t scope = use_scope;;) {
    // In an enclosing scope, a name is looked up when the inner code runs: any binding counts.
    const std::uint32_t before = scope == use_scope ? ts_node_start_byte(use) : UINT32_MAX;
    std::vector<const Binding*> reaching = Reaching(scope, name, before, depth);
    if (const std::optional<Path>& path = context_->path;
        path && path->module == module_ && path->scope == scope && path->name == name) {
      // Along one path: the name has the one assignment that path took, where it reaches.
      auto taken = std::find_if(reaching.begin(), reaching.end(), [&](const Binding* binding) {
        return ts_node_start_byte(binding->target) == path->assigned_at;
      });
      if (taken != reaching.end()) reaching = {*taken};
    } else if (path && path->module == module_ && reaching.size() > 1) {
      // Along one path, another name's assignments in a clause the path's assignment excludes
      // (`activities = [... CUDA]` in the else of `prof = torch_npu.profiler`) are not on it.
      const auto& pinned = module_->bindings().find(std::pair{path->scope, path->name});
      if (pinned != module_->bindings().end()) {
        auto binding = std::find_if(pinned->second.begin(), pinned->second.end(), [&](const Binding& b) {
          return ts_node_start_byte(b.target) == path->assigned_at;
        });
        if (binding != pinned->second.end()) {
          const auto taken_clauses = ClausesAround(binding->target);
          std::vector<const Binding*> on_path;
          for (const Binding* candidate : reaching) {
            if (!Exclusive(taken_clauses, ClausesAround(candidate->target))) on_path.push_back(candidate);
          }
          if (!on_path.empty()) reaching = std::move(on_path);
        }
      }
    }
    if (scope == 0 && module_->imports().contains(name)) {
      // `try: import torch_npu` / `except ImportError: torch_npu = None`: on the path where a
      // profiler is configured at all, the name is the module.
      std::erase_if(reaching, [&](const Binding* binding) {
        return !ts_node_is_null(binding->value) && IsType(binding->value, "none");
      });
    }
    if (!reaching.empty()) return ResolveBindings(reaching, name, depth);
    if (scope == 0) break;
    // A parameter of the enclosing function?
    const Scope& current = module_->ScopeAt(scope);
    if (IsType(current.definition, "function_definition")) {
      TSNode parameters = ChildByField(current.definition, "parameters");
      const std::uint32_t count = ts_node_is_null(parameters) ? 0 : ts_node_named_child_count(parameters);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode parameter = ts_node_named_child(parameters, i);
        TSNode id = IsType(parameter, "identifier") ? parameter : ChildByField(parameter, "name");
        if (ts_node_is_null(id) && IsType(parameter, "typed_parameter")) id = ts_node_named_child(parameter, 0);
        if (!ts_node_is_null(id) && module_->tree().Text(id) == name) {
          return ResolveParameter(FunctionInfo{current.definition, current.parent}, parameter, name, depth);
        }
      }
    }
    // Otherwise the next scope out (Python skips class bodies here; close enough).
    scope = current.parent;
  }
  if (auto imported = module_->imports().find(name); imported != module_->imports().end()) {
    if (auto values = ResolveImported(imported->second, depth)) {
      for (Value& value : *values) value = WithStep(std::move(value), StepAt(use, label));
      return *values;
    }
    Value module;
    module.kind = ValueKind::kModule;
    module.text = imported->second;
    module.node = use;
    return {module};
  }
  // `os`, the builtins we follow, and the libraries' implied modules (torch in a snippet that uses
  // it without its import line): the name can only be the module.
  const auto& implied = module_->knowledge().implied_modules;
  if (name == "os" || name == "argparse" || name == "dict" || name == "getattr" || name == "vars" ||
      std::find(implied.begin(), implied.end(), name) != implied.end()) {
    Value builtin;
    builtin.kind = ValueKind::kModule;
    builtin.text = std::string(name);
    builtin.node = use;
    return {builtin};
  }
  return {Unknown(use, label + " is not assigned in this file")};
}

}  // namespace opmfu::python
