#include "report/torch_analysis.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "common/parallel.h"
#include "engine/discovery.h"
#include "engine/torch_trace.h"
#include "engine/torch_trace_link.h"
#include "report/derived_table.h"
#include "report/presentation.h"

namespace opmfu::report {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::optional<double> TraceOpGroup::mfu() const {
  if (!derived.flops || !peak_flops || *peak_flops <= 0 || duration <= 0) return std::nullopt;
  return flops() / (static_cast<double>(duration) * 1e-9 * *peak_flops);
}

namespace {

bool IsTraceMatmulFamily(KernelFamily family) {
  return family == KernelFamily::kMatmul || family == KernelFamily::kBatchMatmul ||
         family == KernelFamily::kQuantMatmul;
}

// Input Dims [[888,2880],[2880,640],[],[]] -> "888,2880;2880,640;;": the spelling Ascend's shape
// lists use, so that `diff` can put the two side by side. A list of tensors stays JSON.
std::string TraceShapesText(std::string_view dims_json) {
  if (dims_json.empty()) return "";
  const Json dims = Json::parse(dims_json, nullptr, false);
  if (!dims.is_array()) return std::string(dims_json);
  std::string text;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ';';
    const Json& entry = dims[i];
    bool plain = entry.is_array();
    for (const Json& dim : entry) plain = plain && dim.is_number_integer();
    if (!plain) {
      text += entry.dump();
      continue;
    }
    for (std::size_t j = 0; j < entry.size(); ++j) text += (j == 0 ? "" : ",") + entry[j].dump();
  }
  return text;
}

std::string TraceTypesText(std::string_view types_json) {
  const Json types = Json::parse(types_json.empty() ? std::string_view("[]") : types_json, nullptr, false);
  if (!types.is_array()) return "";
  std::string text;
  for (std::size_t i = 0; i < types.size(); ++i) {
    text += (i == 0 ? "" : ";") + (types[i].is_string() ? types[i].get<std::string>() : types[i].dump());
  }
  return text;
}

struct TraceRankResult {
  engine::RankOutcome outcome;
  TraceRank rank;
  std::vector<TraceOpGroup> groups;
  std::vector<engine::OperatorMfuRow> rows;
  std::shared_ptr<engine::StringPool> pool = std::make_shared<engine::StringPool>();
  double matmul_flops = 0;
};

struct TracePeaks {
  const GpuPeak* gpu = nullptr;
  std::optional<double> override_flops;
  std::optional<double> For(GpuDtype dtype) const {
    if (override_flops) return override_flops;
    if (gpu == nullptr) return std::nullopt;
    return PeakFlops(*gpu, dtype);
  }
};

TraceRankResult AnalyzeTrace(const fs::path& path, std::int64_t index, const TraceOptions& options) {
  TraceRankResult result;
  result.outcome.location.rank_id = index;
  result.outcome.location.db_path = path;
  result.outcome.location.rank_directory = path.parent_path();
  result.rank.path = path;
  result.rank.rank_id = index;
  auto read = engine::ReadTorchTrace(path);
  if (!read.ok()) {
    result.outcome.failure = read.error().message;
    return result;
  }
  const engine::TorchTrace& trace = *read;
  const engine::StringPool& strings = *trace.strings;
  if (trace.rank) result.rank.rank_id = result.outcome.location.rank_id = *trace.rank;
  result.rank.runtime = trace.runtime;
  result.rank.kernels = trace.kernels.size();
  result.rank.ops = trace.ops.size();
  for (const engine::TorchKernel& kernel : trace.kernels) result.rank.kernel_time += kernel.duration;

  // The device: the one most kernels ran on, by deviceProperties id.
  std::map<std::int32_t, std::size_t> by_device;
  for (const engine::TorchKernel& kernel : trace.kernels) ++by_device[kernel.device];
  std::int32_t device = trace.kernels.empty() ? 0 : -1;
  std::size_t most = 0;
  for (const auto& [id, count] : by_device) {
    if (count > most) {
      most = count;
      device = id;
    }
  }
  for (const engine::TorchDevice& properties : trace.devices) {
    if (properties.id == device) result.rank.device = properties.name;
  }
  if (result.rank.device.empty() && !trace.devices.empty()) result.rank.device = trace.devices.front().name;
  TracePeaks peaks;
  const GpuMatch match = MatchGpu(result.rank.device);
  peaks.gpu = match.gpu;
  if (options.peak_tflops) {
    peaks.override_flops = *options.peak_tflops * 1e12;
    result.rank.peak_source = "--peak-tflops " + FormatNumber("%g", *options.peak_tflops) +
                              " TFLOPS for every dtype (given; " + match.why + ")";
  } else if (match.gpu != nullptr) {
    std::string figures;
    for (std::size_t d = 0; d < kGpuDtypes; ++d) {
      if (match.gpu->tflops[d] <= 0) continue;
      figures += (figures.empty() ? "" : ", ") + std::string(GpuDtypeName(static_cast<GpuDtype>(d))) + " " +
                 FormatNumber("%g", match.gpu->tflops[d]);
    }
    result.rank.peak_source = match.why + ": dense peaks (TFLOPS) " + figures + ", each op against its dtype's; " +
                              std::string(match.gpu->source);
  } else {
    result.rank.peak_source = match.why + ": no peak, so no MFU (give --peak-tflops)";
  }

  const engine::TraceLinks links = engine::LinkKernels(trace);
  result.rank.by_external_id = links.by_external_id;
  result.rank.by_correlation = links.by_correlation;
  result.rank.graph_kernels = links.graph_kernels;
  std::map<engine::UnattributedReason, std::size_t> reasons;
  std::vector<std::vector<std::uint32_t>> kernels_of(trace.ops.size());
  for (std::uint32_t k = 0; k < trace.kernels.size(); ++k) {
    const engine::KernelOwner& owner = links.kernels[k];
    if (owner.op) {
      kernels_of[*owner.op].push_back(k);
    } else {
      ++result.rank.unattributed;
      result.rank.unattributed_time += trace.kernels[k].duration;
      ++reasons[owner.reason];
    }
  }
  std::size_t commonest = 0;
  for (const auto& [reason, count] : reasons) {
    if (count > commonest) {
      commonest = count;
      result.rank.unattributed_reason = std::string(engine::DescribeUnattributed(reason));
    }
  }
  bool any_dims = false;
  for (const engine::TorchOp& op : trace.ops) any_dims = any_dims || op.input_dims != engine::kNoString;
  result.rank.shapes_recorded = any_dims && trace.record_shapes.value_or(true);
  if (!result.rank.shapes_recorded && !trace.kernels.empty()) {
    result.outcome.failure = path.string() + ": " +
                             (trace.record_shapes == false ? std::string("record_shapes is off")
                                                           : std::string("no framework op records its Input Dims")) +
                             ", so no FLOPs can be derived (an op's FLOPs come from its input shapes): profile with "
                             "torch.profiler.profile(record_shapes=True)";
  }

  // Groups: an op name with its recorded inputs (concrete ones too: a causal flag changes the FLOPs).
  using Key = std::tuple<engine::StringId, engine::StringId, engine::StringId, engine::StringId>;
  std::map<Key, std::size_t> group_of;
  std::vector<TraceOpGroup> groups;
  std::vector<std::int64_t> longest_kernel;
  engine::StringPool& pool = *result.pool;
  std::vector<engine::OperatorMfuRow> rows;
  for (std::uint32_t o = 0; o < trace.ops.size(); ++o) {
    if (kernels_of[o].empty()) continue;
    const engine::TorchOp& op = trace.ops[o];
    std::int64_t op_time = 0;
    const engine::TorchKernel* main = nullptr;
    for (std::uint32_t k : kernels_of[o]) {
      op_time += trace.kernels[k].duration;
      if (main == nullptr || trace.kernels[k].duration > main->duration) main = &trace.kernels[k];
    }
    const Key key{op.name, op.input_dims, op.input_types, op.concrete_inputs};
    auto [it, added] = group_of.try_emplace(key, groups.size());
    if (added) {
      TraceOpGroup group;
      group.rank_id = result.rank.rank_id;
      group.op_name = std::string(strings.View(op.name));
      group.input_shapes = TraceShapesText(strings.View(op.input_dims));
      group.input_types = TraceTypesText(strings.View(op.input_types));
      group.kernel_name = std::string(strings.View(main->name));
      group.derived = DeriveTorchOp({group.op_name, strings.View(op.input_dims), strings.View(op.input_types),
                                     strings.View(op.concrete_inputs), strings.View(main->name)});
      if (group.derived.flops) group.peak_flops = peaks.For(group.derived.dtype);
      groups.push_back(std::move(group));
      longest_kernel.push_back(main->duration);
    }
    TraceOpGroup& group = groups[it->second];
    if (main->duration > longest_kernel[it->second]) {
      longest_kernel[it->second] = main->duration;
      group.kernel_name = std::string(strings.View(main->name));
    }
    ++group.calls;
    group.kernels += kernels_of[o].size();
    group.duration += op_time;
    if (!group.derived.flops) continue;
    if (IsTraceMatmulFamily(group.derived.family)) result.matmul_flops += *group.derived.flops;
    result.rank.derived_time += op_time;
    if (!group.peak_flops || op_time <= 0) continue;
    // One row per kernel: each carries the op's FLOPs in proportion to its time, so every row has
    // the op's MFU and the rows' sums are the op's.
    const double flops = *group.derived.flops;
    const double mfu = flops / (static_cast<double>(op_time) * 1e-9 * *group.peak_flops);
    const engine::StringId op_name = pool.Intern(group.op_name);
    const engine::StringId shapes = pool.Intern(group.input_shapes);
    for (std::uint32_t k : kernels_of[o]) {
      const engine::TorchKernel& kernel = trace.kernels[k];
      engine::OperatorMfuRow row;
      row.strings = &pool;
      row.rank_id = result.rank.rank_id;
      row.op_name_id = op_name;
      row.kernel_name_id = pool.Intern(strings.View(kernel.name));
      row.flops_op_name_id = op_name;
      row.input_shapes_id = shapes;
      row.kernel_start = kernel.ts;
      row.kernel_end = kernel.ts + kernel.duration;
      row.kernel_duration = kernel.duration;
      row.flops = static_cast<std::int64_t>(
          std::llround(flops * static_cast<double>(kernel.duration) / static_cast<double>(op_time)));
      row.mfu = std::round(mfu * 1e4) / 1e4;
      row.actual_tflops = std::round(flops / (static_cast<double>(op_time) * 1e-9) / 1e12 * 100) / 100;
      row.chip_peak_tflops = std::round(*group.peak_flops / 1e12 * 100) / 100;
      rows.push_back(row);
    }
  }
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return groups[a].duration > groups[b].duration; });
  for (std::size_t i : order) result.groups.push_back(std::move(groups[i]));
  result.rows = std::move(rows);
  result.outcome.operator_rows = result.rows.size();
  if (!result.outcome.failure && result.rows.empty()) {
    result.outcome.analysis.no_rows_reason =
        peaks.gpu == nullptr && !peaks.override_flops
            ? result.rank.peak_source
            : std::string("no kernel belongs to an op whose FLOPs could be derived (matmul, attention, convolution)");
  }
  return result;
}

