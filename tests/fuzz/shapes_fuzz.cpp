// The one reader of recorded shape lists ("32,1,224,224;64", COMPUTE_TASK_INFO and OperatorMFU's
// input_shapes): any text, parsed, and a parse must say why it failed or give shapes that agree
// with the text's own count of tensors.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "report/derived_flops.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = opmfu::fuzz::AsText(data, size);
  auto shapes = opmfu::report::ParseShapeList(text);
  if (!shapes.ok() && shapes.error().message.empty()) std::abort();  // a failure always says why
  return 0;
}
