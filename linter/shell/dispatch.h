#pragma once
// Dispatch: a command whose name and words are known, seen through its wrappers (`nohup`,
// `env V=x`, `timeout 1h`, `numactl ...`, `msprof ...`, `uv run`, `eval "$cmd"`) to the program
// they start, which its row in the command table then runs.

#include <string>
#include <vector>

#include "common/text_location.h"
#include "common/tree_sitter.h"
#include "linter/shell/environment.h"
#include "linter/shell/frame.h"
#include "linter/shell/invocation.h"
#include "linter/shell/words.h"

namespace opmfu::linter::shell {

/// A command as written, its words expanded.
struct CommandLine {
  TSNode command;             ///< the command node
  std::string name;           ///< its first word, the directory dropped
  TextLocation where;         ///< the first word
  bool name_unknown = false;  ///< only known at run time (`$PYTHON`)
  WordAlternatives argv;      ///< the words after the name, on each path
  /// `env V=x cmd`: the assignments a wrapper gave the command (on its first path).
  std::vector<ShellWord> assignments = {};
};

/// One path's words, of which the command is the one at `start`, and the `env V=x` assignments
/// before it.
struct PathWords {
  Words words;
  std::size_t start = 0;
  std::vector<ShellWord> assignments;
};

/// The paths grouped by the command each runs (its word at `start`, the directory dropped), in
/// the order of their first paths: one command line per command, with its words after the name.
std::vector<CommandLine> SplitByCommand(TSNode command, std::vector<PathWords> paths);

/// Runs the command. `local` is the environment the command sees, `env` the launcher's.
void Dispatch(Shell& shell, const Frame& frame, CommandLine line, const Environment& local, Environment& env);

/// A command line as one string split on whitespace (msprof's --application, a partly known
/// eval string), run as a command; `outer` names what gave it, for a finding.
void DispatchFields(Shell& shell, const Frame& frame, TSNode command, const ShellWord& text, const Environment& local,
                    Environment& env, const std::string& outer);

}  // namespace opmfu::linter::shell
