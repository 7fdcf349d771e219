#pragma once
// Kernels to the framework ops that launched them, as torch links them (docs/cross-vendor.md):
// the kernel's `External id` names the `cpu_op`s recorded with that id; of those, the innermost
// one whose span holds the kernel's runtime launch (found by `correlation`) owns it. Without an op
// of that id, the launch's own thread decides: the innermost op there whose span holds the launch.
// Each kernel gets at most one op, so a kernel under nested ops is counted once; a kernel no op
// holds is unattributed, with the reason, and its time is still reported.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/torch_trace.h"

namespace opmfu::engine {

enum class KernelJoin {
  kExternalId,   ///< args["External id"] to a cpu_op with that id
  kCorrelation,  ///< no op with the id: the launch (by correlation) inside an op on its thread
  kNone,         ///< unattributed
};

enum class UnattributedReason {
  kNone,
  kNoLaunch,       ///< no External id matching an op, and no runtime launch with the correlation
  kLaunchOutside,  ///< the launch is on record but inside no framework op
};
std::string_view DescribeUnattributed(UnattributedReason reason);

struct KernelOwner {
  std::optional<std::uint32_t> op;      ///< index into TorchTrace::ops
  std::optional<std::uint32_t> launch;  ///< index into TorchTrace::launches
  KernelJoin join = KernelJoin::kNone;
  UnattributedReason reason = UnattributedReason::kNone;
};

struct TraceLinks {
  std::vector<KernelOwner> kernels;  ///< one per TorchTrace::kernels, in order
  std::size_t by_external_id = 0;
  std::size_t by_correlation = 0;
  std::size_t unattributed = 0;
  /// Kernels launched by a CUDA/HIP graph launch (cudaGraphLaunch, hipGraphLaunch): their op is the
  /// one that replayed the graph, not the one that captured it.
  std::size_t graph_kernels = 0;
};

TraceLinks LinkKernels(const TorchTrace& trace);

/// Whether a runtime call's name is a graph launch.
bool IsGraphLaunch(std::string_view runtime_name);

}  // namespace opmfu::engine
