#include "linter/shell/facts.h"

#include <algorithm>
#include <span>

namespace opmfu::linter {

ShellWord ShellWord::Part(std::size_t from, std::size_t size) const {
  from = std::min(from, text.size());
  size = std::min(size, text.size() - from);
  // Member by member: copying the whole word first would copy its whole text for each field.
  ShellWord part{text.substr(from, size), known, where, anchored};
  part.spelled = spelled;
  part.spelled_count = spelled_count;
  part.spelled_from = spelled_from + static_cast<std::uint32_t>(from);  // the runs are shared, read through the window
  return part;
}

void ShellWord::SetRuns(std::vector<SpelledRun> runs) {
  spelled_from = 0;
  spelled_count = static_cast<std::uint32_t>(runs.size());
  if (runs.empty()) {
    spelled = nullptr;
    return;
  }
  std::shared_ptr<SpelledRun[]> made = std::make_shared<SpelledRun[]>(runs.size());
  std::move(runs.begin(), runs.end(), made.get());
  spelled = std::move(made);
}

std::vector<SpelledRun> ShellWord::Runs() const {
  std::vector<SpelledRun> out;
  if (!spelled) return out;
  for (const SpelledRun& run : std::span(spelled.get(), spelled_count)) {
    const std::size_t begin = std::max<std::size_t>(run.offset, spelled_from);
    const std::size_t end = std::min(run.offset + run.size, spelled_from + text.size());
    if (begin >= end) continue;
    TextLocation at = run.at;
    at.start_byte += static_cast<std::uint32_t>(begin - run.offset);
    at.end_byte = at.start_byte + static_cast<std::uint32_t>(end - begin);
    out.push_back({begin - spelled_from, end - begin, std::move(at)});
  }
  return out;
}

std::optional<TextLocation> ShellWord::SpelledAt(std::size_t from, std::size_t size) const {
  if (!HasRuns() || from + size > text.size()) return std::nullopt;
  const std::size_t wanted = spelled_from + from;  // in the runs' offsets
  for (const SpelledRun& run : std::span(spelled.get(), spelled_count)) {
    if (run.offset > wanted || run.offset + run.size < wanted + size) continue;
    TextLocation at = run.at;
    at.start_byte += static_cast<std::uint32_t>(wanted - run.offset);
    at.end_byte = at.start_byte + static_cast<std::uint32_t>(size);
    if (!at.source || at.end_byte > at.source->text->size()) return std::nullopt;
    // The bytes there must still spell it (a run is only ever made from them).
    if (std::string_view(*at.source->text).substr(at.start_byte, size) != std::string_view(text).substr(from, size)) {
      return std::nullopt;
    }
    return at;
  }
  return std::nullopt;
}

const ShellWord* Launch::Exported(std::string_view name) const {
  if (!environment) return nullptr;
  auto found = environment->find(name);
  return found == environment->end() ? nullptr : &found->second;
}

}  // namespace opmfu::linter
