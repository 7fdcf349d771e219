#include "engine/operator_mfu.h"

#include <algorithm>
#include <atomic>

#include "common/parallel.h"
#include "engine/index_chains.h"
#include "engine/numeric.h"

namespace opmfu::engine {

namespace {

// A row of the candidate table D: a compute link joined with its kernel's shapes (indices, so a
// candidate is 8 bytes; a rank has about one per kernel).
struct Candidate {
  std::uint32_t link;
  std::uint32_t shape;
};

// The candidates of [first, last) whose (kernel_ts, kernel_end) has not occurred before in it,
// in order (upstream's drop_duplicates on the kernel times). A range holds a few kernels, so a
// short one is checked pairwise; a long one is sorted by key, then position.
void FirstPerKernelSpan(const std::vector<KernelLink>& links, std::vector<Candidate>::const_iterator first,
                        std::vector<Candidate>::const_iterator last, std::vector<const Candidate*>& kept) {
  kept.clear();
  const auto count = static_cast<std::size_t>(last - first);
  const auto same_span = [&](const Candidate* a, const Candidate* b) {
    const KernelLink& x = links[a->link];
    const KernelLink& y = links[b->link];
    return x.kernel_ts == y.kernel_ts && x.kernel_end == y.kernel_end;
  };
  if (count <= 32) {
    for (auto it = first; it != last; ++it) {
      if (std::none_of(kept.begin(), kept.end(), [&](const Candidate* k) { return same_span(k, &*it); }))
        kept.push_back(&*it);
    }
    return;
  }
  std::vector<const Candidate*> order;
  order.reserve(count);
  for (auto it = first; it != last; ++it) order.push_back(&*it);
  std::sort(order.begin(), order.end(), [&](const Candidate* a, const Candidate* b) {
    const KernelLink& x = links[a->link];
    const KernelLink& y = links[b->link];
    return std::tie(x.kernel_ts, x.kernel_end, a) < std::tie(y.kernel_ts, y.kernel_end, b);
  });
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || !same_span(order[i - 1], order[i])) kept.push_back(order[i]);
  }
  std::sort(kept.begin(), kept.end());  // back to candidate order (pointers into one vector)
}

// Step 2's join: each compute link with every shape of its kernel key (name, start, end), in link
// order. The rows all slices made are counted as they go, so that keys shared by many links and
// shapes (a damaged DB) stop at the rank's join limit instead of filling memory.
Result<std::vector<Candidate>> PairLinksWithShapes(const RankData& data, unsigned threads) {
  const std::vector<KernelLink>& links = data.kernel_links;
  auto shapes_by_key = ChainsByNamedSpan(data.shapes.size(), [&](std::uint32_t i) {
    const KernelShape& shape = data.shapes[i];
    return NamedSpan{shape.kernel_name, *shape.kernel_ts, *shape.kernel_end};
  });
  const auto has_times = [&](std::size_t i) { return data.shapes[i].kernel_ts && data.shapes[i].kernel_end; };
  for (std::size_t i = 0; i < data.shapes.size(); ++i) {
    if (const std::size_t ahead = i + kPrefetchDistance; ahead < data.shapes.size() && has_times(ahead)) {
      shapes_by_key.PrefetchIndex(static_cast<std::uint32_t>(ahead));
    }
    if (!has_times(i)) continue;  // a NULL time never equals a coerced one
    shapes_by_key.Append(static_cast<std::uint32_t>(i));
  }
  // The lookups only read the table: the links are probed in slices, one per thread.
  std::atomic<std::uint64_t> made = 0;
  const std::uint64_t limit = data.join_row_limit;
  std::vector<Candidate> candidates = ConcatenateSlices<Candidate>(
      data.compute_link_count, threads, [&](std::size_t begin, std::size_t end, std::vector<Candidate>& out) {
        std::size_t counted = 0;
        for (std::size_t i = begin; i < end; ++i) {
          if (const std::size_t ahead = i + kPrefetchDistance; ahead < end) {
            shapes_by_key.Prefetch({links[ahead].kernel_name, links[ahead].kernel_ts, links[ahead].kernel_end});
          }
          const KernelLink& link = links[i];
          for (std::uint32_t s = shapes_by_key.First({link.kernel_name, link.kernel_ts, link.kernel_end});
               s != shapes_by_key.kEnd; s = shapes_by_key.Next(s)) {
            out.push_back({static_cast<std::uint32_t>(i), s});
            if (out.size() - counted < 4096) continue;
            if (made.fetch_add(out.size() - counted) + (out.size() - counted) > limit) return;
            counted = out.size();
          }
        }
        made.fetch_add(out.size() - counted);
      });
  if (made.load() > limit) {
    return Error::Input("the kernels' links and shapes would give more than " + std::to_string(limit) +
                        " op-kernel pairs (the join limit for this rank): many rows share one kernel name and "
                        "time, so the DB is damaged");
  }
  return candidates;
}

}  // namespace

