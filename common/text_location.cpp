#include "common/text_location.h"

#include <filesystem>

namespace opmfu {

const std::string& TextLocation::file() const {
  static const std::string kNone;
  return source ? source->path : kNone;
}

SourceRange TextLocation::range() const {
  if (!source) return {};
  return {PositionInText(source->text, start_byte), PositionInText(source->text, end_byte)};
}

std::string TextLocation::snippet() const { return source ? std::string(LineInText(source->text, start_byte)) : ""; }

std::string TextLocation::ShortName() const {
  if (!source) return {};
  return std::filesystem::path(source->path).filename().string() + ":" + std::to_string(range().start.line);
}

}  // namespace opmfu
