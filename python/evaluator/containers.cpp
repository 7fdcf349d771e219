// Containers: lists, tuples, sets (one value per combination of their items' values) and dicts.
#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveSequence(TSNode node, int depth) const {
  const std::string_view type = ts_node_type(node);
  Value value;
  value.node = node;
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

Values Tracer::ResolveDictionary(TSNode node, int depth) const {
  Value value;
  value.node = node;
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

}  // namespace opmfu::python
