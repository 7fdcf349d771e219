#include "common/text_location.h"

namespace opmfu {

const std::string& TextLocation::file() const {
  static const std::string kNone;
  return source ? source->path : kNone;
}

SourceRange TextLocation::range() const {
  if (!source) return {};
  return {PositionInText(*source->text, start_byte), PositionInText(*source->text, end_byte)};
}

std::string_view TextLocation::snippet() const {
  return source ? LineInText(*source->text, start_byte) : std::string_view();
}

}  // namespace opmfu
