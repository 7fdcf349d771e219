// argparse: an option's value from the launches that pass it, else its default; the program's options
// and whether they form a closed set.
#include <algorithm>
#include <array>
#include <charconv>
#include <set>

#include "python/evaluator/internal.h"
#include "python/project.h"

namespace opmfu::python {

Values Tracer::ResolveArgparse(std::string_view dest, TSNode use, int depth) const {
  if (!module_->DefinesArgparseDest(dest) && program() != nullptr && depth <= kMaxDepth) {
    // Defined in another module of the program (a get_args() or an add_*_args(parser) helper).
    std::string option(dest);
    std::replace(option.begin(), option.end(), '_', '-');
    for (const PythonModule* other : program()->Containing("add_argument", {dest, option}, module_)) {
      if (other->DefinesArgparseDest(dest)) {
        return FromOtherModule(In(*other).ResolveArgparse(dest, TSNode{}, depth + 1), other);
      }
    }
  }
  // Launchers first: a value they pass wins over every default; one that passes nothing leaves it.
  Values out;
  bool defaults_needed = invocations().empty();
  const PythonModule::ArgparseIndex& arguments = module_->argparse_arguments();
  auto found = arguments.find(dest);
  // An option no module of the program defines (a framework's parser, reached through its
  // `get_args()`): read from the launch by argparse's naming convention, `--dest-name`.
  std::optional<ArgparseArgument> conventional;
  if (found == arguments.end() && !module_->DefinesArgparseDest(dest)) {
    conventional.emplace();
    std::string option = "--" + std::string(dest);
    conventional->options.push_back(option);
    std::replace(option.begin(), option.end(), '_', '-');
    conventional->options.push_back(option);
    conventional->option = option;
    conventional->action = "unknown";  // a flag or a value: told by the word after it
  }
  for (const ScriptInvocation& invocation : invocations()) {
    std::optional<Value> passed = found != arguments.end() ? PassedValue(found->second.front(), invocation)
                                  : conventional           ? PassedValue(*conventional, invocation)
                                                           : std::nullopt;
    if (passed) {
      out.push_back(std::move(*passed));
    } else {
      defaults_needed = true;
    }
  }
  if (!defaults_needed) return out;
  if (TSNode defaults = module_->ArgparseSetDefault(dest); !ts_node_is_null(defaults)) {
    for (Value value : ResolveIn(defaults, depth + 1)) {
      out.push_back(WithStep(std::move(value), StepAt(defaults, "set_defaults(" + std::string(dest) + "=...)")));
    }
    return out;
  }
  if (found == arguments.end() && conventional && !invocations().empty()) {
    out.push_back(Unknown(use, "`" + conventional->option +
                                   "` is not passed by the launcher, and no add_argument in this file or the "
                                   "modules it imports defines it (its default is set elsewhere)"));
    return out;
  }
  if (found == arguments.end()) {
    out.push_back(Unknown(use, "no add_argument in this file" +
                                   std::string(program() != nullptr ? " or the modules it imports" : "") +
                                   " defines `" + std::string(dest) + "`"));
    return out;
  }
  const ArgparseArgument& argument = found->second.front();
  std::string label = "argparse default of `" + argument.option + "`";
  if (!invocations().empty()) label += " (a launcher does not pass it)";
  if (!ts_node_is_null(argument.default_value)) {
    for (Value value : ResolveIn(argument.default_value, depth + 1)) {
      out.push_back(WithStep(std::move(value), StepAt(argument.default_value, label)));
    }
    return out;
  }
  Value implied;
  implied.node = argument.call;
  if (argument.action == "store_true" || argument.action == "store_false") {
    implied.kind = ValueKind::kBool;
    implied.boolean = argument.action == "store_false";
  } else {
    implied.kind = ValueKind::kNone;
  }
  out.push_back(WithStep(
      implied, StepAt(argument.call, label + " (" + (argument.action.empty() ? "none given" : argument.action) + ")")));
  return out;
}

std::optional<std::string> Tracer::ExpandAbbreviation(std::string_view typed) const {
  std::optional<std::string> expanded;
  int matches = 0;
  // One listing of the program's parsers serves both questions (this runs for every launch word).
  const std::vector<const PythonModule*> modules = ArgparseModules();
  const bool abbreviations = std::none_of(modules.begin(), modules.end(), [](const PythonModule* module) {
    return module->argparse_facts().disallows_abbreviation;
  });
  for (const PythonModule* module : modules) {
    for (const auto& [dest, arguments] : module->argparse_arguments()) {
      for (const ArgparseArgument& argument : arguments) {
        for (const std::string& text : argument.options) {
          if (text == typed) return text;
          if (abbreviations && text.starts_with(typed)) {
            expanded = text;
            ++matches;
          }
        }
      }
    }
  }
  return matches == 1 ? expanded : std::nullopt;
}

std::optional<Value> Tracer::PassedValue(const ArgparseArgument& argument, const ScriptInvocation& invocation) const {
  std::optional<Value> result;
  const auto& words = invocation.arguments;
  for (std::size_t i = 0; i < words.size(); ++i) {
    // argparse also accepts an unambiguous prefix of a long option (`--prof` for `--prof-level`).
    const std::string& typed = words[i].text;
    const std::string typed_name = typed.substr(0, typed.find('='));
    std::string word = typed;
    if (typed_name.starts_with("--")) {
      if (auto full = ExpandAbbreviation(typed_name)) word = *full + typed.substr(typed_name.size());
    }
    for (const std::string& option : argument.options) {
      if (!option.starts_with('-')) continue;
      const bool exact = word == option;
      const bool joined = word.starts_with(option + "=");
      if (!exact && !joined) continue;
      Value value;
      Note step = words[i].origin;
      const bool bare_flag =
          argument.action == "unknown" && exact && (i + 1 >= words.size() || words[i + 1].text.starts_with("--"));
      if (bare_flag) {
        value.kind = ValueKind::kBool;  // `--profile-with-cpu` alone: a store_true flag
        value.boolean = true;
        step.message = "`" + word + "`";
      } else if (argument.action == "boolean_optional") {
        value.kind = ValueKind::kBool;
        value.boolean = !option.starts_with("--no-");
        step.message = "`" + word + "`";
      } else if (argument.action == "store_true" || argument.action == "store_false") {
        value.kind = ValueKind::kBool;
        value.boolean = argument.action == "store_true";
        step.message = "`" + word + "`";
      } else {
        const LaunchWord* source = nullptr;
        std::string text;
        std::optional<TextLocation> spelled;
        if (joined) {
          source = &words[i];
          text = word.substr(option.size() + 1);
          if (source->spelled && word == typed) {  // `--opt=value` spelled whole: its value part
            spelled = source->spelled;
            spelled->start_byte += static_cast<std::uint32_t>(option.size() + 1);
          }
        } else if (i + 1 < words.size()) {
          source = &words[i + 1];
          text = source->text;
          spelled = source->spelled;
        }
        if (source == nullptr) continue;
        step = source->origin;
        step.message = "`" + option + " " + text + "`";
        if (!source->known) {
          value.kind = ValueKind::kUnknown;
          value.unknown_reason = "the launcher passes `" + option + "` a value known only at run time";
        } else if (argument.type == "int") {
          std::int64_t parsed = 0;
          auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
          value.kind = error == std::errc() && end == text.data() + text.size() ? ValueKind::kInt : ValueKind::kUnknown;
          value.integer = parsed;
          value.unknown_reason = "argparse would reject `" + text + "` as an int";
        } else {
          value.kind = ValueKind::kString;
          value.text = text;
          value.spelled_in_launcher = spelled;
        }
      }
      value.chain = {step};
      result = std::move(value);  // argparse keeps the last occurrence
    }
  }
  return result;
}

std::vector<const PythonModule*> Tracer::ArgparseModules() const {
  std::vector<const PythonModule*> out = {module_};
  if (program() != nullptr) {
    for (const PythonModule* other : program()->Containing("add_argument", module_)) out.push_back(other);
  }
  return out;
}

bool Tracer::ParserLeavesTheProject() const {
  // The names that hold a parser here: what argparse's methods are called on.
  std::set<std::string, std::less<>> parsers;
  for (TSNode call : module_->calls()) {
    TSNode function = ChildByField(call, "function");
    if (!IsType(function, "attribute")) continue;
    static constexpr std::array<std::string_view, 6> kParserMethods = {
        "add_argument", "add_argument_group", "add_mutually_exclusive_group",
        "parse_args",   "parse_known_args",   "set_defaults"};
    const std::string_view method = module_->tree().Text(ChildByField(function, "attribute"));
    if (std::find(kParserMethods.begin(), kParserMethods.end(), method) == kParserMethods.end()) continue;
    TSNode object = ChildByField(function, "object");
    if (IsType(object, "identifier")) parsers.emplace(module_->tree().Text(object));
  }
  if (parsers.empty()) return false;
  // `f` or `a.b.f` imported from a module the project does not hold (argparse itself aside).
  const auto from_outside = [&](TSNode function) {
    if (!IsType(function, "identifier") && !IsType(function, "attribute")) return false;
    const std::string text(module_->tree().Text(function));
    const std::size_t first_dot = text.find('.');
    const auto imported = module_->imports().find(std::string_view(text).substr(0, first_dot));
    if (imported == module_->imports().end()) return false;  // defined here, a builtin, or a method of a local
    const std::string qualified = imported->second + (first_dot == std::string::npos ? "" : text.substr(first_dot));
    const std::size_t dot = qualified.rfind('.');
    if (dot == std::string::npos) return false;
    const std::string module = qualified.substr(0, dot);
    if (module == "argparse") return false;
    return program() == nullptr || !program()->locator().Locate(module, module_->path());
  };
  const auto passes_a_parser = [&](TSNode call) {
    TSNode arguments = ChildByField(call, "arguments");
    if (ts_node_is_null(arguments)) return false;
    const std::uint32_t count = ts_node_named_child_count(arguments);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode argument = ts_node_named_child(arguments, i);
      if (IsType(argument, "keyword_argument")) argument = ChildByField(argument, "value");
      if (!ts_node_is_null(argument) && IsType(argument, "identifier") &&
          parsers.contains(module_->tree().Text(argument))) {
        return true;
      }
    }
    return false;
  };
  for (TSNode call : module_->calls()) {
    if (passes_a_parser(call) && from_outside(ChildByField(call, "function"))) return true;
  }
  for (const auto& [key, bindings] : module_->bindings()) {
    if (!parsers.contains(key.second)) continue;
    for (const Binding& binding : bindings) {
      if (!ts_node_is_null(binding.value) && IsType(binding.value, "call") &&
          from_outside(ChildByField(binding.value, "function"))) {
        return true;
      }
    }
  }
  return false;
}

