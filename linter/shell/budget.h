#pragma once
// The evaluator's stated limits (docs/reliability.md, "Limits") and which of them a launcher hit.
// Past a limit the launcher is still read, the rest of that block or value counting as unknown,
// and the file gets one line saying which limit it hit.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "linter/shell/words.h"

namespace opmfu::linter::shell {

/// Nested sources and function calls.
constexpr int kMaxSourceNesting = 16;
/// How deep the evaluator follows nested blocks and expansions (each level is a C++ frame: 10,000
/// nested `if`s would overflow the stack).
constexpr int kMaxNesting = 200;
/// How long one variable's value may grow (`a=$a$a` forty times would be a terabyte).
constexpr std::size_t kMaxValueBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxArrayElements = 4096;
/// Files read by `source`, `.` and `bash x.sh` in one launcher's reading, every time counted: 21
/// launchers each sourcing the next three times would read 3^16 files within the nesting limit.
constexpr std::size_t kMaxFollowedFiles = 1000;
/// Syntax nodes evaluated in one launcher's reading, its sources, function calls and evals included:
/// what bounds the time when no single limit above is reached (a real launcher takes thousands).
constexpr std::size_t kMaxEvaluationSteps = 1'000'000;

/// Which limits one launcher's reading hit, each with the file where it first was.
class Budget {
 public:
  void NoteNesting(const std::string& file) {
    if (!nesting_hit_) nesting_hit_ = file;
  }
  /// A value past kMaxValueBytes becomes unknown (its start kept, for the message of a finding).
  void CapValue(ShellWord& word, const std::string& file);
  /// An array past kMaxValueBytes in all, or kMaxArrayElements, keeps its first elements, the last
  /// of them unknown.
  void CapWords(Words& words, const std::string& file);
  /// A `source` or script met kMaxSourceNesting files deep, not followed.
  void NoteSourceNesting(const std::string& file) {
    if (!source_nesting_hit_) source_nesting_hit_ = file;
  }
  /// False once kMaxFollowedFiles files were followed: `file` does not follow another.
  bool Follow(const std::string& file);
  /// False once kMaxEvaluationSteps nodes were evaluated: the reading unwinds from there.
  bool Step(const std::string& file);
  /// One line per limit hit.
  void Report(std::vector<std::string>& limits) const;

 private:
  std::optional<std::string> nesting_hit_;
  std::optional<std::string> value_hit_;
  std::optional<std::string> source_nesting_hit_;
  std::size_t followed_ = 0;
  std::optional<std::string> follow_hit_;
  std::size_t steps_ = 0;
  std::optional<std::string> steps_hit_;
};

}  // namespace opmfu::linter::shell
