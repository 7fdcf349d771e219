// `opmfu registry add`: flags, registry::PlanAddition and WriteAddition, one render per format.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/registry_command.h"
#include "common/diagnostic_format.h"
#include "common/text_edit.h"
#include "lint/formula_check.h"
#include "registry/edit.h"
#include "registry/formulas.h"

namespace opmfu::cli {
namespace {

struct AddFlags {
  LocateFlags locate;
  std::string target;
  std::string from;
  bool write = false;
  std::string color = "auto";
  std::string format = "text";
};

// docs/schema/registry-add.schema.json: what was (or would be) added, or why it was refused.
void PrintAddJson(const AddFlags& flags, const std::string& formulas_path, const std::string& function_name,
                  int decorator_line, const std::string& diff, const std::string& backup,
                  const std::vector<Diagnostic>& findings) {
  FormatOptions options;
  options.tool_version = OPMFU_VERSION;
  const nlohmann::ordered_json answer{
      {"target", flags.target},
      {"function", function_name},
      {"formulas_file", formulas_path},
      {"decorator_line", decorator_line},
      {"refused", !findings.empty()},
      {"findings", nlohmann::ordered_json::parse(FormatDiagnostics(findings, OutputFormat::kJson, options))},
      {"diff", findings.empty() ? nlohmann::ordered_json(diff) : nlohmann::ordered_json(nullptr)},
      {"written", !backup.empty()},
      {"backup", backup.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(backup)},
  };
  std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int RunAdd(const AddFlags& flags) {
  auto located = flags.locate.Locate();
  if (!located.ok()) return ReportError(located.error());
  auto formulas = registry::LoadFormulaFile(located->path);
  if (!formulas.ok()) return ReportError(formulas.error());
  auto candidate = registry::LoadFormulaFile(flags.from);
  if (!candidate.ok()) return ReportError(candidate.error());
  auto plan = registry::PlanAddition(*formulas, *candidate, flags.target);
  if (!plan.ok()) return ReportError(plan.error());

  auto edited = registry::ParseFormulaFile(formulas->path, plan->new_source);
  if (!edited.ok()) return ReportError(edited.error());
  const std::vector<Diagnostic> findings = lint::FindingsOnAddition(*edited, *plan, flags.from);
  const bool json = flags.format == "json";
  const std::string diff = UnifiedDiff(formulas->path, formulas->tree.source(), {plan->edit});
  if (json && !findings.empty()) {
    std::cerr << "opmfu: error: refusing to add `" << plan->function_name
              << "`: it fails `opmfu registry check` (a wrong formula is worse than none)\n";
    PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, "", findings);
    return kExitFindings;
  }
  if (!findings.empty()) {
    std::cerr << "opmfu: error: refusing to add `" << plan->function_name
              << "`: it fails `opmfu registry check` (a wrong formula is worse than none)\n\n";
    FormatOptions options;
    options.tool_version = OPMFU_VERSION;
    options.color = UseColor(flags.color, false);
    std::cerr << FormatDiagnostics(findings, OutputFormat::kFull, options);
    return kExitFindings;
  }

  if (!flags.write) {
    if (json) {
      PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, "", findings);
      return kExitOk;
    }
    std::cout << diff;
    std::cerr << "Preview only: run again with --write to change " << formulas->path << " (a .bak copy is kept).\n";
    return kExitOk;
  }
  auto backup = registry::WriteAddition(*formulas, *plan);
  if (!backup.ok()) return ReportError(backup.error());
  std::cerr << "Added `" << plan->function_name << "` as target '" << flags.target << "' at " << formulas->path << ":"
            << plan->decorator_line << " (backup: " << *backup << ").\n";
  if (json) PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, *backup, findings);
  return kExitOk;
}

}  // namespace

void AddRegistryAddCommand(CLI::App& registry, Action& action) {
  auto add = std::make_shared<AddFlags>();
  CLI::App* add_command =
      registry.add_subcommand("add", "insert a new formula under a target; prints the diff unless --write");
  add_command->add_option("--target", add->target, "what to hook, as module:attr (e.g. torch_npu:npu_my_op)")
      ->required();
  add_command->add_option("--from", add->from, "a Python file holding exactly one plain function: the formula")
      ->required();
  add->locate.Add(*add_command);
  add_command->add_flag("--write", add->write, "change the formulas file (atomically, keeping FILE.bak)");
  add_command->add_option("--color", add->color, "colour for refusals: auto, always or never");
  AddFormatOption(*add_command, add->format);
  add_command->callback([add, &action] { action = [add] { return RunAdd(*add); }; });
}

}  // namespace opmfu::cli
