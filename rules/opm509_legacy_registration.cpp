#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckLegacyRegistration(RuleCheckContext& context) {
  for (const registry::Registration& registration : context.file.registrations) {
    if (!registration.legacy_positional_op_name) continue;
    const std::string& op = registration.op_name.text;
    context.Report(
        registration.op_name.node,
        "`@" + registration.decorator + "(\"" + op +
            "\")` is the pre-release op-name-only form; torch_npu now reads the first argument as the "
            "target, and '" +
            op + "' is not a \"module:attr\" target",
        "write target=\"<module>:" + op + "\" for a new op, or op_name=\"" + op + "\" to override a built-in formula");
  }
}

}  // namespace opmfu::rules