std::optional<FlopsMessage> ParseFlopsMessage(std::optional<std::string_view> message) {
  if (!message) return std::nullopt;
  std::string_view text = *message;
  // Python's `$` also matches just before one final newline.
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits >= text.size() || text[digits] != '-') return std::nullopt;
  const std::string_view name = text.substr(digits + 1);
  if (name.empty() || name.find('\n') != std::string_view::npos) return std::nullopt;
  // Leading zeros are fine ("007"); values beyond int64 are refused rather than rounded.
  std::int64_t flops = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const int digit = text[i] - '0';
    if (flops > (INT64_MAX - digit) / 10) return std::nullopt;
    flops = flops * 10 + digit;
  }
  return FlopsMessage{flops, std::string(name)};
}

bool IsOversizedFlopsMessage(std::string_view message) {
  std::size_t digits = 0;
  while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') ++digits;
  if (digits == 0 || digits + 1 >= message.size() || message[digits] != '-') return false;
  std::size_t first = 0;
  while (first + 1 < digits && message[first] == '0') ++first;  // leading zeros do not count
  const std::string_view value = message.substr(first, digits - first);
  return value.size() > 19 || (value.size() == 19 && value > "9223372036854775807");
}

Result<MfuCalculation> CalculateMfu(RankData& data, const ChipInfo& chip, std::vector<RankNote>& notes,
                                    unsigned threads) {
  using Level = RankNote::Level;
  MfuCalculation calculation;
  notes.push_back({Level::kInfo, "Start MFU calculation."});
  if (!chip.valid()) {
    notes.push_back({Level::kError, "Can not get chip info. Skip MFU calculation."});
    return calculation;
  }
  if (!data.shapes_query_returned_rows) {
    notes.push_back({Level::kError, "Query Kernel Shapes Failed. Skip MFU calculation."});
    return calculation;
  }
  const auto finished = [&] {
    notes.push_back(
        {Level::kInfo, "MFU calculation finished, result rows: " + std::to_string(calculation.results.size())});
  };
  if (!data.flops_ranges || data.flops_ranges->empty()) {
    notes.push_back({Level::kWarning, "No mfu_flops ranges found. Skip MFU calculation."});
    finished();
    return calculation;
  }
  if (data.compute_link_count == 0) {
    notes.push_back({Level::kWarning, "Can not get cpu-op to device-kernel correlation. Skip MFU calculation."});
    finished();
    return calculation;
  }

  // Step 1: the ranges whose message parses with flops > 0, in Q2 order.
  StringPool& strings = *data.strings;
  struct Range {
    std::int64_t start;
    std::int64_t end;
    std::int64_t flops;
    StringId name;
    RangeOutcome* outcome;
  };
  std::vector<Range> ranges;
  ranges.reserve(data.flops_ranges->size());  // reserved, not grown: untouched capacity costs no memory
  auto& outcomes = calculation.range_outcomes;
  outcomes.reserve(data.flops_ranges->size());
  std::size_t oversized = 0;
  std::string oversized_example;
  for (const FlopsRange& range : *data.flops_ranges) {
    outcomes.push_back({outcomes.size(), RangeOutcome::Fate::kCharged, 0});
    const auto message = range.message == kNoString ? std::nullopt : std::optional(strings.View(range.message));
    auto parsed = ParseFlopsMessage(message);
    if (!parsed) {
      calculation.all_messages_parsed = false;
      outcomes.back().fate = RangeOutcome::Fate::kMalformed;
      if (message && IsOversizedFlopsMessage(*message) && oversized++ == 0) {
        oversized_example = std::string(message->substr(0, 80));
      }
      continue;
    }
    if (parsed->flops <= 0) {
      outcomes.back().fate = RangeOutcome::Fate::kNoFlops;
      continue;
    }
    ranges.push_back({range.start, range.end, parsed->flops, strings.Intern(parsed->name), nullptr});
  }
  for (std::size_t i = 0, next = 0; i < outcomes.size(); ++i) {  // pointers once the vector is complete
    if (outcomes[i].fate == RangeOutcome::Fate::kCharged) ranges[next++].outcome = &outcomes[i];
  }
  if (oversized > 0) {
    // Upstream keeps such values as floats or uint64; opmfu's FLOPs are int64 (docs/cli.md).
    notes.push_back({Level::kWarning, std::to_string(oversized) +
                                          " FLOPs records carry a value above 2^63-1 and are skipped (e.g. '" +
                                          oversized_example + "'); msprof-analyze keeps them as floats"});
  }
  if (ranges.empty()) {
    notes.push_back({Level::kWarning, "No valid flops values found in mfu_flops ranges."});
    finished();
    return calculation;
  }

  // Step 2: D = compute links x shapes on the kernel key, stable-sorted by (op_ts, kernel_ts, kernel_end).
  const std::vector<KernelLink>& links = data.kernel_links;
  OPMFU_ASSIGN_OR_RETURN(std::vector<Candidate> candidates, PairLinksWithShapes(data, threads));
  // The links are in (op_ts, kernel_ts) order already, so this sort usually finds nothing to do.
  const auto candidate_less = [&](const Candidate& a, const Candidate& b) {
    const KernelLink& x = links[a.link];
    const KernelLink& y = links[b.link];
    return std::tie(x.op_ts, x.kernel_ts, x.kernel_end) < std::tie(y.op_ts, y.kernel_ts, y.kernel_end);
  };
  if (!std::is_sorted(candidates.begin(), candidates.end(), candidate_less))
    std::stable_sort(candidates.begin(), candidates.end(), candidate_less);

  // The candidates' op starts side by side: the ranges' binary searches then read one array
  // instead of a link per step.
  std::vector<std::int64_t> op_starts;
  op_starts.reserve(candidates.size());
  for (const Candidate& candidate : candidates) op_starts.push_back(links[candidate.link].op_ts);

  // Step 3: each range charges every kernel of the ops that start inside it with its whole FLOPs.
  calculation.results.reserve(candidates.size());  // usually one result per candidate
  calculation.charged_ranges.reserve(ranges.size());
  std::vector<const Candidate*> kernels;
  for (const Range& range : ranges) {
    if (range.end <= range.start) {
      range.outcome->fate = RangeOutcome::Fate::kEmptySpan;
      continue;
    }
    const auto low = std::lower_bound(op_starts.begin(), op_starts.end(), range.start);
    const auto high = std::upper_bound(low, op_starts.end(), range.end);
    const auto first = candidates.cbegin() + (low - op_starts.begin());
    const auto last = candidates.cbegin() + (high - op_starts.begin());
    if (first == last) {
      range.outcome->fate = RangeOutcome::Fate::kNoOpInside;
      continue;
    }
    FirstPerKernelSpan(links, first, last, kernels);
    std::int64_t total = 0;
    for (const Candidate* kernel : kernels) total += data.shapes[kernel->shape].task_duration;
    if (total <= 0) {
      range.outcome->fate = RangeOutcome::Fate::kNoDuration;
      continue;
    }
    // The dtype comes from the first kernel, before zero-duration kernels are dropped (B2).
    auto dtype = DtypeClassOf(strings.Optional(data.shapes[kernels.front()->shape].input_types));
    if (!dtype.ok()) {
      return Error::Input(dtype.error().message +
                          " (first input type of the first kernel in a FLOPs range; "
                          "only FLOAT, FLOAT16, BF16, DT_BF16 and INT8 have a peak)");
    }
    const auto charged = static_cast<std::uint32_t>(calculation.charged_ranges.size());
    calculation.charged_ranges.push_back({range.flops, range.name, chip.PeakFlops(*dtype)});
    for (const Candidate* kernel : kernels) {
      const KernelShape& shape = data.shapes[kernel->shape];
      if (shape.task_duration <= 0) continue;
      ++range.outcome->kernels;
      calculation.results.push_back(
          {kernel->link, charged, shape.input_shapes, shape.output_shapes, shape.task_duration});
    }
    // Each range charges every kernel inside it: ranges nested many deep over many ops (a damaged
    // DB) would give their product.
    if (calculation.results.size() > data.join_row_limit) {
      return Error::Input("the FLOPs ranges would charge more than " + std::to_string(data.join_row_limit) +
                          " kernels (the join limit for this rank): the mfu_flops ranges overlap many deep, so the "
                          "DB is damaged");
    }
  }
  finished();
  return calculation;
}

