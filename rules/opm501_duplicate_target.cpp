#include <map>

#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckDuplicateTarget(RuleCheckContext& context) {
  std::map<std::string, const registry::Registration*> first_by_object;
  for (const registry::Registration& registration : context.file.registrations) {
    const auto target = registration.TargetText();
    if (!target) continue;
    const auto object = registry::ResolvedTargetPath(*target);
    if (!object) continue;
    auto [it, inserted] = first_by_object.emplace(*object, &registration);
    if (inserted) continue;
    const registry::Registration& first = *it->second;
    const std::string first_target = *first.TargetText();
    std::string message = first_target == *target
                              ? "target '" + *target + "' is already registered at line " + std::to_string(first.line)
                              : "target '" + *target + "' names the same function as '" + first_target +
                                    "' registered at line " + std::to_string(first.line);
    message += " (function " + first.function_name + "); torch_npu would wrap " + *object + " twice";
    context.Report(registration.target.node, message,
                   "keep one registration per function; to replace a built-in formula from user code, register "
                   "it with op_name= only");
  }
}

}  // namespace opmfu::rules