PeakClass TracePeakClassOf(GpuDtype dtype) {
  switch (dtype) {
    case GpuDtype::kBf16:
    case GpuDtype::kFp16:
      return PeakClass::kFloat16;
    case GpuDtype::kFp32:
    case GpuDtype::kTf32:
      return PeakClass::kFloat32;
    case GpuDtype::kInt8:
      return PeakClass::kInt8;
    default:
      return PeakClass::kUnknown;
  }
}

DerivedGroup TraceToDerivedGroup(const TraceOpGroup& group) {
  DerivedGroup derived;
  derived.rank_id = group.rank_id;
  derived.op_type = group.op_name;
  derived.kernel_name = group.kernel_name;
  derived.input_types = group.input_types;
  derived.input_shapes = group.input_shapes;
  derived.derived.family = group.derived.family;
  derived.derived.flops = group.derived.flops;
  derived.derived.formula = group.derived.formula;
  derived.derived.skip_reason = group.derived.skip_reason;
  derived.derived.peak = TracePeakClassOf(group.derived.dtype);
  derived.count = group.calls;
  derived.duration = group.duration;
  if (group.derived.flops && group.peak_flops && group.duration > 0) {
    derived.count_with_peak = group.calls;
    derived.time_with_peak = static_cast<double>(group.duration) * 1e-9;
    derived.peak_seconds = group.flops() / *group.peak_flops;
    derived.peak_flops = group.peak_flops;
  }
  return derived;
}

}  // namespace

