#pragma once
// Words as expansion makes them: the alternatives a branchy launcher gives, the run-time parts
// kept between markers until a word is done, splitting on whitespace, and joining words while
// keeping where each literal part is spelled.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linter/shell/facts.h"

namespace opmfu::linter::shell {

/// One word list (a command's words, an array's elements), and the alternatives an expansion
/// can give.
using Words = std::vector<ShellWord>;
using WordAlternatives = std::vector<Words>;

/// A launcher's branches multiply; beyond this many alternatives per variable or per command only
/// the first ones are kept (a finding then still names a real path).
constexpr std::size_t kMaxAlternatives = 8;

/// Inside evaluation, the parts of a word known only at run time are kept between these two
/// characters, so splitting and concatenation know where they are; Clean() removes them.
constexpr char kOpaqueStart = '\x01';
constexpr char kOpaqueEnd = '\x02';

/// The word as the rest of opmfu sees it: markers removed (its runs moved with them), known only
/// when no part was a run-time one.
ShellWord Clean(ShellWord word);

bool SameWords(const Words& a, const Words& b);

/// Appends `right`'s text to `left`'s, its runs moved past `left`'s text.
void AppendText(ShellWord& left, const ShellWord& right);

/// A word spelled exactly by the bytes at `at` (a plain word, a quoted string's content).
ShellWord WithRun(ShellWord word, TextLocation at);

/// The last segment of a path (trailing slashes ignored) when no part of it is known only at
/// run time; "" otherwise. Takes the text before Clean().
std::string KnownLastSegment(std::string_view text);

/// Word splitting on whitespace, except inside run-time parts: each field with its offset.
std::vector<std::pair<std::string, std::size_t>> SplitFields(std::string_view text);

/// Where field `offset..offset+size` of a word is written, when the word is a literal in the
/// source (`"--a --b"` split into --a and --b); else the whole word.
TextLocation FieldLocation(const ShellWord& word, std::size_t offset, std::size_t size);

/// Appends each alternative of the next word(s) to each path so far (capped). One alternative,
/// the usual case, is appended in place: copying every prefix would make long arrays quadratic.
void AppendAlternatives(WordAlternatives& paths, WordAlternatives next_words);

/// The last segment of a command's path (`/usr/bin/python3` runs python3).
std::string BaseName(std::string_view path);

}  // namespace opmfu::linter::shell
