// The JSON nesting bound every nlohmann parse goes through (issue 47: common/json_input). Any
// text: what ParseJsonWithinLimits accepts is copied, compared and dumped (the recursive
// operations the bound protects), and the pre-scan's verdict is checked against the depth
// nlohmann's own SAX parser (iterative) sees: a valid document is refused exactly when it nests
// deeper than the limit.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/json_input.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// Counts the deepest nesting; builds nothing.
struct DepthCounter : nlohmann::json_sax<nlohmann::json> {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool Open() {
    deepest = std::max(deepest, ++depth);
    return true;
  }
  bool Close() {
    --depth;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A small limit too, so that the fuzzer reaches "past the limit" with short inputs.
  const std::size_t limit = size > 0 && data[0] % 2 == 0 ? opmfu::kMaxJsonDepth : 8;
  const std::string text = opmfu::fuzz::AsText(data, size);
  auto parsed = opmfu::ParseJsonWithinLimits(text, "info.json", limit);
  DepthCounter counter;
  const bool valid = nlohmann::json::sax_parse(text, &counter, nlohmann::json::input_format_t::json, true);
  if (valid && parsed.ok() == (counter.deepest > limit)) std::abort();  // the pre-scan disagrees with nlohmann
  if (!parsed.ok() || parsed->is_discarded()) return 0;
  const nlohmann::json copy = *parsed;
  if (copy != *parsed) std::abort();
  (void)copy.dump();
  return 0;
}
