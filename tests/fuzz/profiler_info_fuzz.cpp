// The reader of profiler_info_<rank>.json (what a run recorded of its collection config): any text
// as the file of a rank directory, read, then every question the engine asks of it.
#include <cstddef>
#include <cstdint>

#include "engine/profiler_info.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = opmfu::fuzz::WriteScratchFile("profiler_info_0.json", opmfu::fuzz::AsText(data, size));
  auto config = opmfu::engine::ReadRecordedConfig(file.parent_path(), 0);
  if (config.ok() && config->has_value()) {
    const opmfu::engine::RecordedConfig& recorded = **config;
    (void)opmfu::engine::DescribeBlockers(opmfu::engine::FlopsBlockers(recorded), recorded);
    (void)opmfu::engine::DescribeBlockers(opmfu::engine::KernelBlockers(recorded), recorded);
    (void)opmfu::engine::RecordedSettings(recorded);
  }
  return 0;
}
