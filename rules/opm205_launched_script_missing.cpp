#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace fs = std::filesystem;

void CheckMissingScript(LauncherCheckContext& context) {
  const auto& launches = context.launcher.facts.launches;
  for (std::size_t i = 0; i < launches.size() && i < context.launcher.scripts.size(); ++i) {
    if (context.launcher.scripts[i]) continue;
    // A known launcher's script lives in its package; its options were checked from the description.
    if (i < context.launcher.known.size() && context.launcher.known[i] != nullptr) continue;
    // `python -m pytest` and the like run a tool, not a training script of the project.
    static const std::set<std::string, std::less<>> kToolModules = {
        "pytest",   "pip",    "unittest",    "venv",      "ensurepip", "coverage", "pdb",
        "cProfile", "timeit", "http.server", "json.tool", "build",     "twine",    "pre_commit",
        "ruff",     "black",  "isort",       "flake8",    "mypy",      "pylint"};
    if (kToolModules.contains(launches[i].module)) continue;
    // Installed evaluation and monitoring tools, any module of theirs (`accelerate launch -m
    // lm_eval`): they never host the training loop whose profiler settings lint checks. A module
    // of a package that is simply absent (`-m recipe.dapo.main_dapo`, from a checkout the
    // example expects) is still reported: it may hold those settings.
    // Likewise simulators, benchmarks, servers and packaging tools installed with pip
    // (`python3 -m mujoco.viewer`, `python3 -m ais_bench`), and inference servers
    // (`python -m vllm.entrypoints.openai.api_server`): their profiler is configured by their own
    // options and environment, not by a script of this project.
    static const std::set<std::string, std::less<>> kToolPackages = {
        "lm_eval", "evalscope", "opencompass",     "tensorboard", "mujoco", "ais_bench", "setuptools", "wheel",
        "pip",     "jupyter",   "notebook",        "ipykernel",   "gradio", "streamlit", "uvicorn",    "grpc_tools",
        "nltk",    "spacy",     "huggingface_hub", "modelscope",  "vllm",   "sglang"};
    const std::string_view module = launches[i].module;
    if (kToolPackages.contains(module.substr(0, module.find('.')))) continue;
    // `python setup.py install` (build_ext, bdist_wheel, develop, ...) builds or installs a
    // package: no training loop runs.
    const std::string_view script_name = launches[i].script.text;
    if (module.empty() && launches[i].script.known &&
        (script_name == "setup.py" || script_name.ends_with("/setup.py"))) {
      continue;
    }
    // Another path of the same command runs a script that was found (`D=${SLURM_SUBMIT_DIR}` on
    // one branch, the launcher's own directory on the other): that one is linted.
    bool found_on_another_path = false;
    for (std::size_t j = 0; j < launches.size() && j < context.launcher.scripts.size(); ++j) {
      found_on_another_path =
          found_on_another_path ||
          (j != i && context.launcher.scripts[j] && launches[j].command.start_byte == launches[i].command.start_byte &&
           launches[j].command.source == launches[i].command.source);
    }
    if (found_on_another_path && !launches[i].script.known) continue;
    const linter::ShellWord& script = launches[i].script;
    if (!launches[i].unfollowed.empty()) {
      context.ReportAt(script.where,
                       "`" + launches[i].unfollowed + "` (run by " + launches[i].tool +
                           ") is a command opmfu does not follow, so the script it starts was not linted; findings "
                           "may be incomplete",
                       "lint the script itself too: opmfu lint train.sh path/to/train.py");
      continue;
    }
    if (script.known && launches[i].directory_unknown && !fs::path(script.text).is_absolute()) {
      // Not "cannot be found": where bash looks is not known here.
      context.ReportAt(script.where,
                       "`" + script.text + "` (run by " + launches[i].tool +
                           ") is looked up in a directory the launcher `cd`s to that is only known at run time, so "
                           "it was not linted; findings may be incomplete",
                       "lint the script together with the launcher: opmfu lint train.sh path/to/train.py");
      continue;
    }
    context.ReportAt(script.where,
                     script.known
                         ? (module.empty() ? "`" + script.text + "` (run by "
                                           : "module `" + std::string(module) + "` (`" + script.text + "`, run by ") +
                               launches[i].tool +
                               ") cannot be found in the current directory or next to the launcher, so "
                               "it was not linted; findings may be incomplete"
                         : "the script run by " + launches[i].tool + " is only known at run time, so it was not linted",
                     "lint the script together with the launcher: opmfu lint train.sh path/to/train.py");
  }
}

}  // namespace opmfu::rules
