// `opmfu flops TARGET ...`: the FLOPs torch_npu's built-in formula records for one call.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_support.h"
#include "common/file_io.h"
#include "common/text.h"
#include "registry/builtin_flops.h"
#include "registry/locate.h"

namespace opmfu::cli {
namespace {

struct FlopsFlags {
  std::string target;
  std::vector<std::string> values;
  std::vector<std::string> arguments;
  std::string format = "text";
  std::string formulas_version;
  std::string formulas;
  bool installed = false;
  std::string python;
  bool list = false;
};

int ListTargets(bool json) {
  if (json) {
    nlohmann::ordered_json targets = nlohmann::ordered_json::array();
    for (const registry::BuiltinTarget& target : registry::BuiltinTargets()) {
      nlohmann::ordered_json reads = nlohmann::ordered_json::array();
      for (std::string_view name : target.used) reads.push_back(std::string(name));
      targets.push_back(
          {{"op_name", std::string(target.op_name)}, {"target", std::string(target.target)}, {"reads", reads}});
    }
    nlohmann::ordered_json versions = nlohmann::ordered_json::array();
    for (const registry::FormulasVersion& version : registry::KnownFormulasVersions()) {
      versions.push_back(
          {{"name", std::string(version.name)}, {"default", &version == &registry::NewestFormulasVersion()}});
    }
    std::cout << nlohmann::ordered_json{{"targets", targets}, {"formulas_versions", versions}}.dump(2) << "\n";
    return kExitOk;
  }
  for (const registry::BuiltinTarget& target : registry::BuiltinTargets()) {
    std::string used;
    for (std::string_view name : target.used) used += (used.empty() ? "" : ", ") + std::string(name);
    std::cout << std::left << std::setw(36) << target.op_name << " " << std::setw(46) << target.target << " reads "
              << used << "\n";
  }
  std::cout << "\nformula versions (--formulas-version):";
  for (const registry::FormulasVersion& version : registry::KnownFormulasVersions()) {
    std::cout << " " << version.name << (&version == &registry::NewestFormulasVersion() ? " (default)" : "");
  }
  std::cout << "\n";
  return kExitOk;
}

// 268435456 -> "268.44 GFLOP": the magnitude a person checks first.
std::string Magnitude(const std::string& decimal) {
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E", "Z", "Y"};
  double value = std::strtod(decimal.c_str(), nullptr);
  std::size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  std::ostringstream out;
  out << std::setprecision(unit == 0 ? 0 : 2) << std::fixed << value << " " << kUnits[unit] << "FLOP";
  if (value >= 1000) {
    out.str("");
    out << std::scientific << std::setprecision(2) << std::strtod(decimal.c_str(), nullptr) << " FLOP";
  }
  return out.str();
}

// Which release's formulas to compute, and how that was decided (for the output).
struct ChosenVersion {
  const registry::FormulasVersion* version = nullptr;
  std::string how;
};

Result<ChosenVersion> ChooseVersion(const FlopsFlags& flags) {
  const int sources = static_cast<int>(!flags.formulas_version.empty()) + static_cast<int>(!flags.formulas.empty()) +
                      static_cast<int>(flags.installed);
  if (sources > 1) return Error::Usage("give one of --formulas-version, --formulas and --installed");
  if (!flags.python.empty() && !flags.installed) return Error::Usage("--python goes with --installed");
  std::string formulas_path = flags.formulas;
  if (flags.installed) {
    // Found as `registry` commands find it: $OPMFU_FORMULAS, else the sys.path of --python.
    registry::LocateOptions options;
    if (!flags.python.empty()) options.python_flag = flags.python;
    options.formulas_env = GetEnv("OPMFU_FORMULAS");
    options.python_env = GetEnv("OPMFU_PYTHON");
    OPMFU_ASSIGN_OR_RETURN(const registry::LocatedFormulas located, registry::LocateFormulas(options));
    formulas_path = located.path.string();
  }
  if (!flags.formulas_version.empty()) {
    const registry::FormulasVersion* version = registry::FindFormulasVersion(flags.formulas_version);
    if (version == nullptr) {
      std::string known;
      for (const registry::FormulasVersion& v : registry::KnownFormulasVersions()) {
        known += (known.empty() ? "" : ", ") + std::string(v.name);
      }
      return Error::Usage("--formulas-version: opmfu knows " + known + ", not '" + flags.formulas_version + "'");
    }
    return ChosenVersion{version, "--formulas-version"};
  }
  if (!formulas_path.empty()) {
    OPMFU_ASSIGN_OR_RETURN(const std::string source, ReadTextFile(formulas_path));
    const auto recognized = registry::RecognizeFormulasVersion(source);
    if (!recognized) {
      ReportWarning(formulas_path +
                    ": cannot tell which torch_npu release its built-in formulas are (opmfu reads the file, never "
                    "runs it, and recognizes v26.1.0-beta.2 and v26.1.0); computed with " +
                    std::string(registry::NewestFormulasVersion().name) + ", the newest it knows");
      return ChosenVersion{&registry::NewestFormulasVersion(), "cannot tell from " + formulas_path};
    }
    const registry::FormulasVersion* version = registry::FindFormulasVersion(recognized->version.name);
    return ChosenVersion{version, "recognized in " + formulas_path + ": " + recognized->evidence};
  }
  return ChosenVersion{&registry::NewestFormulasVersion(), "the default: the newest release opmfu knows"};
}

std::string OutcomeText(const Result<registry::FlopsOutcome>& outcome, std::string_view op_name) {
  if (!outcome.ok()) return "nothing recorded (" + outcome.error().message + ")";
  return outcome->decimal + "-" + std::string(op_name);
}

int RunFlops(const FlopsFlags& flags) {
  if (flags.list) return ListTargets(flags.format == "json");
  if (flags.target.empty())
    return ReportError(Error::Usage("name a target (e.g. `opmfu flops mm ...`) or pass --list"));
  const registry::BuiltinTarget* target = registry::FindBuiltinTarget(flags.target);
  if (target == nullptr) {
    std::vector<std::string> names;
    for (const registry::BuiltinTarget& t : registry::BuiltinTargets()) names.emplace_back(t.op_name);
    return ReportError(Error::Usage("`" + flags.target + "` is not a built-in FLOPs target of torch_npu" +
                                    DidYouMean(flags.target, names) +
                                    "; a custom formula's FLOPs are whatever it returns (`opmfu flops --list` "
                                    "lists the built-in ones)"));
  }
  auto chosen = ChooseVersion(flags);
  if (!chosen.ok()) return ReportError(chosen.error());
  const registry::FormulasVersion& version = *chosen->version;
  std::vector<nlohmann::json> positional;
  for (const std::string& value : flags.values) positional.push_back(registry::ParseFlopsArgumentValue(value));
  std::vector<std::pair<std::string, nlohmann::json>> named;
  for (const std::string& argument : flags.arguments) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string::npos || equals == 0) {
      return ReportError(Error::Usage("--arg takes NAME=VALUE, got '" + argument + "'"));
    }
    named.emplace_back(argument.substr(0, equals), registry::ParseFlopsArgumentValue(argument.substr(equals + 1)));
  }
  auto bound = registry::BindFlopsArguments(*target, positional, named);
  if (!bound.ok()) return ReportError(bound.error());
  auto flops = registry::EvaluateBuiltinFlops(*target, bound->arguments, version);
  if (!flops.ok()) {
    return ReportError(Error::Usage(flops.error().message + " [formulas " + std::string(version.name) + "]"));
  }
  for (const std::string& warning : flops->warnings) ReportWarning(warning);
  std::string not_given_note;
  if (!bound->not_given.empty()) {
    for (const std::string& name : bound->not_given) not_given_note += (not_given_note.empty() ? "" : ", ") + name;
    not_given_note = "not given, as their values do not change the FLOPs: " + not_given_note;
  }

