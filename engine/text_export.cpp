#include "engine/text_export.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <unordered_map>

#include "engine/csv_reader.h"
#include "engine/trace_view_reader.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

// ---- trace_view.json --------------------------------------------------------------------------

// A stable sort that first looks whether the files already gave the order (they usually do: the
// kernels by start, the flows by id), which costs one pass instead of a sort.
template <typename Iterator, typename Less>
void StableSortIfNeeded(Iterator first, Iterator last, Less less) {
  if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
}

struct TraceOp {
  std::int64_t thread = 0;  // (pid, tid) as one key
  std::int64_t start = 0;
  std::int64_t end = 0;
  StringId name = kNoString;
};

struct TraceFlowEnd {
  std::uint64_t id = 0;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int64_t ts = 0;
};

struct TraceMstx {
  std::int64_t start = 0;
  std::int64_t end = 0;
  StringId message = kNoString;
  bool module = false;  // domain Module, else mfu_flops
};

// A task of an HCCL op (the HCCL process' plane threads; args carry "task type").
struct TraceHcclTask {
  std::int64_t pid = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  StringId name = kNoString;
};

struct TraceContent {
  std::vector<TraceOp> ops;
  std::vector<TraceHcclTask> hccl_tasks;
  std::map<std::int64_t, std::string> process_names;
  std::vector<TraceFlowEnd> flow_starts;
  std::vector<TraceFlowEnd> flow_ends;
  std::vector<TraceMstx> mstx;
  std::size_t mstx_ranges = 0;
  std::vector<double> ai_core_mhz;
};

// The trace events the analysis keeps (the framework ops, the flows' ends, the msTX ranges, the
// HCCL tasks, the process names, the AI Core clock); the rest only passes through.
class TraceCollector {
 public:
  TraceCollector(StringPool& strings, TraceContent& content) : strings_(strings), content_(content) {}

  void operator()(const TraceEvent& event) {
    if (event.ph == "X") {
      const auto start = MicrosecondsToNs(event.ts);
      const auto duration = event.dur.empty() ? std::optional<std::int64_t>(0) : MicrosecondsToNs(event.dur);
      if (!start || !duration) return;
      if (event.cat == "cpu_op") {
        content_.ops.push_back({Thread(event.pid, event.tid), *start, *start + *duration, strings_.Intern(event.name)});
      } else if (event.has_task_type) {
        content_.hccl_tasks.push_back({event.pid, *start, *start + *duration, strings_.Intern(event.name)});
      } else if (event.has_domain) {
        ++content_.mstx_ranges;
        if (event.domain == "mfu_flops" || event.domain == "Module") {
          content_.mstx.push_back({*start, *start + *duration, strings_.Intern(event.name), event.domain == "Module"});
        }
      }
    } else if ((event.ph == "s" || event.ph == "f") && event.cat == "async_npu") {
      const auto ts = MicrosecondsToNs(event.ts);
      if (!ts) return;
      (event.ph == "s" ? content_.flow_starts : content_.flow_ends).push_back({event.id, event.pid, event.tid, *ts});
    } else if (event.ph == "M" && event.name == "process_name") {
      content_.process_names[event.pid] = std::string(event.args_name);
    } else if (event.ph == "C" && event.name == "AI Core Freq" && event.mhz) {
      content_.ai_core_mhz.push_back(*event.mhz);
    }
  }

  // The thread key of a flow start, to find its op.
  std::int64_t ThreadOf(std::int64_t pid, std::int64_t tid) const {
    const auto it = threads_.find({pid, tid});
    return it == threads_.end() ? -1 : it->second;
  }

 private:
  std::int64_t Thread(std::int64_t pid, std::int64_t tid) {
    auto [it, added] = threads_.try_emplace({pid, tid}, static_cast<std::int64_t>(threads_.size()));
    return it->second;
  }

  StringPool& strings_;
  TraceContent& content_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> threads_;
};

// ---- kernel_details.csv ----------------------------------------------------------------------

