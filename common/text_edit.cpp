#include "common/text_edit.h"

#include <algorithm>
#include <cstdint>

#include "common/text.h"

namespace opmfu {

namespace {

// The file's own line ending, as editors keep it: CRLF when its first line ends so.
bool EndsLinesWithCrlf(std::string_view text) {
  const std::size_t newline = text.find('\n');
  return newline != std::string_view::npos && newline > 0 && text[newline - 1] == '\r';
}

std::string WithCrlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out += '\r';
    out += text[i];
  }
  return out;
}

Status SortAndValidate(std::string_view original, std::vector<TextEdit>& edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  // The same edit twice (two findings one edit fixes) is applied once.
  for (std::size_t i = 0; i < edits.size(); ++i) {
    for (std::size_t j = i + 1; j < edits.size() && edits[j].begin == edits[i].begin;) {
      const bool same = edits[j].end == edits[i].end && edits[j].replacement == edits[i].replacement;
      if (same) {
        edits.erase(edits.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
  }
  // Items inserted at one point of one list: one insertion, the items joined.
  for (std::size_t i = 0; i + 1 < edits.size();) {
    TextEdit& first = edits[i];
    const TextEdit& next = edits[i + 1];
    if (first.begin == first.end && next.begin == first.begin && next.end == next.begin && !first.join.empty() &&
        first.join == next.join) {
      first.replacement += first.join + next.replacement;
      edits.erase(edits.begin() + static_cast<std::ptrdiff_t>(i + 1));
    } else {
      ++i;
    }
  }
  if (EndsLinesWithCrlf(original)) {
    for (TextEdit& edit : edits) {
      if (edit.replacement.find('\n') != std::string::npos) edit.replacement = WithCrlf(edit.replacement);
    }
  }
  std::size_t previous_end = 0;
  for (const TextEdit& edit : edits) {
    if (edit.begin > edit.end || edit.end > original.size()) {
      return Error::Internal("text edit [" + std::to_string(edit.begin) + ", " + std::to_string(edit.end) +
                             ") lies outside a text of " + std::to_string(original.size()) + " bytes");
    }
    if (edit.begin < previous_end) return Error::Internal("overlapping text edits");
    previous_end = edit.end;
  }
  return Ok();
}

// One run of whole original lines [first_line, first_line + old_lines.size()) and what replaces it.
struct LineChange {
  std::size_t first_line = 0;
  std::vector<std::string_view> old_lines;
  std::vector<std::string> new_lines;
};

// Splits into lines that keep their '\n' (the last may lack one).
template <typename Out>
void SplitKeepingNewlines(std::string_view text, Out& out) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.emplace_back(text.substr(start, end - start));
    start = end;
  }
}

std::size_t LineOf(const std::vector<std::size_t>& starts, std::size_t offset) {
  return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin()) - 1;
}

std::vector<LineChange> LineChanges(std::string_view original, const std::vector<TextEdit>& edits) {
  const std::vector<std::size_t> starts = LineStarts(original);
  const auto line_start = [&](std::size_t offset) { return starts[LineOf(starts, offset)]; };
  // Where the whole line holding `offset` ends; an offset at a line start (other than the
  // change's own start) needs no more of the original.
  const auto whole_line_end = [&](const TextEdit& edit) {
    const std::size_t offset = edit.end;
    if (offset == original.size() || (offset == line_start(offset) && offset > edit.begin)) return offset;
    const bool inserts_whole_lines = edit.replacement.empty() || edit.replacement.back() == '\n';
    if (offset == edit.begin && offset == line_start(offset) && inserts_whole_lines) {
      return offset;  // touches no original line
    }
    const std::size_t newline = original.find('\n', offset);
    return newline == std::string_view::npos ? original.size() : newline + 1;
  };

  std::vector<LineChange> changes;
  std::size_t index = 0;
  while (index < edits.size()) {
    const std::size_t start = line_start(edits[index].begin);
    std::size_t end = whole_line_end(edits[index]);
    std::size_t last = index;
    // Edits whose lines touch the group's lines join the group.
    while (last + 1 < edits.size() && edits[last + 1].begin < end) {
      ++last;
      end = std::max(end, whole_line_end(edits[last]));
    }
    std::string replaced;
    std::size_t cursor = start;
    for (std::size_t i = index; i <= last; ++i) {
      replaced.append(original.substr(cursor, edits[i].begin - cursor));
      replaced += edits[i].replacement;
      cursor = edits[i].end;
    }
    replaced.append(original.substr(cursor, end - cursor));

    LineChange change;
    change.first_line = LineOf(starts, start);
    SplitKeepingNewlines(original.substr(start, end - start), change.old_lines);
    SplitKeepingNewlines(replaced, change.new_lines);
    const bool same = change.old_lines.size() == change.new_lines.size() &&
                      std::equal(change.old_lines.begin(), change.old_lines.end(), change.new_lines.begin());
    if (!same) changes.push_back(std::move(change));
    index = last + 1;
  }
  return changes;
}

void AppendLine(std::string& out, char marker, std::string_view line) {
  out += marker;
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

std::string HunkRange(std::size_t first_line, std::size_t count) {
  // Unified diff convention: an empty range names the line before it.
  const std::size_t shown = count == 0 ? first_line : first_line + 1;
  return std::to_string(shown) + (count == 1 ? "" : "," + std::to_string(count));
}

}  // namespace