std::optional<std::vector<fs::path>> TorchTraceInputs(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    const std::string name = path.filename().string();
    if ((name.ends_with(".json") || name.ends_with(".json.gz")) && !name.starts_with("trace_view.json")) {
      return std::vector<fs::path>{path};
    }
    return std::nullopt;
  }
  if (!fs::is_directory(path, ec)) return std::nullopt;
  std::vector<fs::path> traces = engine::FindTorchTraces(path);
  if (traces.empty()) return std::nullopt;
  if (engine::DiscoverRanks(path).ok()) return std::nullopt;  // Ascend data: its own reader
  return traces;
}

Result<ReportData> LoadTorchTraces(const std::vector<fs::path>& traces, const fs::path& named,
                                   const TraceOptions& options) {
  if (traces.empty()) return Error::Input(named.string() + ": no PyTorch profiler trace (*.json, *.json.gz) found");
  std::vector<TraceRankResult> results = MapInParallel(traces.size(), options.jobs, [&](std::size_t i) {
    return AnalyzeTrace(traces[i], static_cast<std::int64_t>(i), options);
  });
  // Ranks from distributedInfo when every trace has a distinct one; otherwise the traces' order.
  std::set<std::int64_t> ids;
  for (const TraceRankResult& result : results) ids.insert(result.rank.rank_id);
  const bool distinct = ids.size() == results.size();
  ReportData data;
  data.source = ReportData::Source::kProfilingDirectory;
  data.path = named;
  auto analysis = std::make_shared<TraceAnalysis>();
  for (std::size_t i = 0; i < results.size(); ++i) {
    TraceRankResult& result = results[i];
    if (!distinct) {
      result.rank.rank_id = static_cast<std::int64_t>(i);
      result.outcome.location.rank_id = static_cast<std::int64_t>(i);
      for (engine::OperatorMfuRow& row : result.rows) row.rank_id = static_cast<std::int64_t>(i);
      for (TraceOpGroup& group : result.groups) group.rank_id = static_cast<std::int64_t>(i);
    }
    for (const engine::OperatorMfuRow& row : result.rows) data.analysis.figures.Add(row);
    data.analysis.tables.operator_rows.Append(std::move(result.rows));
    data.analysis.tables.string_pools.push_back(result.pool);
    result.outcome.analysis.rank_id = result.rank.rank_id;
    data.analysis.discovery.ranks.push_back(result.outcome.location);
    data.analysis.ranks.push_back(std::move(result.outcome));
    analysis->ranks.push_back(result.rank);
    analysis->matmul_flops.push_back(result.matmul_flops);
    for (TraceOpGroup& group : result.groups) analysis->groups.push_back(std::move(group));
  }
  data.analysis.discovery.root = named;
  data.analysis.input_ranks = results.size();
  std::set<std::string> sources;
  for (const TraceRank& rank : analysis->ranks) {
    if (!rank.peak_source.empty()) sources.insert(rank.peak_source);
  }
  for (const std::string& source : sources) data.peak_source += (data.peak_source.empty() ? "" : "; ") + source;
  for (const TraceRank& rank : analysis->ranks) {
    const std::string who = "rank " + std::to_string(rank.rank_id) + " (" + rank.path.filename().string() + "): ";
    if (rank.unattributed > 0) {
      data.notes.push_back(who + std::to_string(rank.unattributed) + " of " + std::to_string(rank.kernels) +
                           " kernels (" + FormatDuration(static_cast<double>(rank.unattributed_time)) +
                           ") are unattributed: " + rank.unattributed_reason);
    }
    // The ops not derived, by time.
    std::map<std::string, std::pair<std::size_t, std::int64_t>> not_derived;
    for (const TraceOpGroup& group : analysis->groups) {
      if (group.rank_id != rank.rank_id || group.derived.flops) continue;
      auto& [kernels, time] = not_derived[group.op_name];
      kernels += group.kernels;
      time += group.duration;
    }
    std::vector<std::pair<std::string, std::pair<std::size_t, std::int64_t>>> listed(not_derived.begin(),
                                                                                     not_derived.end());
    std::stable_sort(listed.begin(), listed.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    std::string names;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < listed.size(); ++i) {
      total += listed[i].second.second;
      if (i < 8) {
        names +=
            (i == 0 ? "" : ", ") + listed[i].first + " " + FormatDuration(static_cast<double>(listed[i].second.second));
      }
    }
    if (!listed.empty()) {
      data.notes.push_back(who + "ops not derived (no formula, or their record does not give the FLOPs): " +
                           std::to_string(listed.size()) + " ops, " + FormatDuration(static_cast<double>(total)) +
                           " of kernels: " + names + (listed.size() > 8 ? ", ..." : ""));
    }
  }
  data.traces = std::move(analysis);
  return data;
}

