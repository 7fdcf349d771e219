#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckMissingScript(LauncherCheckContext& context) {
  const auto& launches = context.launcher.facts.launches;
  for (std::size_t i = 0; i < launches.size() && i < context.launcher.scripts.size(); ++i) {
    if (context.launcher.scripts[i]) continue;
    // A known launcher's script lives in its package; its options were checked from the description.
    if (i < context.launcher.known.size() && context.launcher.known[i] != nullptr) continue;
    const linter::ShellWord& script = launches[i].script;
    context.ReportAt(script.where,
                     script.known
                         ? "`" + script.text + "` (run by " + launches[i].tool +
                               ") cannot be found next to the launcher or in the current directory, so "
                               "it was not linted; findings may be incomplete"
                         : "the script run by " + launches[i].tool + " is only known at run time, so it was not linted",
                     "lint the script together with the launcher: opmfu lint train.sh path/to/train.py");
  }
}

}  // namespace opmfu::rules
