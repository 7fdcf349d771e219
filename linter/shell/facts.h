#pragma once
// What reading a bash launcher gives: the words after expansion (with where a launcher spells
// them), the commands that start a Python script, the other facts the launcher rules judge. The
// types the rest of opmfu sees; linter/bash_launcher.h reads a launcher into them.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/text_location.h"
#include "common/tree_sitter.h"

namespace opmfu::linter {

/// A stretch of a word's text that a launcher spells literally, byte for byte (`level0` in
/// `LEVEL=${LEVEL:-level0}`, carried through `$LEVEL`, concatenation and word splitting): where a
/// fix may rewrite that part of the word.
struct SpelledRun {
  std::size_t offset = 0;  ///< in the word's text
  std::size_t size = 0;
  TextLocation at;  ///< the bytes that spell it
};

/// One word after expansion. `known` is false when part of it is only known at run time
/// (`$(date)`, `$RANDOM`, an unset variable without a default).
struct ShellWord {
  ShellWord() = default;
  /// A word without spelled runs (SetRuns adds them). A constructor rather than braces: the run
  /// fields come after these, and a member added between them must not shift a brace list.
  ShellWord(std::string word_text, bool is_known, TextLocation location, bool is_anchored = false)
      : text(std::move(word_text)), known(is_known), where(std::move(location)), anchored(is_anchored) {}

  std::string text;
  bool known = true;
  TextLocation where;
  /// A directory that `pwd`, `realpath` or `readlink -f` printed (`R=$(cd "$(dirname "$0")"; pwd)`),
  /// written relative to where opmfu runs but absolute in the launcher: a later `cd` elsewhere
  /// does not move what it names.
  bool anchored = false;
  /// Where `text` starts in the runs' offsets: a part of a word (a field split out of it) shares
  /// its runs instead of copying them. (Beside the bools: a launcher holds many words.)
  std::uint32_t spelled_from = 0;
  std::uint32_t spelled_count = 0;  ///< how many runs `spelled` holds
  /// The parts of `text` spelled literally somewhere, in order, not overlapping; null for none.
  /// Shared and never changed once made: words are copied on every path through a launcher, and a
  /// copy must cost no allocation. One allocation holds all of them.
  std::shared_ptr<const SpelledRun[]> spelled{};

  bool HasRuns() const { return spelled != nullptr; }
  /// The runs in this word's own offsets, clipped to its text.
  std::vector<SpelledRun> Runs() const;
  /// Sets the runs, given in this word's own offsets.
  void SetRuns(std::vector<SpelledRun> runs);

  /// The word's text [from, from + size), with its runs clipped to it.
  ShellWord Part(std::size_t from, std::size_t size = std::string::npos) const;
  /// Where text [from, from + size) is spelled literally by one run, if it is.
  std::optional<TextLocation> SpelledAt(std::size_t from, std::size_t size) const;
};

/// A command that runs a Python script, on one path through the launcher.
struct Launch {
  std::string launcher;  ///< the file the command is in
  TextLocation command;  ///< the launch command
  ShellWord script;      ///< "train.py", as written (relative to the launcher's directory)
  std::string module;    ///< for `python -m pkg.mod`: "pkg.mod" (script is pkg/mod.py)
  std::string tool;      ///< "torchrun", "python", ...
  /// Where the command runs after the launcher's `cd`s, relative to where opmfu runs ("" when
  /// the launcher did not change directory, or changed it to a place only known at run time).
  std::string directory;
  /// The launcher changed directory to a place only known at run time (`cd "$GITHUB_WORKSPACE/x"`):
  /// where a relative script is cannot be told.
  bool directory_unknown = false;
  std::vector<ShellWord> arguments;  ///< what the script receives in sys.argv[1:]
  /// Exported variables (and `V=x` prefixes) at that point; the paths of one command share them.
  std::shared_ptr<const std::map<std::string, ShellWord, std::less<>>> environment;
  /// The `msprof` command it runs under (msprof collects on its own), when it does.
  std::optional<TextLocation> collector;
  /// A command a wrapper runs that opmfu does not follow (`srun` in `nohup srun python3 x.py`):
  /// the script is then unknown, and this names why.
  std::string unfollowed;

  /// An exported variable's value, or nullptr.
  const ShellWord* Exported(std::string_view name) const;
};

/// Something a launcher does that the launcher rules judge.
struct ShellCommandFact {
  /// kRemovedPath: an argument of `rm` (the launcher empties it, so nothing is reused there).
  enum class Kind { kExportedVariable, kAnalysisDirectory, kRemovedPath };
  Kind kind;
  std::string name;  ///< the variable, or "msprof-analyze" / "opmfu analyze"
  ShellWord value;
  /// For a directory: its last path segment when that is written out, even if an earlier part
  /// is known only at run time (`$(ls -td $D/*_ascend_pt | head -n 1)/ASCEND_PROFILER_OUTPUT`).
  std::string last_segment;
};

struct LauncherFacts {
  std::string path;
  std::vector<Launch> launches;
  std::vector<ShellCommandFact> commands;
  std::vector<Error> problems;      ///< a `source`d file that cannot be read, and the like
  std::vector<std::string> limits;  ///< a stated limit of the evaluator the launcher hit, one line each
  std::shared_ptr<const SyntaxTree> tree;
  /// The file's own length: the parsed text may have line breaks added after a final `\`.
  std::size_t source_size = std::string::npos;
};

}  // namespace opmfu::linter
