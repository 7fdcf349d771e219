// The reader of a rank's device_<n>/info.json.<n> (the chip: cores, frequency, peaks): any text as
// that file, loaded as the engine loads it for every rank.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "engine/chip.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path rank = [] {
    std::filesystem::path directory = opmfu::fuzz::ScratchDirectory() / "rank" / "device_0";
    std::filesystem::create_directories(directory);
    return directory.parent_path();
  }();
  opmfu::fuzz::WriteScratchFile("rank/device_0/info.json.0", opmfu::fuzz::AsText(data, size));
  std::vector<opmfu::engine::RankNote> notes;
  (void)opmfu::engine::LoadChipInfo(rank, notes);
  return 0;
}
