#include "report/torch_op_flops.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

namespace opmfu::report {

namespace {

using Json = nlohmann::json;
using Shape = std::vector<std::int64_t>;

enum class Kind {
  kMm,       // mm(self, mat2), _scaled_mm(self, mat2, ...), _int_mm(self, mat2)
  kAddmm,    // addmm(self, mat1, mat2, beta, alpha)
  kBmm,      // bmm(self, mat2)
  kBaddbmm,  // baddbmm(self, batch1, batch2, beta, alpha)
  kMatmul,   // matmul(self, other)
  kLinear,   // linear(input, weight, bias)
  kAttention,
  kConvolution,
};

enum class MaskArgument { kNoMask, kBool, kEfficientMaskType };

struct OpSpec {
  std::string_view name;
  Kind kind;
  // Attention: the query layout, the argument saying causal, and which causal mask it means
  // (PyTorch's is_causal is the upper-left triangle, flash-attn's causal the lower-right one).
  std::string_view layout{};
  int causal_index = -1;
  MaskArgument mask = MaskArgument::kNoMask;
  bool lower_right = false;
  int varlen_index = -1;  ///< a cumulative-lengths tensor: set means packed variable lengths
  int window_index = -1;  ///< flash-attn's window_size_left: >= 0 means local attention
  // Convolution: where stride, padding, dilation and `transposed` are.
  int stride_index = -1;
  int padding_index = -1;
  int dilation_index = -1;
  int transposed_index = -1;
};

constexpr std::array<OpSpec, 25> kOps = {{
    {"aten::mm", Kind::kMm},
    {"aten::_scaled_mm", Kind::kMm},
    {"aten::_int_mm", Kind::kMm},
    {"aten::addmm", Kind::kAddmm},
    {"aten::bmm", Kind::kBmm},
    {"aten::baddbmm", Kind::kBaddbmm},
    {"aten::matmul", Kind::kMatmul},
    {"aten::linear", Kind::kLinear},
    {"aten::_scaled_dot_product_flash_attention", Kind::kAttention, "BNSD", 4, MaskArgument::kBool},
    {"aten::_scaled_dot_product_efficient_attention", Kind::kAttention, "BNSD", 6, MaskArgument::kBool},
    {"aten::_scaled_dot_product_cudnn_attention", Kind::kAttention, "BNSD", 6, MaskArgument::kBool},
    {"aten::scaled_dot_product_attention", Kind::kAttention, "BNSD", 5, MaskArgument::kBool},
    {"aten::_flash_attention_forward", Kind::kAttention, "BSND", 8, MaskArgument::kBool, false, 3},
    {"aten::_efficient_attention_forward", Kind::kAttention, "BSND", 9, MaskArgument::kEfficientMaskType, false, 4},
    {"flash_attn::_flash_attn_forward", Kind::kAttention, "BSND", 5, MaskArgument::kBool, true, -1, 6},
    {"vllm_flash_attn::_flash_attn_forward", Kind::kAttention, "BSND", 5, MaskArgument::kBool, true, -1, 6},
    {"aten::convolution", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5, 6},
    {"aten::_convolution", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5, 6},
    {"aten::conv1d", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5},
    {"aten::conv2d", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5},
    {"aten::conv3d", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5},
    {"aten::cudnn_convolution", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 2, 4},
    {"aten::miopen_convolution", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 4, 3, 5},
    {"aten::cudnn_convolution_relu", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 3, 4, 5},
    {"aten::mkldnn_convolution", Kind::kConvolution, "", -1, MaskArgument::kNoMask, false, -1, -1, 4, 3, 5},
}};

const OpSpec* FindOp(std::string_view name) {
  for (const OpSpec& spec : kOps) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string OpNameLower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

// A recorded tensor shape: a list of non-negative integers. A list of lists (a TensorList) or
// anything else is not one.
std::optional<Shape> ShapeAt(const Json& dims, std::size_t index) {
  if (!dims.is_array() || index >= dims.size() || !dims[index].is_array()) return std::nullopt;
  Shape shape;
  for (const Json& dim : dims[index]) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) return std::nullopt;
    shape.push_back(dim.get<std::int64_t>());
  }
  return shape;
}

std::string ConcreteAt(const Json& concrete, int index) {
  if (index < 0 || !concrete.is_array() || static_cast<std::size_t>(index) >= concrete.size()) return "";
  const Json& value = concrete[static_cast<std::size_t>(index)];
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "[16, 16]" or "2" -> {16, 16} / {2}; nullopt for what is not a list of integers.
std::optional<Shape> IntegersOf(const std::string& text) {
  const Json value = Json::parse(text, nullptr, false);
  if (value.is_number_integer()) return Shape{value.get<std::int64_t>()};
  if (!value.is_array()) return std::nullopt;
  Shape numbers;
  for (const Json& item : value) {
    if (!item.is_number_integer()) return std::nullopt;
    numbers.push_back(item.get<std::int64_t>());
  }
  return numbers;
}

std::string DimsText(const Shape& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text;
}

void SetDtype(const Json& types, const TorchOpRecord& op, TorchOpFlops& result) {
  std::string first;
  if (types.is_array()) {
    for (const Json& type : types) {
      if (type.is_string() && GpuDtypeOfTorchType(type.get<std::string>()) != GpuDtype::kUnknown) {
        first = type.get<std::string>();
        break;
      }
      if (type.is_string() && !type.get<std::string>().empty() && type.get<std::string>() != "Scalar") {
        first = type.get<std::string>();
        break;
      }
    }
  }
  result.dtype = GpuDtypeOfTorchType(first);
  result.dtype_reason = first.empty() ? "no Input type" : "Input type " + first;
  const std::string kernel = OpNameLower(op.kernel_name);
  if (result.dtype == GpuDtype::kFp32 &&
      (kernel.find("tf32") != std::string::npos || kernel.find("xf32") != std::string::npos)) {
    result.dtype = GpuDtype::kTf32;
    result.dtype_reason += ", its kernel runs TF32 (" + std::string(op.kernel_name.substr(0, 40)) + "...)";
  }
}

void Matmul(const OpSpec& spec, const Json& dims, TorchOpFlops& result) {
  struct Operands {
    const char* formula;
    std::vector<std::pair<const char*, std::size_t>> arguments;
  };
  Operands operands;
  switch (spec.kind) {
    case Kind::kMm:
      operands = {"mm", {{"input", 0}, {"other", 1}}};
      break;
    case Kind::kAddmm:
      operands = {"addmm", {{"self", 0}, {"mat1", 1}, {"mat2", 2}}};
      break;
    case Kind::kBmm:
      operands = {"bmm", {{"input", 0}, {"other", 1}}};
      break;
    case Kind::kBaddbmm:
      operands = {"bmm", {{"input", 1}, {"other", 2}}};
      break;
    case Kind::kMatmul:
      operands = {"matmul", {{"input", 0}, {"other", 1}}};
      break;
    case Kind::kLinear:
      operands = {"linear", {{"input", 0}, {"weight", 1}}};
      break;
    default:
      return;
  }
  Json arguments = Json::object();
  std::string shown;
  for (const auto& [name, index] : operands.arguments) {
    const std::optional<Shape> shape = ShapeAt(dims, index);
    if (!shape) {
      result.skip_reason = "Input Dims has no tensor shape at position " + std::to_string(index);
      return;
    }
    arguments[name] = *shape;
    if (std::string_view(name) != "self")
      shown += (shown.empty() ? "" : " x ") + std::string("[") + DimsText(*shape) + "]";
  }
  std::string why;
  result.flops = BuiltinFormulaFlops(operands.formula, arguments, why);
  if (!result.flops) {
    result.skip_reason = why;
    return;
  }
  result.formula = "torch_npu's " + std::string(operands.formula) + " formula on " + shown;
}

void Attention(const OpSpec& spec, const Json& dims, const Json& concrete, TorchOpFlops& result) {
  const std::optional<Shape> q = ShapeAt(dims, 0);
  const std::optional<Shape> k = ShapeAt(dims, 1);
  const std::optional<Shape> v = ShapeAt(dims, 2);
  if (!q || !k || !v) {
    result.skip_reason = "Input Dims has no query, key and value shapes";
    return;
  }
  if (spec.varlen_index >= 0) {
    const std::optional<Shape> lengths = ShapeAt(dims, static_cast<std::size_t>(spec.varlen_index));
    if (lengths && !lengths->empty()) {
      result.skip_reason = "packed variable-length sequences: the lengths are a tensor the trace does not record";
      return;
    }
  }
  if (q->size() != 4 || k->size() != 4 || v->size() != 4) {
    result.skip_reason = "a query, key or value that is not 4-D (" + DimsText(*q) + ")";
    return;
  }
  if (spec.window_index >= 0) {
    const std::optional<Shape> window = IntegersOf(ConcreteAt(concrete, spec.window_index));
    if (window && window->size() == 1 && (*window)[0] >= 0) {
      result.skip_reason = "sliding-window (local) attention: the window is not in torch_npu's formula";
      return;
    }
  }
  const std::string mask = ConcreteAt(concrete, spec.causal_index);
  int sparse_mode = 0;
  std::string mask_text = "no causal mask";
  if (spec.mask == MaskArgument::kBool && (mask == "True" || mask == "true" || mask == "1")) {
    sparse_mode = spec.lower_right ? 3 : 2;
  } else if (spec.mask == MaskArgument::kEfficientMaskType && (mask == "1" || mask == "2")) {
    sparse_mode = mask == "1" ? 2 : 3;
  } else if (mask.empty() && spec.causal_index >= 0) {
    mask_text = "no causal mask (Concrete Inputs not recorded: read as not causal)";
  }
  if (sparse_mode != 0) {
    mask_text = sparse_mode == 2 ? "causal, upper-left (sparse_mode 2: the scores halved)"
                                 : "causal, lower-right (sparse_mode 3: the scores halved)";
  }
  const std::int64_t heads = spec.layout == "BNSD" ? (*q)[1] : (*q)[2];
  const Json arguments = {{"query", *q},
                          {"key", *k},
                          {"value", *v},
                          {"head_num", heads},
                          {"input_layout", std::string(spec.layout)},
                          {"sparse_mode", sparse_mode}};
  std::string why;
  result.flops = BuiltinFormulaFlops("npu_fusion_attention", arguments, why);
  if (!result.flops) {
    result.skip_reason = why;
    return;
  }
  result.formula = "torch_npu's npu_fusion_attention formula, layout " + std::string(spec.layout) + ", q [" +
                   DimsText(*q) + "] k [" + DimsText(*k) + "], " + mask_text;
}

void Convolution(const OpSpec& spec, const Json& dims, const Json& concrete, TorchOpFlops& result) {
  const std::optional<Shape> x = ShapeAt(dims, 0);
  const std::optional<Shape> weight = ShapeAt(dims, 1);
  if (!x || !weight || x->size() < 3 || x->size() != weight->size()) {
    result.skip_reason = "Input Dims has no input and weight of the same rank";
    return;
  }
  if (spec.transposed_index >= 0) {
    const std::string transposed = ConcreteAt(concrete, spec.transposed_index);
    if (transposed == "True" || transposed == "true") {
      result.skip_reason = "a transposed convolution (not derived)";
      return;
    }
  }
  const std::size_t spatial = x->size() - 2;
  const auto per_dim = [&](int index, std::int64_t fallback) -> std::optional<Shape> {
    const std::string text = ConcreteAt(concrete, index);
    if (text.empty()) return std::nullopt;
    std::optional<Shape> values = IntegersOf(text);
    if (!values) return std::nullopt;
    if (values->size() == 1 && spatial > 1) values = Shape(spatial, (*values)[0]);
    if (values->size() != spatial) return std::nullopt;
    (void)fallback;
    return values;
  };
  const std::optional<Shape> stride = per_dim(spec.stride_index, 1);
  const std::optional<Shape> dilation = per_dim(spec.dilation_index, 1);
  const std::string padding_text = ConcreteAt(concrete, spec.padding_index);
  std::optional<Shape> padding = per_dim(spec.padding_index, 0);
  if (!stride || !dilation) {
    result.skip_reason = "Concrete Inputs does not record the stride and dilation";
    return;
  }
  const bool same = padding_text == "same";
  if (padding_text == "valid") padding = Shape(spatial, 0);
  if (!padding && !same) {
    result.skip_reason = "Concrete Inputs does not record the padding";
    return;
  }
  Shape out{(*x)[0], (*weight)[0]};
  for (std::size_t i = 0; i < spatial; ++i) {
    if (same) {
      out.push_back((*x)[2 + i]);
      continue;
    }
    const std::int64_t span = (*dilation)[i] * ((*weight)[2 + i] - 1) + 1;
    const std::int64_t size = (*x)[2 + i] + 2 * (*padding)[i] - span;
    if ((*stride)[i] <= 0 || size < 0) {
      result.skip_reason = "the stride, padding and kernel give no output";
      return;
    }
    out.push_back(size / (*stride)[i] + 1);
  }
  const TorchOpFlops derived = ConvolutionFlopsFromShapes(*x, *weight, out, "stride, padding and dilation");
  result.flops = derived.flops;
  result.formula = derived.formula;
  result.skip_reason = derived.skip_reason;
}

}  // namespace

TorchOpFlops ConvolutionFlopsFromShapes(std::span<const std::int64_t> input, std::span<const std::int64_t> weight,
                                        std::span<const std::int64_t> output, std::string_view output_source) {
  TorchOpFlops result;
  result.family = KernelFamily::kConvolution;
  const std::size_t spatial = input.size() >= 2 ? input.size() - 2 : 0;
  if (spatial == 0 || weight.size() != input.size() || output.size() != input.size()) {
    result.skip_reason = "the input, weight and output are not of the same rank";
    return result;
  }
  // A 1-D convolution is the 2-D one with a height of 1.
  Shape x_shape(input.begin(), input.end());
  Shape w_shape(weight.begin(), weight.end());
  Shape out(output.begin(), output.end());
  if (spatial == 1) {
    x_shape.insert(x_shape.begin() + 2, 1);
    w_shape.insert(w_shape.begin() + 2, 1);
    out.insert(out.begin() + 2, 1);
  }
  const bool three_d = x_shape.size() == 5;
  if (x_shape.size() != 4 && !three_d) {
    result.skip_reason = "a convolution with more than 3 spatial dimensions";
    return result;
  }
  // The Ascend derivation of a plain (NCHW/NCDHW) convolution, on the output the arguments give.
  const std::string inputs = DimsText(x_shape) + ";" + DimsText(w_shape);
  const std::string outputs = DimsText(out);
  const std::string formats = three_d ? "NCDHW;NCDHW" : "NCHW;NCHW";
  KernelRecord record{three_d ? "Conv3D" : "Conv2D", formats, "", inputs, three_d ? "NCDHW" : "NCHW", "", outputs};
  const std::string types = "FLOAT16;FLOAT16";
  record.input_types = types;
  record.output_types = "FLOAT16";
  const DerivedKernel derived = DeriveKernel(record);
  if (!derived.flops) {
    result.skip_reason = derived.skip_reason;
    return result;
  }
  result.flops = derived.flops;
  result.formula = derived.formula + " (output [" + outputs + "] from " + std::string(output_source) + ")";
  return result;
}

bool IsDerivableTorchOp(std::string_view name) { return FindOp(name) != nullptr; }

TorchOpFlops DeriveTorchOp(const TorchOpRecord& op) {
  TorchOpFlops result;
  const OpSpec* spec = FindOp(op.name);
  if (spec == nullptr) {
    result.skip_reason = "not a matmul, attention or convolution op opmfu derives";
    return result;
  }
  switch (spec->kind) {
    case Kind::kAttention:
      result.family = KernelFamily::kAttention;
      break;
    case Kind::kConvolution:
      result.family = KernelFamily::kConvolution;
      break;
    case Kind::kBmm:
    case Kind::kBaddbmm:
      result.family = KernelFamily::kBatchMatmul;
      break;
    default:
      result.family = op.name == "aten::_scaled_mm" || op.name == "aten::_int_mm" ? KernelFamily::kQuantMatmul
                                                                                  : KernelFamily::kMatmul;
  }
  if (op.input_dims.empty()) {
    result.skip_reason = "no Input Dims: the trace was recorded with record_shapes=False";
    return result;
  }
  const Json dims = Json::parse(op.input_dims, nullptr, false);
  const Json types = Json::parse(op.input_types.empty() ? std::string_view("[]") : op.input_types, nullptr, false);
  const Json concrete =
      Json::parse(op.concrete_inputs.empty() ? std::string_view("[]") : op.concrete_inputs, nullptr, false);
  if (!dims.is_array()) {
    result.skip_reason = "Input Dims is not a list of shapes";
    return result;
  }
  SetDtype(types, op, result);
  switch (spec->kind) {
    case Kind::kAttention:
      Attention(*spec, dims, concrete, result);
      break;
    case Kind::kConvolution:
      Convolution(*spec, dims, concrete, result);
      break;
    default:
      Matmul(*spec, dims, result);
  }
  if (result.flops) result.skip_reason.clear();
  return result;
}

}  // namespace opmfu::report
