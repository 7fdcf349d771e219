#pragma once
// Expansion: one argument node of the text a frame reads, in an environment, into the word lists
// it can give (quotes, `$V` and `${V:-default}`, arrays, concatenation, word splitting, and the
// directory idioms of `$(cd "$(dirname "$0")/.." && pwd)`). Reads the environment, never changes it.

#include "common/tree_sitter.h"
#include "linter/shell/environment.h"
#include "linter/shell/frame.h"
#include "linter/shell/words.h"

namespace opmfu::linter::shell {

/// Expands one argument node into word-list alternatives (never none). `quoted`: inside "...",
/// no splitting.
WordAlternatives Expand(TSNode node, const Frame& frame, const Environment& env, bool quoted);

}  // namespace opmfu::linter::shell
