#include "engine/coverage.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "common/text.h"

namespace opmfu::engine {

namespace {

struct KernelKey {
  StringId name;
  std::int64_t start;
  std::int64_t end;
  bool operator==(const KernelKey&) const = default;
};

struct KernelKeyHash {
  std::size_t operator()(const KernelKey& key) const {
    return (std::hash<std::int64_t>{}(key.start) * 31 + std::hash<std::int64_t>{}(key.end)) * 31 + key.name;
  }
};

}  // namespace

bool IsComputeKernelName(std::string_view kernel_name) {
  const std::string name = AsciiLower(kernel_name);
  // The last five are GPU kernels (PyTorch traces): flash-attention, fused MHA, cuBLAS's nvjet,
  // hipBLASLt/Tensile's Cijk_ and CUTLASS kernels.
  constexpr std::string_view kCube[] = {"matmul", "gemm", "conv",  "attention", "gmm",     "bmm",
                                        "flash_", "fmha", "nvjet", "cijk_",     "cutlass", "attn_"};
  return std::any_of(std::begin(kCube), std::end(kCube),
                     [&](std::string_view part) { return name.find(part) != std::string::npos; }) ||
         name == "mm" || name.starts_with("mmv") || name.starts_with("aclnnmm");
}

std::string_view FateReason(RangeOutcome::Fate fate) {
  switch (fate) {
    case RangeOutcome::Fate::kCharged:
      return "charged";
    case RangeOutcome::Fate::kMalformed:
      return "the message is not <flops>-<op name>";
    case RangeOutcome::Fate::kNoFlops:
      return "its FLOPs are 0";
    case RangeOutcome::Fate::kEmptySpan:
      return "it ends where it starts";
    case RangeOutcome::Fate::kNoOpInside:
      return "no framework op with a compute kernel starts inside it";
    case RangeOutcome::Fate::kNoDuration:
      return "its kernels have no duration";
  }
  return "unknown";
}

RankCoverage ComputeCoverage(const RankData& data, const MfuCalculation& calculation) {
  RankCoverage coverage;
  const StringPool& strings = *data.strings;
  std::unordered_set<KernelKey, KernelKeyHash> kernels;
  kernels.reserve(data.shapes.size());
  for (const KernelShape& shape : data.shapes) {
    if (!shape.kernel_ts || !shape.kernel_end) continue;
    if (!kernels.insert({shape.kernel_name, *shape.kernel_ts, *shape.kernel_end}).second) continue;
    ++coverage.compute_kernels;
    coverage.compute_time += std::max<std::int64_t>(shape.task_duration, 0);
  }

  std::unordered_set<KernelKey, KernelKeyHash> charged;
  std::map<std::pair<std::string_view, std::string_view>, AuxKernelCharge> aux;
  for (const KernelMfu& result : calculation.results) {
    const KernelLink& link = data.kernel_links[result.link];
    if (charged.insert({link.kernel_name, link.kernel_ts, link.kernel_end}).second) {
      ++coverage.charged_kernels;
      coverage.charged_time += result.kernel_duration;
    }
    const std::string_view name = strings.View(link.kernel_name);
    if (IsComputeKernelName(name)) continue;
    const std::string_view op = strings.View(calculation.RangeOf(result).flops_op_name);
    AuxKernelCharge& entry = aux[{name, op}];
    entry.kernel_name = name;
    entry.flops_op_name = op;
    ++entry.count;
    entry.duration += result.kernel_duration;
  }
  for (auto& [key, entry] : aux) coverage.aux_kernels.push_back(std::move(entry));
  std::stable_sort(coverage.aux_kernels.begin(), coverage.aux_kernels.end(),
                   [](const AuxKernelCharge& a, const AuxKernelCharge& b) { return a.duration > b.duration; });

  coverage.calculated = !calculation.range_outcomes.empty();
  coverage.ranges = data.flops_ranges ? data.flops_ranges->size() : 0;
  std::map<std::pair<std::string, std::int64_t>, RecordTally> tallies;
  for (std::size_t i = 0; i < coverage.ranges; ++i) {
    const auto message = ParseFlopsMessage(strings.OptionalView((*data.flops_ranges)[i].message));
    if (!message) continue;
    RecordTally& tally = tallies[{message->name, message->flops}];
    tally.op_name = message->name;
    tally.flops = message->flops;
    ++tally.records;
    if (i < calculation.range_outcomes.size() && calculation.range_outcomes[i].fate == RangeOutcome::Fate::kCharged) {
      ++tally.charged;
    }
  }
  for (auto& [key, tally] : tallies) coverage.records.push_back(std::move(tally));
  for (const RangeOutcome& outcome : calculation.range_outcomes) {
    if (outcome.fate == RangeOutcome::Fate::kCharged) {
      ++coverage.charged_ranges;
      continue;
    }
    const FlopsRange& range = (*data.flops_ranges)[outcome.range];
    coverage.unmatched.push_back(
        {range.start, range.end, std::string(strings.OptionalView(range.message).value_or("")), outcome.fate});
  }
  return coverage;
}

}  // namespace opmfu::engine
