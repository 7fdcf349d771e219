#pragma once
// The command table: one row per builtin and program a launcher may run that opmfu reads (as
// ninja's tools table: the name, what it is, what it does). A command with no row is not read
// (its words are not even expanded), so a new known program is one row here, and, when it
// starts something, a function in programs.cpp or a wrapper style that dispatch.cpp sees through.

#include <cstddef>
#include <set>
#include <string_view>

#include "linter/shell/invocation.h"

namespace opmfu::linter::shell {

enum class CommandRole {
  kWrapper,   ///< runs the rest of its words as a command (`nohup`, `env V=x`, `timeout 1h`)
  kBuiltin,   ///< a shell builtin read for its effect (`source`, `cd`)
  kProgram,   ///< a program read for what it is given (`bash x.sh`, `rm`, `msprof-analyze`)
  kLauncher,  ///< a program that starts a Python script
};

/// How a wrapper finds the command it runs.
enum class WrapperStyle {
  kRuns,       ///< its options, then `operands` operands, then the command
  kCollects,   ///< as kRuns, and the command's launches run under it (`msprof`; `--application=`)
  kEvaluates,  ///< its words are a string the shell runs (`eval`)
  kUvRun,      ///< `uv run [options] PROGRAM`: the first Python or launcher word, else uv's python
};

struct Command {
  std::string_view name;
  CommandRole role;
  std::string_view summary;  ///< what opmfu reads of it
  /// What running it does, for a builtin, program or launcher (wrappers are seen through).
  void (*run)(Invocation& call) = nullptr;
  WrapperStyle style = WrapperStyle::kRuns;
  std::set<std::string_view, std::less<>> options_with_value = {};  ///< a wrapper's options taking the next word
  std::size_t operands = 0;  ///< a wrapper's operands before the command (`timeout 1h cmd`)
};

/// The row of a command name ("python3.11" has python's), or nullptr: opmfu does not read it.
const Command* FindCommand(std::string_view name);

/// A command read for itself, not only seen through (every row but a wrapper's).
bool IsFollowed(std::string_view name);

/// A command that starts a Python script.
bool IsLauncher(std::string_view name);

}  // namespace opmfu::linter::shell
