#pragma once
// What a command gets when it runs: its words, the environments and frame it runs in, and the
// shell reading the launcher (where facts go, the launcher's directory, and the two things only
// the shell can do: read another file, run a string).

#include <string>

#include "common/file_reader.h"
#include "common/text_location.h"
#include "common/tree_sitter.h"
#include "linter/shell/environment.h"
#include "linter/shell/facts.h"
#include "linter/shell/frame.h"
#include "linter/shell/words.h"

namespace opmfu::linter::shell {

/// The shell reading one launcher, as its commands see it.
class Shell {
 public:
  Shell(LauncherFacts& into, const FileReader& reader) : facts(into), files(reader) {}
  virtual ~Shell() = default;
  Shell(const Shell&) = delete;
  Shell& operator=(const Shell&) = delete;

  /// `source FILE`, and (`new_script`) `bash FILE`, whose $0 is FILE: reads the file through
  /// `files` and runs it in `env`.
  virtual void Follow(const ShellWord& target, Environment& env, const Frame& frame, bool new_script) = 0;
  /// `eval WORDS`: the words joined and run in `env`, as the launcher's own text.
  virtual void Eval(TSNode command, const Words& words, Environment& env, const Frame& frame) = 0;

  LauncherFacts& facts;
  const FileReader& files;
  std::string directory;           ///< after the launcher's `cd`s; "" where opmfu runs
  bool directory_unknown = false;  ///< a `cd` went to a place only known at run time
};

/// One command, wrappers seen through: the program and the words it receives.
struct Invocation {
  Shell& shell;
  const Frame& frame;
  TSNode command;             ///< the command node
  std::string name;           ///< the program, its directory dropped ("python3")
  bool name_unknown = false;  ///< `$PYTHON train.py` with PYTHON unset
  WordAlternatives argv;      ///< the words after the name, on each path
  const Environment& local;   ///< what the command sees (`V=x` prefixes over `env`)
  Environment& env;           ///< the launcher's variables (what `source` changes)
};

}  // namespace opmfu::linter::shell
