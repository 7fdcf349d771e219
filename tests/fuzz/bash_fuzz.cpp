// The bash front end: any text as a launcher file (variables, branches, functions, `source`,
// launch commands), read and checked by the launcher rules.
#include <cstddef>
#include <cstdint>

#include "lint/lint.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = opmfu::fuzz::WriteScratchFile("run.sh", opmfu::fuzz::AsText(data, size));
  opmfu::lint::LintOptions options;
  options.use_config = false;
  options.jobs = 1;
  options.root = opmfu::fuzz::ScratchDirectory().string();
  (void)opmfu::lint::LintPaths({path.string()}, options);
  return 0;
}
