#include "linter/shell/programs.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

namespace opmfu::linter::shell {

namespace fs = std::filesystem;

namespace {

// The launcher modules torchrun is (`python -m torch.distributed.run --nproc_per_node 8 train.py`): the
// words after them are torchrun's. torch_npu's run module is torchrun with a rendezvous of its own
// (its `torch_npu_run` console script); its launch module is torch's deprecated launch.
bool IsTorchrunModule(std::string_view module) {
  return module == "torch.distributed.run" || module == "torch.distributed.launch" ||
         module == "torch_npu.distributed.run" || module == "torch_npu.distributed.launch";
}

// Other launcher modules run the script named after them, found as python's own words are.
bool IsLauncherModule(std::string_view module) {
  return IsTorchrunModule(module) || module == "accelerate.commands.launch" || module == "deepspeed.launcher.runner";
}

// The script is words[at], and what follows it is what the script receives.
bool TakeScript(Words& words, std::size_t at, Launch& launch) {
  launch.script = words[at];
  launch.arguments.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(at) + 1),
                          std::make_move_iterator(words.end()));
  return true;
}

// The module words[at] is run (`-m pkg.mod`: pkg/mod.py), and what follows it is what it receives.
bool TakeModule(Words& words, std::size_t at, Launch& launch) {
  launch.module = words[at].text;
  std::string path = launch.module;
  std::replace(path.begin(), path.end(), '.', '/');
  TakeScript(words, at, launch);
  launch.script.text = path + ".py";
  return true;
}

// The script of one path's words from `from`: the first argument ending in .py, or `-m pkg.mod`
// (also torchrun's `--module`), with the arguments after it. False when the words name neither.
bool FindScript(Words& words, std::size_t from, bool python, Launch& launch);

// torchrun's options that take a value (torch.distributed.run's parser, and the one option
// torch_npu.distributed.run adds), spelled with dashes: argparse takes both spellings of each.
bool TorchrunOptionTakesValue(std::string_view option) {
  static const std::set<std::string_view, std::less<>> kWithValue = {"--nnodes",
                                                                     "--nproc-per-node",
                                                                     "--rdzv-backend",
                                                                     "--rdzv-endpoint",
                                                                     "--rdzv-id",
                                                                     "--rdzv-conf",
                                                                     "--max-restarts",
                                                                     "--monitor-interval",
                                                                     "--start-method",
                                                                     "--event-log-handler",
                                                                     "--role",
                                                                     "--log-dir",
                                                                     "-r",
                                                                     "--redirects",
                                                                     "-t",
                                                                     "--tee",
                                                                     "--local-ranks-filter",
                                                                     "--node-rank",
                                                                     "--master-addr",
                                                                     "--master-port",
                                                                     "--local-addr",
                                                                     "--logs-specs",
                                                                     "--numa-binding",
                                                                     "--signals-to-handle",
                                                                     "--enable-tiered-parallel-tcpstore"};
  return kWithValue.contains(option);
}

// torchrun's words from `from` (torchrun, torch_npu_run, or after `python -m torch.distributed.run`):
// its options, then the training script, a module with `-m`/`--module`, or with `--no-python` a
// program (python's words are read as python's; a .py file runs by its shebang).
bool FindTorchrunScript(Words& words, std::size_t from, Launch& launch) {
  bool module = false;
  bool no_python = false;
  for (std::size_t i = from; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (word == "--") {
      if (i + 1 >= words.size()) return false;
      ++i;
    } else if (word.size() > 1 && word.starts_with("-")) {
      std::string option = word.substr(0, word.find('='));
      std::replace(option.begin(), option.end(), '_', '-');
      if (option == "-m" || option == "--module") {
        module = true;
      } else if (option == "--no-python") {
        no_python = true;
      } else if (option.size() == word.size() && TorchrunOptionTakesValue(option)) {
        ++i;
      }
      continue;
    }
    const std::string& script = words[i].text;
    if (module) return TakeModule(words, i, launch);
    if (no_python) {
      if (fs::path(script).filename().string().starts_with("python")) return FindScript(words, i + 1, true, launch);
      return script.ends_with(".py") && TakeScript(words, i, launch);
    }
    if (script.ends_with(".py")) return TakeScript(words, i, launch);
    // An option opmfu does not know may have taken this word as its value: as before, the first
    // word that names a script.
    return FindScript(words, i, false, launch);
  }
  return false;
}

bool FindScript(Words& words, std::size_t from, bool python, Launch& launch) {
  for (std::size_t i = from; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    // `--config=cfg/base.py` is an option's value, never the script.
    if (word.ends_with(".py") && !word.starts_with("-")) return TakeScript(words, i, launch);
    if ((word == "-m" || (!python && word == "--module")) && i + 1 < words.size() &&
        !words[i + 1].text.starts_with("-")) {
      const std::string& module = words[i + 1].text;
      if (IsTorchrunModule(module)) return FindTorchrunScript(words, i + 2, launch);
      if (IsLauncherModule(module)) {
        // The launcher's own words follow: its `--module` is the script's module too.
        python = false;
        ++i;
        continue;
      }
      return TakeModule(words, i + 1, launch);
    }
  }
  return false;
}

