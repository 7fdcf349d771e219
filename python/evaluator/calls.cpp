// Calls: builtins (`bool`, `int`, `str`, `dict`, `vars`, `getattr`), string and dict methods, the
// environment, functions of the program and what they return.
#include <algorithm>
#include <charconv>

#include "common/text.h"
#include "python/evaluator/internal.h"
#include "python/project.h"

namespace opmfu::python {

namespace {

// The `index`-th positional argument in a call's argument list (keywords and comments are not
// counted); null when there is none.
TSNode PositionalArgument(TSNode arguments, std::uint32_t index) {
  std::uint32_t seen = 0;
  const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    if (IsType(child, "keyword_argument") || IsType(child, "comment")) continue;
    if (seen++ == index) return child;
  }
  return TSNode{};
}

}  // namespace

Values Tracer::ResolveCall(TSNode call, int depth) const {
  TSNode function = ChildByField(call, "function");
  TSNode arguments = ChildByField(call, "arguments");
  const auto positional = [&](std::uint32_t index) { return PositionalArgument(arguments, index); };
  Value result;
  result.node = call;
  if (IsType(function, "identifier")) {
    const std::string_view builtin = module_->tree().Text(function);
    if ((builtin == "bool" || builtin == "int" || builtin == "str") && !ts_node_is_null(positional(0)) &&
        ts_node_is_null(positional(1)) && !module_->imports().contains(builtin) &&
        module_->BindingsOf(0, builtin) == nullptr) {
      Values out;
      for (const Value& inner : ResolveIn(positional(0), depth + 1)) out.push_back(Converted(inner, builtin, call));
      return out;
    }
  }
  if (IsType(function, "attribute")) {
    if (auto values = ResolveMethodCall(call, depth)) return *values;
  }
  Values callees = ResolveIn(function, depth + 1);
  Values out;
  // `result` is shared by the callees of one call: what one callee sets and the next does not
  // (a reason, a chain) stays.
  for (const Value& callee : callees) {
    if (callee.kind == ValueKind::kModule && callee.text == "dict") {
      out.push_back(ResolveDictCall(call, depth));
    } else if (callee.kind == ValueKind::kModule && callee.text == "vars") {
      Append(out, ResolveIn(positional(0), depth + 1));
    } else if (callee.kind == ValueKind::kModule && callee.text == "getattr") {
      ResolveGetattrCall(call, depth, out);
    } else if (callee.kind == ValueKind::kModule && (callee.text == "os.getenv" || callee.text == "os.environ.get")) {
      Append(out, ResolveEnvironment(call, depth));
    } else if (callee.kind == ValueKind::kFunction && !ts_node_is_null(callee.node) &&
               IsType(callee.node, "function_definition")) {
      if (callee.owner != nullptr && callee.owner != module_) {
        Values returned = In(*callee.owner).ResolveReturns(callee.node, TSNode{}, depth + 1);
        for (Value& value : returned) {
          FromOtherModule(value, callee.owner);
          out.push_back(WithStep(std::move(value), StepAt(call, "`" + Spelling(call) + "`")));
        }
      } else {
        Append(out, ResolveReturns(callee.node, call, depth));
      }
    } else if (callee.kind == ValueKind::kModule && !invocations().empty() &&
               LastComponent(callee.text) == "get_args" && callee.text.find('.') != std::string::npos &&
               (program() == nullptr ||
                !program()->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), module_->path()))) {
      // Megatron's and MindSpeed's `get_args()` in a launched program: the namespace their parser
      // made from the command line, so a launch's flags are its values (see ResolveArgparse).
      // Without a launch, a library's framework arguments stay unknown: their defaults are not
      // what any real run uses.
      result.kind = ValueKind::kNamespace;
      result.text = callee.text;
      result.chain = callee.chain;
      out.push_back(result);
    } else if (callee.kind == ValueKind::kModule || callee.kind == ValueKind::kFunction) {
      result.kind = ValueKind::kCall;
      result.text = callee.text;
      result.chain = callee.chain;
      if (program() != nullptr && callee.kind == ValueKind::kModule && callee.text.find('.') != std::string::npos &&
          !program()->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), module_->path())) {
        // Where the trail leaves the program: say so when something is read from the result.
        result.unknown_reason = "defined outside the project root " + program()->locator().root().string();
      }
      out.push_back(result);
    } else if (callee.kind == ValueKind::kUnknown && IsType(function, "identifier")) {
      // An unresolved plain name still names the callee (a builtin, or something from `*`).
      result.kind = ValueKind::kCall;
      result.text = std::string(module_->tree().Text(function));
      out.push_back(result);
    } else {
      out.push_back(Unknown(call, "returned by `" + Spelling(function) + "(...)`"));
    }
  }
  return out;
}

