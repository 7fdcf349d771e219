#include <map>

#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckDuplicateOpName(RuleCheckContext& context) {
  // Default and external registrations live in separate tables: an external one with a built-in's
  // op name is an override, not a clash.
  std::map<std::pair<std::string, bool>, const registry::Registration*> first_by_name;
  for (const registry::Registration& registration : context.file.registrations) {
    const auto is_default = registration.IsDefault();
    if (registration.resolved_op_name.empty() || !is_default) continue;
    auto [it, inserted] =
        first_by_name.emplace(std::make_pair(registration.resolved_op_name, *is_default), &registration);
    if (inserted) continue;
    const registry::Registration& first = *it->second;
    const auto first_target = first.TargetText();
    const auto target = registration.TargetText();
    if (first_target && target &&
        registry::ResolvedTargetPath(*first_target) == registry::ResolvedTargetPath(*target)) {
      continue;  // the same function registered twice: OPM501 says so
    }
    const TSNode at = !registration.op_name.absent()  ? registration.op_name.node
                      : !registration.target.absent() ? registration.target.node
                                                      : registration.decorator_node;
    context.Report(at,
                   "op name '" + registration.resolved_op_name + "' is already used by the registration at line " +
                       std::to_string(first.line) + " (function " + first.function_name +
                       "); the later formula replaces the earlier one and both write '<flops>-" +
                       registration.resolved_op_name + "' records",
                   "give one of them a distinct op_name=");
  }
}

}  // namespace opmfu::rules
