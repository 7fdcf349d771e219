#include "linter/shell/dispatch.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "linter/shell/commands.h"

namespace opmfu::linter::shell {

namespace {

// The index of the command a wrapper runs among its words (npos when it runs none); `env`'s
// `V=x` words go into `assignments`.
std::size_t UnwrapWords(const Command& wrapper, const Words& words, std::vector<ShellWord>& assignments) {
  std::size_t operands = wrapper.operands;
  bool options = true;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (options && word == "--") {
      options = false;
      continue;
    }
    if (options && word.size() > 1 && word.starts_with("-")) {
      if (wrapper.name == "taskset" && (word == "-p" || word == "--pid")) return std::string::npos;
      if (wrapper.options_with_value.contains(word)) ++i;
      continue;
    }
    options = false;
    if (wrapper.name == "env" && word.find('=') != std::string::npos && word.front() != '=') {
      assignments.push_back(words[i]);
      continue;
    }
    if (operands > 0) {
      --operands;
      continue;
    }
    return i;
  }
  return std::string::npos;
}

}  // namespace

std::vector<CommandLine> SplitByCommand(TSNode command, std::vector<PathWords> paths) {
  std::vector<CommandLine> lines;
  std::vector<std::vector<ShellWord>> assignments;
  for (PathWords& path : paths) {
    if (path.start >= path.words.size()) continue;
    const ShellWord first = Clean(path.words[path.start]);
    const std::string base = BaseName(first.text);
    auto line = std::find_if(lines.begin(), lines.end(), [&](const CommandLine& l) { return l.name == base; });
    if (line == lines.end()) {
      lines.push_back({command,
                       base,
                       path.words[path.start].where,
                       !first.known && base.find('$') != std::string::npos,
                       {},
                       std::move(path.assignments)});
      line = lines.end() - 1;
    }
    line->argv.emplace_back(std::make_move_iterator(path.words.begin() + static_cast<std::ptrdiff_t>(path.start) + 1),
                            std::make_move_iterator(path.words.end()));
  }
  return lines;
}

namespace {

// Each path drops the wrapper's own words, and the paths are grouped by the command they then
// run (`nohup $L train.py` with L=torchrun on one branch and python on another runs both), each
// group with the `env V=x` assignments of its first path. Empty when no path runs a command
// (`taskset -p PID`, `exec >log`).
std::vector<CommandLine> Unwrap(const Command& wrapper, CommandLine& line) {
  std::vector<PathWords> paths;
  for (Words& words : line.argv) {
    PathWords path;
    path.start = UnwrapWords(wrapper, words, path.assignments);
    if (path.start == std::string::npos) continue;
    path.words = std::move(words);
    paths.push_back(std::move(path));
  }
  return SplitByCommand(line.command, std::move(paths));
}

// `uv run [options] python3 x.py ...` runs python3 (or torchrun, ...); `uv run x.py` runs the
// script with uv's python. Leaves the program in `name` and its arguments in `argv`; false
// when this is no `uv run` of a Python program.
bool UnwrapUvRun(std::string& name, WordAlternatives& argv) {
  if (argv.front().empty() || argv.front().front().text != "run") return false;
  std::string program = "python";
  for (Words& words : argv) {
    std::size_t used = 1;  // "run"
    for (std::size_t j = 1; j < words.size(); ++j) {
      const std::string base = BaseName(words[j].text);
      if (IsLauncher(base)) {
        program = base;
        used = j + 1;
        break;
      }
      if (words[j].text.ends_with(".py")) break;
    }
    words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(used));
  }
  name = program;
  return true;
}

// A wrapper runs a command opmfu does not follow (`nohup srun python3 train.py`): when its words
// still name Python or a .py file, the launch is reported as not followed (OPM205) rather than
// dropped without a word.
void ReportUnfollowed(Shell& shell, const Frame& frame, TSNode command, const std::string& name,
                      const TextLocation& where, const std::string& outer, const Words& words) {
  const bool looks_like_launch = std::any_of(words.begin(), words.end(), [](const ShellWord& word) {
    return (word.text.ends_with(".py") && !word.text.starts_with("-")) || IsLauncher(BaseName(word.text));
  });
  if (!looks_like_launch) return;
  Launch launch;
  launch.launcher = frame.file();
  launch.command = frame.Where(command);
  launch.tool = outer;
  launch.unfollowed = name;
  launch.script = {name, false, where};
  launch.directory = shell.directory;
  launch.directory_unknown = shell.directory_unknown;
  shell.facts.launches.push_back(std::move(launch));
}

// The program a command runs, with its words (wrappers already seen through), run by its row.
void RunProgram(Shell& shell, const Frame& frame, CommandLine line, const Environment& local, Environment& env) {
  // `$PYTHON train.py`: a program only known at run time is taken for Python.
  const Command* program = FindCommand(line.name_unknown ? std::string_view("python") : std::string_view(line.name));
  if (program == nullptr || program->run == nullptr) return;
  Invocation call{shell, frame, line.command, std::move(line.name), line.name_unknown, std::move(line.argv),
                  local, env};
  program->run(call);
}