struct CsvKernel {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t stream = -1;  // -1: no Stream ID column or N/A
  StringId name = kNoString;
  StringId type = kNoString;
  StringId input_types = kNoString;
  StringId input_shapes = kNoString;   // as written ("\"32,9216;4096,9216;4096\"")
  StringId output_shapes = kNoString;  // as written
  StringId input_formats = kNoString;
  StringId output_formats = kNoString;
  StringId output_types = kNoString;
  bool communication = false;  // an HCCL task (Accelerator Core HCCL)
};

std::string_view StripShapeQuotes(std::string_view text) {
  while (!text.empty() && (text.front() == '"' || text.front() == '\'')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '"' || text.back() == '\'')) text.remove_suffix(1);
  return text;
}

std::string_view TrimField(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// A counter column's value: NaN for N/A, an empty field or anything that is not a number.
double CounterValue(std::string_view text) {
  text = TrimField(text);
  double value = std::numeric_limits<double>::quiet_NaN();
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return value;
}

// The hardware counters of each kernel (aic_mac_ratio, aic_cube_fops), read only for the derived
// section, kept apart from CsvKernel so that a plain analyze holds nothing more per kernel.
struct KernelCounters {
  std::vector<std::pair<double, double>> values;  // by kernel: (aic_mac_ratio, aic_cube_fops), NaN if none
  bool mac_ratio = false;                         // a value other than 0 seen
  bool cube_fops = false;
};

Result<std::vector<CsvKernel>> ReadKernelDetails(const fs::path& path, StringPool& strings, TextExportFacts& facts,
                                                 KernelCounters* counters) {
  OPMFU_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  const auto column = [&](const char* name) { return reader.Column(name); };
  const auto name = column("Name");
  const auto start = column("Start Time(us)");
  const auto duration = column("Duration(us)");
  for (const auto& [found, label] : {std::pair{name, "Name"}, {start, "Start Time(us)"}, {duration, "Duration(us)"}}) {
    if (!found)
      return Error::Input(path.string() + ":1: no '" + label + "' column (the header names " +
                          std::to_string(reader.header().size()) + " columns)");
  }
  const auto type = column("Type");
  const auto core = column("Accelerator Core");
  const auto stream = column("Stream ID");
  const auto input_shapes = column("Input Shapes");
  const auto input_types = column("Input Data Types");
  const auto input_formats = column("Input Formats");
  const auto output_shapes = column("Output Shapes");
  const auto output_types = column("Output Data Types");
  const auto output_formats = column("Output Formats");
  facts.has_shape_columns = input_shapes.has_value();
  if (input_shapes && !output_shapes) {
    return Error::Input(path.string() + ":1: 'Input Shapes' but no 'Output Shapes' column");
  }
  for (const char* counter : {"aic_mac_ratio", "aic_cube_fops", "aic_mac_time(us)", "cube_utilization(%)"}) {
    if (column(counter)) facts.counter_columns.emplace_back(counter);
  }
  const auto mac_ratio = column("aic_mac_ratio");
  const auto cube_fops = column("aic_cube_fops");
  const auto intern = [&](const std::optional<std::size_t>& index) {
    return index ? strings.Intern(reader.Field(*index)) : kNoString;
  };
  std::vector<CsvKernel> kernels;
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool more, reader.Next());
    if (!more) break;
    CsvKernel kernel;
    const auto start_ns = MicrosecondsToNs(reader.Field(*start));
    if (!start_ns) {
      return Error::Input(reader.Where() + "'Start Time(us)' is '" + std::string(reader.Field(*start).substr(0, 40)) +
                          "', not a time in microseconds");
    }
    const auto duration_ns = MicrosecondsToNs(reader.Field(*duration));
    if (!duration_ns) {
      return Error::Input(reader.Where() + "'Duration(us)' is '" + std::string(reader.Field(*duration).substr(0, 40)) +
                          "', not a duration in microseconds");
    }
    kernel.start = *start_ns;
    kernel.end = *start_ns + *duration_ns;
    kernel.name = strings.Intern(reader.Field(*name));
    kernel.type = intern(type);
    kernel.communication = core && TrimField(reader.Field(*core)) == "HCCL";
    if (stream) {
      const std::string_view text = TrimField(reader.Field(*stream));
      std::int64_t value = 0;
      bool digits = !text.empty() && text.size() < 18;
      for (char c : text) digits = digits && c >= '0' && c <= '9';
      if (digits) {
        for (char c : text) value = value * 10 + (c - '0');
        kernel.stream = value;
      }
    }
    kernel.input_shapes = intern(input_shapes);
    kernel.output_shapes = intern(output_shapes);
    kernel.input_types = intern(input_types);
    kernel.input_formats = intern(input_formats);
    kernel.output_types = intern(output_types);
    kernel.output_formats = intern(output_formats);
    if (kernel.communication) {
      ++facts.communication_tasks;
    } else {
      ++facts.compute_kernels;
      if (!input_shapes || StripShapeQuotes(strings.View(kernel.input_shapes)) == "N/A" ||
          StripShapeQuotes(strings.View(kernel.output_shapes)) == "N/A") {
        ++facts.kernels_without_shapes;
      }
    }
    kernels.push_back(kernel);
    if (counters != nullptr) {
      const double ratio = mac_ratio ? CounterValue(reader.Field(*mac_ratio)) : std::nan("");
      const double fops = cube_fops ? CounterValue(reader.Field(*cube_fops)) : std::nan("");
      counters->mac_ratio = counters->mac_ratio || (!std::isnan(ratio) && ratio != 0);
      counters->cube_fops = counters->cube_fops || (!std::isnan(fops) && fops != 0);
      counters->values.emplace_back(ratio, fops);
    }
  }
  return kernels;
}

