#include "linter/shell/budget.h"

#include <algorithm>

#include "common/input_file.h"

namespace opmfu::linter::shell {

void Budget::CapValue(ShellWord& word, const std::string& file) {
  if (word.text.size() <= kMaxValueBytes) return;
  if (!value_hit_) value_hit_ = file;
  word.text.resize(std::min<std::size_t>(word.text.size(), 256));
  word.known = false;
  // Runs past the kept text are clipped when read.
}

void Budget::CapWords(Words& words, const std::string& file) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    bytes += words[i].text.size() + 1;
    if (bytes <= kMaxValueBytes && i + 1 < kMaxArrayElements) continue;
    if (!value_hit_) value_hit_ = file;
    words.resize(i + 1);
    words.back().known = false;
    CapValue(words.back(), file);
    return;
  }
}

bool Budget::Follow(const std::string& file) {
  if (followed_ < kMaxFollowedFiles) {
    ++followed_;
    return true;
  }
  if (!follow_hit_) follow_hit_ = file;
  return false;
}

bool Budget::Step(const std::string& file) {
  if (steps_ < kMaxEvaluationSteps) {
    ++steps_;
    return true;
  }
  if (!steps_hit_) steps_hit_ = file;
  return false;
}

void Budget::Report(std::vector<std::string>& limits) const {
  if (nesting_hit_) {
    limits.push_back(*nesting_hit_ + ": nesting deeper than " + std::to_string(kMaxNesting) +
                     " levels (a limit of opmfu): what lies deeper was not followed");
  }
  if (value_hit_) {
    limits.push_back(*value_hit_ + ": a variable's value grew past " + DescribeBytes(kMaxValueBytes) + " or " +
                     std::to_string(kMaxArrayElements) +
                     " elements (a limit of opmfu): it counts as unknown from there");
  }
  if (source_nesting_hit_) {
    limits.push_back(*source_nesting_hit_ + ": files sourced or run " + std::to_string(kMaxSourceNesting) +
                     " deep (a limit of opmfu): the files they name were not followed");
  }
  if (follow_hit_) {
    limits.push_back(*follow_hit_ + ": more than " + std::to_string(kMaxFollowedFiles) +
                     " files sourced or run in one launcher's reading (a limit of opmfu): the rest were not followed");
  }
  if (steps_hit_) {
    limits.push_back(*steps_hit_ + ": the launcher's reading took more than " + std::to_string(kMaxEvaluationSteps) +
                     " steps (a limit of opmfu): what came after was not followed");
  }
}

}  // namespace opmfu::linter::shell
