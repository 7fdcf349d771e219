#pragma once
// A PyTorch profiler trace (Kineto's Chrome-trace JSON, `*.pt.trace.json` or `.json.gz`) from CUDA
// or ROCm, read as a stream: only the events the MFU needs are kept (framework ops, runtime
// launches, kernels), their names, shapes, types and concrete inputs as ids into one StringPool.
// A trace of gigabytes is read in memory proportional to those events, never to the file
// (docs/cross-vendor.md). Times are nanoseconds, exactly as the trace's microsecond decimals say.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/string_pool.h"

namespace opmfu::engine {

/// What a trace reader will take (docs/reliability.md, "Limits"). Past any of them the trace is
/// refused with one line naming the file, where (line, or the decompressed byte) and the limit.
struct TorchTraceLimits {
  std::uint64_t max_bytes = std::uint64_t{64} << 30;        ///< decompressed bytes read
  std::uint64_t max_events = 200'000'000;                   ///< trace events
  std::uint64_t max_token_bytes = std::uint64_t{64} << 20;  ///< one string or number
  std::size_t max_depth = 64;                               ///< JSON nesting
  std::size_t max_argument_bytes = 1 << 20;                 ///< one op's Input Dims (as compact JSON)
};

/// One `cpu_op` event: a framework op on a host thread.
struct TorchOp {
  std::int64_t ts = 0;
  std::int64_t end = 0;
  std::int64_t external_id = -1;  ///< args["External id"]; -1 absent
  std::uint32_t thread = 0;       ///< index into TorchTrace::threads
  StringId name = kNoString;
  StringId input_dims = kNoString;       ///< args["Input Dims"] as compact JSON; kNoString absent
  StringId input_types = kNoString;      ///< args["Input type"]
  StringId concrete_inputs = kNoString;  ///< args["Concrete Inputs"]
};

/// One `cuda_runtime` / `cuda_driver` event with a correlation id (a launch, on CUDA or HIP).
struct TorchLaunch {
  std::int64_t ts = 0;
  std::int64_t end = 0;
  std::int64_t correlation = -1;
  std::int64_t external_id = -1;
  std::uint32_t thread = 0;
  StringId name = kNoString;
};

/// One `kernel` event on a GPU stream.
struct TorchKernel {
  std::int64_t ts = 0;
  std::int64_t duration = 0;
  std::int64_t external_id = -1;
  std::int64_t correlation = -1;
  std::int32_t device = -1;
  std::int32_t stream = -1;
  StringId name = kNoString;
};

struct TorchDevice {
  std::int64_t id = 0;
  std::string name;      ///< deviceProperties[].name, "NVIDIA H100 80GB HBM3"
  std::int64_t sms = 0;  ///< numSms (CUs on ROCm)
};

struct TorchTrace {
  std::filesystem::path path;
  std::shared_ptr<StringPool> strings = std::make_shared<StringPool>();
  std::vector<TorchDevice> devices;
  std::optional<bool> record_shapes;  ///< the top-level "record_shapes" flag, when written
  std::optional<std::int64_t> rank;   ///< distributedInfo.rank
  std::string runtime;                ///< "CUDA" or "ROCm" (from the runtime version keys or launch names)
  std::vector<StringId> threads;      ///< "pid/tid" of the host threads that ops and launches ran on
  std::vector<TorchOp> ops;
  std::vector<TorchLaunch> launches;
  std::vector<TorchKernel> kernels;
  std::uint64_t events = 0;  ///< every trace event read, kept or not
  std::uint64_t bytes = 0;   ///< decompressed bytes read
};

/// Reads one trace (plain or gzip, told apart by content). Errors are one line:
/// "<file>: line L: <cause>" for malformed JSON, "<file>: <cause>" for the rest.
Result<TorchTrace> ReadTorchTrace(const std::filesystem::path& path, const TorchTraceLimits& limits = {});

/// Whether a file's name says it may be a PyTorch profiler trace (*.json, *.json.gz), and its
/// first bytes hold a trace's keys. Ascend's own `trace_view.json` is never one.
bool LooksLikeTorchTrace(const std::filesystem::path& path);

/// The traces `path` names: the file itself, or the traces in a directory (up to 3 levels
/// down, in path order, none below a `*_ascend_pt` directory). Empty when there are none.
std::vector<std::filesystem::path> FindTorchTraces(const std::filesystem::path& path);

}  // namespace opmfu::engine
