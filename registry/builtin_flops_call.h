#pragma once
// What registry/builtin_flops.cpp and its formula files share: exact integers as Python's, shapes,
// and a Call (one formula's arguments, read as torch_npu's formulas read them). Not part of the
// library's interface: include only from registry/builtin_flops*.cpp.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "common/text.h"
#include "registry/builtin_flops.h"

namespace opmfu::registry::flops {

using Json = nlohmann::json;

// Python ints are unbounded; 128 bits hold every value a realistic call gives (2^127 is far past
// any tensor), and an error says so beyond that instead of wrapping.
__extension__ typedef __int128 Int;  // NOLINT(modernize-use-using): __extension__ needs a typedef
using Shape = std::vector<Int>;

inline std::string Decimal(Int value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits += static_cast<char>('0' + (negative ? -digit : digit));
    value /= 10;
  }
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

inline std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ", ") + Decimal(shape[i]);
  return text + "]";
}

// A value in an error message: one line, at most 80 characters.
inline std::string Shown(const Json& value) {
  std::string text = PythonRepr(value);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Exact integer arithmetic as Python's, with an overflow flag instead of a silent wrap.
class Count {
 public:
  Count(Int value = 0) : value_(value) {}  // NOLINT(google-explicit-constructor): arithmetic reads better
  Count operator*(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_mul_overflow(value_, other.value_, &result.value_);
    return result;
  }
  Count operator+(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_add_overflow(value_, other.value_, &result.value_);
    return result;
  }
  Count operator-(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_sub_overflow(value_, other.value_, &result.value_);
    return result;
  }
  bool overflow() const { return overflow_; }
  Int value() const { return value_; }

 private:
  Int value_ = 0;
  bool overflow_ = false;
};

inline Count Product(const Shape& shape, std::size_t begin, std::size_t end) {
  Count product = 1;
  for (std::size_t i = begin; i < end; ++i) product = product * shape[i];
  return product;
}

// A double as Python's int() of it: truncation toward zero, exact.
inline std::optional<Int> Truncated(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 0x1p126) return std::nullopt;
  return static_cast<Int>(std::trunc(value));
}

inline std::optional<Int> JsonInteger(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<Int>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return static_cast<Int>(value.get<std::int64_t>());
  return std::nullopt;
}

// Python's int() of a string: optional sign, decimal digits, single underscores between digits.
inline std::optional<Int> ParsePythonIntLiteral(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() == '_' || text.back() == '_') return std::nullopt;
  Count value = 0;
  char previous = 0;
  for (char c : text) {
    if (c == '_') {
      if (previous == '_') return std::nullopt;
    } else if (c >= '0' && c <= '9') {
      value = value * 10 + (c - '0');
    } else {
      return std::nullopt;
    }
    previous = c;
  }
  if (value.overflow()) return std::nullopt;
  return negative ? -value.value() : value.value();
}

inline bool Truthy(const Json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_float()) return value.get<double>() != 0;
  if (value.is_number()) return JsonInteger(value).value_or(0) != 0;
  if (value.is_string()) return !value.get_ref<const std::string&>().empty();
  return !value.empty();  // list or dict
}

// Argument access for one call; every error names the op and the argument, and says that torch_npu
// records nothing for the call.
class Call {
 public:
  Call(const BuiltinTarget& target, const Json& arguments, const FormulasVersion& version)
      : target_(target), arguments_(arguments), version_(version) {}

  const FormulasVersion& version() const { return version_; }

  Error Fail(const std::string& why) const {
    return Error::Usage(std::string(target_.op_name) + ": " + why +
                        " (torch_npu's formula raises here, so it records nothing for this call)");
  }
  void Warn(std::string warning) { warnings_.push_back(std::string(target_.op_name) + ": " + std::move(warning)); }
  std::vector<std::string> TakeWarnings() { return std::move(warnings_); }

  /// The argument as the formula sees it: the given value, else the parameter's default.
  Result<Json> Get(std::string_view name) const {
    if (arguments_.is_object()) {
      const auto found = arguments_.find(std::string(name));
      if (found != arguments_.end()) return *found;
    }
    for (const BuiltinParameter& parameter : target_.parameters) {
      if (parameter.name != name) continue;
      if (parameter.default_value.empty()) return Fail("needs `" + std::string(name) + "`");
      return ParseFlopsArgumentValue(parameter.default_value);
    }
    return Fail("needs `" + std::string(name) + "`");
  }

  /// `tensor.shape` of an argument: a list of non-negative integers.
  Result<Shape> Tensor(std::string_view name) const {
    OPMFU_ASSIGN_OR_RETURN(const Json value, Get(name));
    return ShapeOf(value, name);
  }