std::optional<Values> Tracer::ResolveMethodCall(TSNode call, int depth) const {
  TSNode function = ChildByField(call, "function");
  TSNode arguments = ChildByField(call, "arguments");
  const std::string method(module_->tree().Text(ChildByField(function, "attribute")));
  if (method == "parse_args" || method == "parse_known_args") {
    Value result;
    result.node = call;
    result.kind = ValueKind::kNamespace;
    return Values{result};
  }
  const std::optional<std::string> qualified = QualifiedName(module_->tree(), function, module_->imports());
  if (qualified && (*qualified == "os.environ.get" || *qualified == "os.getenv"))
    return ResolveEnvironment(call, depth);
  if (method != "get" && method != "lower" && method != "upper" && method != "strip") return std::nullopt;
  Values owners = ResolveIn(ChildByField(function, "object"), depth + 1);
  Values out;
  for (const Value& owner : owners) {
    if (owner.kind == ValueKind::kDict && method == "get") {
      TSNode key = PositionalArgument(arguments, 0);
      TSNode fallback = PositionalArgument(arguments, 1);
      Values found = Lookup({owner}, ResolveIn(key, depth + 1), call, depth);
      const bool missing = found.empty() || std::any_of(found.begin(), found.end(), [](const Value& v) {
                             return v.kind == ValueKind::kUnknown && v.unknown_reason == "missing key";
                           });
      std::erase_if(found, [](const Value& v) { return v.unknown_reason == "missing key"; });
      Append(out, std::move(found));
      if (missing) {
        if (ts_node_is_null(fallback)) {
          Value none;
          none.kind = ValueKind::kNone;
          none.node = call;
          out.push_back(none);
        } else {
          Append(out, ResolveIn(fallback, depth + 1));
        }
      }
    } else if (owner.kind == ValueKind::kString && method != "get") {
      Value changed = owner;
      changed.node = call;
      if (method == "lower") changed.text = AsciiLower(changed.text);
      if (method == "upper") changed.text = AsciiUpper(changed.text);
      if (method == "strip") changed.text = std::string(TrimWhitespace(changed.text));
      out.push_back(std::move(changed));
    } else {
      out.push_back(Unknown(call, "computed by `" + Spelling(call) + "`"));
    }
  }
  return out;
}

Value Tracer::ResolveDictCall(TSNode call, int depth) const {
  TSNode arguments = ChildByField(call, "arguments");
  Value dict;
  dict.kind = ValueKind::kDict;
  dict.container = "dict";
  dict.node = call;
  const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    if (!IsType(child, "keyword_argument")) continue;
    Value key;
    key.kind = ValueKind::kString;
    key.text = std::string(module_->tree().Text(ChildByField(child, "name")));
    key.node = ChildByField(child, "name");
    for (Value item : ResolveIn(ChildByField(child, "value"), depth + 1)) {
      dict.keys.push_back(key);
      dict.items.push_back(std::move(item));
    }
  }
  return dict;
}