bool Tracer::OptionsFromFramework() const {
  if (module_->argparse_facts().options_from_framework) return true;
  for (const PythonModule* module : ArgparseModules()) {
    if (In(*module).ParserLeavesTheProject()) return true;
  }
  // `from megatron.training import pretrain` and the like: a parser the framework builds, with
  // options this program never sees, when that framework is not below the project root.
  for (const auto& [local, qualified] : module_->imports()) {
    const std::string_view last = LastComponent(qualified);
    if (last != "pretrain" && last != "initialize_megatron" && last != "parse_args" && last != "get_args") continue;
    if (module_->CallsNamed(local) == nullptr) continue;
    const std::size_t dot = qualified.rfind('.');
    if (dot == std::string::npos) continue;
    if (program() == nullptr || !program()->locator().Locate(qualified.substr(0, dot), module_->path())) return true;
  }
  return false;
}

bool Tracer::RejectsUnknownOptions() const {
  if (OptionsFromFramework()) return false;  // the option set is open
  const PythonModule::ArgparseFacts& own = module_->argparse_facts();
  bool parses = own.parses_args || own.parses_args_as_main;
  bool known_only = own.parses_known_args || own.parses_known_args_as_main;
  for (const PythonModule* module : ArgparseModules()) {
    if (module == module_) continue;
    // Another module's `if __name__ == "__main__":` block does not run when it is imported.
    parses = parses || module->argparse_facts().parses_args;
    known_only = known_only || module->argparse_facts().parses_known_args;
  }
  return parses && !known_only;
}

std::vector<ArgparseOption> Tracer::ArgparseOptions() const {
  std::vector<ArgparseOption> out;
  for (const PythonModule* module : ArgparseModules()) {
    for (ArgparseOption& option : module->LocalArgparseOptions()) out.push_back(std::move(option));
  }
  // Choices another part of the program extends or replaces at run time are not a closed list.
  std::vector<const PythonModule*> changers = {module_};
  if (program() != nullptr) {
    for (const PythonModule* other : program()->Containing("choices", module_)) changers.push_back(other);
  }
  const bool all_open = std::any_of(changers.begin(), changers.end(), [](const PythonModule* module) {
    return module->argparse_facts().mutates_choices;
  });
  for (ArgparseOption& option : out) {
    if (!option.choices) continue;
    const bool extended = std::any_of(changers.begin(), changers.end(), [&](const PythonModule* module) {
      return std::any_of(option.options.begin(), option.options.end(), [&](const std::string& name) {
        return module->argparse_facts().choices_extended.contains(name);
      });
    });
    if (all_open || extended) option.choices.reset();
  }
  return out;
}

}  // namespace opmfu::python
