#pragma once
// What the evaluator's files (python/evaluator.cpp, argparse_model.cpp, environment.cpp,
// cross_module.cpp, module_index.cpp) share: the bounds of one question and small helpers on
// values and nodes. Not part of the layer's interface: include only from python/*.cpp.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "common/tree_sitter.h"
#include "python/tracer.h"

namespace opmfu::python {

// Deep enough for real alias chains; a cycle (`x = x + 1`) or absurd nesting ends as unknown.
inline constexpr int kMaxDepth = kMaxTraceDepth;
// A list whose items each have several values has many combinations; beyond this, only the
// first combination is kept.
inline constexpr std::size_t kMaxCombinations = 16;
// Values one expression keeps (distinct ones first); see ResolveIn.
inline constexpr std::size_t kMaxValues = 64;

inline bool IsScopeNode(std::string_view type) { return type == "function_definition" || type == "class_definition"; }

inline bool IsConditional(std::string_view type) {
  return type == "if_statement" || type == "elif_clause" || type == "else_clause" || type == "for_statement" ||
         type == "while_statement" || type == "try_statement" || type == "except_clause" || type == "finally_clause" ||
         type == "match_statement" || type == "case_clause" || type == "block";
}

inline bool Contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

// `name.append(x)`, `.extend(xs)`, `.insert(i, x)`, `.add(x)` written as a statement of its own.
inline bool IsListUpdate(const SyntaxTree& tree, TSNode call, TSNode function) {
  // Runs for every call of every file: the method name first, the parent (costly) last.
  if (!IsType(function, "attribute")) return false;
  const std::string_view method = tree.Text(ChildByField(function, "attribute"));
  if (method != "append" && method != "extend" && method != "insert" && method != "add") return false;
  if (!IsType(ChildByField(function, "object"), "identifier")) return false;
  TSNode parent = ts_node_parent(call);
  return !ts_node_is_null(parent) && IsType(parent, "expression_statement");
}

inline bool IsListUpdate(const SyntaxTree& tree, TSNode call) {
  return IsListUpdate(tree, call, ChildByField(call, "function"));
}
// `a + b` of two lists (or two tuples) of traced items; nullopt for anything else.
inline std::optional<Value> Concatenate(const Value& left, const Value& right) {
  if (left.kind != ValueKind::kSequence || right.kind != ValueKind::kSequence) return std::nullopt;
  if (left.container != right.container || left.container == "set") return std::nullopt;
  Value joined = left;
  joined.items.insert(joined.items.end(), right.items.begin(), right.items.end());
  return joined;
}

inline Value WithStep(Value value, Note step) {
  // The same hop twice in a row says nothing more (PrependNotes).
  if (value.chain.empty() || !SameHop(value.chain.front(), step))
    value.chain.insert(value.chain.begin(), std::move(step));
  return value;
}

inline void Append(Values& into, Values more) {
  into.insert(into.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

inline bool SameLiteral(const Value& a, const Value& b) {
  if (a.kind != b.kind) {
    // An enum constant equals its string value ("Level1" == ProfilerLevel.Level1).
    const bool a_text = a.kind == ValueKind::kString || a.kind == ValueKind::kEnum;
    const bool b_text = b.kind == ValueKind::kString || b.kind == ValueKind::kEnum;
    return a_text && b_text && a.text == b.text;
  }
  switch (a.kind) {
    case ValueKind::kString:
    case ValueKind::kEnum:
      return a.text == b.text;
    case ValueKind::kBool:
      return a.boolean == b.boolean;
    case ValueKind::kInt:
      return a.integer == b.integer;
    case ValueKind::kNone:
      return true;
    default:
      return false;
  }
}

// Values read in another module keep their chain (it names that file) but not their nodes, which
// belong to the other file's tree; a function keeps its definition and says whose it is.
inline void FromOtherModule(Value& value, const PythonModule* other) {
  if (value.kind == ValueKind::kFunction && !ts_node_is_null(value.node)) {
    if (value.owner == nullptr) value.owner = other;
  } else {
    value.node = TSNode{};
  }
  for (Value& item : value.items) FromOtherModule(item, other);
  for (Value& key : value.keys) FromOtherModule(key, other);
}

inline Values FromOtherModule(Values values, const PythonModule* other) {
  for (Value& value : values) FromOtherModule(value, other);
  return values;
}

// Inside a helper whose own name says it changes choices (`add_parser_argument_choices_value`):
// its calls name the options it changes, so its body does not open every option.
inline bool InChoicesHelper(const SyntaxTree& tree, TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (IsType(up, "function_definition")) {
      return tree.Text(ChildByField(up, "name")).find("choices") != std::string_view::npos;
    }
  }
  return false;
}

}  // namespace opmfu::python
