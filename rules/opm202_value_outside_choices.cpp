#include <filesystem>

#include "common/text.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckValueOutsideChoices(LintCheckContext& context) {
  for (const linter::KnownChoiceViolation& violation : context.facts.choice_violations) {
    std::string listed;
    for (const std::string& choice : violation.choices) listed += (listed.empty() ? "'" : ", '") + choice + "'";
    context.ReportAt(violation.word.where,
                     "`" + violation.written + "` is not one of " + context.facts.known_launcher + "'s choices (" +
                         listed + "), so it rejects the value at start-up" +
                         DidYouMean(violation.word.text, violation.choices),
                     "pass one of the choices");
  }
  if (context.facts.launches.empty()) return;  // no command line to check (only a Python file's facts have one)
  const std::vector<python::ArgparseOption>& options = context.facts.argparse.options;
  for (const linter::Launch& launch : context.facts.launches) {
    for (std::size_t i = 0; i < launch.arguments.size(); ++i) {
      const linter::ShellWord& word = launch.arguments[i];
      for (const python::ArgparseOption& option : options) {
        if (!option.choices || !option.takes_value()) continue;
        for (const std::string& name : option.options) {
          const linter::ShellWord* value = nullptr;
          std::string text;
          if (word.text == name && i + 1 < launch.arguments.size()) {
            value = &launch.arguments[i + 1];
            text = value->text;
          } else if (word.text.starts_with(name + "=")) {
            value = &word;
            text = word.text.substr(name.size() + 1);
          }
          if (value == nullptr || !value->known) continue;
          const auto& choices = *option.choices;
          if (std::find(choices.begin(), choices.end(), text) != choices.end()) continue;
          std::string listed;
          for (const std::string& choice : choices) listed += (listed.empty() ? "'" : ", '") + choice + "'";
          context.ReportAt(value->where,
                           "`" + name + " " + text + "` is not one of the choices of " +
                               std::filesystem::path(context.module().path()).filename().string() + " (" + listed +
                               "): argparse stops the run" + DidYouMean(text, choices),
                           "pass one of the choices");
        }
      }
    }
  }
}

}  // namespace opmfu::rules
