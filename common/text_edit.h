#pragma once
// Byte-range edits on a text and the unified diff they make; shared by `registry add` and
// `lint --fix --diff`.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu {

/// Replace bytes [begin, end) of the original text with `replacement` (begin == end inserts).
struct TextEdit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string replacement;
  /// The file edited, when not the one the edit belongs to (a finding in a script whose value a
  /// launcher spells: the fix edits the launcher). Empty: the diagnostic's own file.
  std::string file{};
  /// For an insertion: what goes between it and another insertion at the same point that has the
  /// same `join` (two items added to one empty `()`: ", "). Empty: the texts are put side by side.
  std::string join{};
};

/// Applies edits given against the same original text. They may come in any order but must not
/// overlap; anything else is a usage error, not a silent merge. The same edit given twice (one
/// edit that fixes two findings) is applied once; insertions at one point with the same `join` are
/// joined by it. In a text whose lines end in CRLF, the line breaks an edit writes do too.
Result<std::string> ApplyEdits(std::string_view original, std::vector<TextEdit> edits);

/// A unified diff (`--- a/path`, `+++ b/path`, hunks with `context` lines) of what `edits` do to
/// `original`; empty when the edits change nothing. Edits must be valid for ApplyEdits.
std::string UnifiedDiff(std::string_view path, std::string_view original, std::vector<TextEdit> edits, int context = 3);

/// Line edits that turn `before` into `after`: each maximal run of changed lines is one edit
/// replacing whole lines of `before`. The lines both share are found as a longest common
/// subsequence (after the common head and tail), or, when the middle is too large for that
/// (above kMaxDiffCells line pairs), the middle is one edit. UnifiedDiff(path, before,
/// LineEditsBetween(before, after)) shows `after` as a patch.
inline constexpr std::size_t kMaxDiffCells = std::size_t{1} << 22;
std::vector<TextEdit> LineEditsBetween(std::string_view before, std::string_view after);

}  // namespace opmfu
