#pragma once
// The interpreter: runs a launcher's statements in order (assignments, exports, function
// definitions, `if`/`case` branches as alternatives, loops, lists), each command's words
// expanded and handed to dispatch, and the files it sources and strings it evals in frames of
// their own. The last stage; linter/bash_launcher.cpp drives it.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/file_reader.h"
#include "common/tree_sitter.h"
#include "linter/shell/budget.h"
#include "linter/shell/environment.h"
#include "linter/shell/facts.h"
#include "linter/shell/frame.h"
#include "linter/shell/invocation.h"

namespace opmfu::linter::shell {

class Interpreter final : public Shell {
 public:
  Interpreter(LauncherFacts& into, const FileReader& reader) : Shell(into, reader) {}

  /// Reads the launcher `facts.path`, whose tree is `facts.tree`, then adds the limits it hit.
  void RunLauncher();

  void Follow(const ShellWord& target, Environment& env, const Frame& frame, bool new_script) override;
  void Eval(TSNode command, const Words& words, Environment& env, const Frame& frame) override;

 private:
  // A function as defined: where its text is, and (defined in an eval string) that string's
  // origin while the eval still runs.
  struct Function {
    TSNode definition;
    const SyntaxTree* tree;  // kept alive by trees_
    std::string file;
    std::shared_ptr<const TextSource> source;
    std::weak_ptr<const EvalOrigin> eval;
  };

  /// The name one file has however it is reached, for the loop check.
  std::string Identity(const std::string& path) const;
  /// Runs a file's tree in `env`; `frame` gives the depth and $0, the file its text.
  void RunFile(const std::string& path, std::shared_ptr<const SyntaxTree> tree, Environment& env, const Frame& frame);
  /// The tree of a followed file, read and parsed the first time it is followed; null (and the
  /// problem noted once) when it cannot be read or parsed.
  std::shared_ptr<const SyntaxTree> Parsed(const std::string& path, const std::string& canonical,
                                           const ShellWord& target, const Frame& frame);

  void Run(TSNode node, const Frame& outer, Environment& env);
  void RunDeclaration(TSNode node, const Frame& frame, Environment& env);
  void RunIf(TSNode node, const Frame& frame, Environment& env);
  void RunCase(TSNode node, const Frame& frame, Environment& env);
  void RunLoop(TSNode node, const Frame& frame, Environment& env);
  /// Runs the branches from `env` and leaves in `env` every value any of them can end with.
  /// `loop`: the branch is a loop's body (it may not run), and an empty value from before it is
  /// dropped where the body gives one only known at run time (`LEVEL=""` then `--level) LEVEL=$2`
  /// in an argument loop: what the launcher is given decides, not the empty start).
  void Branches(const std::vector<std::vector<TSNode>>& branches, bool exhaustive, const Frame& frame, Environment& env,
                bool loop = false);
  void RunCommand(TSNode command, const Frame& frame, Environment& env);
  void CallFunction(const Function& function, const Frame& frame, Environment& env);
  void NoteExport(const std::string& name, const Environment& env);

  Budget budget_;
  std::vector<std::shared_ptr<const SyntaxTree>> trees_;  // eval strings: functions point into them
  std::map<std::string, std::shared_ptr<const SyntaxTree>, std::less<>> parsed_;  // followed files, by identity
  std::map<std::string, Function, std::less<>> functions_;
  std::set<std::string> visiting_;  // the files being read, for `source` loops
};

}  // namespace opmfu::linter::shell
