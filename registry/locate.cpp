#include "registry/locate.h"

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "common/file_io.h"
#include "common/json_input.h"
#include "common/process.h"
#include "common/text.h"

namespace opmfu::registry {

namespace fs = std::filesystem;

namespace {

constexpr auto kInterpreterTimeout = std::chrono::seconds(20);

// Prints the search path and nothing else, and runs no user code: isolated (-I: no PYTHON*
// variables, no user site, no script directory) and without the site module's start-up (-S: no
// sitecustomize, usercustomize or .pth lines, which may execute code). The site-packages
// directories that start-up would add are asked for instead, a virtual environment's first (the
// pyvenv.cfg beside or above the executable, as site.venv() finds it, but without its .pth pass).
// Debian's and Ubuntu's patched site answers getsitepackages() with the system's dist-packages
// only, never a venv's own site-packages: sysconfig's install scheme for each prefix names it
// (purelib and platlib; the `venv` scheme where Python has it, 3.11 on, else posix_prefix).
// Python 3.4-3.13: nothing newer than 3.2's sysconfig.
constexpr const char* kPrintSearchPath =
    "import sys, os, json, site, sysconfig\n"
    "prefixes = [sys.prefix]\n"
    "bin = os.path.dirname(os.path.abspath(sys.executable))\n"
    "for conf in (os.path.join(bin, 'pyvenv.cfg'), os.path.join(os.path.dirname(bin), 'pyvenv.cfg')):\n"
    "    if os.path.isfile(conf):\n"
    "        prefixes.insert(0, os.path.dirname(conf))\n"
    "        break\n"
    "extra = site.getsitepackages(prefixes) if hasattr(site, 'getsitepackages') else []\n"
    "schemes = sysconfig.get_scheme_names()\n"
    "for prefix in prefixes:\n"
    "    for scheme in ('venv', 'posix_prefix'):\n"
    "        if scheme in schemes:\n"
    "            paths = sysconfig.get_paths(scheme, vars={'base': prefix, 'platbase': prefix})\n"
    "            extra += [paths['purelib'], paths['platlib']]\n"
    "            break\n"
    "paths = sysconfig.get_paths()\n"
    "extra += [paths['purelib'], paths['platlib']]\n"
    "user = [site.getusersitepackages()] if hasattr(site, 'getusersitepackages') else []\n"
    "print(json.dumps(sys.path + extra + user))";

// PYTHONPATH's directories, which -I leaves out: read here as plain names, never by Python.
std::vector<std::string> PythonPathEntries() {
  const char* value = std::getenv("PYTHONPATH");
  if (value == nullptr) return {};
  std::vector<std::string> entries;
  for (const std::string& entry : SplitString(value, ':')) {
    if (!entry.empty()) entries.push_back(entry);
  }
  return entries;
}

Result<std::vector<std::string>> AskSearchPath(const std::string& interpreter) {
  OPMFU_ASSIGN_OR_RETURN(ProcessOutput output,
                         RunProcess({interpreter, "-I", "-S", "-c", kPrintSearchPath}, kInterpreterTimeout));
  if (output.exit_code != 0) {
    // An interpreter older than -I (Python < 3.4): the same isolation by -E -s.
    OPMFU_ASSIGN_OR_RETURN(output,
                           RunProcess({interpreter, "-E", "-s", "-S", "-c", kPrintSearchPath}, kInterpreterTimeout));
  }
  if (output.exit_code != 0) {
    return Error::Input(interpreter + ": exited with status " + std::to_string(output.exit_code) +
                        " when asked for sys.path; pass --formulas FILE or --python PYTHON");
  }
  OPMFU_ASSIGN_OR_RETURN(const nlohmann::json parsed,
                         ParseJsonWithinLimits(output.standard_output, interpreter + "'s sys.path"));
  if (!parsed.is_array())
    return Error::Input(interpreter + ": did not print a sys.path list; is it a Python interpreter?");
  std::vector<std::string> entries = PythonPathEntries();
  for (const auto& entry : parsed) {
    if (entry.is_string()) entries.push_back(entry.get<std::string>());
  }
  return entries;
}

}  // namespace

std::optional<std::string> TorchNpuVersion(const fs::path& site_directory) {
  std::error_code ec;
  for (fs::directory_iterator it(site_directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!StartsWith(name, "torch_npu-") || it->path().extension() != ".dist-info") continue;
    auto metadata = ReadTextFile(it->path() / "METADATA", ReadLimits{.max_bytes = 1U << 20, .reject_nul = true});
    if (!metadata.ok()) continue;
    for (const std::string& line : SplitString(*metadata, '\n')) {
      if (StartsWith(line, "Version:")) return std::string(TrimWhitespace(std::string_view(line).substr(8)));
    }
  }
  return std::nullopt;
}

Result<fs::path> FindFormulasInSearchPath(const std::vector<std::string>& search_path, const std::string& interpreter) {
  std::error_code ec;
  std::optional<fs::path> package_without_formulas;
  std::size_t searched = 0;
  for (const std::string& entry : search_path) {
    if (entry.empty() || !fs::is_directory(entry, ec)) continue;
    ++searched;
    const fs::path candidate = fs::path(entry) / kFormulasRelativePath;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    if (!package_without_formulas && fs::is_directory(fs::path(entry) / "torch_npu", ec)) {
      package_without_formulas = fs::path(entry);
    }
  }
  if (package_without_formulas) {
    const auto version = TorchNpuVersion(*package_without_formulas);
    return Error::Input("torch_npu " + (version ? *version + " " : std::string("(version unknown) ")) + "at " +
                        (*package_without_formulas / "torch_npu").string() +
                        " has no profiler/_flops_formulas.py: this torch_npu predates FLOPs collection "
                        "(added in v26.1.0-beta.2); upgrade torch_npu or pass --formulas FILE");
  }
  return Error::Input("no torch_npu found on the sys.path of " + interpreter + " (" + std::to_string(searched) +
                      " directories searched); pass --formulas FILE, set OPMFU_FORMULAS, or point --python / "
                      "OPMFU_PYTHON at the interpreter that has torch_npu");
}

Result<LocatedFormulas> LocateFormulas(const LocateOptions& options) {
  if (options.formulas_flag) return LocatedFormulas{*options.formulas_flag, "--formulas"};
  if (options.formulas_env && !options.formulas_env->empty()) {
    return LocatedFormulas{*options.formulas_env, "$OPMFU_FORMULAS"};
  }
  std::string interpreter = "python3";
  std::string source = "python3";
  if (options.python_flag) {
    interpreter = source = *options.python_flag;
  } else if (options.python_env && !options.python_env->empty()) {
    interpreter = *options.python_env;
    source = "$OPMFU_PYTHON (" + interpreter + ")";
  } else if (options.installed_python) {
    interpreter = *options.installed_python;
    source = "the Python opmfu is installed for (" + interpreter + ")";
  }
  auto search_path = AskSearchPath(interpreter);
  if (!search_path.ok()) {
    Error error = search_path.take_error();
    if (error.message.find("cannot run") != std::string::npos) {
      error.message += "; pass --formulas FILE, or --python PYTHON for an interpreter that has torch_npu";
    }
    return error;
  }
  OPMFU_ASSIGN_OR_RETURN(fs::path path, FindFormulasInSearchPath(*search_path, interpreter));
  return LocatedFormulas{path, "sys.path of " + source};
}

}  // namespace opmfu::registry
