#include "report/derived_flops.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "common/text.h"
#include "registry/builtin_flops.h"
#include "report/presentation.h"

namespace opmfu::report {

namespace {

using Shape = std::vector<std::int64_t>;
using Json = nlohmann::json;

std::string Upper(std::string_view text) {
  std::string upper(TrimWhitespace(text));
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper;
}

// "FORMAT_ND", "NC1HWC0:1" -> "ND", "NC1HWC0": the storage format without its prefix or sub-format.
std::string FormatName(std::string_view text) {
  std::string format = Upper(text);
  if (const auto colon = format.find(':'); colon != std::string::npos) format.resize(colon);
  if (format.starts_with("FORMAT_")) format.erase(0, 7);
  return format;
}

std::vector<std::string> Tokens(std::string_view list, bool formats) {
  std::vector<std::string> tokens;
  if (TrimWhitespace(list).empty() || Upper(list) == "N/A") return tokens;
  for (const std::string& part : SplitString(list, ';')) tokens.push_back(formats ? FormatName(part) : Upper(part));
  return tokens;
}

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text + "]";
}

double Elements(const Shape& shape) {
  double elements = 1;
  for (std::int64_t dim : shape) elements *= static_cast<double>(dim);
  return elements;
}

// Bytes of every tensor of a list; an absent tensor (empty shape and empty dtype) counts 0.
std::optional<double> TensorBytes(const std::vector<Shape>& shapes, const std::vector<std::string>& types) {
  if (shapes.size() != types.size()) return std::nullopt;
  double bytes = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (types[i].empty()) {
      if (!shapes[i].empty()) return std::nullopt;
      continue;
    }
    const std::optional<double> size = DtypeBytes(types[i]);
    if (!size) return std::nullopt;
    bytes += Elements(shapes[i]) * *size;
  }
  return bytes;
}

PeakClass PeakOf(const std::string& dtype) {
  if (dtype == "FLOAT16" || dtype == "BF16" || dtype == "DT_BF16" || dtype == "BFLOAT16") return PeakClass::kFloat16;
  if (dtype == "FLOAT" || dtype == "FLOAT32") return PeakClass::kFloat32;
  if (dtype == "INT8") return PeakClass::kInt8;
  return PeakClass::kUnknown;
}

// The newest built-in formula of torch_npu (registry/builtin_flops), as `opmfu flops` computes it.
std::optional<double> Builtin(std::string_view op, const Json& arguments, std::string& why) {
  const registry::BuiltinTarget* target = registry::FindBuiltinTarget(op);
  if (target == nullptr) {
    why = std::string(op) + " is not a built-in formula";
    return std::nullopt;
  }
  const Result<std::int64_t> flops = registry::ComputeBuiltinFlops(*target, arguments);
  if (!flops.ok()) {
    why = flops.error().message;
    return std::nullopt;
  }
  return static_cast<double>(*flops);
}

struct Parsed {
  std::vector<Shape> inputs;
  std::vector<Shape> outputs;
  std::vector<std::string> input_formats;
  std::vector<std::string> output_formats;
  std::vector<std::string> input_types;
};

std::string_view FormatAt(const std::vector<std::string>& formats, std::size_t i) {
  return i < formats.size() ? std::string_view(formats[i]) : std::string_view("ND");
}

bool IsPlainFormat(std::string_view format) {
  return format == "ND" || format == "NCHW" || format == "NHWC" || format == "NCL" || format.empty();
}

// --- matmuls ---------------------------------------------------------------------------------

