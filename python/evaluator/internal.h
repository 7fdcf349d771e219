#pragma once
// What the evaluator's files (python/evaluator/*.cpp, the tracer's implementation) share: the
// bounds of one question and small helpers on values. Not part of the layer's interface: only
// python/evaluator/*.cpp include it (tests/unit/layering_test.cpp holds that).

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "common/tree_sitter.h"
#include "python/node_shapes.h"
#include "python/tracer.h"

namespace opmfu::python {

// Deep enough for real alias chains; a cycle (`x = x + 1`) or absurd nesting ends as unknown.
inline constexpr int kMaxDepth = kMaxTraceDepth;
// A list whose items each have several values has many combinations; beyond this, only the
// first combination is kept.
inline constexpr std::size_t kMaxCombinations = 16;
// Values one expression keeps (distinct ones first); see ResolveIn.
inline constexpr std::size_t kMaxValues = 64;

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

}  // namespace opmfu::python
