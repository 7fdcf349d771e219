#include "engine/numeric.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace opmfu::engine {

double Round2(double x) { return std::nearbyint(x * 100.0) / 100.0; }
double Round4(double x) { return std::nearbyint(x * 10000.0) / 10000.0; }

double DifferenceOfInts(std::int64_t end, std::int64_t start) {
  std::int64_t difference = 0;
  if (!__builtin_sub_overflow(end, start, &difference)) return static_cast<double>(difference);
  return static_cast<double>(end) - static_cast<double>(start);
}

std::int64_t TaskDuration(std::int64_t start, std::int64_t end) {
  std::int64_t difference = 0;
  if (!__builtin_sub_overflow(end, start, &difference)) return difference;
  return 0;  // the real SQLite computes is beyond int64, which "NULL->0 int" reads as 0
}

std::int64_t SaturatingAdd(std::int64_t total, std::int64_t add) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(total, add, &sum)) return sum;
  return add > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

double PairwiseSum(std::span<const double> v) {
  const std::size_t n = v.size();
  if (n < 8) {
    double sum = 0.0;  // numpy starts from -0.0 only for the empty reduction, which yields 0.0 here too
    for (double x : v) sum += x;
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = v[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += v[i + j];
    }
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += v[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return PairwiseSum(v.subspan(0, half)) + PairwiseSum(v.subspan(half));
}

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const double magnitude = std::abs(value);
  if (value != 0.0 && (magnitude >= 1e16 || magnitude < 1e-4)) {
    // Python: shortest digits in exponent form, mantissa without a trailing ".0", exponent with a
    // sign and at least two digits ("1e+16", "1.5e-05").
    auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
    const std::size_t e = text.find('e');
    const std::string_view mantissa = text.substr(0, e);
    std::string_view digits = text.substr(e + 1);
    const char sign = digits.front() == '-' ? '-' : '+';
    if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
    while (digits.size() > 2 && digits.front() == '0') digits.remove_prefix(1);
    const std::string exponent = (digits.size() < 2 ? "0" : "") + std::string(digits);
    return std::string(mantissa) + "e" + sign + exponent;
  }
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  std::string text(buffer, end);
  if (text.find('.') == std::string::npos) text += ".0";
  return text;
}

}  // namespace opmfu::engine