// The output gives M and N; each operand's stored orientation is read from which of its last two
// dimensions equals M (or N). Counted only when every consistent reading gives one K.
void DeriveMatmul(const Parsed& parsed, DerivedKernel& derived) {
  if (parsed.inputs.size() < 2 || parsed.outputs.empty()) {
    derived.skip_reason = "a matmul kernel that does not record two operands and an output";
    return;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if (!IsPlainFormat(FormatAt(parsed.input_formats, i))) {
      derived.skip_reason = "an operand is stored in " + std::string(FormatAt(parsed.input_formats, i)) +
                            ": its logical shape is not recorded";
      return;
    }
  }
  const Shape& a = parsed.inputs[0];
  const Shape& b = parsed.inputs[1];
  const Shape& out = parsed.outputs[0];
  if (a.size() < 2 || b.size() < 2 || out.size() < 2) {
    derived.skip_reason = "an operand or the output has fewer than two dimensions";
    return;
  }
  const std::int64_t m = out[out.size() - 2];
  const std::int64_t n = out.back();
  std::set<std::int64_t> ks;
  bool a_transposed = false;
  bool b_transposed = false;
  for (int ta = 0; ta < 2; ++ta) {
    const std::int64_t a_rows = ta != 0 ? a.back() : a[a.size() - 2];
    const std::int64_t a_k = ta != 0 ? a[a.size() - 2] : a.back();
    if (a_rows != m) continue;
    for (int tb = 0; tb < 2; ++tb) {
      const std::int64_t b_cols = tb != 0 ? b[b.size() - 2] : b.back();
      const std::int64_t b_k = tb != 0 ? b.back() : b[b.size() - 2];
      if (b_cols != n || b_k != a_k) continue;
      ks.insert(a_k);
      a_transposed = ta != 0;
      b_transposed = tb != 0;
    }
  }
  if (ks.empty()) {
    derived.skip_reason = "the operand shapes do not form the recorded output as a matmul";
    return;
  }
  if (ks.size() > 1) {
    derived.skip_reason = "the operand shapes allow more than one inner dimension (a transpose is not recorded)";
    return;
  }
  const std::int64_t k = *ks.begin();
  // The batch dimensions must broadcast to the output's.
  const Shape out_batch(out.begin(), out.end() - 2);
  for (const Shape* operand : {&a, &b}) {
    const std::size_t rank = operand->size() - 2;
    if (rank > out_batch.size()) {
      derived.skip_reason = "an operand has more batch dimensions than the output";
      return;
    }
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int64_t dim = (*operand)[rank - 1 - i];
      if (dim != 1 && dim != out_batch[out_batch.size() - 1 - i]) {
        derived.skip_reason = "the batch dimensions of the operands do not broadcast to the output's";
        return;
      }
    }
  }
  Shape left(out_batch);
  left.push_back(m);
  left.push_back(k);
  Shape right(out_batch);
  right.push_back(k);
  right.push_back(n);
  std::string why;
  // torch_npu's matmul formula on the operands in their logical orientation.
  derived.flops = Builtin(out_batch.empty() ? "mm" : "matmul", {{"input", left}, {"other", right}}, why);
  if (!derived.flops) {
    derived.skip_reason = why;
    return;
  }
  const double batch = Elements(out_batch);
  derived.formula = "2*" + std::string(out_batch.empty() ? "" : "B*") + "M*K*N, " +
                    (out_batch.empty() ? "" : "B=" + FormatNumber("%.0f", batch) + " ") + "M=" + std::to_string(m) +
                    " K=" + std::to_string(k) + " N=" + std::to_string(n);
  if (a_transposed || b_transposed) {
    derived.formula += std::string(" (") + (a_transposed ? "A" : "") + (a_transposed && b_transposed ? " and " : "") +
                       (b_transposed ? "B" : "") + " stored transposed)";
  }
}

