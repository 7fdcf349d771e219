#include "engine/torch_trace_link.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace opmfu::engine {

std::string_view DescribeUnattributed(UnattributedReason reason) {
  switch (reason) {
    case UnattributedReason::kNone:
      return "";
    case UnattributedReason::kNoLaunch:
      return "no framework op has its External id and no runtime launch has its correlation";
    case UnattributedReason::kLaunchOutside:
      return "its runtime launch ran outside every framework op";
  }
  return "";
}

bool IsGraphLaunch(std::string_view runtime_name) {
  return runtime_name.starts_with("cudaGraphLaunch") || runtime_name.starts_with("hipGraphLaunch") ||
         runtime_name.starts_with("cuGraphLaunch");
}

namespace {

// Of several ops, the innermost: the latest start, then the shortest span (nested ops share ids).
bool Inner(const TorchOp& a, const TorchOp& b) {
  if (a.ts != b.ts) return a.ts > b.ts;
  return a.end < b.end;
}

}  // namespace

TraceLinks LinkKernels(const TorchTrace& trace) {
  TraceLinks links;
  links.kernels.resize(trace.kernels.size());

  std::unordered_map<std::int64_t, std::uint32_t> launch_of;
  launch_of.reserve(trace.launches.size());
  for (std::uint32_t i = 0; i < trace.launches.size(); ++i) launch_of.emplace(trace.launches[i].correlation, i);

  // Ops by External id (several when nested ops share one).
  std::vector<std::pair<std::int64_t, std::uint32_t>> by_id;
  by_id.reserve(trace.ops.size());
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i) {
    if (trace.ops[i].external_id >= 0) by_id.emplace_back(trace.ops[i].external_id, i);
  }
  std::sort(by_id.begin(), by_id.end());

  struct Query {
    std::uint32_t thread;
    std::int64_t ts;
    std::uint32_t kernel;
  };
  std::vector<Query> fallback;

  for (std::uint32_t k = 0; k < trace.kernels.size(); ++k) {
    const TorchKernel& kernel = trace.kernels[k];
    KernelOwner& owner = links.kernels[k];
    if (kernel.correlation >= 0) {
      if (auto it = launch_of.find(kernel.correlation); it != launch_of.end()) owner.launch = it->second;
    }
    const TorchLaunch* launch = owner.launch ? &trace.launches[*owner.launch] : nullptr;
    if (launch != nullptr && IsGraphLaunch(trace.strings->View(launch->name))) ++links.graph_kernels;
    std::int64_t id = kernel.external_id;
    if (id < 0 && launch != nullptr) id = launch->external_id;
    if (id >= 0) {
      const auto first = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(id, std::uint32_t{0}));
      std::optional<std::uint32_t> best;
      std::optional<std::uint32_t> best_holding;
      for (auto it = first; it != by_id.end() && it->first == id; ++it) {
        const TorchOp& op = trace.ops[it->second];
        if (!best || Inner(op, trace.ops[*best])) best = it->second;
        if (launch != nullptr && op.ts <= launch->ts && launch->ts <= op.end &&
            (!best_holding || Inner(op, trace.ops[*best_holding]))) {
          best_holding = it->second;
        }
      }
      if (best) {
        owner.op = best_holding ? best_holding : best;
        owner.join = KernelJoin::kExternalId;
        ++links.by_external_id;
        continue;
      }
    }
    if (launch == nullptr) {
      owner.reason = UnattributedReason::kNoLaunch;
      ++links.unattributed;
      continue;
    }
    fallback.push_back({launch->thread, launch->ts, k});
  }

  if (!fallback.empty()) {
    // A sweep per thread: ops by start (outer first on a tie), a stack of the ops still open.
    std::vector<std::uint32_t> order(trace.ops.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const TorchOp& x = trace.ops[a];
      const TorchOp& y = trace.ops[b];
      return std::make_tuple(x.thread, x.ts, -x.end, a) < std::make_tuple(y.thread, y.ts, -y.end, b);
    });
    std::sort(fallback.begin(), fallback.end(), [](const Query& a, const Query& b) {
      return std::tie(a.thread, a.ts, a.kernel) < std::tie(b.thread, b.ts, b.kernel);
    });
    std::size_t next = 0;
    std::vector<std::uint32_t> open;
    std::uint32_t thread = UINT32_MAX;
    for (const Query& query : fallback) {
      if (query.thread != thread) {
        thread = query.thread;
        open.clear();
        while (next < order.size() && trace.ops[order[next]].thread < thread) ++next;
      }
      while (next < order.size() && trace.ops[order[next]].thread == thread && trace.ops[order[next]].ts <= query.ts) {
        const std::uint32_t op = order[next++];
        while (!open.empty() && trace.ops[open.back()].end < trace.ops[op].ts) open.pop_back();
        open.push_back(op);
      }
      while (!open.empty() && trace.ops[open.back()].end < query.ts) open.pop_back();
      KernelOwner& owner = links.kernels[query.kernel];
      if (open.empty()) {
        owner.reason = UnattributedReason::kLaunchOutside;
        ++links.unattributed;
      } else {
        owner.op = open.back();
        owner.join = KernelJoin::kCorrelation;
        ++links.by_correlation;
      }
    }
  }
  return links;
}

}  // namespace opmfu::engine