// The exported variables a command sees, each by its first value.
std::shared_ptr<const std::map<std::string, ShellWord, std::less<>>> ExportedVariables(const Environment& local) {
  auto variables = std::make_shared<std::map<std::string, ShellWord, std::less<>>>();
  local.ForEachVisible([&](const std::string& variable, const Variable& value) {
    if (!value.exported || value.alternatives.empty() || value.alternatives.front().words.empty()) return;
    (*variables)[variable] = Clean(value.alternatives.front().words.front());
  });
  return variables;
}

}  // namespace

void RunSource(Invocation& call) {
  if (!call.argv.front().empty()) call.shell.Follow(call.argv.front().front(), call.env, call.frame, false);
}

void RunScript(Invocation& call) {
  if (call.argv.front().empty() || !call.argv.front().front().text.ends_with(".sh")) return;
  Environment child(&call.local);
  call.shell.Follow(call.argv.front().front(), child, call.frame, true);
}

void ChangeDirectory(Invocation& call) {
  // Scripts named after it are relative to the new directory (followed in order; a `cd` in
  // a branch counts as taken).
  Shell& shell = call.shell;
  const WordAlternatives& argv = call.argv;
  const ShellWord target = argv.front().size() == 1 ? Clean(argv.front().front()) : ShellWord{};
  if (argv.size() == 1 && target.known && !target.text.empty() && target.text != "-") {
    // An absolute or anchored target is a known place again; a relative one moves from
    // where the launcher is, known or not.
    const bool from_here = fs::path(target.text).is_absolute() || target.anchored;
    const fs::path next =
        from_here ? fs::path(target.text) : fs::path(shell.directory.empty() ? "." : shell.directory) / target.text;
    shell.directory = next.lexically_normal().string();
    shell.directory_unknown = shell.directory_unknown && !from_here;
  } else {
    shell.directory.clear();
    shell.directory_unknown = argv.size() == 1 && !target.known;  // `cd` alone goes home: outside the tree
  }
}

void NoteRemoved(Invocation& call) {
  for (const Words& words : call.argv) {
    for (const ShellWord& word : words) {
      if (!word.text.starts_with("-")) {
        call.shell.facts.commands.push_back({ShellCommandFact::Kind::kRemovedPath, call.name, Clean(word), {}});
      }
    }
  }
}

void NoteAnalysis(Invocation& call) {
  const Words& words = call.argv.front();
  if (call.name == "opmfu" && (words.empty() || words.front().text != "analyze")) return;
  std::vector<ShellCommandFact>& facts = call.shell.facts.commands;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    for (const char* option : {"-d", "--profiling_path", "--profiling-path"}) {
      if (word == option && i + 1 < words.size()) {
        facts.push_back({ShellCommandFact::Kind::kAnalysisDirectory, call.name, Clean(words[i + 1]),
                         KnownLastSegment(words[i + 1].text)});
      } else if (word.starts_with(std::string(option) + "=")) {
        ShellWord value = words[i];
        value.text = word.substr(std::string(option).size() + 1);
        std::string last = KnownLastSegment(value.text);
        facts.push_back(
            {ShellCommandFact::Kind::kAnalysisDirectory, call.name, Clean(std::move(value)), std::move(last)});
      }
    }
  }
}

namespace {

// One Launch per path whose words name a script or module, found by `find`.
void AddLaunches(Invocation& call, const std::function<bool(Words&, Launch&)>& find) {
  std::shared_ptr<const std::map<std::string, ShellWord, std::less<>>> exported;  // the same on every path
  for (Words& words : call.argv) {
    Launch launch;
    launch.launcher = call.frame.file();
    launch.command = call.frame.Where(call.command);
    launch.tool = call.name;
    launch.directory = call.shell.directory;
    launch.directory_unknown = call.shell.directory_unknown;
    if (!find(words, launch)) continue;
    if (!exported) exported = ExportedVariables(call.local);
    launch.environment = exported;
    if (call.frame.collector != nullptr) launch.collector = *call.frame.collector;
    launch.script = Clean(launch.script);
    for (ShellWord& argument : launch.arguments) argument = Clean(argument);
    call.shell.facts.launches.push_back(std::move(launch));
  }
}

}  // namespace

void RunLaunch(Invocation& call) {
  const bool python = call.name.starts_with("python") || call.name_unknown;
  AddLaunches(call, [python](Words& words, Launch& launch) { return FindScript(words, 0, python, launch); });
}

void RunVllm(Invocation& call) {
  AddLaunches(call, [](Words& words, Launch& launch) {
    if (words.empty() || words.front().text != "serve") return false;
    // `vllm serve MODEL ...` runs vllm.entrypoints.cli.serve (its console script's serve command).
    TakeScript(words, 0, launch);
    launch.module = "vllm.entrypoints.cli.serve";
    launch.script.text = "vllm/entrypoints/cli/serve.py";
    return true;
  });
}

void RunDyno(Invocation& call) {
  AddLaunches(call, [](Words& words, Launch& launch) {
    // `dyno [--certs-dir DIR ...] nputrace OPTIONS`: a request to msMonitor's daemon, which hands
    // its options to torch_npu's dynamic profiler in the processes it reaches.
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i].text != "nputrace") continue;
      TakeScript(words, i, launch);
      launch.module = "dyno.nputrace";
      return true;
    }
    return false;
  });
}

void RunTorchrun(Invocation& call) {
  AddLaunches(call, [](Words& words, Launch& launch) { return FindTorchrunScript(words, 0, launch); });
}

}  // namespace opmfu::linter::shell