// x [M, K], weight [E, K, N] (or [E, N, K]), out [M, N]: every row of x goes through one expert's
// [K, N], which torch_npu's own formula also requires (its group_list must add up to M).
void DeriveGroupedMatmul(const Parsed& parsed, DerivedKernel& derived) {
  if (parsed.inputs.size() < 2 || parsed.outputs.empty()) {
    derived.skip_reason = "a grouped matmul that does not record x, weight and an output";
    return;
  }
  const Shape& x = parsed.inputs[0];
  const Shape& weight = parsed.inputs[1];
  const Shape& out = parsed.outputs[0];
  if (x.size() != 2 || weight.size() != 3 || out.size() != 2) {
    derived.skip_reason =
        "a grouped matmul with a list of x tensors or a split on K (only x [M,K], weight [E,K,N], out [M,N] is "
        "derived)";
    return;
  }
  const std::int64_t m = x[0];
  const std::int64_t k = x[1];
  const std::int64_t n = out[1];
  const bool plain = weight[1] == k && weight[2] == n;
  const bool transposed = weight[2] == k && weight[1] == n;
  if (out[0] != m || (!plain && !transposed)) {
    derived.skip_reason = "the grouped matmul's x, weight and output shapes do not agree";
    return;
  }
  std::string why;
  derived.flops = Builtin("npu_grouped_matmul", {{"x", Shape{m, k}}, {"weight", Shape{k, n}}}, why);
  if (!derived.flops) {
    derived.skip_reason = why;
    return;
  }
  derived.formula = "2*M*K*N over " + std::to_string(weight[0]) + " experts, M=" + std::to_string(m) +
                    " K=" + std::to_string(k) + " N=" + std::to_string(n) +
                    " (every row of x in one group, as torch_npu's formula requires)";
}

// --- convolutions ----------------------------------------------------------------------------

// The cube runs a convolution as an im2col GEMM: M = N*Do*Ho*Wo output positions, K = the
// FRACTAL_Z weight's first dimension (C1*kd*kh*kw) times C0, N = its second dimension times 16.
void PaddedConvolution(const Shape& positions, const Shape& weight, std::string_view kind, DerivedKernel& derived) {
  const double m = Elements(positions);
  const std::int64_t k = weight[0] * weight[3];
  const std::int64_t n = weight[1] * 16;
  std::string why;
  // torch_npu's mm formula on the GEMM the cube executes.
  derived.flops = Builtin("mm", {{"input", Shape{static_cast<std::int64_t>(m), k}}, {"other", Shape{k, n}}}, why);
  if (!derived.flops) {
    derived.skip_reason = why;
    return;
  }
  derived.padded = true;
  derived.formula = std::string(kind) + " as the cube's GEMM, channels padded: 2*M*K*N, M=" + FormatNumber("%.0f", m) +
                    " (output positions) K=" + std::to_string(k) + " (C1*kernel*C0) N=" + std::to_string(n) +
                    " (output channels padded to 16)";
}

// NC1HWC0 input [N,C1,H,W,C0], FRACTAL_Z weight [C1*kh*kw, Cout/16, 16, C0], NC1HWC0 output.
bool CheckFractal(const Shape& weight, std::int64_t c0, std::int64_t out_channels, DerivedKernel& derived) {
  if (weight.size() != 4 || weight[2] != 16 || weight[3] != c0 || weight[0] <= 0) {
    derived.skip_reason =
        "the FRACTAL_Z weight " + ShapeText(weight) + " does not match the input's C0 " + std::to_string(c0);
    return false;
  }
  // A grouped convolution stores its weight with the groups folded in; then the weight's output
  // channels are not the output's.
  if ((out_channels + 15) / 16 != weight[1]) {
    derived.skip_reason = "the FRACTAL_Z weight's " + std::to_string(weight[1] * 16) +
                          " output channels do not match the output's " + std::to_string(out_channels) +
                          " (a grouped convolution?)";
    return false;
  }
  return true;
}

void DeriveConv2dFractal(const Parsed& parsed, DerivedKernel& derived) {
  const Shape& x = parsed.inputs[0];
  const Shape& weight = parsed.inputs[1];
  const Shape& out = parsed.outputs[0];
  if (x.size() != 5 || out.size() != 5 || out[0] != x[0]) {
    derived.skip_reason = "NC1HWC0 shapes that are not 5-D or disagree on the batch";
    return;
  }
  if (!CheckFractal(weight, x[4], out[1] * out[4], derived)) return;
  if (weight[0] % x[1] != 0) {
    derived.skip_reason = "the weight's C1*kh*kw " + std::to_string(weight[0]) +
                          " is not a multiple of the input's C1 " + std::to_string(x[1]) + " (a grouped convolution?)";
    return;
  }
  PaddedConvolution({out[0], out[2], out[3]}, weight, "Conv2D", derived);
}