Status ReadTraceView(const fs::path& path, TraceCollector& collector, const TraceContent& content) {
  OPMFU_ASSIGN_OR_RETURN(std::size_t events, ReadTraceEvents(path, [&](const TraceEvent& event) { collector(event); }));
  if (events == 0 && content.ops.empty()) {
    return Error::Input(path.string() + ": no trace events (a list of events, or an object with traceEvents)");
  }
  return Ok();
}

// The HCCL op's tasks (COMMUNICATION_SCHEDULE_TASK_INFO in the DB) belong to the op whose
// communication they fall in: the trace links them by time, not by a flow. The ops are looked up
// by start (a binary search, then back while an earlier op may still run), not one by one per
// task; a task in several ops is linked to each, in the ops' order.
std::vector<KernelLink> ScheduleLinks(const TraceContent& trace, const std::vector<KernelLink>& communication) {
  std::vector<std::uint32_t> by_start(communication.size());
  for (std::uint32_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  StableSortIfNeeded(by_start.begin(), by_start.end(), [&](std::uint32_t a, std::uint32_t b) {
    return communication[a].kernel_ts < communication[b].kernel_ts;
  });
  std::vector<std::int64_t> latest_end(by_start.size());  // the latest end among by_start[0..i]
  for (std::size_t i = 0; i < by_start.size(); ++i) {
    latest_end[i] = std::max(communication[by_start[i]].kernel_end,
                             i > 0 ? latest_end[i - 1] : std::numeric_limits<std::int64_t>::min());
  }
  std::vector<KernelLink> schedule;
  std::vector<std::uint32_t> matches;
  for (const TraceHcclTask& task : trace.hccl_tasks) {
    const auto name = trace.process_names.find(task.pid);
    if (name == trace.process_names.end() || name->second != "HCCL") continue;
    auto i = static_cast<std::size_t>(
        std::upper_bound(by_start.begin(), by_start.end(), task.start,
                         [&](std::int64_t t, std::uint32_t op) { return t < communication[op].kernel_ts; }) -
        by_start.begin());
    matches.clear();
    for (; i-- > 0 && latest_end[i] >= task.start;) {
      if (task.start <= communication[by_start[i]].kernel_end) matches.push_back(by_start[i]);
    }
    std::sort(matches.begin(), matches.end());
    for (const std::uint32_t m : matches) {
      const KernelLink& op = communication[m];
      schedule.push_back({task.name, op.op_name, task.start, task.end, op.op_ts, op.op_end});
    }
  }
  return schedule;
}

// Q5's shapes: the compute kernels with shapes, by start.
void AddShapes(const std::vector<CsvKernel>& kernels, const std::vector<std::uint32_t>& by_start,
               bool has_shape_columns, RankData& data) {
  StringPool& strings = *data.strings;
  for (const std::uint32_t index : by_start) {
    const CsvKernel& k = kernels[index];
    if (k.communication) continue;
    data.shapes_query_returned_rows = true;
    if (!has_shape_columns) continue;
    const std::string_view in = StripShapeQuotes(strings.View(k.input_shapes));
    const std::string_view out = StripShapeQuotes(strings.View(k.output_shapes));
    if (in == "N/A" || out == "N/A") continue;
    KernelShape shape;
    shape.kernel_ts = k.start;
    shape.kernel_end = k.end;
    shape.task_duration = k.end - k.start;
    shape.kernel_name = k.name;
    shape.input_types = k.input_types;
    shape.input_shapes = strings.Intern(in);
    shape.output_shapes = strings.Intern(out);
    data.shapes.push_back(shape);
  }
}

// The compute kernels grouped by signature (kernel_signatures.h), with their counters, and the
// AI Core clock the trace measured.
KernelSignatures TextSignatures(const std::vector<CsvKernel>& kernels, const KernelCounters& counters,
                                const StringPool& strings, std::vector<double> ai_core_mhz) {
  KernelSignatures signatures;
  signatures.has_mac_ratio = counters.mac_ratio;
  signatures.has_cube_fops = counters.cube_fops;
  if (!ai_core_mhz.empty()) {
    std::nth_element(ai_core_mhz.begin(), ai_core_mhz.begin() + ai_core_mhz.size() / 2, ai_core_mhz.end());
    signatures.measured_aicore_mhz = ai_core_mhz[ai_core_mhz.size() / 2];
  }
  std::unordered_map<std::string, std::uint32_t> group_of;
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    const CsvKernel& k = kernels[index];
    if (k.communication) continue;
    std::array<std::string, 8> columns;
    const StringId ids[8] = {k.name,         k.type,           k.input_formats, k.input_types,
                             k.input_shapes, k.output_formats, k.output_types,  k.output_shapes};
    std::string key;
    for (std::size_t c = 0; c < 8; ++c) {
      columns[c] = std::string(strings.View(ids[c]));
      key.append(columns[c]).push_back('\x1f');
    }
    auto [it, added] = group_of.try_emplace(std::move(key), static_cast<std::uint32_t>(signatures.groups.size()));
    if (added) signatures.groups.push_back({std::move(columns), 0, 0});
    KernelSignatureGroup& group = signatures.groups[it->second];
    const std::int64_t duration = std::max<std::int64_t>(0, k.end - k.start);
    ++group.count;
    group.duration += duration;
    if (index < counters.values.size()) {
      const auto [ratio, fops] = counters.values[index];
      if (counters.mac_ratio && !std::isnan(ratio)) {
        group.mac_ratio_time += ratio * static_cast<double>(duration);
        group.mac_duration += duration;
      }
      if (counters.cube_fops && !std::isnan(fops)) {
        group.cube_fops += fops;
        group.fops_duration += duration;
      }
    }
    signatures.kernels.push_back({k.start, it->second});
  }
  return signatures;
}

}  // namespace

