#include "linter/shell/programs.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace opmfu::linter::shell {

namespace fs = std::filesystem;

namespace {

// Launcher modules run the script named after them (`python -m torch.distributed.run train.py`).
bool IsLauncherModule(std::string_view module) {
  return module == "torch.distributed.run" || module == "torch.distributed.launch" ||
         module == "accelerate.commands.launch" || module == "deepspeed.launcher.runner";
}

// The script of one path's words: the first argument ending in .py, or `-m pkg.mod` (pkg/mod.py;
// also torchrun's `--module`), with the arguments after it. False when the words name neither.
bool FindScript(Words& words, bool python, Launch& launch) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    // `--config=cfg/base.py` is an option's value, never the script.
    if (word.ends_with(".py") && !word.starts_with("-")) {
      launch.script = words[i];
      launch.arguments.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                              std::make_move_iterator(words.end()));
      return true;
    }
    if ((word == "-m" || (!python && word == "--module")) && i + 1 < words.size() &&
        !words[i + 1].text.starts_with("-")) {
      const std::string module = words[i + 1].text;
      if (IsLauncherModule(module)) continue;
      launch.script = words[i + 1];
      launch.module = module;
      std::string path = module;
      std::replace(path.begin(), path.end(), '.', '/');
      launch.script.text = path + ".py";
      launch.arguments.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(i) + 2),
                              std::make_move_iterator(words.end()));
      return true;
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

void RunLaunch(Invocation& call) {
  const bool python = call.name.starts_with("python") || call.name_unknown;
  std::shared_ptr<const std::map<std::string, ShellWord, std::less<>>> exported;  // the same on every path
  for (Words& words : call.argv) {
    Launch launch;
    launch.launcher = call.frame.file();
    launch.command = call.frame.Where(call.command);
    launch.tool = call.name;
    launch.directory = call.shell.directory;
    launch.directory_unknown = call.shell.directory_unknown;
    if (!FindScript(words, python, launch)) continue;
    if (!exported) exported = ExportedVariables(call.local);
    launch.environment = exported;
    if (call.frame.collector != nullptr) launch.collector = *call.frame.collector;
    launch.script = Clean(launch.script);
    for (ShellWord& argument : launch.arguments) argument = Clean(argument);
    call.shell.facts.launches.push_back(std::move(launch));
  }
}

}  // namespace opmfu::linter::shell
