#include <set>

#include "common/text.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

void CheckLevel(LintCheckContext& context, const std::vector<linter::JsonEntry>& entries, bool experimental) {
  static const std::vector<std::string> known = linter::KnownConfigKeys();
  std::set<std::string> seen;
  for (const linter::JsonEntry& entry : entries) {
    if (!seen.insert(entry.key).second) {
      Diagnostic& d =
          context.ReportAt(entry.where, "`" + entry.key + "` appears more than once; json.load keeps the last",
                           "keep one `" + entry.key + "`");
      d.severity = std::min(d.severity, Severity::kWarning);
    }
    const bool top = linter::IsTopLevelKey(entry.key);
    const bool inner = linter::IsExperimentalKey(entry.key);
    if (!experimental && !top && inner) {
      context.ReportAt(entry.where,
                       "`" + entry.key +
                           "` at the top level is ignored: torch_npu reads it only inside "
                           "`experimental_config`",
                       "move `\"" + entry.key + "\"` into the `experimental_config` object");
    } else if (experimental && top && !inner) {
      context.ReportAt(entry.where,
                       "`" + entry.key +
                           "` inside `experimental_config` is ignored: torch_npu reads it only at the "
                           "top level",
                       "move `\"" + entry.key + "\"` out of `experimental_config`, to the top level");
    } else if (!top && !inner) {
      const std::string suggestion = DidYouMean(entry.key, known);
      Diagnostic& d = context.ReportAt(
          entry.where, "unknown key `" + entry.key + "`: torch_npu's dynamic profiler ignores it" + suggestion,
          "remove it, or spell a key torch_npu reads");
      d.severity = std::min(d.severity, Severity::kWarning);
    }
  }
}

}  // namespace

void CheckMisplacedConfigKey(LintCheckContext& context) {
  const linter::DynamicConfig* config = context.facts.dynamic_config.get();
  if (config == nullptr || config->invalid) return;
  CheckLevel(context, config->top, false);
  CheckLevel(context, config->experimental, true);
}

}  // namespace opmfu::rules
