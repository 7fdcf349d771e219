#pragma once
// The text being read, passed as a value: which tree and file (a launcher, a file it sources,
// the file a function was defined in, an eval string), and what the reading of it carries
// (its $0, the msprof command it runs under, how deep it is). A stage that reads another text
// makes a new frame for it; nothing is swapped back afterwards.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/text_location.h"
#include "common/tree_sitter.h"
#include "linter/shell/budget.h"
#include "linter/shell/words.h"

namespace opmfu::linter::shell {

/// Where an eval string is written in the launcher: exactly (the value of
/// `cmd="torchrun ... train.py"`, each node placed at its offset from there), or put together
/// (every node placed on the whole word).
struct EvalOrigin {
  TextLocation origin;
  bool exact = false;
};

/// One text being read.
struct ShellText {
  const SyntaxTree* tree = nullptr;  ///< kept alive by whoever reads it
  std::string file;                  ///< the file it is, or (an eval string) the file it is in
  std::shared_ptr<const TextSource> source;
  std::shared_ptr<const EvalOrigin> eval;  ///< set while an eval string is read
};

/// The reading of one text at one point: small, and copied as it goes deeper.
struct Frame {
  const ShellText* text = nullptr;
  Budget* budget = nullptr;
  const std::string* dollar_zero = nullptr;  ///< the script bash runs
  const TextLocation* collector = nullptr;   ///< the msprof command it runs under, when it does
  /// Where the launcher is after its `cd`s (Shell::directory, "" where opmfu runs) and whether a
  /// `cd` went somewhere only known at run time: where `$(pwd)` starts.
  const std::string* directory = nullptr;
  const bool* directory_unknown = nullptr;
  int depth = 0;    ///< nested sources, function calls and evals
  int nesting = 0;  ///< nested blocks and expansions (C++ frames)

  std::string_view Text(TSNode node) const { return text->tree->Text(node); }
  const std::string& file() const { return text->file; }

  /// Where a node of the text is in a file (an eval string's: where it is written).
  TextLocation Where(TSNode node) const;
  /// A word of `text` at `node`; not known: a run-time part.
  ShellWord Literal(std::string text, TSNode node, bool known = true) const;
  /// A literal spelled byte for byte by `node` (or by `node` without its quotes).
  ShellWord SpelledLiteral(std::string text, TSNode node, std::uint32_t quotes = 0) const;

  /// The frame one level of nesting deeper; nullopt past kMaxNesting (noted in the budget).
  std::optional<Frame> Nested() const;

  void CapValue(ShellWord& word) const { budget->CapValue(word, file()); }
  void CapWords(Words& words) const { budget->CapWords(words, file()); }
};

}  // namespace opmfu::linter::shell