void Tracer::ResolveGetattrCall(TSNode call, int depth, Values& out) const {
  TSNode arguments = ChildByField(call, "arguments");
  auto member = StringLiteralValue(module_->tree(), PositionalArgument(arguments, 1));
  Values owners = ResolveIn(PositionalArgument(arguments, 0), depth + 1);
  for (const Value& owner : owners) {
    if (owner.kind == ValueKind::kNamespace && member) {
      TSNode fallback = PositionalArgument(arguments, 2);
      if (!module_->DefinesArgparseDest(*member) && !ts_node_is_null(fallback)) {
        Append(out, ResolveIn(fallback, depth + 1));
      } else {
        Append(out, ResolveArgparse(*member, call, depth));
      }
    } else if (owner.kind == ValueKind::kModule && member) {
      // `getattr(torch_npu.profiler, "_ExperimentalConfig")`: the attribute it names.
      ResolveModuleMember(owner, *member, call, depth, out);
    } else {
      out.push_back(Unknown(call, "computed by `" + Spelling(call) + "`"));
    }
  }
}

Value Tracer::Converted(const Value& inner, std::string_view builtin, TSNode call) const {
  if (inner.kind == ValueKind::kUnknown) return inner;
  Value out = inner;
  out.node = call;
  out.items.clear();
  out.keys.clear();
  out.container.clear();
  const auto unknown = [&] { return Unknown(call, "computed by `" + Spelling(call) + "`"); };
  if (builtin == "bool") {
    out.kind = ValueKind::kBool;
    switch (inner.kind) {
      case ValueKind::kBool:
        return inner;
      case ValueKind::kInt:
        out.boolean = inner.integer != 0;
        return out;
      case ValueKind::kNone:
        out.boolean = false;
        return out;
      case ValueKind::kString:  // bool("False") is True: any non-empty string
        out.boolean = !inner.text.empty();
        return out;
      case ValueKind::kSequence:
      case ValueKind::kDict:
        out.boolean = !inner.items.empty();
        return out;
      default:
        return unknown();
    }
  }
  if (builtin == "int") {
    out.kind = ValueKind::kInt;
    if (inner.kind == ValueKind::kInt) return inner;
    if (inner.kind == ValueKind::kBool) {
      out.integer = inner.boolean ? 1 : 0;
      return out;
    }
    if (inner.kind == ValueKind::kString) {
      const std::string_view digits = TrimWhitespace(inner.text);
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out.integer);
      if (error == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return out;
    }
    return unknown();
  }
  // str()
  out.kind = ValueKind::kString;
  switch (inner.kind) {
    case ValueKind::kString:
      return inner;
    case ValueKind::kEnum:  // library constants here are plain strings ("Level1", "db")
      out.text = inner.text;
      return out;
    case ValueKind::kInt:
      out.text = std::to_string(inner.integer);
      return out;
    case ValueKind::kBool:
      out.text = inner.boolean ? "True" : "False";
      return out;
    case ValueKind::kNone:
      out.text = "None";
      return out;
    case ValueKind::kDynamicString:
      return inner;
    default:
      return unknown();
  }
}

Values Tracer::ResolveReturns(TSNode function, TSNode call, int depth) const {
  // What a function of this file returns: every `return` in its own body (not nested functions).
  const std::string name(module_->tree().Text(ChildByField(function, "name")));
  Values out;
  TSNode body = ChildByField(function, "body");
  if (ts_node_is_null(body)) return {Unknown(call, "returned by `" + name + "(...)`")};
  WalkTree(body, [&](TSNode node) {
    const std::string_view type = ts_node_type(node);
    if (IsScopeNode(type) || type == "lambda") return false;
    if (type != "return_statement") return true;
    TSNode value = ts_node_named_child_count(node) > 0 ? ts_node_named_child(node, 0) : TSNode{};
    if (ts_node_is_null(value)) {
      Value none;
      none.kind = ValueKind::kNone;
      none.node = node;
      out.push_back(WithStep(none, StepAt(node, "returned by `" + name + "()`")));
      return false;
    }
    for (Value v : ResolveIn(value, depth + 1))
      out.push_back(WithStep(std::move(v), StepAt(node, "returned by `" + name + "()`")));
    return false;
  });
  if (out.empty()) return {Unknown(call, "`" + name + "(...)` has no return statement")};
  return out;
}

}  // namespace opmfu::python
