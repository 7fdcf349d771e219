#include <algorithm>
#include <filesystem>

#include "common/text.h"
#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

// The option a command-line word selects, as argparse reads it: exact, `--opt=value`, or an
// unambiguous prefix of a long option (allow_abbrev). nullptr when none or ambiguous.
const python::ArgparseOption* Match(const linter::ArgparseFacts& argparse, std::string_view word) {
  std::string name(word.substr(0, word.find('=')));
  if (name.starts_with("--")) {
    auto expanded = argparse.long_options.find(name);
    if (expanded == argparse.long_options.end() || !expanded->second) return nullptr;
    name = *expanded->second;
  }
  const std::vector<python::ArgparseOption>& options = argparse.options;
  for (const python::ArgparseOption& option : options) {
    if (std::find(option.options.begin(), option.options.end(), name) != option.options.end()) return &option;
  }
  return nullptr;
}

}  // namespace

void CheckUnknownOption(LintCheckContext& context) {
  if (context.facts.launches.empty()) return;  // no command line to check
  const linter::ArgparseFacts& argparse = context.facts.argparse;
  if (!argparse.rejects_unknown_options) return;  // parse_known_args, or no parser here
  const std::vector<python::ArgparseOption>& options = argparse.options;
  if (options.empty()) return;
  std::vector<std::string> names;
  for (const python::ArgparseOption& option : options)
    names.insert(names.end(), option.options.begin(), option.options.end());
  for (const linter::Launch& launch : context.facts.launches) {
    for (std::size_t i = 0; i < launch.arguments.size(); ++i) {
      const linter::ShellWord& word = launch.arguments[i];
      if (!word.known || !word.text.starts_with("-") || word.text == "-" || word.text == "--") continue;
      if (word.text.size() > 1 && (std::isdigit(static_cast<unsigned char>(word.text[1])) || word.text[1] == '.'))
        continue;
      const python::ArgparseOption* option = Match(argparse, word.text);
      if (option != nullptr) {
        if (option->takes_value() && word.text.find('=') == std::string::npos) ++i;  // skip its value
        continue;
      }
      const std::string name = word.text.substr(0, word.text.find('='));
      context.ReportAt(word.where,
                       "`" + name + "` is not an option of " +
                           std::filesystem::path(context.module().path()).filename().string() +
                           ": argparse stops the run with \"unrecognized arguments\"" + DidYouMean(name, names),
                       "define it with add_argument, or remove it from the launcher");
    }
  }
}

}  // namespace opmfu::rules
