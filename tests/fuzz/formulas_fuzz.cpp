// The formulas-file parser: any text as torch_npu's _flops_formulas.py, listed in every format
// and checked by every registry rule.
#include <cstddef>
#include <cstdint>

#include "registry/formulas.h"
#include "registry/listing.h"
#include "rules/registry_checks.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = opmfu::fuzz::AsText(data, size);
  for (auto depth : {opmfu::registry::ParseDepth::kFull, opmfu::registry::ParseDepth::kSignatures}) {
    auto file = opmfu::registry::ParseFormulaFile("_flops_formulas.py", text, depth);
    if (!file.ok()) continue;
    (void)opmfu::registry::ListingRows(*file);
    for (auto format : {opmfu::registry::ListFormat::kTable, opmfu::registry::ListFormat::kJson,
                        opmfu::registry::ListFormat::kMarkdown, opmfu::registry::ListFormat::kCsv}) {
      (void)opmfu::registry::RenderListing(*file, format);
    }
    // The registry rules need function bodies (by contract: a signatures-only tree aborts).
    if (depth == opmfu::registry::ParseDepth::kFull) (void)opmfu::rules::CheckFormulaFile(*file);
  }
  return 0;
}
