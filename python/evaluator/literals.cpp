// Literals: booleans, None, integers (any base, `_` separators), floats, strings.
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveLiteral(TSNode node) const {
  const std::string_view type = ts_node_type(node);
  Value value;
  value.node = node;
  if (type == "true" || type == "false") {
    value.kind = ValueKind::kBool;
    value.boolean = type == "true";
    return {value};
  }
  if (type == "none") {
    value.kind = ValueKind::kNone;
    return {value};
  }
  if (type == "integer") {
    value.kind = ValueKind::kInt;
    std::string digits;
    for (char c : module_->tree().Text(node)) {
      if (c != '_') digits += c;
    }
    std::int64_t parsed = 0;
    const int base = digits.size() > 2 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))
                         ? (digits[1] == 'x' || digits[1] == 'X'   ? 16
                            : digits[1] == 'o' || digits[1] == 'O' ? 8
                                                                   : 2)
                         : 10;
    const char* begin = digits.data() + (base == 10 ? 0 : 2);
    auto [end, error] = std::from_chars(begin, digits.data() + digits.size(), parsed, base);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      return {Unknown(node, "an integer literal out of range")};
    }
    value.integer = parsed;
    return {value};
  }
  if (type == "float") {
    value.kind = ValueKind::kFloat;
    value.real = std::strtod(std::string(module_->tree().Text(node)).c_str(), nullptr);
    return {value};
  }
  // string, concatenated_string
  if (auto text = StringLiteralValue(module_->tree(), node)) {
    value.kind = ValueKind::kString;
    value.text = std::move(*text);
  } else {
    value.kind = ValueKind::kDynamicString;
  }
  return {value};
}

}  // namespace opmfu::python