Result<TraceWriteResult> WriteTorchTraceAnalysis(const std::vector<fs::path>& traces, const fs::path& named,
                                                 engine::ExportType export_type, const std::optional<fs::path>& output,
                                                 const TraceOptions& options, bool derived) {
  OPMFU_ASSIGN_OR_RETURN(ReportData data, LoadTorchTraces(traces, named, options));
  TraceWriteResult result;
  std::error_code ec;
  const fs::path base = output ? *output : fs::is_directory(named, ec) ? named : named.parent_path();
  data.analysis.output_directory = (base.empty() ? fs::path(".") : base) / "cluster_analysis_output";
  if (!data.analysis.tables.operator_rows.empty() && export_type != engine::ExportType::kNone) {
    OPMFU_ASSIGN_OR_RETURN(data.analysis.written, engine::WriteTables(export_type, data.analysis.output_directory,
                                                                      data.analysis.tables, {kDerivedTableName}));
  } else {
    data.analysis.nothing_to_write = true;
  }
  if (derived) {
    const fs::path db = data.analysis.output_directory / "cluster_analysis.db";
    const DerivedSection section = TraceDerivedSection(*data.traces, true);
    OPMFU_RETURN_IF_ERROR(WriteDerivedMfuTable(db, section));
    if (data.analysis.nothing_to_write) data.analysis.written.push_back(db);
    data.analysis.nothing_to_write = false;
    result.derived_rows = section.rank_groups.size();
  }
  result.analysis = std::move(data.analysis);
  return result;
}

