#include "report/cross_vendor_diff.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/text.h"
#include "engine/coverage.h"
#include "report/presentation.h"
#include "report/torch_analysis.h"

namespace opmfu::report {

namespace {

// The shapes with absent tensors (empty entries) dropped, in order.
std::string PresentShapes(std::string_view shapes) {
  std::string kept;
  for (const std::string& tensor : SplitString(shapes, ';')) {
    if (TrimWhitespace(tensor).empty()) continue;
    kept += (kept.empty() ? "" : ";") + std::string(TrimWhitespace(tensor));
  }
  return kept;
}

// The same tensors in any order, each tensor's dimensions in any order.
std::string ReorderedShapes(std::string_view shapes) {
  std::vector<std::string> tensors;
  for (const std::string& tensor : SplitString(PresentShapes(shapes), ';')) {
    if (tensor.empty()) continue;
    std::vector<std::int64_t> dims;
    for (const std::string& dim : SplitString(tensor, ',')) dims.push_back(std::atoll(dim.c_str()));
    std::sort(dims.begin(), dims.end());
    std::string text;
    for (std::int64_t dim : dims) text += (text.empty() ? "" : ",") + std::to_string(dim);
    tensors.push_back(text);
  }
  std::sort(tensors.begin(), tensors.end());
  std::string joined;
  for (const std::string& tensor : tensors) joined += (joined.empty() ? "" : ";") + tensor;
  return joined;
}

// matmul, attention, convolution or other, from an op's name on either vendor.
std::string OpClass(std::string_view op) {
  const std::string name = AsciiLower(op);
  if (name.find("attention") != std::string::npos || name.find("attn") != std::string::npos) return "attention";
  if (name.find("conv") != std::string::npos) return "convolution";
  for (std::string_view part : {"mm", "linear", "matmul", "gemm"}) {
    if (name.find(part) != std::string::npos) return "matmul";
  }
  return "other";
}

struct Grouped {
  VendorSide side;
  bool taken = false;
};

void AddTo(std::map<std::tuple<std::string, std::string, std::int64_t>, Grouped>& groups, const std::string& op,
           const std::string& shapes, double flops, std::size_t calls, std::int64_t duration, double mfu_time,
           const char* source) {
  Grouped& group = groups[{op, shapes, std::llround(flops)}];
  group.side.op_name = op;
  group.side.input_shapes = shapes;
  group.side.flops = flops;
  group.side.calls += calls;
  group.side.duration += duration;
  group.side.mfu_time += mfu_time;
  group.side.flops_source = source;
}

std::string PeaksOf(const ReportData& data) {
  if (!data.peak_source.empty()) return data.peak_source;
  std::set<double> peaks;
  for (const engine::OperatorMfuRow& row : data.analysis.tables.operator_rows) peaks.insert(row.chip_peak_tflops);
  std::string text;
  for (double peak : peaks) text += (text.empty() ? "" : ", ") + FormatNumber("%.2f", peak);
  return (text.empty() ? std::string("none") : text + " TFLOPS") + " (the rows' chip_peak_tflops)";
}

}  // namespace

const char* AlignmentNote(Alignment alignment) {
  switch (alignment) {
    case Alignment::kShapes:
      return "same op, same shapes";
    case Alignment::kReorderedShapes:
      return "same op, shapes in another order or layout (a transposed or reordered tensor)";
    case Alignment::kFlops:
      return "aligned by op family and FLOPs per call: the op names or layouts differ";
    case Alignment::kNpuOnly:
      return "only on the NPU";
    case Alignment::kGpuOnly:
      return "only on the GPU";
  }
  return "";
}

std::optional<double> CrossVendorRow::gap() const {
  if (!npu || !gpu) return std::nullopt;
  return npu->mfu() - gpu->mfu();
}

CrossVendorDiff DiffAcrossVendors(const ReportData& npu, const ReportData& gpu) {
  CrossVendorDiff diff;
  diff.npu_path = npu.path.string();
  diff.gpu_path = gpu.path.string();
  diff.npu_peak = PeaksOf(npu);
  diff.gpu_peak = PeaksOf(gpu);
  using Key = std::tuple<std::string, std::string, std::int64_t>;
  std::map<Key, Grouped> npu_groups;
  std::map<Key, Grouped> gpu_groups;
  double npu_mfu_time = 0;
  for (const engine::OperatorMfuRow& row : npu.analysis.tables.operator_rows) {
    // Only the compute kernels: upstream charges every kernel of a range with its FLOPs.
    if (!engine::IsComputeKernelName(row.kernel_name().value_or(""))) continue;
    AddTo(npu_groups, std::string(row.op_name().value_or("")), std::string(row.input_shapes().value_or("")),
          static_cast<double>(row.flops), 1, row.kernel_duration, row.mfu * static_cast<double>(row.kernel_duration),
          "recorded");
    diff.npu_time += row.kernel_duration;
    npu_mfu_time += row.mfu * static_cast<double>(row.kernel_duration);
  }
  double gpu_mfu_time = 0;
  if (gpu.traces != nullptr) {
    for (const TraceOpGroup& group : gpu.traces->groups) {
      const std::optional<double> mfu = group.mfu();
      if (!group.derived.flops || !mfu) continue;
      AddTo(gpu_groups, group.op_name, group.input_shapes, *group.derived.flops, group.calls, group.duration,
            *mfu * static_cast<double>(group.duration), "derived");
      diff.gpu_time += group.duration;
      gpu_mfu_time += *mfu * static_cast<double>(group.duration);
    }
  }
  diff.npu_mfu = diff.npu_time > 0 ? npu_mfu_time / static_cast<double>(diff.npu_time) : 0;
  diff.gpu_mfu = diff.gpu_time > 0 ? gpu_mfu_time / static_cast<double>(diff.gpu_time) : 0;

  std::vector<Grouped*> npu_order;
  for (auto& [key, group] : npu_groups) npu_order.push_back(&group);
  std::stable_sort(npu_order.begin(), npu_order.end(),
                   [](const Grouped* a, const Grouped* b) { return a->side.duration > b->side.duration; });
  const auto find = [&](auto&& same) -> Grouped* {
    Grouped* best = nullptr;
    for (auto& [key, group] : gpu_groups) {
      if (!group.taken && same(group.side) && (best == nullptr || group.side.duration > best->side.duration)) {
        best = &group;
      }
    }
    return best;
  };
  for (Grouped* ascend : npu_order) {
    const VendorSide& side = ascend->side;
    Alignment alignment = Alignment::kShapes;
    Grouped* match = find([&](const VendorSide& other) {
      return other.op_name == side.op_name && PresentShapes(other.input_shapes) == PresentShapes(side.input_shapes);
    });
    if (match == nullptr) {
      alignment = Alignment::kReorderedShapes;
      match = find([&](const VendorSide& other) {
        return other.op_name == side.op_name &&
               ReorderedShapes(other.input_shapes) == ReorderedShapes(side.input_shapes);
      });
    }
    if (match == nullptr && side.flops > 0) {
      alignment = Alignment::kFlops;
      match = find([&](const VendorSide& other) {
        return OpClass(other.op_name) == OpClass(side.op_name) && OpClass(side.op_name) != "other" &&
               std::llround(other.flops) == std::llround(side.flops);
      });
    }
    CrossVendorRow row;
    row.npu = side;
    ascend->taken = true;
    if (match != nullptr) {
      match->taken = true;
      row.gpu = match->side;
      row.alignment = alignment;
      const double npu_mfu = side.mfu();
      const double gpu_mfu = match->side.mfu();
      if (gpu_mfu > npu_mfu && gpu_mfu > 0) {
        row.lost_time = static_cast<double>(side.duration) * (1 - npu_mfu / gpu_mfu);
      }
    } else {
      row.alignment = Alignment::kNpuOnly;
    }
    diff.rows.push_back(std::move(row));
  }
  for (auto& [key, group] : gpu_groups) {
    if (group.taken) continue;
    CrossVendorRow row;
    row.gpu = group.side;
    row.alignment = Alignment::kGpuOnly;
    diff.rows.push_back(std::move(row));
  }
  const auto time_of = [](const CrossVendorRow& row) {
    return row.npu ? row.npu->duration : row.gpu ? row.gpu->duration : 0;
  };
  std::stable_sort(diff.rows.begin(), diff.rows.end(), [&](const CrossVendorRow& a, const CrossVendorRow& b) {
    const bool a_pair = a.npu && a.gpu;
    const bool b_pair = b.npu && b.gpu;
    if (a_pair != b_pair) return a_pair;
    if (a_pair && a.lost_time != b.lost_time) return a.lost_time > b.lost_time;
    return time_of(a) > time_of(b);
  });
  std::size_t aligned = 0;
  for (const CrossVendorRow& row : diff.rows) aligned += row.npu && row.gpu ? 1 : 0;
  diff.notes.push_back(std::to_string(aligned) +
                       " op groups aligned; NPU FLOPs are its FLOPs records (OperatorMFU "
                       "compute kernels), GPU FLOPs are derived from Input Dims with the "
                       "same torch_npu formulas");
  diff.notes.push_back(
      "lost time: what the NPU would save at the GPU's MFU for the same op, duration x (1 - MFU "
      "NPU / MFU GPU)");
  if (gpu.traces == nullptr) diff.notes.push_back(diff.gpu_path + ": not a GPU trace");
  return diff;
}

namespace {

std::string Cell(const std::optional<VendorSide>& side, std::string (*show)(const VendorSide&)) {
  return side ? show(*side) : "-";
}

std::vector<TableRow> Table(const CrossVendorDiff& diff, std::size_t top) {
  std::vector<TableRow> table = {{"#", "op (NPU | GPU)", "input shapes (NPU | GPU)", "calls", "time NPU", "time GPU",
                                  "FLOPs/call", "MFU NPU", "MFU GPU", "gap", "NPU lost time", "aligned"}};
  for (std::size_t i = 0; i < diff.rows.size() && i < top; ++i) {
    const CrossVendorRow& row = diff.rows[i];
    const std::string npu_op = row.npu ? row.npu->op_name : "-";
    const std::string gpu_op = row.gpu ? row.gpu->op_name : "-";
    const std::string op = npu_op == gpu_op ? npu_op : npu_op + " | " + gpu_op;
    const std::string npu_shapes = row.npu ? row.npu->input_shapes : "-";
    const std::string gpu_shapes = row.gpu ? row.gpu->input_shapes : "-";
    std::string flops = Cell(row.npu, [](const VendorSide& s) { return FormatNumber("%.4g", s.flops); });
    if (row.npu && row.gpu && std::llround(row.npu->flops) != std::llround(row.gpu->flops)) {
      flops += " | " + FormatNumber("%.4g", row.gpu->flops);
    } else if (!row.npu) {
      flops = FormatNumber("%.4g", row.gpu->flops);
    }
    table.push_back({std::to_string(i + 1), op, npu_shapes + " | " + gpu_shapes,
                     Cell(row.npu, [](const VendorSide& s) { return std::to_string(s.calls); }) + " | " +
                         Cell(row.gpu, [](const VendorSide& s) { return std::to_string(s.calls); }),
                     Cell(row.npu, [](const VendorSide& s) { return FormatDuration(static_cast<double>(s.duration)); }),
                     Cell(row.gpu, [](const VendorSide& s) { return FormatDuration(static_cast<double>(s.duration)); }),
                     flops, Cell(row.npu, [](const VendorSide& s) { return FormatPercent(s.mfu()); }),
                     Cell(row.gpu, [](const VendorSide& s) { return FormatPercent(s.mfu()); }),
                     row.gap() ? FormatNumber("%+.1f pp", *row.gap() * 100) : "-",
                     row.npu && row.gpu ? FormatDuration(row.lost_time) : "-", AlignmentNote(row.alignment)});
  }
  return table;
}

nlohmann::ordered_json SideJson(const std::optional<VendorSide>& side) {
  if (!side) return nullptr;
  return {{"op_name", side->op_name},          {"input_shapes", side->input_shapes}, {"calls", side->calls},
          {"duration_ns", side->duration},     {"flops_per_call", side->flops},      {"mfu", side->mfu()},
          {"flops_source", side->flops_source}};
}

}  // namespace

std::string RenderCrossVendorDiff(const CrossVendorDiff& diff, CrossVendorFormat format, std::size_t top) {
  if (format == CrossVendorFormat::kJson) {
    nlohmann::ordered_json json = {
        {"npu",
         {{"path", diff.npu_path}, {"peak", diff.npu_peak}, {"duration_ns", diff.npu_time}, {"mfu", diff.npu_mfu}}},
        {"gpu",
         {{"path", diff.gpu_path}, {"peak", diff.gpu_peak}, {"duration_ns", diff.gpu_time}, {"mfu", diff.gpu_mfu}}},
        {"rows", nlohmann::ordered_json::array()},
        {"notes", diff.notes}};
    for (const CrossVendorRow& row : diff.rows) {
      json["rows"].push_back({{"npu", SideJson(row.npu)},
                              {"gpu", SideJson(row.gpu)},
                              {"aligned", AlignmentNote(row.alignment)},
                              {"mfu_gap", row.gap() ? nlohmann::ordered_json(*row.gap()) : nullptr},
                              {"npu_lost_time_ns", row.lost_time}});
    }
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const std::vector<TableRow> table = Table(diff, top);
  std::ostringstream out;
  const std::string summary_npu = "NPU " + diff.npu_path + ": " + FormatDuration(static_cast<double>(diff.npu_time)) +
                                  " of compute kernels, MFU " + FormatPercent(diff.npu_mfu) + "; peaks " +
                                  diff.npu_peak;
  const std::string summary_gpu = "GPU " + diff.gpu_path + ": " + FormatDuration(static_cast<double>(diff.gpu_time)) +
                                  " of derived ops' kernels, MFU " + FormatPercent(diff.gpu_mfu) + "; peaks " +
                                  diff.gpu_peak;
  if (format == CrossVendorFormat::kHtml) {
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>opmfu diff: NPU vs GPU</title>"
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid "
           "#ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}</style></head><body>\n"
        << "<h1>MFU across vendors: NPU vs GPU, op by op</h1>\n<p>" << EscapeHtml(summary_npu) << "</p>\n<p>"
        << EscapeHtml(summary_gpu) << "</p>\n<table>\n";
    for (std::size_t r = 0; r < table.size(); ++r) {
      out << "<tr>";
      for (const std::string& cell : table[r]) {
        const char* tag = r == 0 ? "th" : "td";
        out << "<" << tag << ">" << WithBreaksAfterSeparators(EscapeHtml(cell)) << "</" << tag << ">";
      }
      out << "</tr>\n";
    }
    out << "</table>\n<ul>\n";
    for (const std::string& note : diff.notes) out << "<li>" << EscapeHtml(note) << "</li>\n";
    out << "</ul>\n</body></html>\n";
    return out.str();
  }
  const bool markdown = format == CrossVendorFormat::kMarkdown;
  out << (markdown ? "# " : "")
      << "opmfu diff: MFU across vendors, NPU vs GPU, op by op (biggest NPU lost time first)\n"
      << (markdown ? "\n- " : "  ") << summary_npu << "\n"
      << (markdown ? "- " : "  ") << summary_gpu << "\n\n"
      << FormatTable(table, markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  for (const std::string& note : diff.notes) out << (markdown ? "- " : "  ") << note << "\n";
  return out.str();
}

}  // namespace opmfu::report
