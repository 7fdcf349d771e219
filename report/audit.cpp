#include "report/audit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "common/text.h"
#include "registry/builtin_flops.h"
#include "report/derived_flops.h"
#include "report/presentation.h"

namespace opmfu::report {

namespace {

using Shape = std::vector<std::int64_t>;

nlohmann::json ShapeJson(const Shape& shape) { return nlohmann::json(shape); }

// The GEMM targets whose formula reads only the two matrices a matmul kernel records.
bool IsGemmTarget(std::string_view op) {
  return op == "mm" || op == "addmm" || op == "bmm" || op == "matmul" || op == "linear";
}

struct Recomputed {
  std::optional<std::int64_t> flops;
  std::string skip_reason;
};

// The kernel records its operands as stored, possibly transposed. Every orientation whose inner
// dimensions agree is tried with the target's own formula; the value counts only if they all agree.
Recomputed RecomputeGemm(std::string_view target_name, const std::vector<Shape>& shapes) {
  if (shapes.size() < 2 || shapes[0].size() < 2 || shapes[1].size() < 2) {
    return {std::nullopt, "the kernel does not record two matrices"};
  }
  const registry::BuiltinTarget* target = registry::FindBuiltinTarget(target_name);
  const Shape& a = shapes[0];
  const Shape& b = shapes[1];
  std::optional<std::int64_t> agreed;
  bool any = false;
  for (int transpose_a = 0; transpose_a < 2; ++transpose_a) {
    for (int transpose_b = 0; transpose_b < 2; ++transpose_b) {
      Shape left = a;
      Shape right = b;
      if (transpose_a != 0) std::swap(left[left.size() - 2], left[left.size() - 1]);
      if (transpose_b != 0) std::swap(right[right.size() - 2], right[right.size() - 1]);
      if (left.back() != right[right.size() - 2]) continue;
      nlohmann::json arguments;
      if (target_name == "linear") {
        // F.linear's weight is [out, in].
        std::swap(right[right.size() - 2], right[right.size() - 1]);
        if (right.size() != 2) continue;
        arguments = {{"input", ShapeJson(left)}, {"weight", ShapeJson(right)}};
      } else if (target_name == "addmm") {
        arguments = {{"mat1", ShapeJson(left)}, {"mat2", ShapeJson(right)}};
      } else {
        arguments = {{"input", ShapeJson(left)}, {"other", ShapeJson(right)}};
      }
      const Result<std::int64_t> flops = registry::ComputeBuiltinFlops(*target, arguments);
      if (!flops.ok()) continue;
      if (any && agreed != *flops) {
        return {std::nullopt, "the kernel's operand shapes allow more than one matmul (a transpose is not recorded)"};
      }
      any = true;
      agreed = *flops;
    }
  }
  if (!agreed) return {std::nullopt, "the kernel's operand shapes do not form a matmul for this formula"};
  return {agreed, ""};
}

}  // namespace

std::string LikelyCause(double recorded, double recomputed) {
  if (recomputed <= 0) return "the shapes give 0 FLOPs";
  const double ratio = recorded / recomputed;
  const double whole = std::round(ratio);
  if (std::abs(ratio - 0.5) < 1e-9) return "half: a causal or sparse factor, or a multiply-add counted once";
  if (whole >= 2 && std::abs(ratio - whole) < 1e-9) {
    return FormatNumber("%.0f", whole) +
           " times: the range spans several calls, or weights shared across calls are counted each time";
  }
  return "not a simple factor: a formula other than torch_npu's built-in one (a custom registration over it?)";
}

AuditResult AuditFlops(const ReportData& data, double tolerance, const DerivedSection* derived) {
  AuditResult audit;
  audit.tolerance = tolerance;
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::int64_t, std::int64_t>, std::size_t>
      disagreements;
  for (const engine::OperatorMfuRow& row : data.analysis.tables.operator_rows) {
    ++audit.rows;
    const std::string_view target = row.flops_op_name();
    const std::string_view kernel = row.kernel_name().value_or("");
    if (registry::FindBuiltinTarget(target) == nullptr) {
      ++audit.skipped["the range's op is not a built-in target (a custom formula: its value is what it returns)"];
      continue;
    }
    if (!IsGemmTarget(target)) {
      ++audit.skipped
            ["the formula needs arguments the profiler does not record (layout, heads, sparse mode, "
             "group list)"];
      continue;
    }
    if (!engine::IsComputeKernelName(kernel)) {
      ++audit.skipped["an auxiliary kernel (it inherits the range's FLOPs; see `opmfu report`)"];
      continue;
    }
    const auto shapes = ParseShapeList(row.input_shapes().value_or(""));
    if (!shapes.ok()) {
      ++audit.skipped["the kernel's input shapes are not readable: " + shapes.error().message];
      continue;
    }
    if (shapes->empty()) {
      ++audit.skipped["the kernel has no readable input shapes"];
      continue;
    }
    const Recomputed recomputed = RecomputeGemm(target, *shapes);
    if (!recomputed.flops) {
      ++audit.skipped[recomputed.skip_reason];
      continue;
    }
    ++audit.checked;
    const double difference = std::abs(static_cast<double>(row.flops) - static_cast<double>(*recomputed.flops));
    if (difference <= tolerance * static_cast<double>(std::max<std::int64_t>(*recomputed.flops, 1))) {
      ++audit.agreed;
      continue;
    }
    ++disagreements[{std::string(row.op_name().value_or("")), std::string(target), std::string(kernel),
                     std::string(row.input_shapes().value_or("")), row.flops, *recomputed.flops}];
  }
  for (const auto& [key, count] : disagreements) {
    const auto& [op, target, kernel, shapes, recorded, recomputed] = key;
    audit.disagreements.push_back({op, target, kernel, shapes, recorded, recomputed, count,
                                   LikelyCause(static_cast<double>(recorded), static_cast<double>(recomputed))});
  }
  std::stable_sort(audit.disagreements.begin(), audit.disagreements.end(),
                   [](const AuditDisagreement& a, const AuditDisagreement& b) { return a.count > b.count; });
  if (data.source == ReportData::Source::kClusterDb) {
    audit.derived_unavailable =
        "a cluster DB holds no kernel shapes: audit the profiling directory (-d) to compare derived FLOPs";
  } else if (derived != nullptr) {
    DerivedAudit& compared = audit.derived.emplace();
    compared.tolerance = derived->tolerance;
    compared.compared = derived->compared;
    compared.agreed = derived->agreed;
    compared.disagreements = derived->disagreements;
    compared.not_compared = derived->not_compared;
  }
  return audit;
}

std::string RenderAudit(const AuditResult& audit, AuditFormat format) {
  if (format == AuditFormat::kJson) {
    nlohmann::ordered_json json;
    json["tolerance"] = audit.tolerance;
    json["rows"] = audit.rows;
    json["checked"] = audit.checked;
    json["agreed"] = audit.agreed;
    json["disagreements"] = nlohmann::json::array();
    for (const AuditDisagreement& d : audit.disagreements) {
      json["disagreements"].push_back({{"op_name", d.op_name},
                                       {"flops_op_name", d.flops_op_name},
                                       {"kernel_name", d.kernel_name},
                                       {"input_shapes", d.input_shapes},
                                       {"recorded", d.recorded},
                                       {"recomputed", d.recomputed},
                                       {"count", d.count},
                                       {"likely_cause", d.likely_cause}});
    }
    json["skipped"] = audit.skipped;
    if (audit.derived) {
      const DerivedAudit& d = *audit.derived;
      nlohmann::ordered_json derived;
      derived["label"] = kDerivedLabel;
      derived["tolerance"] = d.tolerance;
      derived["compared"] = d.compared;
      derived["agreed"] = d.agreed;
      derived["disagreements"] = nlohmann::json::array();
      for (const DerivedDisagreement& k : d.disagreements) {
        derived["disagreements"].push_back({{"rank_id", k.rank_id},
                                            {"op_name", k.op_name},
                                            {"flops_op_name", k.flops_op_name},
                                            {"kernel_name", k.kernel_name},
                                            {"op_type", k.op_type},
                                            {"input_shapes", k.input_shapes},
                                            {"recorded", k.recorded},
                                            {"derived", k.derived},
                                            {"count", k.count},
                                            {"likely_cause", LikelyCause(static_cast<double>(k.recorded), k.derived)}});
      }
      derived["not_compared"] = d.not_compared;
      json["derived"] = derived;
    } else {
      json["derived"] = nullptr;
      json["derived_unavailable"] = audit.derived_unavailable;
    }
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::ostringstream out;
  std::size_t skipped = 0;
  for (const auto& [reason, count] : audit.skipped) skipped += count;
  out << "opmfu audit: recorded FLOPs against torch_npu's built-in formulas applied to the kernels' input shapes "
         "(tolerance "
      << FormatPercent(audit.tolerance) << ")\n"
      << "  " << audit.rows << " OperatorMFU rows: " << audit.checked << " checked (" << audit.agreed << " agree, "
      << audit.checked - audit.agreed << " disagree), " << skipped << " skipped\n";
  if (!audit.disagreements.empty()) {
    std::vector<TableRow> rows{
        {"rows", "op", "formula", "kernel", "input shapes", "recorded", "from shapes", "likely cause"}};
    for (const AuditDisagreement& d : audit.disagreements) {
      rows.push_back({std::to_string(d.count), d.op_name, d.flops_op_name, d.kernel_name, d.input_shapes,
                      std::to_string(d.recorded), std::to_string(d.recomputed), d.likely_cause});
    }
    out << "\nDisagreements\n" << FormatTable(rows, TableStyle::kText);
  }
  if (!audit.skipped.empty()) {
    out << "\nSkipped (not recomputable from what the profiler records)\n";
    for (const auto& [reason, count] : audit.skipped) out << "  " << count << " rows: " << reason << "\n";
  }
  if (!audit.derived) {
    if (!audit.derived_unavailable.empty())
      out << "\nDerived FLOPs not compared: " << audit.derived_unavailable << "\n";
    return out.str();
  }
  const DerivedAudit& derived = *audit.derived;
  std::size_t not_compared = 0;
  for (const auto& [reason, count] : derived.not_compared) not_compared += count;
  out << "\nRecorded FLOPs against FLOPs " << kDerivedLabel << ", kernel by kernel ("
      << (derived.tolerance == 0 ? std::string("exact: both come from the same built-in formula code")
                                 : "tolerance " + FormatPercent(derived.tolerance))
      << ")\n"
      << "  " << derived.compared << " kernels with a record compared (" << derived.agreed << " agree, "
      << derived.compared - derived.agreed << " disagree), " << not_compared << " not compared\n";
  if (!derived.disagreements.empty()) {
    std::vector<TableRow> rows{{"rank", "kernels", "op", "formula", "kernel", "op type", "input shapes", "recorded",
                                "derived", "likely cause"}};
    for (const DerivedDisagreement& d : derived.disagreements) {
      rows.push_back({std::to_string(d.rank_id), std::to_string(d.count), d.op_name, d.flops_op_name, d.kernel_name,
                      d.op_type, d.input_shapes, std::to_string(d.recorded), FormatNumber("%.0f", d.derived),
                      LikelyCause(static_cast<double>(d.recorded), d.derived)});
    }
    out << "\nDisagreements with the derived FLOPs\n" << FormatTable(rows, TableStyle::kText);
  }
  if (!derived.not_compared.empty()) {
    out << "\nNot compared\n";
    for (const auto& [reason, count] : derived.not_compared) out << "  " << count << " kernels: " << reason << "\n";
  }
  return out.str();
}

}  // namespace opmfu::report
