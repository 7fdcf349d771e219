#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckRegistrationWithoutTarget(RuleCheckContext& context) {
  using Kind = registry::ArgumentValue::Kind;
  for (const registry::Registration& registration : context.file.registrations) {
    if (!registration.decorator_called) {
      context.Report(registration.decorator_node,
                     "`@" + registration.decorator +
                         "` is used without arguments, so Python passes the function "
                         "itself as the target and the registration is broken",
                     "write @" + registration.decorator + "(target=\"module:attr\")");
      continue;
    }
    const auto missing = [](const registry::ArgumentValue& value) {
      return value.kind == Kind::kAbsent || value.kind == Kind::kNone;
    };
    if (missing(registration.target) && missing(registration.op_name)) {
      context.Report(registration.decorator_node,
                     "registration of `" + registration.function_name +
                         "` has neither a target nor an op_name, so nothing is hooked",
                     "give target=\"module:attr\" for a new op, or op_name=\"...\" to override a built-in formula");
    }
  }
}

}  // namespace opmfu::rules