  Result<Shape> ShapeOf(const Json& value, std::string_view name) const {
    if (value.is_null()) return Fail("`" + std::string(name) + "` is None, and the formula reads its .shape");
    const std::string bad = "`" + std::string(name) +
                            "` must be a shape (a tensor is given as its shape: a list of non-negative integers such "
                            "as [1024,512]), got ";
    if (!value.is_array()) return Fail(bad + Shown(value));
    Shape shape;
    for (const Json& dim : value) {
      const std::optional<Int> size = dim.is_boolean() ? std::nullopt : JsonInteger(dim);
      if (!size || *size < 0) return Fail(bad + Shown(value));
      shape.push_back(*size);
    }
    return shape;
  }

  /// Python's int(value).
  Result<Int> PyInt(const Json& value, std::string_view what) const {
    if (value.is_boolean()) return Int{value.get<bool>() ? 1 : 0};
    if (const std::optional<Int> integer = JsonInteger(value)) return *integer;
    if (value.is_number_float()) {
      if (const std::optional<Int> truncated = Truncated(value.get<double>())) return *truncated;
    }
    if (value.is_string()) {
      if (const std::optional<Int> parsed = ParsePythonIntLiteral(value.get_ref<const std::string&>())) return *parsed;
    }
    return Fail("int() of " + std::string(what) + " " + Shown(value) + " fails");
  }

  /// The elements Python's `for x in value` visits: a list's, or a string's characters.
  Result<std::vector<Json>> Elements(const Json& value, std::string_view name) const {
    if (value.is_array()) return std::vector<Json>(value.begin(), value.end());
    if (value.is_string()) {
      std::vector<Json> characters;
      for (char c : value.get_ref<const std::string&>()) characters.emplace_back(std::string(1, c));
      return characters;
    }
    return Fail("`" + std::string(name) + "` must be a list, got " + Shown(value));
  }

  /// `[int(x) for x in value]`.
  Result<std::vector<Int>> Integers(const Json& value, std::string_view name) const {
    OPMFU_ASSIGN_OR_RETURN(const std::vector<Json> elements, Elements(value, name));
    std::vector<Int> numbers;
    for (const Json& element : elements) {
      OPMFU_ASSIGN_OR_RETURN(const Int number, PyInt(element, "an element of `" + std::string(name) + "`"));
      numbers.push_back(number);
    }
    return numbers;
  }

  /// A head count as `_head_dim` and the layouts compare and divide it.
  Result<Int> Heads(const Json& value, std::string_view name) const {
    if (value.is_boolean()) return Int{value.get<bool>() ? 1 : 0};
    if (const std::optional<Int> integer = JsonInteger(value)) return *integer;
    if (value.is_number_float()) {
      return Error::Usage(std::string(target_.op_name) + ": `" + std::string(name) +
                          "` is a float; opmfu computes integer head counts only");
    }
    return Fail("`" + std::string(name) + "` must be an integer head count, got " + Shown(value));
  }

  Error Overflow() const {
    return Error::Usage(std::string(target_.op_name) +
                        ": the FLOPs exceed 2^126, beyond what opmfu computes (torch_npu would write the exact "
                        "integer)");
  }
  Result<Int> Done(Count flops) const {
    if (flops.overflow()) return Overflow();
    return flops.value();
  }

 private:
  const BuiltinTarget& target_;
  const Json& arguments_;
  const FormulasVersion& version_;
  std::vector<std::string> warnings_;
};

inline Status NeedRank(const Call& call, std::string_view name, const Shape& shape, std::size_t rank) {
  if (shape.size() == rank) return Ok();
  return call.Fail("`" + std::string(name) + "` must be " + std::to_string(rank) + "-D, got " + ShapeText(shape));
}

// After torch_npu's hook has computed and recorded the FLOPs, it calls the op; torch rejects
// operands whose inner dimensions differ, but the range (and so the value) is already recorded.
inline void WarnInner(Call& call, Int left_k, Int right_k, const Shape& left, const Shape& right) {
  if (left_k == right_k) return;
  call.Warn("the inner dimensions differ (" + ShapeText(left) + " and " + ShapeText(right) +
            "): torch rejects this op, but only after torch_npu's formula has run and its value was recorded");
}

// `_matmul_shape_flops`: 2 * prod(left[:-1]) * left[-1] * N, N the right's last (or, transposed,
// second-to-last) dimension.
inline Result<Count> MatmulShapeFlops(Call& call, const Shape& left, const Shape& right, bool transposed_right) {
  if (left.size() < 2 || right.size() < 2) {
    return call.Fail("a matmul needs both operands of rank >= 2, got " + ShapeText(left) + " and " + ShapeText(right));
  }
  const Int n = transposed_right ? right[right.size() - 2] : right.back();
  WarnInner(call, left.back(), transposed_right ? right.back() : right[right.size() - 2], left, right);
  return Count(2) * Product(left, 0, left.size() - 1) * left.back() * n;
}

// The attention formulas (builtin_flops_attention.cpp).
Result<Int> FusionAttention(Call& call);
Result<Int> FusedInferAttentionScore(Call& call);
Result<Int> BlockSparseAttention(Call& call);

}  // namespace opmfu::registry::flops
