// A call's arguments: by keyword, by position, through `**mapping`.
#include "python/evaluator/internal.h"

namespace opmfu::python {

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
      if (module_->tree().Text(ChildByField(child, "name")) != keyword) continue;
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
