#include "python/value.h"

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace opmfu::python {

std::string Value::Describe() const {
  switch (kind) {
    case ValueKind::kUnknown:
      return "an unknown value";
    case ValueKind::kNone:
      return from_json ? "null" : "None";
    case ValueKind::kBool:
      if (from_json) return boolean ? "true" : "false";
      return boolean ? "True" : "False";
    case ValueKind::kInt:
      return std::to_string(integer);
    case ValueKind::kFloat:
      return std::to_string(real);
    case ValueKind::kString:
      return from_json ? nlohmann::json(text).dump() : PythonStringLiteral(text);
    case ValueKind::kDynamicString:
      return "a string formatted at run time";
    case ValueKind::kEnum:
      return from_json ? nlohmann::json(text).dump() : container + "." + container_member();
    case ValueKind::kSequence: {
      std::string out = container == "tuple" ? "(" : container == "set" ? "{" : "[";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].Describe();
      if (container == "tuple" && items.size() == 1) out += ",";
      return out + (container == "tuple" ? ")" : container == "set" ? "}" : "]");
    }
    case ValueKind::kDict:
      return from_json ? "an object" : "a dict";
    case ValueKind::kCall:
      return "the result of " + text + "(...)";
    case ValueKind::kFunction:
      return "the function " + text;
    case ValueKind::kModule:
      return text;
    case ValueKind::kNamespace:
      return "an argparse namespace";
  }
  return "?";
}

}  // namespace opmfu::python
