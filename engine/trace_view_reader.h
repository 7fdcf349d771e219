#pragma once
// The events of a Chrome trace as torch_npu's Text export writes it (trace_view.json: a list of
// events; an object with `traceEvents` is read too), one at a time and in bounded memory. The
// list is cut into windows of whole events a few MiB long, each parsed by simdjson's On-Demand
// API, so the file is never held whole and the members no one asks for are skipped, not
// unescaped. docs/text-export.md and docs/performance.md say why.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "common/result.h"

namespace opmfu::engine {

/// The members of one trace event that the Text export's analysis reads. The views are valid
/// only during the callback. A number is given as its own text (`"dur": 2.000125` gives
/// "2.000125"), so no digit is lost to a double; `ts` may also be a string, as torch_npu writes it.
struct TraceEvent {
  std::string_view ph, name, cat, ts, dur;
  std::string_view domain;     ///< args.domain (msTX ranges)
  std::string_view args_name;  ///< args.name (process_name metadata)
  /// pid and tid: a number as is; a string as a negative id, the same for the same string.
  std::int64_t pid = 0, tid = 0;
  std::uint64_t id = 0;  ///< a flow's id
  bool has_domain = false;
  bool has_task_type = false;  ///< args carry "task type" (the HCCL process' tasks)
  std::optional<double> mhz;   ///< args.MHz (the AI Core Freq counter)
};

/// A string longer than this ends the read with an error, so a multi-GB single-line file is
/// never held; an event longer than this (without such a string) likewise.
inline constexpr std::size_t kMaxTraceString = std::size_t{64} << 20;

/// The bytes read at a time; a window of events is about this long.
inline constexpr std::size_t kTraceChunkBytes = std::size_t{1} << 20;

/// Calls `on_event` for every object in the trace's list of events, in file order, and returns
/// how many there were. Malformed JSON is an Error naming the file, the line and column, and the
/// cause. `chunk_bytes` is for tests (windows cut at every place).
Result<std::size_t> ReadTraceEvents(const std::filesystem::path& path,
                                    const std::function<void(const TraceEvent&)>& on_event,
                                    std::size_t chunk_bytes = kTraceChunkBytes);

}  // namespace opmfu::engine
