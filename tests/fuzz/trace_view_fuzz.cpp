// The trace_view.json reader (engine/trace_view_reader.h): any bytes as the trace, read in windows
// of the default size and of a few bytes (the first input byte picks it), so that the cut between
// windows falls everywhere: inside strings, escapes and nested objects.
#include <cstddef>
#include <cstdint>

#include "engine/trace_view_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::size_t small_chunk = size > 0 ? 1 + data[0] % 64 : 1;
  const auto file = opmfu::fuzz::WriteScratchFile("trace_view.json", opmfu::fuzz::AsText(data, size));
  for (const std::size_t chunk : {opmfu::engine::kTraceChunkBytes, small_chunk}) {
    std::size_t length = 0;
    auto events = opmfu::engine::ReadTraceEvents(
        file,
        [&](const opmfu::engine::TraceEvent& event) {
          length += event.ph.size() + event.name.size() + event.cat.size() + event.ts.size() + event.dur.size() +
                    event.domain.size() + event.args_name.size();
        },
        chunk);
    (void)events;
    (void)length;
  }
  return 0;
}