void DeriveConv3dFractal(const Parsed& parsed, DerivedKernel& derived) {
  // NDC1HWC0 input [N,D,C1,H,W,C0], FRACTAL_Z_3D weight [C1*kd*kh*kw, Cout/16, 16, C0].
  const Shape& x = parsed.inputs[0];
  const Shape& weight = parsed.inputs[1];
  const Shape& out = parsed.outputs[0];
  if (x.size() != 6 || out.size() != 6 || out[0] != x[0]) {
    derived.skip_reason = "NDC1HWC0 shapes that are not 6-D or disagree on the batch";
    return;
  }
  if (!CheckFractal(weight, x[5], out[2] * out[5], derived)) return;
  if (weight[0] % x[2] != 0) {
    derived.skip_reason = "the weight's C1*kd*kh*kw is not a multiple of the input's C1 (a grouped convolution?)";
    return;
  }
  PaddedConvolution({out[0], out[1], out[3], out[4]}, weight, "Conv3D", derived);
}

// NCHW / NCDHW: the model's own count. Groups follow from the channel ratio; the FLOPs need only
// the weight's input channels per group: 2 * N * Cout * (output positions) * Cin/g * kernel.
void DerivePlainConvolution(const Parsed& parsed, std::size_t spatial, DerivedKernel& derived) {
  const Shape& x = parsed.inputs[0];
  const Shape& weight = parsed.inputs[1];
  const Shape& out = parsed.outputs[0];
  const std::size_t rank = spatial + 2;
  if (x.size() != rank || weight.size() != rank || out.size() != rank || out[0] != x[0] || out[1] != weight[0] ||
      weight[1] <= 0 || x[1] % weight[1] != 0) {
    derived.skip_reason = "the input, weight and output shapes do not form an N-C-spatial convolution";
    return;
  }
  const std::int64_t groups = x[1] / weight[1];
  if (weight[0] % groups != 0) {
    derived.skip_reason = "the output channels are not a multiple of the groups the channel ratio gives";
    return;
  }
  Shape positions{out[0]};
  std::int64_t kernel = 1;
  for (std::size_t i = 0; i < spatial; ++i) {
    positions.push_back(out[2 + i]);
    kernel *= weight[2 + i];
  }
  const std::int64_t k = weight[1] * kernel;
  std::string why;
  derived.flops = Builtin(
      "mm", {{"input", Shape{static_cast<std::int64_t>(Elements(positions)), k}}, {"other", Shape{k, out[1]}}}, why);
  if (!derived.flops) {
    derived.skip_reason = why;
    return;
  }
  derived.formula = "2*N*Cout*" + std::string(spatial == 3 ? "Do*Ho*Wo" : "Ho*Wo") +
                    "*(Cin/g)*kernel, N=" + std::to_string(x[0]) + " Cout=" + std::to_string(out[1]) +
                    " Cin/g=" + std::to_string(weight[1]) + " g=" + std::to_string(groups) +
                    " kernel=" + std::to_string(kernel);
}