  // The same call under the other releases, when they record something else.
  std::vector<std::pair<std::string_view, std::string>> others;
  const std::string message = flops->decimal + "-" + std::string(target->op_name);
  for (const registry::FormulasVersion& other : registry::KnownFormulasVersions()) {
    if (other.name == version.name) continue;
    const std::string text =
        OutcomeText(registry::EvaluateBuiltinFlops(*target, bound->arguments, other), target->op_name);
    if (text != message) others.emplace_back(other.name, text);
  }

  if (flags.format == "json") {
    nlohmann::ordered_json out;
    out["target"] = target->target;
    out["op_name"] = target->op_name;
    out["formulas_version"] = version.name;
    out["formulas_version_source"] = chosen->how;
    out["arguments"] = bound->arguments;
    nlohmann::ordered_json ignored = nlohmann::ordered_json::object();
    for (const auto& [name, value] : bound->absorbed) ignored[name] = value;
    out["ignored_keywords"] = ignored;
    out["ignored_positional"] = bound->extra_positional;
    out["not_given"] = bound->not_given;
    // A value past 2^63-1 is text, as torch_npu writes it into the range message.
    if (flops->value) {
      out["flops"] = *flops->value;
    } else {
      out["flops"] = flops->decimal;
    }
    out["message"] = message;
    out["warnings"] = flops->warnings;
    if (!not_given_note.empty()) out["notes"] = nlohmann::ordered_json::array({not_given_note});
    nlohmann::ordered_json other_versions = nlohmann::ordered_json::object();
    for (const auto& [name, text] : others) other_versions[std::string(name)] = text;
    out["other_versions"] = other_versions;
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << flops->decimal << " FLOPs (" << Magnitude(flops->decimal) << ") for " << target->op_name << "(";
  bool first = true;
  for (const registry::BuiltinParameter& parameter : target->parameters) {  // in signature order
    const auto value = bound->arguments.find(std::string(parameter.name));
    if (value == bound->arguments.end()) continue;
    std::cout << (first ? "" : ", ") << parameter.name << "=" << registry::PythonRepr(*value);
    first = false;
  }
  std::cout << ")\nmfu_flops range message: " << message << "\n";
  if (!not_given_note.empty()) std::cout << "note: " << not_given_note << "\n";
  if (!bound->absorbed.empty()) {
    std::cout << "ignored, as torch_npu's formula takes them in **kwargs:";
    for (const auto& [name, value] : bound->absorbed) std::cout << " " << name << "=" << registry::PythonRepr(value);
    std::cout << "\n";
  }
  if (bound->extra_positional > 0) {
    std::cout << "ignored, as torch_npu's formula takes them in *args: " << bound->extra_positional
              << " positional value" << (bound->extra_positional == 1 ? "" : "s") << "\n";
  }
  std::cout << "formulas: torch_npu " << version.name << " (" << chosen->how << ")\n";
  for (const auto& [name, text] : others) std::cout << "with the " << name << " formulas: " << text << "\n";
  return kExitOk;
}

}  // namespace

void AddFlopsCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<FlopsFlags>();
  CLI::App* command =
      app.add_subcommand("flops", "the FLOPs a built-in torch_npu formula records for given shapes and arguments");
  command->add_option("TARGET", flags->target, "op name or target, e.g. mm, torch:mm, npu_fusion_attention");
  // Positional values are taken raw: CLI11 would split a bracketed "[1024,512]" at its commas.
  command->allow_extras();
  command->add_option("--arg", flags->arguments,
                      "NAME=VALUE: a shape [1024,512], a list of shapes [[8,16],[8,16]], a number, a string "
                      "(BNSD), True/False/None, or a list of integers");
  command->add_option("--format", flags->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  command->add_flag("--list", flags->list, "list the built-in targets and the arguments each formula reads");
  command->add_option("--formulas-version", flags->formulas_version,
                      "the torch_npu release whose formulas to compute: v26.1.0 (default) or v26.1.0-beta.2");
  command->add_option("--formulas", flags->formulas,
                      "an installed _flops_formulas.py: compute the release it holds (recognized from its text, "
                      "never run)");
  command->add_flag("--installed", flags->installed,
                    "compute the release installed for --python (its _flops_formulas.py, found as `registry` "
                    "commands find it)");
  command->add_option("--python", flags->python,
                      "with --installed: the interpreter whose sys.path holds torch_npu (else $OPMFU_PYTHON, else "
                      "python3); only asked for sys.path");
  command->footer(
      "Values after TARGET are the call's arguments by position (as in Python): opmfu flops mm [1024,512] "
      "[512,256]\n"
      "Example: opmfu flops npu_fusion_attention --arg query=[2,8,1024,128] --arg key=[2,8,1024,128] "
      "--arg value=[2,8,1024,128] --arg head_num=8 --arg input_layout=BNSD --arg sparse_mode=3\n"
      "A formula that cannot apply (torch_npu's raises and records nothing) is an error saying why (exit 2).\n"
      "Keywords the formula does not name are ignored (its **kwargs); an explicit None is passed as None.");
  command->callback([flags, command, &action] {
    flags->values = command->remaining();
    // After `--` every word is a value (`opmfu mcp` passes them so); before it, a dash word is
    // a mistyped option.
    const auto separator = std::find(flags->values.begin(), flags->values.end(), "--");
    const auto options_end = static_cast<std::size_t>(separator - flags->values.begin());
    if (separator != flags->values.end()) flags->values.erase(separator);
    if (flags->target.empty() && options_end < flags->values.size()) {
      flags->target = flags->values[options_end];
      flags->values.erase(flags->values.begin() + static_cast<std::ptrdiff_t>(options_end));
    }
    action = [flags, options_end] {
      for (std::size_t i = 0; i < std::min(options_end, flags->values.size()); ++i) {
        const std::string& value = flags->values[i];
        if (value.size() > 1 && value[0] == '-' && std::isdigit(static_cast<unsigned char>(value[1])) == 0) {
          return ReportError(Error::Usage("unknown option '" + value + "' for `opmfu flops`"));
        }
      }
      return RunFlops(*flags);
    };
  });
}

}  // namespace opmfu::cli
