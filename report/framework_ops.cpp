#include "report/framework_ops.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/operator_details.h"
#include "engine/text_export.h"
#include "report/derived_flops.h"
#include "report/derived_mfu.h"
#include "report/report.h"
#include "report/torch_op_flops.h"

namespace opmfu::report {

const char* const kFrameworkOpLabel =
    "framework ops from operator_details.csv: logical input shapes (the model's FLOPs, not the padded kernel's), "
    "leaf ops only";

namespace {

namespace fs = std::filesystem;

// Not derived itself (which gradients it computed is not recorded), but its first operand is the
// gradient of the forward convolution's output: the output shape operator_details.csv lacks.
constexpr std::string_view kConvolutionBackward = "aten::convolution_backward";

// A forward convolution's output shape from the backward of the same input and weight, in one
// rank's file: "grad_output;input;weight;..." -> input;weight -> grad_output.
std::map<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>, std::vector<std::int64_t>>
OutputsFromBackward(const std::vector<engine::FrameworkOpCalls>& groups) {
  std::map<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>, std::vector<std::int64_t>> outputs;
  for (const engine::FrameworkOpCalls& calls : groups) {
    if (calls.name != kConvolutionBackward) continue;
    auto shapes = ParseShapeList(calls.input_shapes);
    if (!shapes.ok() || shapes->size() < 3) continue;
    outputs.emplace(std::pair{(*shapes)[1], (*shapes)[2]}, (*shapes)[0]);
  }
  return outputs;
}

// What a composite op runs instead of itself: when the file holds one of these, the composite's
// device time is its child's, already counted there.
struct Decomposition {
  std::string_view op;
  std::array<std::string_view, 4> into;
};
constexpr std::array kDecompositions{
    Decomposition{"aten::linear", {"aten::addmm", "aten::matmul", "aten::mm", "aten::bmm"}},
    Decomposition{"aten::matmul", {"aten::mm", "aten::bmm"}},
    Decomposition{"aten::conv1d", {"aten::convolution", "aten::_convolution"}},
    Decomposition{"aten::conv2d", {"aten::convolution", "aten::_convolution"}},
    Decomposition{"aten::conv3d", {"aten::convolution", "aten::_convolution"}},
    Decomposition{"aten::convolution", {"aten::_convolution"}},
    Decomposition{"aten::scaled_dot_product_attention",
                  {"aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
                   "aten::_scaled_dot_product_cudnn_attention"}},
};

bool IsComposite(std::string_view op, const std::set<std::string, std::less<>>& names) {
  for (const Decomposition& decomposition : kDecompositions) {
    if (decomposition.op != op) continue;
    for (std::string_view child : decomposition.into) {
      if (!child.empty() && names.find(child) != names.end()) return true;
    }
  }
  return false;
}

// "32,4096;4096,9216;" as the Input Dims JSON the formula code reads: [[32,4096],[4096,9216],[]].
std::optional<std::string> DimsJson(std::string_view shapes) {
  auto parsed = ParseShapeList(shapes);
  if (!parsed.ok()) return std::nullopt;
  return nlohmann::json(*parsed).dump();
}

// The directory a rank's operator_details.csv would be in.
fs::path OutputDirectory(const engine::RankLocation& location) {
  return location.text_export ? location.db_path : location.db_path.parent_path();
}

}  // namespace

std::optional<double> FrameworkOpGroup::mfu() const {
  if (time_with_peak <= 0) return std::nullopt;
  return peak_seconds / time_with_peak;
}

std::optional<double> FrameworkOpView::weighted_mfu() const {
  if (time_with_peak <= 0) return std::nullopt;
  return peak_seconds / time_with_peak;
}

bool IsFrameworkFormulaOp(std::string_view name) { return IsDerivableTorchOp(name) || name == kConvolutionBackward; }

std::optional<FrameworkOpView> BuildFrameworkOpView(const ReportData& data, std::span<const DerivedRank> ranks) {
  FrameworkOpView view;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  std::map<std::string, std::size_t> composites;  // op -> calls left out
  bool any_file = false;
  for (std::size_t i = 0; i < data.analysis.ranks.size(); ++i) {
    const engine::RankOutcome& outcome = data.analysis.ranks[i];
    if (outcome.location.never_parsed) continue;
    const fs::path path = OutputDirectory(outcome.location) / engine::kOperatorDetailsFile;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    any_file = true;
    const std::string rank_name = "rank " + std::to_string(outcome.location.rank_id);
    auto details = engine::ReadOperatorDetails(path, IsFrameworkFormulaOp);
    if (!details.ok()) {
      view.notes.push_back(rank_name + ": " + details.error().message);
      continue;
    }
    ++view.ranks_read;
    const double peak = i < ranks.size() ? ranks[i].peak_fp16 : 0;
    const auto backward_outputs = OutputsFromBackward(details->groups);
    for (engine::FrameworkOpCalls& calls : details->groups) {
      if (IsComposite(calls.name, details->names)) {
        composites[calls.name] += calls.calls;
        continue;
      }
      auto [it, added] = index.try_emplace({calls.name, calls.input_shapes}, view.groups.size());
      if (added) {
        FrameworkOpGroup& group = view.groups.emplace_back();
        group.name = calls.name;
        group.input_shapes = calls.input_shapes;
        const std::optional<std::string> dims = DimsJson(calls.input_shapes);
        if (!dims) {
          group.skip_reason = "Input Shapes is not a list of shapes";
        } else if (group.name == kConvolutionBackward) {
          group.skip_reason = "a backward convolution: which gradients it computed is not recorded";
        } else {
          TorchOpRecord record;
          record.name = group.name;
          record.input_dims = *dims;
          const TorchOpFlops derived = DeriveTorchOp(record);
          group.flops = derived.flops;
          group.formula = derived.formula;
          // The formula code speaks of a GPU trace's Concrete Inputs: operator_details.csv records
          // no scalar argument at all.
          group.skip_reason = derived.skip_reason;
          if (derived.family == KernelFamily::kConvolution && !derived.flops) {
            group.skip_reason =
                "operator_details.csv records no stride, padding or dilation, and no backward of "
                "the same input and weight gives the output";
            auto shapes = ParseShapeList(group.input_shapes);
            const auto output = shapes.ok() && shapes->size() >= 2
                                    ? backward_outputs.find(std::pair{(*shapes)[0], (*shapes)[1]})
                                    : backward_outputs.end();
            if (output != backward_outputs.end()) {
              const TorchOpFlops from_backward =
                  ConvolutionFlopsFromShapes((*shapes)[0], (*shapes)[1], output->second, "the backward's gradient");
              group.flops = from_backward.flops;
              group.formula = from_backward.formula;
              group.skip_reason = from_backward.skip_reason;
            }
          }
        }
      }
      FrameworkOpGroup& group = view.groups[it->second];
      group.calls += calls.calls;
      group.device_time += calls.device_total;
      if (group.flops && peak > 0 && calls.device_total > 0) {
        group.time_with_peak += static_cast<double>(calls.device_total) * 1e-9;
        group.peak_seconds += *group.flops * static_cast<double>(calls.calls) / peak;
      }
    }
  }
  if (!any_file) return std::nullopt;
  std::sort(view.groups.begin(), view.groups.end(), [](const FrameworkOpGroup& a, const FrameworkOpGroup& b) {
    return std::tie(b.device_time, a.name, a.input_shapes) < std::tie(a.device_time, b.name, b.input_shapes);
  });
  for (const FrameworkOpGroup& group : view.groups) {
    view.device_time += group.device_time;
    if (group.flops) view.derived_time += group.device_time;
    view.peak_seconds += group.peak_seconds;
    view.time_with_peak += group.time_with_peak;
  }
  for (const auto& [op, calls] : composites) {
    view.notes.push_back(op + ": " + std::to_string(calls) +
                         " calls left out, their device time is that of the ops they run (counted)");
  }
  if (view.time_with_peak > 0) {
    view.notes.push_back(
        "operator_details.csv records no dtypes: every op is measured against the FP16 peak (as FP32 is)");
  }
  return view;
}

}  // namespace opmfu::report