void DeriveConvolution(std::string_view op_type, const Parsed& parsed, DerivedKernel& derived) {
  if (op_type == "Conv2DBackpropInput" || op_type == "Conv3DBackpropInput" || op_type == "Conv2DBackpropInputV2") {
    derived.skip_reason =
        "a convolution's input gradient: what the cube executes depends on the stride, which is not recorded";
    return;
  }
  const bool filter_gradient =
      op_type.starts_with("Conv2DBackpropFilter") || op_type.starts_with("Conv3DBackpropFilter");
  const bool three_d = op_type.starts_with("Conv3D");
  if (filter_gradient) {
    // Inputs x, filter_size, out_backprop; output the FRACTAL_Z weight gradient:
    // dW = im2col(x)^T . dY, the forward GEMM with M and K swapped (the same count).
    if (parsed.inputs.size() < 3 || parsed.outputs.empty()) {
      derived.skip_reason = "a filter gradient that does not record x, the filter size and the output gradient";
      return;
    }
    const Shape& x = parsed.inputs[0];
    const Shape& dy = parsed.inputs[2];
    const Shape& weight = parsed.outputs[0];
    const std::size_t rank = three_d ? 6 : 5;
    if (FormatAt(parsed.input_formats, 0) != (three_d ? "NDC1HWC0" : "NC1HWC0") ||
        FormatAt(parsed.input_formats, 2) != FormatAt(parsed.input_formats, 0) || x.size() != rank ||
        dy.size() != rank || dy[0] != x[0]) {
      derived.skip_reason = "a filter gradient not in NC1HWC0/NDC1HWC0 with a FRACTAL_Z gradient";
      return;
    }
    const std::int64_t c1 = three_d ? x[2] : x[1];
    const std::int64_t out_channels = three_d ? dy[2] * dy[5] : dy[1] * dy[4];
    if (!CheckFractal(weight, x.back(), out_channels, derived)) return;
    if (weight[0] % c1 != 0) {
      derived.skip_reason = "the weight's C1*kernel is not a multiple of the input's C1 (a grouped convolution?)";
      return;
    }
    PaddedConvolution(three_d ? Shape{dy[0], dy[1], dy[3], dy[4]} : Shape{dy[0], dy[2], dy[3]}, weight,
                      three_d ? "Conv3D weight gradient" : "Conv2D weight gradient", derived);
    return;
  }
  if (parsed.inputs.size() < 2 || parsed.outputs.empty()) {
    derived.skip_reason = "a convolution that does not record its input, weight and output";
    return;
  }
  const std::string_view x_format = FormatAt(parsed.input_formats, 0);
  const std::string_view w_format = FormatAt(parsed.input_formats, 1);
  if (!three_d && x_format == "NC1HWC0" && w_format == "FRACTAL_Z") return DeriveConv2dFractal(parsed, derived);
  if (three_d && x_format == "NDC1HWC0" && w_format == "FRACTAL_Z_3D") return DeriveConv3dFractal(parsed, derived);
  if (!three_d && x_format == "NCHW" && w_format == "NCHW") return DerivePlainConvolution(parsed, 2, derived);
  if (three_d && x_format == "NCDHW" && w_format == "NCDHW") return DerivePlainConvolution(parsed, 3, derived);
  derived.skip_reason = "a convolution in formats " + std::string(x_format) + " and " + std::string(w_format) +
                        " (only NC1HWC0/FRACTAL_Z, NDC1HWC0/FRACTAL_Z_3D, NCHW and NCDHW are derived)";
}

// --- attention -------------------------------------------------------------------------------

