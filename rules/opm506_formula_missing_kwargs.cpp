#include <algorithm>

#include "python/syntax.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckFormulaMissingKwargs(RuleCheckContext& context) {
  for (const registry::Registration& registration : context.file.registrations) {
    if (!IsType(registration.function, "function_definition")) continue;
    TSNode parameters = ChildByField(registration.function, "parameters");
    if (ts_node_is_null(parameters)) continue;
    bool has_kwargs = false;
    const std::uint32_t count = ts_node_named_child_count(parameters);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode parameter = ts_node_named_child(parameters, i);
      if (IsType(parameter, "comment")) continue;
      const bool typed_splat =
          IsType(parameter, "typed_parameter") && IsType(ts_node_named_child(parameter, 0), "dictionary_splat_pattern");
      has_kwargs = has_kwargs || IsType(parameter, "dictionary_splat_pattern") || typed_splat;
    }
    if (has_kwargs) continue;
    // A parameter may already be called `kwargs` (`def f(a, kwargs)`): a second one would not compile.
    const std::vector<std::string> taken = python::ParameterNames(context.file.tree, parameters);
    std::string splat = "kwargs";
    while (std::find(taken.begin(), taken.end(), splat) != taken.end()) splat += "_";
    Fix fix;
    fix.message = "add `**" + splat + "` to the parameters of `" + registration.function_name + "`";
    fix.edits.push_back(python::AppendItemEdit(context.file.tree, parameters, "**" + splat));
    context
        .Report(ChildByField(registration.function, "name"),
                "formula `" + registration.function_name +
                    "` does not accept **kwargs: a call that passes a keyword it does not name raises inside the "
                    "hook, and that call gets no FLOPs record",
                "mirror the real API's parameter names and defaults, and end the signature with **kwargs")
        .fix = std::move(fix);
  }
}

}  // namespace opmfu::rules
