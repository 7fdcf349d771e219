// The dynamic-profiler JSON reader: any text as profiler_config.json, read and linted (the
// json.load checks, the key layout, and the profiler rules on the settings it gives).
#include <cstddef>
#include <cstdint>

#include "lint/lint.h"
#include "linter/dynamic_config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = opmfu::fuzz::AsText(data, size);
  (void)opmfu::linter::ReadDynamicConfig("profiler_config.json", text);
  const auto path = opmfu::fuzz::WriteScratchFile("profiler_config.json", text);
  opmfu::lint::LintOptions options;
  options.use_config = false;
  options.jobs = 1;
  (void)opmfu::lint::LintPaths({path.string()}, options);
  return 0;
}
