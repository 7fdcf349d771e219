#include "linter/shell/commands.h"

#include <map>
#include <vector>

#include "linter/shell/programs.h"

namespace opmfu::linter::shell {

namespace {

const std::vector<Command>& CommandTable() {
  using enum CommandRole;
  static const std::vector<Command> kTable = {
      // Builtins.
      {.name = "source", .role = kBuiltin, .summary = "runs the file in this shell", .run = RunSource},
      {.name = ".", .role = kBuiltin, .summary = "runs the file in this shell", .run = RunSource},
      {.name = "cd", .role = kBuiltin, .summary = "where later relative scripts are", .run = ChangeDirectory},
      {.name = "eval",
       .role = kWrapper,
       .summary = "runs its words as launcher text",
       .style = WrapperStyle::kEvaluates},
      {.name = "exec", .role = kWrapper, .summary = "runs the command", .options_with_value = {"-a"}},
      {.name = "time", .role = kWrapper, .summary = "runs the command"},
      // Programs read for what they are given.
      {.name = "bash", .role = kProgram, .summary = "runs x.sh in a child shell", .run = RunScript},
      {.name = "sh", .role = kProgram, .summary = "runs x.sh in a child shell", .run = RunScript},
      {.name = "rm", .role = kProgram, .summary = "empties a directory (OPM206)", .run = NoteRemoved},
      {.name = "msprof-analyze", .role = kProgram, .summary = "the directory analysed (OPM203)", .run = NoteAnalysis},
      {.name = "opmfu", .role = kProgram, .summary = "`opmfu analyze`: the directory analysed", .run = NoteAnalysis},
      // Python and the launchers that start it.
      {.name = "python", .role = kLauncher, .summary = "python, python3, python3.11, ...", .run = RunLaunch},
      {.name = "torchrun",
       .role = kLauncher,
       .summary = "its options, the script, -m or --no-python",
       .run = RunTorchrun},
      {.name = "torch_npu_run",
       .role = kLauncher,
       .summary = "torch_npu's torchrun (torch_npu.distributed.run)",
       .run = RunTorchrun},
      {.name = "vllm", .role = kLauncher, .summary = "`vllm serve MODEL` (a known launcher)", .run = RunVllm},
      {.name = "dyno", .role = kProgram, .summary = "`dyno nputrace` (msMonitor; a known launcher)", .run = RunDyno},
      {.name = "deepspeed", .role = kLauncher, .summary = "the script", .run = RunLaunch},
      {.name = "accelerate", .role = kLauncher, .summary = "`accelerate launch` and its script", .run = RunLaunch},
      {.name = "msrun", .role = kLauncher, .summary = "the script", .run = RunLaunch},
      // Wrappers: the command they run is read instead.
      {.name = "uv", .role = kWrapper, .summary = "`uv run` runs a program", .style = WrapperStyle::kUvRun},
      {.name = "msprof", .role = kWrapper, .summary = "collects on its own (OPM204)", .style = WrapperStyle::kCollects},
      {.name = "nohup", .role = kWrapper, .summary = "runs the command"},
      {.name = "setsid", .role = kWrapper, .summary = "runs the command"},
      {.name = "nice", .role = kWrapper, .summary = "runs the command", .options_with_value = {"-n", "--adjustment"}},
      {.name = "env",
       .role = kWrapper,
       .summary = "runs the command with V=x exported",
       .options_with_value = {"-u", "--unset", "-C", "--chdir"}},
      {.name = "timeout",
       .role = kWrapper,
       .summary = "runs the command after its duration",
       .options_with_value = {"-s", "--signal", "-k", "--kill-after"},
       .operands = 1},
      {.name = "numactl",
       .role = kWrapper,
       .summary = "runs the command",
       .options_with_value = {"-C", "--physcpubind", "-N", "--cpunodebind", "-m", "--membind", "-i", "--interleave",
                              "-p", "--preferred"}},
      {.name = "taskset", .role = kWrapper, .summary = "runs the command after its mask", .operands = 1},
  };
  return kTable;
}

}  // namespace

const Command* FindCommand(std::string_view name) {
  static const std::map<std::string_view, const Command*, std::less<>> kByName = [] {
    std::map<std::string_view, const Command*, std::less<>> by_name;
    for (const Command& command : CommandTable()) by_name.emplace(command.name, &command);
    return by_name;
  }();
  if (auto found = kByName.find(name); found != kByName.end()) return found->second;
  // python3, python3.11, python3-dbg, ...: python's row.
  return name.starts_with("python") ? kByName.at("python") : nullptr;
}

bool IsFollowed(std::string_view name) {
  const Command* command = FindCommand(name);
  return command != nullptr && command->role != CommandRole::kWrapper;
}

bool IsLauncher(std::string_view name) {
  const Command* command = FindCommand(name);
  return command != nullptr && command->role == CommandRole::kLauncher;
}

}  // namespace opmfu::linter::shell
