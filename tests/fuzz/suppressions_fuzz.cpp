// The suppression-comment parser: the input's first line as one directive, and every line as a
// comment between statements that have findings, so ignore/disable/enable/file-ignore/noqa are
// applied to real diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lint/lint.h"
#include "linter/suppressions.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = opmfu::fuzz::AsText(data, size);
  (void)opmfu::linter::ParseDirective(text.substr(0, text.find('\n')));
  std::string script =
      "import torch_npu\n"
      "prof = torch_npu.profiler.profile(\n";
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    std::erase(line, '\r');
    script += "    # " + line + "\n    record_shapes=False,\n";
    start = end + 1;
  }
  script += ")\n";
  opmfu::lint::LintOptions options;
  options.use_config = false;
  options.jobs = 1;
  options.stdin_source = std::move(script);
  options.root = opmfu::fuzz::ScratchDirectory().string();
  (void)opmfu::lint::LintPaths({"-"}, options);
  return 0;
}
