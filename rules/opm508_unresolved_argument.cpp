#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckUnresolvedArgument(RuleCheckContext& context) {
  const SyntaxTree& tree = context.file.tree;
  for (const registry::Registration& registration : context.file.registrations) {
    const std::pair<const char*, const registry::ArgumentValue*> arguments[] = {
        {"target", &registration.target}, {"op_name", &registration.op_name}, {"is_default", &registration.is_default}};
    for (const auto& [name, value] : arguments) {
      if (!value->is_expression()) continue;
      context.Report(value->node,
                     std::string("`") + name + "` of `" + registration.function_name + "` is the expression `" +
                         value->text + "`, not a literal, so opmfu cannot check it",
                     "write the value as a literal, or check it by hand");
    }
    for (TSNode argument : registration.unexpected_arguments) {
      context.Report(argument,
                     "register_npu_flop() has no parameter for `" + std::string(tree.Text(argument)) +
                         "`; it takes target, op_name and is_default only, and an unknown argument raises "
                         "TypeError when the file is imported",
                     "remove the argument");
    }
  }
}

}  // namespace opmfu::rules
