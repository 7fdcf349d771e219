#include "common/json_input.h"

#include <string>

namespace opmfu {

Status CheckJsonNesting(std::string_view text, std::string_view file, std::size_t max_depth) {
  std::size_t depth = 0;
  std::size_t line = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character (a quote or backslash) cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return Error::Input(std::string(file) + ": JSON nested deeper than " + std::to_string(max_depth) +
                            " levels (a limit of opmfu), at line " + std::to_string(line));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Ok();
}

Result<nlohmann::json> ParseJsonWithinLimits(std::string_view text, std::string_view file, std::size_t max_depth) {
  OPMFU_RETURN_IF_ERROR(CheckJsonNesting(text, file, max_depth));
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace opmfu