Result<std::string> ApplyEdits(std::string_view original, std::vector<TextEdit> edits) {
  OPMFU_RETURN_IF_ERROR(SortAndValidate(original, edits));
  std::string out;
  out.reserve(original.size());
  std::size_t cursor = 0;
  for (const TextEdit& edit : edits) {
    out.append(original.substr(cursor, edit.begin - cursor));
    out += edit.replacement;
    cursor = edit.end;
  }
  out.append(original.substr(cursor));
  return out;
}

std::string UnifiedDiff(std::string_view path, std::string_view original, std::vector<TextEdit> edits, int context) {
  if (!SortAndValidate(original, edits).ok()) return {};
  const std::vector<LineChange> changes = LineChanges(original, edits);
  if (changes.empty()) return {};
  std::vector<std::string_view> lines;
  SplitKeepingNewlines(original, lines);
  const auto margin = static_cast<std::size_t>(std::max(context, 0));

  // git's a/ b/ prefixes only make sense for relative paths.
  const bool relative = !path.empty() && path.front() != '/';
  std::string out = (relative ? "--- a/" : "--- ") + std::string(path) + "\n" + (relative ? "+++ b/" : "+++ ") +
                    std::string(path) + "\n";
  std::ptrdiff_t line_delta = 0;  // new line number minus old, before the current hunk
  std::size_t index = 0;
  while (index < changes.size()) {
    // Changes closer than two contexts apart share a hunk.
    std::size_t last = index;
    while (last + 1 < changes.size()) {
      const std::size_t end_of_last = changes[last].first_line + changes[last].old_lines.size();
      if (changes[last + 1].first_line > end_of_last + 2 * margin) break;
      ++last;
    }
    const std::size_t hunk_first = changes[index].first_line - std::min(margin, changes[index].first_line);
    const std::size_t change_end = changes[last].first_line + changes[last].old_lines.size();
    const std::size_t hunk_end = std::min(lines.size(), change_end + margin);

    std::string body;
    std::size_t old_count = 0;
    std::size_t new_count = 0;
    std::ptrdiff_t delta_inside = 0;
    std::size_t line = hunk_first;
    for (std::size_t i = index; i <= last; ++i) {
      for (; line < changes[i].first_line; ++line, ++old_count, ++new_count) AppendLine(body, ' ', lines[line]);
      for (std::string_view removed : changes[i].old_lines) AppendLine(body, '-', removed), ++old_count;
      for (const std::string& added : changes[i].new_lines) AppendLine(body, '+', added), ++new_count;
      line += changes[i].old_lines.size();
      delta_inside += static_cast<std::ptrdiff_t>(changes[i].new_lines.size()) -
                      static_cast<std::ptrdiff_t>(changes[i].old_lines.size());
    }
    for (; line < hunk_end; ++line, ++old_count, ++new_count) AppendLine(body, ' ', lines[line]);

    const auto new_first = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(hunk_first) + line_delta);
    out += "@@ -" + HunkRange(hunk_first, old_count) + " +" + HunkRange(new_first, new_count) + " @@\n";
    out += body;
    line_delta += delta_inside;
    index = last + 1;
  }
  return out;
}

std::vector<TextEdit> LineEditsBetween(std::string_view before, std::string_view after) {
  std::vector<std::string_view> old_lines;
  std::vector<std::string_view> new_lines;
  SplitKeepingNewlines(before, old_lines);
  SplitKeepingNewlines(after, new_lines);
  std::size_t head = 0;
  while (head < old_lines.size() && head < new_lines.size() && old_lines[head] == new_lines[head]) ++head;
  std::size_t tail = 0;
  while (tail < old_lines.size() - head && tail < new_lines.size() - head &&
         old_lines[old_lines.size() - 1 - tail] == new_lines[new_lines.size() - 1 - tail]) {
    ++tail;
  }
  const std::size_t n = old_lines.size() - head - tail;
  const std::size_t m = new_lines.size() - head - tail;
  // Byte offset in `before` where each old line starts (one past the end for the last).
  std::vector<std::size_t> offset(old_lines.size() + 1, 0);
  for (std::size_t i = 0; i < old_lines.size(); ++i) offset[i + 1] = offset[i] + old_lines[i].size();
  std::vector<TextEdit> edits;
  const auto add_edit = [&](std::size_t old_begin, std::size_t old_end, std::size_t new_begin, std::size_t new_end) {
    if (old_begin == old_end && new_begin == new_end) return;
    std::string replacement;
    for (std::size_t j = new_begin; j < new_end; ++j) replacement += new_lines[j];
    edits.push_back({offset[old_begin], offset[old_end], std::move(replacement)});
  };
  if (n == 0 || m == 0 || n * m > kMaxDiffCells) {
    add_edit(head, head + n, head, head + m);
    return edits;
  }
  // common[i][j]: the longest common subsequence of old middle lines i.. and new middle lines j..
  std::vector<std::uint32_t> common((n + 1) * (m + 1), 0);
  const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return common[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      at(i, j) =
          old_lines[head + i] == new_lines[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  std::size_t i = 0;
  std::size_t j = 0;
  std::size_t run_i = 0;  // where the current run of changed lines began
  std::size_t run_j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && old_lines[head + i] == new_lines[head + j]) {
      add_edit(head + run_i, head + i, head + run_j, head + j);
      ++i, ++j;
      run_i = i, run_j = j;
    } else if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j))) {
      ++j;
    } else {
      ++i;
    }
  }
  add_edit(head + run_i, head + n, head + run_j, head + m);
  return edits;
}

}  // namespace opmfu