DerivedSection TraceDerivedSection(const TraceAnalysis& analysis, bool keep_rank_groups) {
  DerivedSection section;
  std::set<std::string> sources;
  for (const TraceRank& rank : analysis.ranks) sources.insert(rank.peak_source);
  for (const std::string& source : sources) section.chip += (section.chip.empty() ? "" : "; ") + source;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> merged;
  for (const TraceRank& rank : analysis.ranks) {
    DerivedRank summary;
    summary.rank_id = rank.rank_id;
    summary.kernels = rank.kernels;
    summary.kernel_time = rank.kernel_time;
    summary.derived_time = rank.derived_time;
    section.kernels += rank.kernels;
    section.kernel_time += rank.kernel_time;
    if (rank.unattributed > 0) {
      auto& [kernels, time] = section.skipped["no framework op launched it (" + rank.unattributed_reason + ")"];
      kernels += rank.unattributed;
      time += rank.unattributed_time;
    }
    section.ranks.push_back(summary);
  }
  for (const TraceOpGroup& group : analysis.groups) {
    DerivedGroup derived = TraceToDerivedGroup(group);
    for (DerivedRank& rank : section.ranks) {
      if (rank.rank_id == group.rank_id && group.derived.flops) rank.derived_kernels += group.kernels;
    }
    if (keep_rank_groups) section.rank_groups.push_back(derived);
    if (!group.derived.flops) {
      auto& [kernels, time] = section.skipped[group.op_name + ": " + group.derived.skip_reason];
      kernels += group.kernels;
      time += group.duration;
      continue;
    }
    section.derived_kernels += group.kernels;
    section.derived_time += group.duration;
    section.derived_flops += group.flops();
    section.derived_time_with_peak += derived.time_with_peak;
    section.derived_peak_seconds += derived.peak_seconds;
    const auto key = std::make_tuple(group.op_name, group.input_shapes, group.input_types);
    auto [it, added] = merged.try_emplace(key, section.groups.size());
    if (added) {
      derived.rank_id = -1;
      section.groups.push_back(std::move(derived));
      continue;
    }
    DerivedGroup& into = section.groups[it->second];
    into.count += derived.count;
    into.duration += derived.duration;
    into.count_with_peak += derived.count_with_peak;
    into.time_with_peak += derived.time_with_peak;
    into.peak_seconds += derived.peak_seconds;
  }
  std::stable_sort(section.groups.begin(), section.groups.end(),
                   [](const DerivedGroup& a, const DerivedGroup& b) { return a.duration > b.duration; });
  for (const TraceRank& rank : analysis.ranks) {
    section.notes.push_back("rank " + std::to_string(rank.rank_id) + ": " + std::to_string(rank.kernels) +
                            " kernels on " + (rank.device.empty() ? std::string("an unnamed device") : rank.device) +
                            " (" + rank.runtime + "): " + std::to_string(rank.by_external_id) +
                            " linked to their op by External id, " + std::to_string(rank.by_correlation) +
                            " by their launch's correlation, " + std::to_string(rank.unattributed) + " unattributed" +
                            (rank.graph_kernels > 0
                                 ? "; " + std::to_string(rank.graph_kernels) + " launched by a CUDA/HIP graph"
                                 : std::string()));
  }
  section.notes.push_back(
      "FLOPs derived from each op's Input Dims with torch_npu's built-in formulas (the same code as the Ascend "
      "derived path); peaks are dense datasheet figures, never sparse ones (docs/cross-vendor.md)");
  return section;
}

}  // namespace opmfu::report
