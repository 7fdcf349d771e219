// `opmfu rule OPM104`: a rule's documentation page, from the copy compiled into the binary.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/embedded_files.h"
#include "common/text.h"
#include "rules/rule_table.h"

namespace opmfu::cli {

namespace {

nlohmann::ordered_json RuleJson(const rules::RuleInfo& rule) {
  return {{"id", rule.id}, {"name", rule.name}, {"severity", SeverityName(rule.severity)}, {"summary", rule.summary}};
}

std::string_view RulePage(const rules::RuleInfo& rule) {
  const std::string page = std::string(rule.id) + ".md";
  for (const EmbeddedFile& file : EmbeddedRulePages()) {
    if (file.name == page) return file.content;
  }
  return {};
}

int RunRule(const std::string& wanted, bool all, bool json) {
  if (all && json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const rules::RuleInfo& rule : rules::AllRules()) list.push_back(RuleJson(rule));
    std::cout << nlohmann::ordered_json{{"rules", list}}.dump(2) << "\n";
    return kExitOk;
  }
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
  const std::string_view page = RulePage(*rule);
  if (json) {
    nlohmann::ordered_json answer = RuleJson(*rule);
    answer["documentation"] = page.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(page);
    std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  if (!page.empty()) {
    std::cout << page;
    return kExitOk;
  }
  std::cout << rule->id << " (" << rule->name << "): " << rule->summary << "\n";
  return kExitOk;
}

}  // namespace

void AddRuleCommand(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand("rule", "print a rule's documentation (by id or name)");
  auto wanted = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("text");
  command->add_option("RULE", *wanted, "rule id or name, e.g. OPM104 or profiler-level-below-level1");
  command->add_flag("--all", *all, "list every rule with its severity and summary");
  AddFormatOption(*command, *format);
  command->callback([wanted, all, format, &action] {
    if (wanted->empty() && !*all) {
      action = [] { return ReportError(Error::Usage("name a rule (e.g. `opmfu rule OPM104`) or pass --all")); };
      return;
    }
    action = [wanted, all, format] { return RunRule(*wanted, *all, *format == "json"); };
  });
}

}  // namespace opmfu::cli
