// The Text export's kernel_details.csv reader (engine/csv_reader.h) and what ReadTextRank builds
// from it: any bytes as the file of an ASCEND_PROFILER_OUTPUT, read with and without kernel
// signatures (the derived section's counters), every field looked at as a time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/csv_reader.h"
#include "engine/text_export.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = opmfu::fuzz::WriteScratchFile("kernel_details.csv", opmfu::fuzz::AsText(data, size));
  if (auto reader = opmfu::engine::CsvReader::Open(file); reader.ok()) {
    (void)reader->Column("Start Time(us)");
    for (int records = 0; records < 10000; ++records) {
      auto more = reader->Next();
      if (!more.ok() || !*more) break;
      for (std::size_t i = 0; i < reader->field_count(); ++i) (void)opmfu::engine::MicrosecondsToNs(reader->Field(i));
    }
  }
  for (const bool signatures : {false, true}) {
    std::vector<opmfu::engine::RankNote> notes;
    opmfu::engine::TextExportFacts facts;
    (void)opmfu::engine::ReadTextRank(file.parent_path(), notes, signatures, &facts);
  }
  return 0;
}
