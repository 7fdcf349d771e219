#pragma once
// Where a Python source can be cut into independently parsable parts: starts of top-level
// statements, found by a small lexer that knows strings, comments, brackets and continuations.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace opmfu {

/// A cut: the byte offset of a top-level statement's first character (always at column 0) and
/// its 0-based row.
struct SplitPoint {
  std::size_t byte = 0;
  std::size_t row = 0;
};

/// A byte range of the source and the rows it starts and ends on (ranges start and end at line
/// starts, so columns are 0).
struct SourceSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t begin_row = 0;
  std::size_t end_row = 0;
};

/// The source minus the bodies of top-level functions after their first statement: what a
/// reader of decorators, signatures and docstrings needs, for tree-sitter's included ranges.
/// A body whose first statement is compound (`if x:`) is kept whole. Nullopt when the lexer is
/// unsure of the layout.
std::optional<std::vector<SourceSpan>> SignatureSpans(std::string_view source);

/// Up to `parts - 1` cuts giving parts of roughly equal size, in order. Empty when the source
/// has something the lexer is unsure of (an unterminated string, unbalanced brackets): then the
/// caller parses the whole file in one piece.
std::vector<SplitPoint> TopLevelSplitPoints(std::string_view source, std::size_t parts);

}  // namespace opmfu
