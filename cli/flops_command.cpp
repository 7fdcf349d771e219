// `opmfu flops TARGET ...`: the FLOPs torch_npu's built-in formula records for one call.

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include "cli/cli_support.h"
#include "cli/registry_command.h"
#include "registry/flops_query.h"

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

int RunFlops(const FlopsFlags& flags) {
  if (flags.list) {
    std::cout << registry::RenderBuiltinTargets(flags.format == "json");
    return kExitOk;
  }
  if (flags.target.empty())
    return ReportError(Error::Usage("name a target (e.g. `opmfu flops mm ...`) or pass --list"));
  registry::FlopsRequest request;
  request.target = flags.target;
  request.values = flags.values;
  request.arguments = flags.arguments;
  request.formulas_version = flags.formulas_version;
  request.formulas = flags.formulas;
  request.installed = flags.installed;
  request.python_given = !flags.python.empty();
  request.locate = LocateOptionsOf("", flags.python);  // --formulas is the request's own
  auto answer = registry::AnswerFlops(request);
  if (!answer.ok()) return ReportError(answer.error());
  if (answer->version_warning) ReportWarning(*answer->version_warning);
  for (const std::string& warning : answer->flops.warnings) ReportWarning(warning);
  std::cout << (flags.format == "json" ? registry::RenderFlopsJson(*answer) : registry::RenderFlopsText(*answer));
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