// FlashAttentionScore's first output, softmax_max, is [B, N, Sq, 8] whatever the layout: with it
// the layout and the head count follow from the query's shape. Only q, k and v may be recorded: an
// attention mask (causal or not, sparse_mode) and variable sequence lengths are not readable.
void DeriveAttention(std::string_view op_type, const Parsed& parsed, DerivedKernel& derived) {
  if (op_type != "FlashAttentionScore") {
    derived.skip_reason = std::string(op_type) + ": the layout and head count are not recorded";
    return;
  }
  std::size_t present = 0;
  for (const Shape& shape : parsed.inputs) present += shape.empty() ? 0 : 1;
  if (parsed.inputs.size() < 3 || present != 3) {
    derived.skip_reason =
        "attention with inputs beyond q, k, v (a mask, padding or sequence lengths): the sparse mode is not recorded";
    return;
  }
  if (parsed.outputs.empty() || parsed.outputs[0].size() != 4 || parsed.outputs[0][3] != 8) {
    derived.skip_reason = "attention without the softmax_max output [B,N,S,8]: the layout is not determinable";
    return;
  }
  const Shape& q = parsed.inputs[0];
  const Shape& k = parsed.inputs[1];
  const Shape& v = parsed.inputs[2];
  const Shape& softmax = parsed.outputs[0];
  const std::int64_t batch = softmax[0];
  const std::int64_t heads = softmax[1];
  const std::int64_t sequence = softmax[2];
  std::vector<std::string> layouts;
  if (q.size() == 4) {
    if (q[0] == batch && q[1] == heads && q[2] == sequence) layouts.emplace_back("BNSD");
    if (q[0] == batch && q[2] == heads && q[1] == sequence) layouts.emplace_back("BSND");
  } else if (q.size() == 3 && heads > 0 && q[2] % heads == 0) {
    if (q[0] == batch && q[1] == sequence) layouts.emplace_back("BSH");
    if (q[1] == batch && q[0] == sequence) layouts.emplace_back("SBH");
  }
  std::set<double> values;
  std::string chosen;
  std::string why = "the query shape does not match softmax_max's [B,N,S]";
  for (const std::string& layout : layouts) {
    const Json arguments = {{"query", q}, {"key", k}, {"value", v}, {"head_num", heads}, {"input_layout", layout}};
    if (const std::optional<double> flops = Builtin("npu_fusion_attention", arguments, why)) {
      values.insert(*flops);
      chosen = layout;
    }
  }
  if (values.size() != 1) {
    derived.skip_reason = values.empty() ? why : "the layout is ambiguous and its readings disagree";
    return;
  }
  derived.flops = *values.begin();
  derived.formula = "torch_npu's npu_fusion_attention formula, layout " + chosen + ", " + std::to_string(heads) +
                    " heads (from softmax_max), no mask (sparse_mode 0)";
}

}  // namespace

std::optional<double> BuiltinFormulaFlops(std::string_view op, const nlohmann::json& arguments, std::string& why) {
  return Builtin(op, arguments, why);
}

const char* FamilyName(KernelFamily family) {
  switch (family) {
    case KernelFamily::kMatmul:
      return "matmul";
    case KernelFamily::kBatchMatmul:
      return "batch matmul";
    case KernelFamily::kGroupedMatmul:
      return "grouped matmul";
    case KernelFamily::kQuantMatmul:
      return "quantized matmul";
    case KernelFamily::kConvolution:
      return "convolution";
    case KernelFamily::kAttention:
      return "attention";
    case KernelFamily::kOther:
      return "other";
  }
  return "other";
}

KernelFamily FamilyOf(std::string_view op_type) {
  const std::string type = Upper(op_type);
  if (type.starts_with("GROUPEDMATMUL")) return KernelFamily::kGroupedMatmul;
  if (type.find("QUANT") != std::string::npos && type.find("MATMUL") != std::string::npos) {
    return KernelFamily::kQuantMatmul;
  }
  if (type == "BATCHMATMUL" || type == "BATCHMATMULV2" || type == "BATCHMATMULV3") return KernelFamily::kBatchMatmul;
  if (type == "MATMUL" || type == "MATMULV2" || type == "MATMULV3") return KernelFamily::kMatmul;
  if (type.starts_with("CONV2D") || type.starts_with("CONV3D")) return KernelFamily::kConvolution;
  if (type.find("ATTENTION") != std::string::npos) return KernelFamily::kAttention;
  return KernelFamily::kOther;
}

std::optional<double> DtypeBytes(std::string_view dtype) {
  static const std::array<std::pair<std::string_view, double>, 22> kSizes = {{
      {"FLOAT", 4},       {"FLOAT32", 4},   {"FLOAT16", 2}, {"BF16", 2},        {"DT_BF16", 2},  {"BFLOAT16", 2},
      {"DOUBLE", 8},      {"INT8", 1},      {"UINT8", 1},   {"INT16", 2},       {"UINT16", 2},   {"INT32", 4},
      {"UINT32", 4},      {"INT64", 8},     {"UINT64", 8},  {"BOOL", 1},        {"HIFLOAT8", 1}, {"FLOAT8_E4M3FN", 1},
      {"FLOAT8_E5M2", 1}, {"COMPLEX64", 8}, {"INT4", 0.5},  {"COMPLEX128", 16},
  }};
  const std::string upper = Upper(dtype);
  for (const auto& [name, size] : kSizes) {
    if (name == upper) return size;
  }
  return std::nullopt;
}

