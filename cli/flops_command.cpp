// `opmfu flops TARGET ...`: the FLOPs torch_npu's built-in formula records for one call.

#include <cctype>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/cli_support.h"
#include "common/text.h"
#include "registry/builtin_flops.h"

namespace opmfu::cli {
namespace {

struct FlopsFlags {
  std::string target;
  std::vector<std::string> values;
  std::vector<std::string> arguments;
  std::string format = "text";
  bool list = false;
};

int ListTargets() {
  for (const registry::BuiltinTarget& target : registry::BuiltinTargets()) {
    std::string used;
    for (std::string_view name : target.used) used += (used.empty() ? "" : ", ") + std::string(name);
    std::cout << std::left << std::setw(36) << target.op_name << " " << std::setw(46) << target.target << " reads "
              << used << "\n";
  }
  return kExitOk;
}

// 268435456 -> "268.44 GFLOP": the magnitude a person checks first.
std::string Magnitude(std::int64_t flops) {
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  double value = static_cast<double>(flops);
  std::size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(unit == 0 ? 0 : 2) << value << " " << kUnits[unit] << "FLOP";
  return out.str();
}

int RunFlops(const FlopsFlags& flags) {
  if (flags.list) return ListTargets();
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
  auto arguments = registry::BindFlopsArguments(*target, positional, named);
  if (!arguments.ok()) return ReportError(arguments.error());
  auto flops = registry::ComputeBuiltinFlops(*target, *arguments);
  if (!flops.ok()) return ReportError(flops.error());

  const std::string message = std::to_string(*flops) + "-" + std::string(target->op_name);
  if (flags.format == "json") {
    nlohmann::ordered_json out;
    out["target"] = target->target;
    out["op_name"] = target->op_name;
    out["arguments"] = *arguments;
    out["flops"] = *flops;
    out["message"] = message;
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << *flops << " FLOPs (" << Magnitude(*flops) << ") for " << target->op_name << "(";
  bool first = true;
  for (const auto& [name, value] : arguments->items()) {
    std::cout << (first ? "" : ", ") << name << "="
              << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first = false;
  }
  std::cout << ")\nmfu_flops range message: " << message << "\n";
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
  command->footer(
      "Values after TARGET are the call's arguments by position (as in Python): opmfu flops mm [1024,512] "
      "[512,256]\n"
      "Example: opmfu flops npu_fusion_attention --arg query=[2,8,1024,128] --arg key=[2,8,1024,128] "
      "--arg value=[2,8,1024,128] --arg head_num=8 --arg input_layout=BNSD --arg sparse_mode=3\n"
      "A formula that cannot apply (torch_npu's raises and records nothing) is an error saying why (exit 2).");
  command->callback([flags, command, &action] {
    flags->values = command->remaining();
    action = [flags] {
      for (const std::string& value : flags->values) {
        if (value.size() > 1 && value[0] == '-' && std::isdigit(static_cast<unsigned char>(value[1])) == 0) {
          return ReportError(Error::Usage("unknown option '" + value + "' for `opmfu flops`"));
        }
      }
      return RunFlops(*flags);
    };
  });
}

}  // namespace opmfu::cli