double MfuCalculation::ActualTflops(const KernelMfu& result) const { return Round2(FlopsPerSecond(result) / 1e12); }

std::vector<MergedKernel> MergeMfu(const RankData& data, const MfuCalculation& calculation, unsigned threads) {
  const std::vector<KernelLink>& links = data.kernel_links;
  auto results_by_key = ChainsByNamedSpan(calculation.results.size(), [&](std::uint32_t i) {
    const KernelLink& link = links[calculation.results[i].link];
    return NamedSpan{link.kernel_name, link.kernel_ts, link.kernel_end};
  });
  for (std::size_t i = 0; i < calculation.results.size(); ++i) {
    if (const std::size_t ahead = i + kPrefetchDistance; ahead < calculation.results.size()) {
      results_by_key.PrefetchIndex(static_cast<std::uint32_t>(ahead));
    }
    results_by_key.Append(static_cast<std::uint32_t>(i));
  }
  // The lookups only read the table: the links are probed in slices, one per thread.
  std::vector<MergedKernel> merged = ConcatenateSlices<MergedKernel>(
      links.size(), threads, [&](std::size_t begin, std::size_t end, std::vector<MergedKernel>& out) {
        for (std::size_t i = begin; i < end; ++i) {
          if (const std::size_t ahead = i + kPrefetchDistance; ahead < end) {
            results_by_key.Prefetch({links[ahead].kernel_name, links[ahead].kernel_ts, links[ahead].kernel_end});
          }
          const KernelLink& link = links[i];
          const auto index = static_cast<std::uint32_t>(i);
          std::uint32_t result = results_by_key.First({link.kernel_name, link.kernel_ts, link.kernel_end});
          if (result == results_by_key.kEnd) {
            out.push_back({index, std::nullopt});
            continue;
          }
          for (; result != results_by_key.kEnd; result = results_by_key.Next(result)) out.push_back({index, result});
        }
      });
  return merged;
}

