// `opmfu completion bash|zsh`: the shell completion scripts, written from the parser's own option
// table (as ruff's generate-shell-completion), so a wheel install has them too and they cannot
// drift from the options. The one place completions are made: packaging/ writes its files with it.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "common/text.h"
#include "rules/rule_table.h"

namespace opmfu::cli {

namespace {

// Options whose values are rule selectors, completed from the rule table (comma lists too).
bool TakesRules(const CLI::Option& option) {
  for (const std::string& name : option.get_lnames()) {
    if (name == "select" || name == "ignore" || name == "extend-select" || name == "extend-ignore") return true;
  }
  return false;
}

std::vector<std::string> OptionNames(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& name : option.get_snames()) names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) names.push_back("--" + name);
  return names;
}

// The choices CLI11 shows as `TEXT:{a,b}` (IsMember, or cli_support's Choices).
std::vector<std::string> OptionChoices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const std::size_t open = type.find(":{");
  const std::size_t close = type.find('}', open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string list = type.substr(open + 2, close - open - 2);
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

struct CompletionCommand {
  std::vector<std::string> path;  // {} for opmfu itself, {"registry", "list"}
  const CLI::App* app;
};

std::vector<CompletionCommand> WalkCommands(const CLI::App& root) {
  std::vector<CompletionCommand> out{{{}, &root}};
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const CLI::App* child : out[i].app->get_subcommands({})) {
      std::vector<std::string> path = out[i].path;
      path.push_back(child->get_name());
      out.push_back({std::move(path), child});
    }
  }
  return out;
}

std::string BashScript(const CLI::App& root, const std::string& rule_words) {
  std::string steps, values, words;
  for (const CompletionCommand& command : WalkCommands(root)) {
    const std::string key = Join(command.path, " ");
    std::vector<std::string> offered;
    for (const CLI::App* child : command.app->get_subcommands({})) {
      steps += "      \"" + key + "|" + child->get_name() + "\") path=\"" + Join(command.path, " ") +
               (command.path.empty() ? "" : " ") + child->get_name() + "\" ;;\n";
      offered.push_back(child->get_name());
    }
    for (const CLI::Option* option : command.app->get_options()) {
      if (option->get_positional()) continue;
      for (const std::string& name : option->get_lnames()) offered.push_back("--" + name);
      const std::vector<std::string> choices = OptionChoices(*option);
      if (choices.empty() && !TakesRules(*option)) continue;
      for (const std::string& name : OptionNames(*option)) {
        values += "    \"" + key + "|" + name + "\") " +
                  (choices.empty() ? "list=1 words=\"" + rule_words : "words=\"" + Join(choices, " ")) + "\" ;;\n";
      }
    }
    words += "    \"" + key + "\") words=\"" + Join(offered, " ") + "\" ;;\n";
  }
  return "# bash completion for opmfu (written by `opmfu completion bash`)\n"
         "_opmfu() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=\"\" i words=\"\" list=\"\"\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case \"$path|${COMP_WORDS[i]}\" in\n" +
         steps +
         "    esac\n"
         "  done\n"
         "  case \"$path|$prev\" in\n" +
         values +
         "  esac\n"
         "  if [[ -n $words ]]; then\n"
         "    # A rule list: complete the entry after the last comma.\n"
         "    if [[ -n $list && $cur == *,* ]]; then\n"
         "      COMPREPLY=($(compgen -P \"${cur%,*},\" -W \"$words\" -- \"${cur##*,}\"))\n"
         "    else\n"
         "      COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "    fi\n"
         "    return\n"
         "  fi\n"
         "  case \"$path\" in\n" +
         words +
         "  esac\n"
         "  # Options after a \"-\", subcommands where there are some, else files.\n"
         "  if [[ $cur == -* || $words != -* ]]; then COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")); fi\n"
         "  ((${#COMPREPLY[@]})) || COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "}\n"
         "complete -o filenames -F _opmfu opmfu\n";
}

// Text inside a zsh '...' word and an _arguments [description].
std::string ZshDescription(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '[')
      out += '(';
    else if (c == ']')
      out += ')';
    else if (c == ':')
      out += "\\:";
    else if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out;
}

std::string ZshFunction(const std::vector<std::string>& path) {
  std::string name = "_opmfu";
  for (const std::string& part : path) {
    name += "_";
    for (const char c : part) name += c == '-' ? '_' : c;
  }
  return name;
}

std::string ZshScript(const CLI::App& root, const std::string& rule_words) {
  std::string functions;
  for (const CompletionCommand& command : WalkCommands(root)) {
    std::vector<std::string> specs;
    for (const CLI::Option* option : command.app->get_options()) {
      if (option->get_positional()) continue;
      std::string action;
      if (option->get_type_size() != 0) {
        const std::vector<std::string> choices = OptionChoices(*option);
        action = TakesRules(*option) ? ":rules:_sequence -s , compadd - " + rule_words
                 : !choices.empty()  ? ":value:(" + Join(choices, " ") + ")"
                                     : ":value:_files";
      }
      const std::vector<std::string> names = OptionNames(*option);
      const std::string description = ZshDescription(option->get_description());
      if (names.size() == 1) {
        specs.push_back("'" + names.front() + "[" + description + "]" + action + "'");
      } else {
        specs.push_back("'(" + Join(names, " ") + ")'{" + Join(names, ",") + "}'[" + description + "]" + action + "'");
      }
    }
    const std::string function = ZshFunction(command.path);
    std::string body;
    const std::vector<const CLI::App*> children = command.app->get_subcommands({});
    if (!children.empty()) {
      std::vector<std::string> described;
      for (const CLI::App* child : children) {
        described.push_back("'" + child->get_name() + ":" + ZshDescription(child->get_description()) + "'");
      }
      body += "  local -a commands=(" + Join(described, " ") + ")\n";
      body += "  _arguments -C " + Join(specs, " ") + " '1:command:->command' '*::argument:->argument'\n";
      body += "  case $state in\n    command) _describe command commands ;;\n    argument)\n      case $words[1] in\n";
      for (const CLI::App* child : children) {
        std::vector<std::string> child_path = command.path;
        child_path.push_back(child->get_name());
        body += "        " + child->get_name() + ") " + ZshFunction(child_path) + " ;;\n";
      }
      body += "      esac ;;\n  esac\n";
    } else {
      body += "  _arguments " + Join(specs, " ") + " '*:file:_files'\n";
    }
    functions += function + "() {\n" + body + "}\n\n";
  }
  return "#compdef opmfu\n# zsh completion for opmfu (written by `opmfu completion zsh`)\n\n" + functions +
         "_opmfu \"$@\"\n";
}

}  // namespace

void AddCompletionCommand(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand("completion",
                                         "print the bash or zsh completion script (as ruff's "
                                         "generate-shell-completion)");
  auto shell = std::make_shared<std::string>();
  command->add_option("SHELL", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  command->footer(
      "bash: opmfu completion bash > ~/.local/share/bash-completion/completions/opmfu\n"
      "zsh:  opmfu completion zsh > ~/.zfunc/_opmfu   (with fpath+=~/.zfunc before compinit)");
  const CLI::App* root = &app;
  command->callback([shell, root, &action] {
    action = [shell, root] {
      std::vector<std::string> rules{"ALL"};
      for (const RuleDescriptor& rule : rules::RuleDescriptors()) rules.push_back(rule.id);
      const std::string script =
          *shell == "bash" ? BashScript(*root, Join(rules, " ")) : ZshScript(*root, Join(rules, " "));
      if (Status written = EmitOutput(script, ""); !written.ok()) return ReportError(written.error());
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace opmfu::cli
