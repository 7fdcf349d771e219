// The Python front end and value tracing: any text as a script on standard input, linted with
// every rule (argparse, imports, aliases and the profiler settings traced through it).
#include <cstddef>
#include <cstdint>

#include "lint/lint.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  opmfu::lint::LintOptions options;
  options.use_config = false;
  options.jobs = 1;
  options.keep_sources = true;
  options.stdin_source = opmfu::fuzz::AsText(data, size);
  options.stdin_filename = "train.py";
  options.root = opmfu::fuzz::ScratchDirectory().string();  // imports resolve to nothing real
  (void)opmfu::lint::LintPaths({"-"}, options);
  return 0;
}