bool HoldsTextExport(const fs::path& output_directory) {
  std::error_code ec;
  return fs::is_regular_file(output_directory / kKernelDetailsFile, ec) ||
         fs::is_regular_file(output_directory / kTraceViewFile, ec);
}

std::string Level0Line(bool text_export) {
  return std::string("Level0 run: profiler_level=Level0 records no kernel shapes or op types") +
         (text_export ? " (kernel_details.csv has no Input Shapes column)" : "") +
         ", so derived MFU is not possible; recorded MFU still works with with_flops=True and msTX on "
         "(msprof_tx=True or mstx=True); for derived MFU set _ExperimentalConfig(profiler_level=Level1) "
         "(PROFILE_PROFILER_LEVEL=Level1 for dynamic profiling)";
}

Result<RankData> ReadTextRank(const fs::path& output_directory, std::vector<RankNote>& notes,
                              bool with_kernel_signatures, TextExportFacts* facts_out) {
  TextExportFacts facts;
  RankData data;
  data.text_export = true;
  StringPool& strings = *data.strings;
  std::error_code ec;
  const fs::path kernel_path = output_directory / kKernelDetailsFile;
  const fs::path trace_path = output_directory / kTraceViewFile;
  facts.kernel_details = fs::is_regular_file(kernel_path, ec);
  facts.trace_view = fs::is_regular_file(trace_path, ec);
  facts.operator_details = fs::is_regular_file(output_directory / kOperatorDetailsFile, ec);

  std::vector<CsvKernel> kernels;
  KernelCounters counters;
  if (facts.kernel_details) {
    OPMFU_ASSIGN_OR_RETURN(
        kernels, ReadKernelDetails(kernel_path, strings, facts, with_kernel_signatures ? &counters : nullptr));
  } else {
    data.missing_tables.emplace_back(kKernelDetailsFile);
    notes.push_back({RankNote::Level::kWarning, kernel_path.string() + ": missing, so there are no kernels"});
  }
  TraceContent trace;
  TraceCollector collector(strings, trace);
  if (facts.trace_view) {
    OPMFU_RETURN_IF_ERROR(ReadTraceView(trace_path, collector, trace));
  } else {
    data.missing_tables.emplace_back(kTraceViewFile);
    notes.push_back({RankNote::Level::kWarning,
                     trace_path.string() + ": missing, so no framework op is linked to a kernel and there are no "
                                           "msTX ranges"});
  }
  facts.framework_ops = trace.ops.size();
  facts.mstx_ranges = trace.mstx_ranges;
  facts.ai_core_mhz = trace.ai_core_mhz;

  // msTX ranges, by start as Q1 and Q2 order them.
  StableSortIfNeeded(trace.mstx.begin(), trace.mstx.end(),
                     [](const TraceMstx& a, const TraceMstx& b) { return a.start < b.start; });
  data.flops_ranges.emplace();
  for (const TraceMstx& range : trace.mstx) {
    if (range.module) {
      data.modules.push_back({range.start, range.end, range.message});
      ++facts.module_ranges;
    } else {
      data.flops_ranges->push_back({range.start, range.end, range.message});
      ++facts.flops_records;
    }
  }

  // Kernels by start time, for the flows' ends.
  std::vector<std::uint32_t> by_start(kernels.size());
  for (std::uint32_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  StableSortIfNeeded(by_start.begin(), by_start.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return kernels[a].start < kernels[b].start; });
  const auto kernel_at = [&](const TraceFlowEnd& end) -> std::optional<std::uint32_t> {
    // The flow ends where the kernel starts; kernel_details.csv and the trace may round the same
    // start 1 ns apart. A stream that is known must agree.
    for (const std::int64_t delta : {0, -1, 1}) {
      const std::int64_t ts = end.ts + delta;
      auto it = std::lower_bound(by_start.begin(), by_start.end(), ts,
                                 [&](std::uint32_t k, std::int64_t t) { return kernels[k].start < t; });
      for (; it != by_start.end() && kernels[*it].start == ts; ++it) {
        if (kernels[*it].stream < 0 || kernels[*it].stream == end.tid || kernels[*it].communication) return *it;
      }
    }
    return std::nullopt;
  };

  // Framework ops by thread and start, for the flows' starts.
  std::vector<std::uint32_t> ops(trace.ops.size());
  for (std::uint32_t i = 0; i < ops.size(); ++i) ops[i] = i;
  const auto op_less = [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(trace.ops[a].thread, trace.ops[a].start) < std::tie(trace.ops[b].thread, trace.ops[b].start);
  };
  StableSortIfNeeded(ops.begin(), ops.end(), op_less);
  const auto op_at = [&](const TraceFlowEnd& begin) -> std::optional<std::uint32_t> {
    const std::int64_t thread = collector.ThreadOf(begin.pid, begin.tid);
    if (thread < 0) return std::nullopt;
    auto it = std::upper_bound(ops.begin(), ops.end(), std::pair{thread, begin.ts},
                               [&](const std::pair<std::int64_t, std::int64_t>& key, std::uint32_t op) {
                                 return key < std::pair{trace.ops[op].thread, trace.ops[op].start};
                               });
    // The op the flow starts in: the latest one starting at or before it that still runs (the
    // innermost); torch_npu starts the flow at the op's own start.
    for (int looked = 0; it != ops.begin() && looked < 256; ++looked) {
      --it;
      const TraceOp& op = trace.ops[*it];
      if (op.thread != thread) break;
      if (op.start <= begin.ts && begin.ts <= op.end) return *it;
    }
    return std::nullopt;
  };

  // Flows: both ends by id.
  const auto by_id = [](const TraceFlowEnd& a, const TraceFlowEnd& b) { return a.id < b.id; };
  StableSortIfNeeded(trace.flow_starts.begin(), trace.flow_starts.end(), by_id);
  StableSortIfNeeded(trace.flow_ends.begin(), trace.flow_ends.end(), by_id);
  std::vector<KernelLink> compute;
  std::vector<KernelLink> communication;
  std::size_t unmatched_flows = 0;
  for (std::size_t s = 0, f = 0; s < trace.flow_starts.size() && f < trace.flow_ends.size();) {
    if (trace.flow_starts[s].id < trace.flow_ends[f].id) {
      ++s;
      continue;
    }
    if (trace.flow_ends[f].id < trace.flow_starts[s].id) {
      ++f;
      continue;
    }
    const auto op = op_at(trace.flow_starts[s]);
    const auto kernel = kernel_at(trace.flow_ends[f]);
    ++s;
    ++f;
    if (!op || !kernel) {
      ++unmatched_flows;
      continue;
    }
    ++facts.op_kernel_flows;
    const TraceOp& o = trace.ops[*op];
    const CsvKernel& k = kernels[*kernel];
    // An HCCL task stands for its communication op, named by its type (COMMUNICATION_OP.opType).
    (k.communication ? communication : compute)
        .push_back({k.communication ? k.type : k.name, o.name, k.start, k.end, o.start, o.end});
  }
  const auto link_less = [](const KernelLink& a, const KernelLink& b) {
    return std::tie(a.op_ts, a.kernel_ts) < std::tie(b.op_ts, b.kernel_ts);
  };
  StableSortIfNeeded(compute.begin(), compute.end(), link_less);
  StableSortIfNeeded(communication.begin(), communication.end(), link_less);
  std::vector<KernelLink> schedule = ScheduleLinks(trace, communication);
  StableSortIfNeeded(schedule.begin(), schedule.end(), link_less);
  communication.insert(communication.end(), schedule.begin(), schedule.end());
  facts.compute_links = compute.size();
  data.compute_link_count = compute.size();
  data.kernel_links = std::move(compute);
  data.kernel_links.insert(data.kernel_links.end(), communication.begin(), communication.end());
  if (unmatched_flows > 0) {
    notes.push_back(
        {RankNote::Level::kInfo, std::to_string(unmatched_flows) + " torch_to_npu flows of " + trace_path.string() +
                                     " end at no kernel of kernel_details.csv (memory copies) or start in no cpu_op"});
  }

  // Q5's shapes: compute kernels with shapes, by start.
  AddShapes(kernels, by_start, facts.has_shape_columns, data);

  if (with_kernel_signatures) data.kernel_signatures = TextSignatures(kernels, counters, strings, facts.ai_core_mhz);
  if (facts_out != nullptr) *facts_out = std::move(facts);
  return data;
}

}  // namespace opmfu::engine