// `V=x cmd` (or `env V=x cmd`): each V exported into `layer`, for cmd only.
void ExportPrefixAssignments(const std::vector<ShellWord>& assignments, Environment& layer) {
  for (const ShellWord& assignment : assignments) {
    const std::size_t equals = assignment.text.find('=');
    ShellWord value = assignment;
    value.text = assignment.text.substr(equals + 1);
    Variable& variable = layer.Set(assignment.text.substr(0, equals));
    variable.exported = true;
    variable.alternatives = {Alternative{{std::move(value)}, false}};
  }
}

// A field bash reads as an assignment before a command: NAME=..., NAME an identifier.
bool IsAssignmentField(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) return false;
  if (std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(equals),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Sees through the wrappers from `line` on (`wrappers` seen so far, the first named `outer`),
// then runs the program; a wrapper whose paths run several commands runs each.
void DispatchWrapped(Shell& shell, Frame frame, CommandLine line, const Environment& visible, Environment& env,
                     std::string outer, int wrappers) {
  const Command* wrapper = FindCommand(line.name);
  if (wrapper == nullptr || wrapper->role != CommandRole::kWrapper) {
    if (!outer.empty() && !IsFollowed(line.name) && !line.name_unknown) {
      ReportUnfollowed(shell, frame, line.command, line.name, line.where, outer, line.argv.front());
      return;
    }
    RunProgram(shell, frame, std::move(line), visible, env);
    return;
  }
  if (wrappers > 16 || line.argv.empty()) return;
  if (outer.empty()) outer = line.name;
  if (wrapper->style == WrapperStyle::kEvaluates) {
    shell.Eval(line.command, line.argv.front(), env, frame);
    return;
  }
  if (wrapper->style == WrapperStyle::kUvRun) {
    if (!UnwrapUvRun(line.name, line.argv)) return;
    DispatchWrapped(shell, frame, std::move(line), visible, env, std::move(outer), wrappers + 1);
    return;
  }
  std::optional<TextLocation> collector;  // an `msprof` wrapper: what it runs collects under it
  if (wrapper->style == WrapperStyle::kCollects) {
    collector = line.where;
    frame.collector = &*collector;
    // `msprof --application="python3 train.py"`: msprof splits the string into a command.
    const Words& words = line.argv.front();
    const auto application = std::find_if(
        words.begin(), words.end(), [](const ShellWord& word) { return word.text.starts_with("--application="); });
    if (application != words.end()) {
      ShellWord text = *application;  // its findings land on the whole word
      text.text = text.text.substr(std::string_view("--application=").size());
      DispatchFields(shell, frame, line.command, text, visible, env, outer);
      return;
    }
  }
  for (CommandLine& next : Unwrap(*wrapper, line)) {
    if (next.assignments.empty()) {
      DispatchWrapped(shell, frame, std::move(next), visible, env, outer, wrappers + 1);
      continue;
    }
    Environment layer(&visible);  // `env V=x cmd`: V for cmd only
    ExportPrefixAssignments(next.assignments, layer);
    DispatchWrapped(shell, frame, std::move(next), layer, env, outer, wrappers + 1);
  }
}

}  // namespace

void Dispatch(Shell& shell, const Frame& caller, CommandLine line, const Environment& local_env, Environment& env) {
  DispatchWrapped(shell, caller, std::move(line), local_env, env, "", 0);
}

void DispatchFields(Shell& shell, const Frame& frame, TSNode command, const ShellWord& text, const Environment& local,
                    Environment& env, const std::string& outer) {
  Words words;
  for (auto& [field, offset] : SplitFields(text.text)) {
    const TextLocation where = FieldLocation(text, offset, field.size());
    words.push_back({std::move(field), true, where});
  }
  // `eval "V=1 W=2 torchrun ..."`: the leading assignments are the command's environment.
  std::size_t start = 0;
  while (start < words.size() && IsAssignmentField(words[start].text)) ++start;
  if (start == words.size()) return;
  std::vector<ShellWord> assignments(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(start));
  const ShellWord first = Clean(words[start]);
  const std::string name = BaseName(first.text);
  const bool unknown = !first.known && name.find('$') != std::string::npos;
  const TextLocation where = words[start].where;
  Words rest(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(start) + 1),
             std::make_move_iterator(words.end()));
  if (FindCommand(name) == nullptr && !unknown) {
    ReportUnfollowed(shell, frame, command, name, where, outer, rest);
    return;
  }
  Environment layer(&local);
  ExportPrefixAssignments(assignments, layer);
  Dispatch(shell, frame, CommandLine{command, name, where, unknown, {std::move(rest)}}, layer, env);
}

}  // namespace opmfu::linter::shell
