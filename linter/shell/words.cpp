#include "linter/shell/words.h"

#include <algorithm>
#include <iterator>

namespace opmfu::linter::shell {

bool SameWords(const Words& a, const Words& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].text != b[i].text || a[i].known != b[i].known) return false;
  }
  return true;
}

ShellWord Clean(ShellWord word) {
  word.known = word.known && word.text.find(kOpaqueStart) == std::string::npos;
  if (word.HasRuns() && word.text.find_first_of("\x01\x02") != std::string::npos) {
    // Runs never cover a marker (they spell literal text), so each moves back by the markers
    // before it.
    std::vector<std::size_t> markers_before(word.text.size() + 1, 0);
    for (std::size_t i = 0; i < word.text.size(); ++i) {
      const char c = word.text[i];
      markers_before[i + 1] = markers_before[i] + (c == kOpaqueStart || c == kOpaqueEnd ? 1 : 0);
    }
    std::vector<SpelledRun> moved = word.Runs();
    for (SpelledRun& run : moved) run.offset -= markers_before[std::min(run.offset, word.text.size())];
    word.SetRuns(std::move(moved));
  }
  std::erase_if(word.text, [](char c) { return c == kOpaqueStart || c == kOpaqueEnd; });
  return word;
}

// The most spelled runs a word keeps.
constexpr std::size_t kMaxSpelledRuns = 64;

// Appends `right`'s text to `left`'s, its runs moved past `left`'s text.
void AppendText(ShellWord& left, const ShellWord& right) {
  // The left word's runs are fixed to its text before it grows: a shared window would otherwise
  // widen over runs that spell something else.
  if (right.HasRuns() || left.HasRuns()) {
    // A word put together from many literals (`a=$a$a` forty times, `A="$A x"` in a loop) keeps
    // no runs: a fix rewrites one literal, and counting past a few would make every append cost
    // as much as all the ones before it.
    if (std::size_t{left.spelled_count} + right.spelled_count > kMaxSpelledRuns) {
      left.SetRuns({});
      left.text += right.text;
      return;
    }
    std::vector<SpelledRun> joined = left.Runs();
    for (SpelledRun run : right.Runs()) {
      run.offset += left.text.size();
      joined.push_back(std::move(run));
    }
    left.SetRuns(std::move(joined));
  }
  left.text += right.text;
}

// A word spelled exactly by the bytes at `at` (a plain word, a quoted string's content).
ShellWord WithRun(ShellWord word, TextLocation at) {
  if (!word.text.empty() && at.valid() && at.end_byte >= at.start_byte &&
      at.end_byte - at.start_byte == word.text.size()) {
    word.SetRuns({{0, word.text.size(), std::move(at)}});
  }
  return word;
}

// The last segment of a path (trailing slashes ignored) when no part of it is known only at
// run time; "" otherwise. Takes the text before Clean().
std::string KnownLastSegment(std::string_view text) {
  while (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  const std::size_t slash = text.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? text : text.substr(slash + 1);
  if (last.find(kOpaqueStart) != std::string_view::npos || last.find(kOpaqueEnd) != std::string_view::npos) return {};
  return std::string(last);
}

// Word splitting on whitespace, except inside run-time parts: each field with its offset.
std::vector<std::pair<std::string, std::size_t>> SplitFields(std::string_view text) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::string current;
  std::size_t start = 0;
  int opaque = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == kOpaqueStart) ++opaque;
    if (c == kOpaqueEnd) --opaque;
    if (opaque == 0 && (c == ' ' || c == '\t' || c == '\n')) {
      if (!current.empty()) out.emplace_back(std::move(current), start);
      current.clear();
    } else {
      if (current.empty()) start = i;
      current += c;
    }
  }
  if (!current.empty()) out.emplace_back(std::move(current), start);
  return out;
}

// Where field `offset..offset+size` of a word is written, when the word is a literal in the
// source (`"--a --b"` split into --a and --b); else the whole word.
TextLocation FieldLocation(const ShellWord& word, std::size_t offset, std::size_t size) {
  const TextLocation& where = word.where;
  if (!where.source || where.end_byte > where.source->text->size() || where.end_byte < where.start_byte) return where;
  const std::string_view written =
      std::string_view(*where.source->text).substr(where.start_byte, where.end_byte - where.start_byte);
  std::uint32_t base = where.start_byte;
  if (written.size() == word.text.size() + 2 && (written.front() == '"' || written.front() == '\'') &&
      written.back() == written.front() && written.substr(1, word.text.size()) == word.text) {
    base += 1;
  } else if (written != word.text) {
    return where;
  }
  return {where.source, base + static_cast<std::uint32_t>(offset), base + static_cast<std::uint32_t>(offset + size)};
}

// Appends each alternative of the next word(s) to each path so far (capped). One alternative,
// the usual case, is appended in place: copying every prefix would make long arrays quadratic.
void AppendAlternatives(WordAlternatives& paths, WordAlternatives next_words) {
  if (next_words.size() == 1) {
    Words& words = next_words.front();
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (i + 1 == paths.size()) {
        paths[i].insert(paths[i].end(), std::make_move_iterator(words.begin()), std::make_move_iterator(words.end()));
      } else {
        paths[i].insert(paths[i].end(), words.begin(), words.end());
      }
    }
    return;
  }
  WordAlternatives next;
  for (const Words& prefix : paths) {
    for (const Words& words : next_words) {
      if (next.size() >= kMaxAlternatives) break;
      Words joined;
      joined.reserve(std::max(prefix.capacity(), prefix.size() + words.size()));  // keeps the caller's hint
      joined.insert(joined.end(), prefix.begin(), prefix.end());
      joined.insert(joined.end(), words.begin(), words.end());
      next.push_back(std::move(joined));
    }
  }
  paths = std::move(next);
}

std::string BaseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace opmfu::linter::shell