std::vector<OperatorMfuRow> BuildOperatorRows(std::int64_t rank_id, const RankData& data,
                                              const MfuCalculation& calculation, std::span<const MergedKernel> merged) {
  const StringPool& strings = *data.strings;
  std::vector<OperatorMfuRow> rows;
  rows.reserve(static_cast<std::size_t>(
      std::count_if(merged.begin(), merged.end(), [](const MergedKernel& m) { return m.mfu.has_value(); })));
  for (const MergedKernel& entry : merged) {
    if (!entry.mfu) continue;
    const KernelLink& link = data.kernel_links[entry.link];
    const KernelMfu& result = calculation.results[*entry.mfu];
    const ChargedRange& range = calculation.RangeOf(result);
    OperatorMfuRow row;
    row.strings = &strings;
    row.rank_id = rank_id;
    row.op_name_id = link.op_name;
    row.kernel_name_id = link.kernel_name;
    row.kernel_start = link.kernel_ts;
    row.kernel_end = link.kernel_end;
    row.kernel_duration = result.kernel_duration;
    row.mfu = Round4(calculation.Mfu(result));
    row.actual_tflops = calculation.ActualTflops(result);
    row.chip_peak_tflops = Round2((range.chip_peak > 0 ? range.chip_peak : 0.0) / 1e12);
    row.flops = range.flops;
    row.flops_op_name_id = range.flops_op_name;
    row.input_shapes_id = result.input_shapes;
    row.output_shapes_id = result.output_shapes;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace opmfu::engine
