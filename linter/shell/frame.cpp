#include "linter/shell/frame.h"

#include <algorithm>
#include <utility>

namespace opmfu::linter::shell {

TextLocation Frame::Where(TSNode node) const {
  const std::uint32_t start = ts_node_start_byte(node);
  const std::uint32_t end = ts_node_end_byte(node);
  if (const EvalOrigin* eval = text->eval.get(); eval != nullptr) {
    if (!eval->exact) return eval->origin;
    return {eval->origin.source, eval->origin.start_byte + start, eval->origin.start_byte + end};
  }
  return {text->source, start, end};
}

ShellWord Frame::Literal(std::string word, TSNode node, bool known) const {
  if (!known) word = kOpaqueStart + word + kOpaqueEnd;
  return {std::move(word), true, Where(node)};
}

ShellWord Frame::SpelledLiteral(std::string word, TSNode node, std::uint32_t quotes) const {
  ShellWord literal = Literal(std::move(word), node);
  TextLocation at = literal.where;
  at.start_byte += quotes;
  at.end_byte -= std::min(at.end_byte - at.start_byte, quotes);
  return WithRun(std::move(literal), std::move(at));
}

std::optional<Frame> Frame::Nested() const {
  if (!budget->Step(file())) return std::nullopt;
  if (nesting + 1 > kMaxNesting) {
    budget->NoteNesting(file());
    return std::nullopt;
  }
  Frame deeper = *this;
  ++deeper.nesting;
  return deeper;
}

}  // namespace opmfu::linter::shell
