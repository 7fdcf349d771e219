#include "python/tracer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <limits>
#include <set>

#include "common/text.h"
#include "python/evaluator_internal.h"
#include "python/project.h"

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
    const bool is_and = module_->tree_.Text(ChildByField(node, "operator")) == "and";
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
      if (!ts_node_is_named(child)) op += (op.empty() ? "" : " ") + std::string(module_->tree_.Text(child));
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
  auto found = module_->bindings_.find(std::pair<std::uint32_t, std::string>(scope, std::string(name)));
  if (found == module_->bindings_.end()) return out;
  const std::vector<Binding>& all = found->second;
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

// ---- resolution -------------------------------------------------------------------------------

std::optional<std::string> Tracer::CalleeName(TSNode call) const {
  TSNode function = ChildByField(call, "function");
  if (ts_node_is_null(function)) return std::nullopt;
  for (const Value& callee : ResolveIn(function, 0)) {
    if (callee.kind == ValueKind::kModule || callee.kind == ValueKind::kFunction) return callee.text;
  }
  return QualifiedName(module_->tree_, function, module_->imports_);
}

std::vector<Tracer::Callee> Tracer::Callees(TSNode call) const {
  const std::optional<std::string> everywhere = CalleeName(call);
  std::vector<Callee> out;
  // The name the callee is read through: `prof` of `prof.profile` or of `prof.a.profile`.
  TSNode root = ChildByField(call, "function");
  while (IsType(root, "attribute")) root = ChildByField(root, "object");
  if (IsType(root, "identifier")) {
    const std::string name(module_->tree_.Text(root));
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
  const std::string_view type = ts_node_type(node);
  Value value;
  value.node = node;
  if (type == "true" || type == "false") {
    value.kind = ValueKind::kBool;
    value.boolean = type == "true";
    return {value};
  }
  if (type == "none") {
    value.kind = ValueKind::kNone;
    return {value};
  }
  if (type == "integer") {
    value.kind = ValueKind::kInt;
    std::string digits;
    for (char c : module_->tree_.Text(node)) {
      if (c != '_') digits += c;
    }
    std::int64_t parsed = 0;
    const int base = digits.size() > 2 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))
                         ? (digits[1] == 'x' || digits[1] == 'X'   ? 16
                            : digits[1] == 'o' || digits[1] == 'O' ? 8
                                                                   : 2)
                         : 10;
    const char* begin = digits.data() + (base == 10 ? 0 : 2);
    auto [end, error] = std::from_chars(begin, digits.data() + digits.size(), parsed, base);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      return {Unknown(node, "an integer literal out of range")};
    }
    value.integer = parsed;
    return {value};
  }
  if (type == "float") {
    value.kind = ValueKind::kFloat;
    value.real = std::strtod(std::string(module_->tree_.Text(node)).c_str(), nullptr);
    return {value};
  }
  if (type == "string" || type == "concatenated_string") {
    if (auto text = StringLiteralValue(module_->tree_, node)) {
      value.kind = ValueKind::kString;
      value.text = std::move(*text);
    } else {
      value.kind = ValueKind::kDynamicString;
    }
    return {value};
  }
  if (type == "parenthesized_expression") return ResolveIn(ts_node_named_child(node, 0), depth + 1);
  if (type == "list" || type == "tuple" || type == "set" || type == "expression_list") {
    // `return a, b` and `x = a, b` are tuples written without parentheses.
    value.kind = ValueKind::kSequence;
    value.container = type == "expression_list" ? "tuple" : std::string(type);
    std::vector<Value> combinations = {value};
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode item = ts_node_named_child(node, i);
      if (IsType(item, "comment")) continue;
      Values options = ResolveIn(item, depth + 1);
      if (options.empty()) options.push_back(Unknown(item, "an empty alternative"));
      std::vector<Value> next;
      for (const Value& partial : combinations) {
        for (const Value& option : options) {
          if (next.size() >= kMaxCombinations) break;
          Value extended = partial;
          extended.items.push_back(option);
          next.push_back(std::move(extended));
        }
      }
      combinations = std::move(next);
    }
    return combinations;
  }
  if (type == "dictionary") {
    value.kind = ValueKind::kDict;
    value.container = "dict";
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode pair = ts_node_named_child(node, i);
      if (!IsType(pair, "pair")) continue;
      Values keys = ResolveIn(ChildByField(pair, "key"), depth + 1);
      Values items = ResolveIn(ChildByField(pair, "value"), depth + 1);
      for (const Value& key : keys) {
        for (const Value& item : items) {
          value.keys.push_back(key);
          value.items.push_back(item);
        }
      }
    }
    return {value};
  }
  if (type == "conditional_expression") {
    // `a if c else b`: one side when the traced values decide c.
    if (auto condition =
            context_->every_path ? std::nullopt : EvaluateCondition(ts_node_named_child(node, 1), depth + 1)) {
      return ResolveIn(ts_node_named_child(node, *condition ? 0 : 2), depth + 1);
    }
  }
  if (type == "conditional_expression" || type == "boolean_operator") {
    // `a if c else b`, `a or b`, `a and b`: any operand can be the result.
    Values out;
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      if (type == "conditional_expression" && i == 1) continue;  // the condition
      Append(out, ResolveIn(ts_node_named_child(node, i), depth + 1));
    }
    return out;
  }
  if (type == "not_operator") {
    Values out;
    for (Value inner : ResolveIn(ChildByField(node, "argument"), depth + 1)) {
      if (inner.kind != ValueKind::kBool) return {Unknown(node, "`not` of a value that is not a bool literal")};
      inner.boolean = !inner.boolean;
      inner.node = node;
      out.push_back(std::move(inner));
    }
    return out;
  }
  if (type == "unary_operator") {
    Values out;
    const bool minus = module_->tree_.Text(ChildByField(node, "operator")) == "-";
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
  if (type == "binary_operator") {
    // Paths: `a + b` and `a / b` (pathlib) on strings. Known only when both sides are literals.
    Values left = ResolveIn(ChildByField(node, "left"), depth + 1);
    Values right = ResolveIn(ChildByField(node, "right"), depth + 1);
    const std::string_view op = module_->tree_.Text(ChildByField(node, "operator"));
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
  if (type == "identifier") return ResolveName(module_->tree_.Text(node), node, depth);
  if (type == "attribute") return ResolveAttribute(node, depth);
  if (type == "call") return ResolveCall(node, depth);
  if (type == "subscript") return ResolveSubscript(node, depth);
  if (type == "lambda") {
    value.kind = ValueKind::kFunction;
    value.text = "lambda";
    return {value};
  }
  return {Unknown(node, "computed by `" + Spelling(node) + "`")};
}

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
      if (IsType(binding->value, "augmented_assignment") || IsListUpdate(module_->tree_, binding->value)) {
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
    const bool plus = module_->tree_.Text(ChildByField(update, "operator")) == "+=";
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
  const std::string_view method = module_->tree_.Text(ChildByField(ChildByField(update, "function"), "attribute"));
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
    }
    if (scope == 0 && module_->imports_.contains(name)) {
      // `try: import torch_npu` / `except ImportError: torch_npu = None`: on the path where a
      // profiler is configured at all, the name is the module.
      std::erase_if(reaching, [&](const Binding* binding) {
        return !ts_node_is_null(binding->value) && IsType(binding->value, "none");
      });
    }
    if (!reaching.empty()) return ResolveBindings(reaching, name, depth);
    if (scope == 0) break;
    // A parameter of the enclosing function?
    const Scope& current = module_->scopes_.at(scope);
    if (IsType(current.definition, "function_definition")) {
      TSNode parameters = ChildByField(current.definition, "parameters");
      const std::uint32_t count = ts_node_is_null(parameters) ? 0 : ts_node_named_child_count(parameters);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode parameter = ts_node_named_child(parameters, i);
        TSNode id = IsType(parameter, "identifier") ? parameter : ChildByField(parameter, "name");
        if (ts_node_is_null(id) && IsType(parameter, "typed_parameter")) id = ts_node_named_child(parameter, 0);
        if (!ts_node_is_null(id) && module_->tree_.Text(id) == name) {
          return ResolveParameter(FunctionInfo{current.definition, current.parent}, parameter, name, depth);
        }
      }
    }
    // Otherwise the next scope out (Python skips class bodies here; close enough).
    scope = current.parent;
  }
  if (auto imported = module_->imports_.find(name); imported != module_->imports_.end()) {
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
  const auto& implied = module_->knowledge_->implied_modules;
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

Values Tracer::ResolveParameter(const FunctionInfo& function, TSNode parameter, std::string_view name,
                                int depth) const {
  const std::string function_name(module_->tree_.Text(ChildByField(function.definition, "name")));
  TSNode default_value = ChildByField(parameter, "value");
  // Its position among the positional parameters (a method's `self` is not passed).
  TSNode parameters = ts_node_parent(parameter);
  int position = -1;
  int index = 0;
  const bool method = IsType(module_->scopes_.at(function.scope).definition, "class_definition");
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
    if (module_->tree_.Text(first) == "self" || module_->tree_.Text(first) == "cls") --position;
  }

  const std::string label = "parameter `" + std::string(name) + "` of `" + function_name + "`";
  Values out;
  bool any_call = false;
  // A constructor's arguments are passed by calls of its class.
  const std::string called =
      method && function_name == "__init__"
          ? std::string(module_->tree_.Text(ChildByField(module_->scopes_.at(function.scope).definition, "name")))
          : function_name;
  auto named = module_->calls_by_name_.find(called);
  for (TSNode call : named == module_->calls_by_name_.end() ? std::vector<TSNode>() : named->second) {
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
      auto calls = other->calls_by_name_.find(function_name);
      if (calls == other->calls_by_name_.end()) continue;
      for (TSNode call : calls->second) {
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

std::optional<std::uint32_t> Tracer::EnclosingClass(TSNode node) const {
  for (std::uint32_t scope = ScopeOf(node); scope != 0;) {
    const Scope& current = module_->scopes_.at(scope);
    if (IsType(current.definition, "function_definition") &&
        IsType(module_->scopes_.at(current.parent).definition, "class_definition")) {
      return current.parent;
    }
    scope = current.parent;
  }
  return std::nullopt;
}

std::optional<Values> Tracer::ResolveSelfAttribute(TSNode attribute, int depth) const {
  TSNode object = ChildByField(attribute, "object");
  if (!IsType(object, "identifier") || module_->tree_.Text(object) != "self") return std::nullopt;
  const std::optional<std::uint32_t> owner = EnclosingClass(attribute);
  if (!owner) return std::nullopt;
  const std::string member(module_->tree_.Text(ChildByField(attribute, "attribute")));
  auto found = module_->self_attributes_.find(std::pair<std::uint32_t, std::string>(*owner, member));
  if (found == module_->self_attributes_.end()) return std::nullopt;
  Values out;
  for (TSNode value : found->second) {
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
          module_->knowledge_->constant != nullptr ? module_->knowledge_->constant(qualified) : std::nullopt) {
    value.kind = ValueKind::kEnum;
    value.container = std::string(constant->type);
    value.text = std::string(constant->value);
    if (constant->member != constant->value) value.member = std::string(constant->member);
    if (!constant->patched_value.empty() && ImportsPatch()) {
      // transfer_to_npu patches torch's CUDA activity to torch_npu's NPU
      value.text = std::string(constant->patched_value);
      value.member.clear();
      value.chain.push_back(StepAt(at, "`" + Spelling(at) + "` is " + value.text + " after " +
                                           std::string(LastComponent(module_->knowledge_->patch_module))));
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
  const std::string member(module_->tree_.Text(ChildByField(attribute, "attribute")));
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

Values Tracer::ResolveCall(TSNode call, int depth) const {
  TSNode function = ChildByField(call, "function");
  TSNode arguments = ChildByField(call, "arguments");
  const auto positional = [&](std::uint32_t index) -> TSNode {
    std::uint32_t seen = 0;
    const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(arguments, i);
      if (IsType(child, "keyword_argument") || IsType(child, "comment")) continue;
      if (seen++ == index) return child;
    }
    return TSNode{};
  };
  Value result;
  result.node = call;
  if (IsType(function, "identifier")) {
    const std::string_view builtin = module_->tree_.Text(function);
    if ((builtin == "bool" || builtin == "int" || builtin == "str") && !ts_node_is_null(positional(0)) &&
        ts_node_is_null(positional(1)) && !module_->imports_.contains(builtin) &&
        !module_->bindings_.contains(std::pair<std::uint32_t, std::string>(0, std::string(builtin)))) {
      Values out;
      for (const Value& inner : ResolveIn(positional(0), depth + 1)) out.push_back(Converted(inner, builtin, call));
      return out;
    }
  }
  if (IsType(function, "attribute")) {
    const std::string method(module_->tree_.Text(ChildByField(function, "attribute")));
    if (method == "parse_args" || method == "parse_known_args") {
      result.kind = ValueKind::kNamespace;
      return {result};
    }
    const std::optional<std::string> qualified = QualifiedName(module_->tree_, function, module_->imports_);
    if (qualified && (*qualified == "os.environ.get" || *qualified == "os.getenv"))
      return ResolveEnvironment(call, depth);
    if (method == "get" || method == "lower" || method == "upper" || method == "strip") {
      Values owners = ResolveIn(ChildByField(function, "object"), depth + 1);
      Values out;
      for (const Value& owner : owners) {
        if (owner.kind == ValueKind::kDict && method == "get") {
          TSNode key = positional(0);
          TSNode fallback = positional(1);
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
  }
  Values callees = ResolveIn(function, depth + 1);
  Values out;
  for (const Value& callee : callees) {
    if (callee.kind == ValueKind::kModule && callee.text == "dict") {
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
        key.text = std::string(module_->tree_.Text(ChildByField(child, "name")));
        key.node = ChildByField(child, "name");
        for (Value item : ResolveIn(ChildByField(child, "value"), depth + 1)) {
          dict.keys.push_back(key);
          dict.items.push_back(std::move(item));
        }
      }
      out.push_back(std::move(dict));
    } else if (callee.kind == ValueKind::kModule && callee.text == "vars") {
      Append(out, ResolveIn(positional(0), depth + 1));
    } else if (callee.kind == ValueKind::kModule && callee.text == "getattr") {
      auto member = StringLiteralValue(module_->tree_, positional(1));
      Values owners = ResolveIn(positional(0), depth + 1);
      for (const Value& owner : owners) {
        if (owner.kind == ValueKind::kNamespace && member) {
          const bool defined =
              module_->argparse_.contains(*member) || module_->argparse_set_defaults_.contains(*member);
          if (!defined && !ts_node_is_null(positional(2))) {
            Append(out, ResolveIn(positional(2), depth + 1));
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
                !program()->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), module_->path_))) {
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
          !program()->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), module_->path_)) {
        // Where the trail leaves the program: say so when something is read from the result.
        result.unknown_reason = "defined outside the project root " + program()->locator().root().string();
      }
      out.push_back(result);
    } else if (callee.kind == ValueKind::kUnknown && IsType(function, "identifier")) {
      // An unresolved plain name still names the callee (a builtin, or something from `*`).
      result.kind = ValueKind::kCall;
      result.text = std::string(module_->tree_.Text(function));
      out.push_back(result);
    } else {
      out.push_back(Unknown(call, "returned by `" + Spelling(function) + "(...)`"));
    }
  }
  return out;
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
  const std::string name(module_->tree_.Text(ChildByField(function, "name")));
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

Values Tracer::ResolveSubscript(TSNode subscript, int depth) const {
  Values containers = ResolveIn(ChildByField(subscript, "value"), depth + 1);
  Values keys = ResolveIn(ChildByField(subscript, "subscript"), depth + 1);
  // `os.environ["X"]`: set at run time, by a launcher we do not see here.
  for (const Value& container : containers) {
    if (container.kind == ValueKind::kModule && container.text == "os.environ") {
      const std::string name = keys.size() == 1 && keys[0].kind == ValueKind::kString ? keys[0].text : "?";
      Values out;
      for (const ScriptInvocation& invocation : invocations()) {
        auto found = invocation.environment.find(name);
        if (found == invocation.environment.end() || !found->second.known) {
          out.push_back(Unknown(subscript, "read from $" + name + ", which the launcher does not set"));
          continue;
        }
        Value value;
        value.kind = ValueKind::kString;
        value.text = found->second.text;
        value.node = subscript;
        Note step = found->second.origin;
        step.message = "$" + name + " set by the launcher";
        value.chain = {step};
        out.push_back(std::move(value));
      }
      if (out.empty()) out.push_back(Unknown(subscript, "read from $" + name + " at run time"));
      return out;
    }
  }
  Values out = Lookup(containers, keys, subscript, depth);
  for (Value& value : out) {
    if (value.unknown_reason == "missing key")
      value = Unknown(subscript, "`" + Spelling(subscript) + "` has no such key");
  }
  return out;
}

Values Tracer::Lookup(const Values& containers, const Values& keys, TSNode use, int depth) const {
  Values out;
  for (const Value& container : containers) {
    if (container.kind == ValueKind::kNamespace) {
      for (const Value& key : keys) {
        if (key.kind == ValueKind::kString) Append(out, ResolveArgparse(key.text, use, depth));
      }
      continue;
    }
    if (container.kind == ValueKind::kSequence) {
      for (const Value& key : keys) {
        if (key.kind == ValueKind::kInt && key.integer >= 0 &&
            static_cast<std::size_t>(key.integer) < container.items.size()) {
          out.push_back(container.items[static_cast<std::size_t>(key.integer)]);
        } else {
          out.push_back(Unknown(use, "an index that cannot be followed"));
        }
      }
      continue;
    }
    if (container.kind != ValueKind::kDict) {
      out.push_back(container.kind == ValueKind::kUnknown ? container
                                                          : Unknown(use, "indexing " + container.Describe()));
      continue;
    }
    for (const Value& key : keys) {
      if (key.kind == ValueKind::kUnknown) {
        // An unknown key: any entry of the mapping may be the result.
        for (const Value& item : container.items) {
          out.push_back(
              WithStep(item, StepAt(use, "a value of the mapping (its key is unknown: " + key.unknown_reason + ")")));
        }
        continue;
      }
      bool found = false;
      for (std::size_t i = 0; i < container.keys.size(); ++i) {
        if (!SameLiteral(container.keys[i], key)) continue;
        found = true;
        Value item = container.items[i];
        PrependNotes(item.chain, key.chain);
        if (key.kind == ValueKind::kString && key.spelled_in_launcher) {
          auto lookup = std::make_shared<KeyedLookup>();
          lookup->key_at = *key.spelled_in_launcher;
          for (std::size_t k = 0; k < container.keys.size(); ++k) {
            if (container.keys[k].kind == ValueKind::kString) {
              // What a rule asks of an entry: its kind and text, not its provenance.
              Value gives;
              gives.kind = container.items[k].kind;
              gives.text = container.items[k].text;
              gives.container = container.items[k].container;
              lookup->entries.emplace_back(container.keys[k].text, std::move(gives));
            }
          }
          item.looked_up = std::move(lookup);
        }
        out.push_back(WithStep(std::move(item), StepAt(use, "`" + Spelling(use) + "` with key " + key.Describe())));
      }
      if (!found) {
        Value missing = Unknown(use, "missing key");
        out.push_back(missing);
      }
    }
  }
  return out;
}

std::optional<Tracer::Argument> Tracer::FindArgument(TSNode call, std::string_view keyword, int position) const {
  context_->steps_taken = 0;
  return FindArgumentIn(call, keyword, position, 0);
}

std::optional<Tracer::Argument> Tracer::FindArgumentIn(TSNode call, std::string_view keyword, int position,
                                                       int depth) const {
  TSNode arguments = ChildByField(call, "arguments");
  if (ts_node_is_null(arguments)) return std::nullopt;
  const std::uint32_t count = ts_node_named_child_count(arguments);
  int index = 0;
  std::optional<Argument> through_mapping;
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    const std::string_view type = ts_node_type(child);
    if (type == "comment") continue;
    if (type == "keyword_argument") {
      if (module_->tree_.Text(ChildByField(child, "name")) != keyword) continue;
      Argument argument;
      argument.node = ChildByField(child, "value");
      argument.keyword = child;
      argument.values = ResolveIn(argument.node, depth + 1);
      return argument;
    }
    if (type == "dictionary_splat") {
      TSNode mapping = ts_node_named_child(child, 0);
      Argument argument;
      argument.node = child;
      for (const Value& dict : ResolveIn(mapping, depth + 1)) {
        if (dict.kind == ValueKind::kUnknown) {
          argument.values.push_back(Unknown(child, "passed through `" + Spelling(child) +
                                                       "`, which cannot be followed (" + dict.unknown_reason + ")"));
          continue;
        }
        if (dict.kind != ValueKind::kDict) continue;
        for (std::size_t k = 0; k < dict.keys.size(); ++k) {
          if (dict.keys[k].kind == ValueKind::kString && dict.keys[k].text == keyword) {
            argument.values.push_back(WithStep(dict.items[k], StepAt(child, "`" + Spelling(child) + "`")));
          }
        }
      }
      if (!argument.values.empty()) through_mapping = std::move(argument);
      continue;
    }
    if (type == "list_splat") {
      index = -1000;  // positions after *args cannot be counted
      continue;
    }
    if (position >= 0 && index == position) {
      Argument argument;
      argument.node = child;
      argument.values = ResolveIn(child, depth + 1);
      return argument;
    }
    ++index;
  }
  return through_mapping;
}

}  // namespace opmfu::python
