// `opmfu registry`: its subcommands, and `list` and `verify`, each flags, one library call and one
// render per format (`check` and `add` have files of their own).

#include "cli/registry_command.h"

#include <unistd.h>

#include <filesystem>

#include <iostream>
#include <memory>

#include "registry/formulas.h"
#include "registry/listing.h"
#include "report/verify.h"

namespace opmfu::cli {

void LocateFlags::Add(CLI::App& command) {
  command.add_option("--formulas", formulas,
                     "the _flops_formulas.py to use (else $OPMFU_FORMULAS, else found "
                     "on the sys.path of --python)");
  command.add_option("--python", python,
                     "interpreter whose sys.path holds torch_npu (else $OPMFU_PYTHON, else the Python opmfu "
                     "was installed for, else python3); only asked for sys.path");
}

namespace {

// The interpreter of the environment this opmfu was installed into: the one `python -m opmfu` ran
// in (it says so in $OPMFU_LAUNCHER_PYTHON), else a python3 beside the binary (a venv's or conda
// env's bin/, where pip put the wheel's `opmfu`), spelled by that directory: a venv's python is a
// link whose target is the base interpreter, which would not see the venv.
std::optional<std::string> InstalledPython() {
  if (const auto launcher = GetEnv("OPMFU_LAUNCHER_PYTHON"); launcher && !launcher->empty()) return launcher;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  for (const char* name : {"python3", "python"}) {
    const std::filesystem::path candidate = self.parent_path() / name;
    if (::access(candidate.c_str(), X_OK) == 0 &&
        std::filesystem::exists(self.parent_path().parent_path() / "pyvenv.cfg", error)) {
      return candidate.string();
    }
  }
  return std::nullopt;
}

}  // namespace

registry::LocateOptions LocateOptionsOf(const std::string& formulas, const std::string& python) {
  registry::LocateOptions options;
  if (!formulas.empty()) options.formulas_flag = formulas;
  if (!python.empty()) options.python_flag = python;
  options.formulas_env = GetEnv("OPMFU_FORMULAS");
  options.python_env = GetEnv("OPMFU_PYTHON");
  options.installed_python = InstalledPython();
  return options;
}

Result<registry::LocatedFormulas> LocateFlags::Locate() const {
  return registry::LocateFormulas(LocateOptionsOf(formulas, python));
}

namespace {

// ---- list -------------------------------------------------------------------------------------

struct ListFlags {
  LocateFlags locate;
  std::string format = "table";
  std::string output;
};

int RunList(const ListFlags& flags) {
  auto format = registry::ParseListFormat(flags.format);
  if (!format.ok()) return ReportError(format.error());
  auto located = flags.locate.Locate();
  if (!located.ok()) return ReportError(located.error());
  if (Status safe = RefuseOutputOverInput(flags.output, {located->path}); !safe.ok()) return ReportError(safe.error());
  auto file = registry::LoadFormulaFile(located->path, registry::ParseDepth::kSignatures);
  if (!file.ok()) return ReportError(file.error());

  if (Status written = EmitOutput(registry::RenderListing(*file, *format), flags.output); !written.ok()) {
    return ReportError(written.error());
  }
  if (file->registrations.empty()) {
    std::cerr << file->path << ": no @register_npu_flop registrations found\n";
  }
  if (!file->parsed_cleanly()) {
    const SourcePosition at = file->tree.PositionAt(ts_node_start_byte(*file->tree.FirstError()));
    ReportWarning(file->path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                  ": syntax error; the listing may be incomplete (run `opmfu registry check`)");
    return kExitFindings;
  }
  return kExitOk;
}

struct VerifyFlags {
  MfuSourceFlags source;
  std::string target;
  std::string op_name;
  std::optional<std::int64_t> expect;
  std::string format = "text";
};

// After a formula is registered and data collected: did its records land, with the right value?
int RunVerify(const VerifyFlags& flags) {
  const std::string op = report::VerifiedOpName(flags.target, flags.op_name);
  if (op.empty()) return ReportError(Error::Usage("name the registration: --target module:attr or --op-name NAME"));
  auto data = flags.source.Load();
  if (!data.ok()) return ReportError(data.error());
  ReportFailedRanks(data->analysis, "not verified");
  const report::Verification verification = report::VerifyRecords(*data, op, flags.expect);
  std::cout << (flags.format == "json" ? report::RenderVerificationJson(verification)
                                       : report::RenderVerificationText(verification));
  const bool ok = verification.verdict == report::Verification::Verdict::kOk;
  return ok && verification.complete ? kExitOk : kExitFindings;
}

}  // namespace

void AddRegistryCommand(CLI::App& app, Action& action) {
  CLI::App* registry = app.add_subcommand("registry", "list, check and add @register_npu_flop FLOPs formulas");
  registry->require_subcommand(1);
  registry->footer("The formulas file is torch_npu/profiler/_flops_formulas.py. It is read, never imported or run.");

  auto list = std::make_shared<ListFlags>();
  CLI::App* list_command = registry->add_subcommand("list", "every @register_npu_flop registration, in file order");
  list->locate.Add(*list_command);
  list_command->add_option("--format", list->format, "table, json, markdown or csv")
      ->capture_default_str()
      ->check(Choices({"table", "json", "markdown", "csv"}));
  list_command->add_option("-o,--output", list->output, "write the listing to FILE (atomically)");
  list_command->callback([list, &action] { action = [list] { return RunList(*list); }; });

  AddRegistryCheckCommand(*registry, action);
  AddRegistryAddCommand(*registry, action);

  auto verify = std::make_shared<VerifyFlags>();
  CLI::App* verify_command = registry->add_subcommand(
      "verify", "after collection: confirm a registration's FLOPs records exist and carry the expected value");
  verify->source.Add(*verify_command, false);
  verify_command->add_option("--target", verify->target, "the registration's target, e.g. torch:baddbmm");
  verify_command->add_option("--op-name", verify->op_name, "its explicit op_name, when it has one");
  verify_command->add_option("--expect", verify->expect,
                             "the hand-computed FLOPs every record must carry (see `opmfu flops` for built-ins)");
  AddFormatOption(*verify_command, verify->format);
  verify_command->footer("Exit codes: 0 records found (and all equal --expect); 1 none found, or a value differs.");
  verify_command->callback([verify, &action] { action = [verify] { return RunVerify(*verify); }; });
}

}  // namespace opmfu::cli
