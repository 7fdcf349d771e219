// `opmfu rule OPM104`: a rule's documentation page, from the copy compiled into the binary.

#include <iostream>
#include <memory>

#include "cli/cli_support.h"
#include "cli/embedded_files.h"
#include "common/text.h"
#include "rules/rule_table.h"

namespace opmfu::cli {

namespace {

int RunRule(const std::string& wanted, bool all) {
  if (all) {
    for (const rules::RuleInfo& rule : rules::AllRules()) {
      std::cout << rule.id << "  " << rule.name << "  [" << SeverityName(rule.severity) << "]  " << rule.summary
                << "\n";
    }
    return kExitOk;
  }
  const rules::RuleInfo* rule = rules::FindRule(wanted);
  if (rule == nullptr) {
    std::vector<std::string> ids;
    for (const rules::RuleInfo& r : rules::AllRules()) ids.emplace_back(r.id);
    return ReportError(
        Error::Usage("no rule `" + wanted + "`" + DidYouMean(wanted, ids) + "; `opmfu rule --all` lists them"));
  }
  const std::string page = std::string(rule->id) + ".md";
  for (const EmbeddedFile& file : EmbeddedRulePages()) {
    if (file.name == page) {
      std::cout << file.content;
      return kExitOk;
    }
  }
  std::cout << rule->id << " (" << rule->name << "): " << rule->summary << "\n";
  return kExitOk;
}

}  // namespace

void AddRuleCommand(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand("rule", "print a rule's documentation (by id or name)");
  auto wanted = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  command->add_option("RULE", *wanted, "rule id or name, e.g. OPM104 or profiler-level-below-level1");
  command->add_flag("--all", *all, "list every rule with its severity and summary");
  command->callback([wanted, all, &action] {
    if (wanted->empty() && !*all) {
      action = [] { return ReportError(Error::Usage("name a rule (e.g. `opmfu rule OPM104`) or pass --all")); };
      return;
    }
    action = [wanted, all] { return RunRule(*wanted, *all); };
  });
}

}  // namespace opmfu::cli