Result<std::vector<std::vector<std::int64_t>>> ParseShapeList(std::string_view text) {
  std::string_view trimmed = TrimWhitespace(text);
  if (trimmed.size() >= 2 && trimmed.front() == '"' && trimmed.back() == '"') {
    trimmed = trimmed.substr(1, trimmed.size() - 2);
  }
  std::vector<Shape> shapes;
  if (trimmed.empty() || trimmed == "N/A") return shapes;
  for (const std::string& tensor : SplitString(trimmed, ';')) {
    Shape shape;
    if (!TrimWhitespace(tensor).empty()) {
      for (const std::string& part : SplitString(tensor, ',')) {
        const std::string_view dim = TrimWhitespace(part);
        if (dim.empty()) return Error::Input("a shape with an empty dimension");
        std::int64_t value = 0;
        for (char c : dim) {
          if (c < '0' || c > '9') return Error::Input("a shape dimension that is not a non-negative integer");
          if (value > (INT64_MAX - 9) / 10) return Error::Input("a shape dimension too large to count");
          value = value * 10 + (c - '0');
        }
        shape.push_back(value);
      }
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

DerivedKernel DeriveKernel(const KernelRecord& kernel) {
  DerivedKernel derived;
  derived.family = FamilyOf(kernel.op_type);
  const auto inputs = ParseShapeList(kernel.input_shapes);
  const auto outputs = ParseShapeList(kernel.output_shapes);
  const std::vector<std::string> input_types = Tokens(kernel.input_types, false);
  const std::vector<std::string> output_types = Tokens(kernel.output_types, false);
  if (inputs.ok() && outputs.ok()) {
    derived.bytes_read = TensorBytes(*inputs, input_types);
    derived.bytes_written = TensorBytes(*outputs, output_types);
    if (!derived.bytes_read || !derived.bytes_written) derived.bytes_read = derived.bytes_written = std::nullopt;
  }
  if (derived.family == KernelFamily::kOther) {
    derived.skip_reason = "not a matmul, convolution or attention kernel";
    return derived;
  }
  if (!inputs.ok() || !outputs.ok()) {
    derived.skip_reason = "unreadable shapes: " + (inputs.ok() ? outputs : inputs).error().message;
    return derived;
  }
  if (inputs->empty() || outputs->empty()) {
    derived.skip_reason = "no readable input and output shapes";
    return derived;
  }
  const std::string compute_type = input_types.empty() ? std::string() : input_types.front();
  derived.peak = PeakOf(compute_type);
  Parsed parsed{*inputs, *outputs, Tokens(kernel.input_formats, true), Tokens(kernel.output_formats, true),
                input_types};
  switch (derived.family) {
    case KernelFamily::kMatmul:
    case KernelFamily::kBatchMatmul:
    case KernelFamily::kQuantMatmul:
      DeriveMatmul(parsed, derived);
      break;
    case KernelFamily::kGroupedMatmul:
      DeriveGroupedMatmul(parsed, derived);
      break;
    case KernelFamily::kConvolution:
      DeriveConvolution(std::string(TrimWhitespace(kernel.op_type)), parsed, derived);
      break;
    case KernelFamily::kAttention:
      DeriveAttention(std::string(TrimWhitespace(kernel.op_type)), parsed, derived);
      break;
    case KernelFamily::kOther:
      break;
  }
  if (derived.flops && derived.peak == PeakClass::kUnknown) {
    derived.skip_reason = "the compute dtype " + (compute_type.empty() ? std::string("(none)") : compute_type) +
                          " has no peak opmfu knows";
    derived.flops.reset();
    derived.formula.clear();
  }
  if (derived.flops) derived.skip_reason.clear();
  return derived;
}

}  // namespace opmfu::report
