#include "registry/builtin_flops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "common/text.h"
#include "registry/builtin_flops_call.h"
#include "registry/formulas.h"

namespace opmfu::registry {

namespace {

// The shared arithmetic, shapes and Call (builtin_flops_call.h); the attention formulas are in
// builtin_flops_attention.cpp.
using flops::BlockSparseAttention;
using flops::Call;
using flops::Count;
using flops::Decimal;
using flops::FusedInferAttentionScore;
using flops::FusionAttention;
using flops::Int;
using flops::Json;
using flops::MatmulShapeFlops;
using flops::NeedRank;
using flops::Product;
using flops::Shape;
using flops::ShapeText;
using flops::Shown;
using flops::Truthy;
using flops::WarnInner;

// --- matmuls ---------------------------------------------------------------------------------

Result<Int> AllGatherBaseMm(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape x1, call.Tensor("x1"));
  OPMFU_ASSIGN_OR_RETURN(const Shape x2, call.Tensor("x2"));
  if (x1.size() < 2 || x2.empty()) {
    return call.Fail("`x1` must have rank >= 2 and `x2` rank >= 1, got " + ShapeText(x1) + " and " + ShapeText(x2));
  }
  OPMFU_ASSIGN_OR_RETURN(const Json world_size_value, call.Get("world_size"));
  OPMFU_ASSIGN_OR_RETURN(const Int world_size, call.PyInt(world_size_value, "world_size"));
  WarnInner(call, x1.back(), x2.size() >= 2 ? x2[x2.size() - 2] : x1.back(), x1, x2);
  return call.Done(Count(2) * x1[x1.size() - 2] * world_size * x1.back() * x2.back());
}

// `_permute_shape`.
Result<Shape> Permute(const Call& call, std::string_view name, const Shape& shape, std::string_view perm_name) {
  OPMFU_ASSIGN_OR_RETURN(const Json perm_value, call.Get(perm_name));
  if (perm_value.is_null()) {
    return call.Fail("`" + std::string(perm_name) +
                     "` is None (an explicit None is passed on, not replaced by the "
                     "default (0, 1, 2))");
  }
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Json> perm, call.Elements(perm_value, perm_name));
  if (perm.size() != shape.size()) {
    return call.Fail("`" + std::string(perm_name) + "` " + Shown(perm_value) + " does not match `" + std::string(name) +
                     "` " + ShapeText(shape));
  }
  Shape permuted;
  const auto rank = static_cast<Int>(shape.size());
  for (const Json& element : perm) {
    OPMFU_ASSIGN_OR_RETURN(const Int index, call.PyInt(element, "an index of `" + std::string(perm_name) + "`"));
    if (index < -rank || index >= rank) {
      return call.Fail("`" + std::string(perm_name) + "` index " + Decimal(index) + " is out of range");
    }
    permuted.push_back(shape[static_cast<std::size_t>(index < 0 ? index + rank : index)]);
  }
  return permuted;
}

Result<Int> TransposeBatchMatmul(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape input, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape left, Permute(call, "input", input, "perm_x1"));
  OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.Tensor("weight"));
  OPMFU_ASSIGN_OR_RETURN(const Shape right, Permute(call, "weight", weight, "perm_x2"));
  OPMFU_ASSIGN_OR_RETURN(const Count flops, MatmulShapeFlops(call, left, right, false));
  return call.Done(flops);
}

// `_parse_group_lengths`: per-group row counts, or cumulative ones when the last equals M.
Result<std::vector<Int>> GroupLengths(const Call& call, std::size_t groups, Int total_m) {
  if (groups == 1) return std::vector<Int>{total_m};
  OPMFU_ASSIGN_OR_RETURN(const Json given, call.Get("group_list"));
  if (given.is_null())
    return call.Fail("splitting one x across " + std::to_string(groups) + " weights needs `group_list`");
  if (!given.is_array()) return call.Fail("`group_list` must be a list, got " + Shown(given));
  OPMFU_ASSIGN_OR_RETURN(std::vector<Int> lengths, call.Integers(given, "group_list"));
  if (lengths.size() != groups) {
    return call.Fail("expected " + std::to_string(groups) + " entries in `group_list` (one per weight), got " +
                     std::to_string(lengths.size()));
  }
  Count sum = 0;
  for (Int length : lengths) sum = sum + length;
  if (sum.overflow()) return call.Overflow();
  if (lengths.back() == total_m && sum.value() > total_m) {
    for (std::size_t i = lengths.size(); i-- > 1;) lengths[i] -= lengths[i - 1];
    sum = 0;
    for (Int length : lengths) sum = sum + length;
  }
  if (sum.overflow() || sum.value() != total_m) {
    return call.Fail("`group_list` " + Shown(given) + " does not add up to the " + Decimal(total_m) + " rows of x");
  }
  return lengths;
}

// `_as_tensor_list`: a list of shapes is a list of tensors; anything else is one tensor.
std::vector<Json> TensorList(const Json& value) {
  if (value.is_array() && !value.empty() && value.front().is_array()) return {value.begin(), value.end()};
  return {value};
}

Result<Int> GroupedMatmul(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Json x_value, call.Get("x"));
  OPMFU_ASSIGN_OR_RETURN(const Json weight_value, call.Get("weight"));
  const std::vector<Json> xs = TensorList(x_value);
  const std::vector<Json> weights = TensorList(weight_value);
  Count flops = 0;
  if (xs.size() == weights.size()) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      OPMFU_ASSIGN_OR_RETURN(const Shape x, call.ShapeOf(xs[i], "x"));
      OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.ShapeOf(weights[i], "weight"));
      OPMFU_ASSIGN_OR_RETURN(const Count one, MatmulShapeFlops(call, x, weight, false));
      flops = flops + one;
    }
    return call.Done(flops);
  }
  if (xs.size() != 1) {
    return call.Fail("x and weight must have the same number of tensors, or x exactly one; got " +
                     std::to_string(xs.size()) + " and " + std::to_string(weights.size()));
  }
  OPMFU_ASSIGN_OR_RETURN(const Shape x, call.ShapeOf(xs.front(), "x"));
  const Count total_m = Product(x, 0, x.empty() ? 0 : x.size() - 1);
  if (total_m.overflow()) return call.Overflow();
  OPMFU_ASSIGN_OR_RETURN(const auto lengths, GroupLengths(call, weights.size(), total_m.value()));
  if (x.empty()) return call.Fail("`x` must have rank >= 1, got []");
  for (std::size_t i = 0; i < weights.size(); ++i) {
    OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.ShapeOf(weights[i], "weight"));
    OPMFU_ASSIGN_OR_RETURN(const Count one, MatmulShapeFlops(call, Shape{lengths[i], x.back()}, weight, false));
    flops = flops + one;
  }
  return call.Done(flops);
}

// `_matrix_tensor_flops` of two named tensors.
Result<Int> TwoTensorMatmul(Call& call, std::string_view left, std::string_view right) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor(left));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor(right));
  OPMFU_ASSIGN_OR_RETURN(const Count flops, MatmulShapeFlops(call, a, b, false));
  return call.Done(flops);
}

// `_gmm_with_optional_mm_flops`: the routed GMM, plus the shared-expert mm when both are given.
Result<Int> GmmWithOptionalMm(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape gmm_x, call.Tensor("gmm_x"));
  OPMFU_ASSIGN_OR_RETURN(const Shape gmm_weight, call.Tensor("gmm_weight"));
  OPMFU_ASSIGN_OR_RETURN(const Json trans_gmm, call.Get("trans_gmm_weight"));
  OPMFU_ASSIGN_OR_RETURN(Count flops, MatmulShapeFlops(call, gmm_x, gmm_weight, Truthy(trans_gmm)));
  OPMFU_ASSIGN_OR_RETURN(const Json mm_x_value, call.Get("mm_x"));
  OPMFU_ASSIGN_OR_RETURN(const Json mm_weight_value, call.Get("mm_weight"));
  if (!mm_x_value.is_null() && !mm_weight_value.is_null()) {
    OPMFU_ASSIGN_OR_RETURN(const Shape mm_x, call.ShapeOf(mm_x_value, "mm_x"));
    OPMFU_ASSIGN_OR_RETURN(const Shape mm_weight, call.ShapeOf(mm_weight_value, "mm_weight"));
    OPMFU_ASSIGN_OR_RETURN(const Json trans_mm, call.Get("trans_mm_weight"));
    OPMFU_ASSIGN_OR_RETURN(const Count shared, MatmulShapeFlops(call, mm_x, mm_weight, Truthy(trans_mm)));
    flops = flops + shared;
  }
  return call.Done(flops);
}

// `m, k = input.shape; _, n = other.shape`.
Result<Int> Mm(Call& call, std::string_view left_name, std::string_view right_name) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor(left_name));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, left_name, a, 2));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor(right_name));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, right_name, b, 2));
  WarnInner(call, a[1], b[0], a, b);
  return call.Done(Count(2) * a[0] * b[1] * a[1]);
}

Result<Int> Bmm(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor("input"));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "input", a, 3));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor("other"));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "other", b, 3));
  WarnInner(call, a[2], b[1], a, b);
  if (a[0] != b[0]) {
    call.Warn("the batch sizes differ (" + ShapeText(a) + " and " + ShapeText(b) +
              "): torch rejects this op, but only after torch_npu's formula (which reads the batch of `input`) has "
              "run and its value was recorded");
  }
  return call.Done(Count(2) * a[0] * a[1] * b[2] * a[2]);
}

// `_broadcast_shapes`, including its use of max() per dimension.
Result<Shape> BroadcastBatch(const Call& call, const Shape& left, const Shape& right) {
  const std::size_t rank = std::max(left.size(), right.size());
  Shape result(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const bool in_left = i < left.size();
    const bool in_right = i < right.size();
    const Int l = in_left ? left[left.size() - 1 - i] : 1;
    const Int r = in_right ? right[right.size() - 1 - i] : 1;
    if (in_left && in_right && l != r && l != 1 && r != 1) {
      return call.Fail("cannot broadcast the batch dimensions " + ShapeText(left) + " and " + ShapeText(right));
    }
    result[rank - 1 - i] = in_left && in_right ? std::max(l, r) : (in_left ? l : r);
  }
  return result;
}

Result<Int> Matmul(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor("other"));
  if (a.size() == 1 && b.size() == 1) {
    WarnInner(call, a[0], b[0], a, b);
    return call.Done(Count(2) * a[0]);
  }
  Shape batch;
  Int m = 1;
  Int k = 0;
  Int n = 1;
  if (a.size() == 1) {
    if (b.empty()) return call.Fail("`other` is 0-D: the formula indexes its last dimension");
    batch.assign(b.begin(), b.size() >= 2 ? b.end() - 2 : b.begin());
    k = a[0];
    n = b.back();
    if (b.size() >= 2) WarnInner(call, a[0], b[b.size() - 2], a, b);
  } else if (b.size() == 1) {
    if (a.empty()) return call.Fail("`input` is 0-D: the formula indexes its last two dimensions");
    batch.assign(a.begin(), a.end() - 2);
    m = a[a.size() - 2];
    k = a.back();
    WarnInner(call, a.back(), b[0], a, b);
  } else {
    const auto batch_of = [](const Shape& s) { return Shape(s.begin(), s.size() >= 2 ? s.end() - 2 : s.begin()); };
    OPMFU_ASSIGN_OR_RETURN(batch, BroadcastBatch(call, batch_of(a), batch_of(b)));
    if (a.size() < 2 || b.empty()) {
      return call.Fail("`input` " + ShapeText(a) + " and `other` " + ShapeText(b) +
                       " do not have the dimensions the formula indexes");
    }
    m = a[a.size() - 2];
    k = a.back();
    n = b.back();
    if (b.size() >= 2) WarnInner(call, a.back(), b[b.size() - 2], a, b);
  }
  return call.Done(Count(2) * Product(batch, 0, batch.size()) * m * n * k);
}

Result<Int> Linear(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape input, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.Tensor("weight"));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "weight", weight, 2));
  if (input.empty()) {
    call.Warn(
        "`input` is 0-D: torch rejects this op, but only after torch_npu's formula (which counts one row) has "
        "run and its value was recorded");
  } else {
    WarnInner(call, input.back(), weight[1], input, weight);
  }
  return call.Done(Count(2) * Product(input, 0, input.empty() ? 0 : input.size() - 1) * weight[0] * weight[1]);
}

using Formula = Result<Int> (*)(Call&);

struct Entry {
  BuiltinTarget target;
  Formula formula;
};

// The signatures are torch_npu's (the same in v26.1.0-beta.2 and v26.1.0).
const std::vector<Entry>& Entries() {
  using P = BuiltinParameter;
  static const std::vector<Entry> entries = {
      {{"torch_npu:npu_fusion_attention",
        "npu_fusion_attention",
        {P{"query", ""}, P{"key", ""}, P{"value", ""}, P{"head_num", ""}, P{"input_layout", ""}, P{"pse", "None"},
         P{"padding_mask", "None"}, P{"atten_mask", "None"}, P{"scale", "1.0"}, P{"keep_prob", "1.0"},
         P{"pre_tockens", "2147483647"}, P{"next_tockens", "2147483647"}, P{"inner_precise", "0"}, P{"prefix", "None"},
         P{"actual_seq_qlen", "None"}, P{"actual_seq_kvlen", "None"}, P{"sparse_mode", "0"}},
        true,
        {"query", "key", "value", "head_num", "input_layout", "actual_seq_qlen", "actual_seq_kvlen", "sparse_mode"}},
       FusionAttention},
      {{"torch_npu:npu_fused_infer_attention_score",
        "npu_fused_infer_attention_score",
        {P{"query", ""}, P{"key", ""}, P{"value", ""}, P{"input_layout", "", true}, P{"num_heads", "", true},
         P{"num_key_value_heads", "0", true}, P{"actual_seq_lengths", "None", true},
         P{"actual_seq_lengths_kv", "None", true}, P{"sparse_mode", "0", true}},
        false,
        {"query", "key", "value", "input_layout", "num_heads", "num_key_value_heads", "actual_seq_lengths",
         "actual_seq_lengths_kv", "sparse_mode"}},
       FusedInferAttentionScore},
      {{"torch_npu:npu_all_gather_base_mm",
        "npu_all_gather_base_mm",
        {P{"x1", ""}, P{"x2", ""}, P{"hcom", ""}, P{"world_size", ""}, P{"bias", "None"}, P{"x1_scale", "None"},
         P{"x2_scale", "None"}, P{"gather_index", "0"}, P{"gather_output", "True"}, P{"comm_turn", "0"},
         P{"output_dtype", "None"}, P{"comm_mode", "None"}},
        false,
        {"x1", "x2", "world_size"}},
       AllGatherBaseMm},
      {{"torch_npu:npu_transpose_batchmatmul",
        "npu_transpose_batchmatmul",
        {P{"input", ""}, P{"weight", ""}, P{"bias", "None", true}, P{"scale", "None", true},
         P{"perm_x1", "(0, 1, 2)", true}, P{"perm_x2", "(0, 1, 2)", true}, P{"perm_y", "(1, 0, 2)", true},
         P{"batch_split_factor", "1", true}},
        false,
        {"input", "weight", "perm_x1", "perm_x2"}},
       TransposeBatchMatmul},
      {{"torch_npu:npu_grouped_matmul",
        "npu_grouped_matmul",
        {P{"x", ""}, P{"weight", ""}, P{"bias", "None", true}, P{"scale", "None", true}, P{"offset", "None", true},
         P{"antiquant_scale", "None", true}, P{"antiquant_offset", "None", true}, P{"per_token_scale", "None", true},
         P{"group_list", "None", true}, P{"activation_input", "None", true}, P{"activation_quant_scale", "None", true},
         P{"activation_quant_offset", "None", true}, P{"split_item", "0", true}, P{"group_type", "None", true},
         P{"group_list_type", "0", true}, P{"act_type", "0", true}, P{"output_dtype", "None", true},
         P{"tuning_config", "None", true}},
        false,
        {"x", "weight", "group_list"}},
       GroupedMatmul},
      {{"torch_npu:npu_quant_matmul_gelu",
        "npu_quant_matmul_gelu",
        {P{"x1", ""}, P{"x2", ""}, P{"x1_scale", ""}, P{"x2_scale", ""}, P{"bias", "None", true},
         P{"approximate", "gelu_erf", true}},
        false,
        {"x1", "x2"}},
       [](Call& call) { return TwoTensorMatmul(call, "x1", "x2"); }},
      {{"torch_npu:npu_grouped_matmul_swiglu_quant_v2",
        "npu_grouped_matmul_swiglu_quant_v2",
        {P{"x", ""}, P{"weight", ""}, P{"weight_scale", ""}, P{"x_scale", ""}, P{"group_list", ""},
         P{"smooth_scale", "None", true}, P{"weight_assist_matrix", "None", true}, P{"bias", "None", true},
         P{"dequant_mode", "0", true}, P{"dequant_dtype", "0", true}, P{"quant_mode", "0", true},
         P{"quant_dtype", "0", true}, P{"group_list_type", "0", true}, P{"tuning_config", "None", true}},
        false,
        {"x", "weight"}},
       [](Call& call) { return TwoTensorMatmul(call, "x", "weight"); }},
      {{"torch_npu:npu_alltoallv_gmm",
        "npu_alltoallv_gmm",
        {P{"gmm_x", ""}, P{"gmm_weight", ""}, P{"hcom", ""}, P{"ep_world_size", ""}, P{"send_counts", ""},
         P{"recv_counts", ""}, P{"send_counts_tensor", "None", true}, P{"recv_counts_tensor", "None", true},
         P{"mm_x", "None", true}, P{"mm_weight", "None", true}, P{"trans_gmm_weight", "False", true},
         P{"trans_mm_weight", "False", true}, P{"permute_out_flag", "False", true}},
        false,
        {"gmm_x", "gmm_weight", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight"}},
       GmmWithOptionalMm},
      {{"torch_npu:npu_gmm_alltoallv",
        "npu_gmm_alltoallv",
        {P{"gmm_x", ""}, P{"gmm_weight", ""}, P{"hcom", ""}, P{"ep_world_size", ""}, P{"send_counts", ""},
         P{"recv_counts", ""}, P{"send_counts_tensor", "None", true}, P{"recv_counts_tensor", "None", true},
         P{"mm_x", "None", true}, P{"mm_weight", "None", true}, P{"trans_gmm_weight", "False", true},
         P{"trans_mm_weight", "False", true}},
        false,
        {"gmm_x", "gmm_weight", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight"}},
       GmmWithOptionalMm},
      {{"torch_npu:npu_block_sparse_attention",
        "npu_block_sparse_attention",
        {P{"query", ""}, P{"key", ""}, P{"value", ""}, P{"block_sparse_mask", ""}, P{"block_shape", ""},
         P{"q_input_layout", "TND", true}, P{"kv_input_layout", "TND", true}, P{"num_key_value_heads", "1", true},
         P{"scale_value", "0.0", true}, P{"inner_precise", "1", true}, P{"actual_seq_lengths", "None", true},
         P{"actual_seq_lengths_kv", "None", true}, P{"softmax_lse_flag", "0", true}},
        false,
        {"query", "value", "block_sparse_mask", "block_shape", "q_input_layout", "kv_input_layout",
         "num_key_value_heads", "actual_seq_lengths", "actual_seq_lengths_kv"}},
       BlockSparseAttention},
      {{"torch:mm", "mm", {P{"input", ""}, P{"other", ""}}, false, {"input", "other"}},
       [](Call& call) { return Mm(call, "input", "other"); }},
      {{"torch:bmm", "bmm", {P{"input", ""}, P{"other", ""}}, false, {"input", "other"}}, Bmm},
      {{"torch:matmul", "matmul", {P{"input", ""}, P{"other", ""}}, false, {"input", "other"}}, Matmul},
      {{"torch.nn.functional:linear",
        "linear",
        {P{"input", ""}, P{"weight", ""}, P{"bias", "None"}},
        false,
        {"input", "weight"}},
       Linear},
      {{"torch:addmm",
        "addmm",
        {P{"self", ""}, P{"mat1", ""}, P{"mat2", ""}, P{"beta", "1"}, P{"alpha", "1"}},
        false,
        {"mat1", "mat2"}},
       [](Call& call) { return Mm(call, "mat1", "mat2"); }},
  };
  return entries;
}

const Entry* FindEntry(std::string_view op_name) {
  for (const Entry& entry : Entries()) {
    if (entry.target.op_name == op_name) return &entry;
  }
  return nullptr;
}

// How the released formulas differ, read from the source text of their helpers.
constexpr std::string_view kInferKvHeads = "def _infer_kv_heads(";
constexpr std::string_view kZeroLengthRaises = "any(length <= 0 for length in q_lens + kv_lens)";
constexpr std::string_view kZeroLengthAllowed = "any(length < 0 for length in q_lens + kv_lens)";

constexpr std::array<FormulasVersion, 3> kVersions = {
    FormulasVersion{"v26.1.0", "torch_npu v26.1.0 (also v26.2.0-beta.1 and master)", true, false},
    FormulasVersion{"v26.1.0-beta.2", "torch_npu v26.1.0-beta.2, the first release with built-in formulas", false,
                    true},
    FormulasVersion{"unreleased-2026-07-03",
                    "an unreleased master between v26.1.0-beta.2 and v26.1.0 (key/value heads inferred, zero-length "
                    "TND sequences still raise)",
                    true, true},
};

}  // namespace

std::size_t BuiltinTarget::positional_count() const {
  return static_cast<std::size_t>(
      std::count_if(parameters.begin(), parameters.end(), [](const BuiltinParameter& p) { return !p.keyword_only; }));
}

std::span<const FormulasVersion> KnownFormulasVersions() { return {kVersions.data(), 2}; }

const FormulasVersion& NewestFormulasVersion() { return kVersions.front(); }

const FormulasVersion* FindFormulasVersion(std::string_view name) {
  if (!name.empty() && name.front() != 'v' && name.front() != 'u') {
    for (const FormulasVersion& version : kVersions) {
      if (version.name.substr(1) == name) return &version;
    }
  }
  for (const FormulasVersion& version : kVersions) {
    if (version.name == name) return &version;
  }
  return nullptr;
}

std::optional<RecognizedFormulas> RecognizeFormulasVersion(std::string_view source) {
  const bool infers = source.find(kInferKvHeads) != std::string_view::npos;
  const bool raises = source.find(kZeroLengthRaises) != std::string_view::npos;
  const bool allows = source.find(kZeroLengthAllowed) != std::string_view::npos;
  if (raises == allows) return std::nullopt;  // neither, or a file that defines both: cannot tell
  for (const FormulasVersion& version : kVersions) {
    if (version.infers_kv_heads == infers && version.zero_length_sequence_raises == raises) {
      std::string evidence = std::string(infers ? "defines" : "has no") + " `_infer_kv_heads`; TND refuses " +
                             (raises ? "zero-length and negative" : "only negative") + " sequence lengths";
      return RecognizedFormulas{version, std::move(evidence)};
    }
  }
  return std::nullopt;
}

std::span<const BuiltinTarget> BuiltinTargets() {
  static const std::vector<BuiltinTarget> targets = [] {
    std::vector<BuiltinTarget> list;
    for (const Entry& entry : Entries()) list.push_back(entry.target);
    return list;
  }();
  return targets;
}

const BuiltinTarget* FindBuiltinTarget(std::string_view name) {
  for (const BuiltinTarget& target : BuiltinTargets()) {
    if (target.op_name == name || target.target == name) return &target;
  }
  if (name.find(':') == std::string_view::npos || TargetProblem(name)) return nullptr;
  const std::optional<std::string> resolved = ResolvedTargetPath(name);
  if (!resolved) return nullptr;
  for (const BuiltinTarget& target : BuiltinTargets()) {
    if (ResolvedTargetPath(target.target) == resolved) return &target;
  }
  return nullptr;
}

Result<BoundFlopsCall> BindFlopsArguments(const BuiltinTarget& target, const std::vector<nlohmann::json>& positional,
                                          const std::vector<std::pair<std::string, nlohmann::json>>& named) {
  const std::string op(target.op_name);
  const std::string raises = " (a TypeError in torch_npu's formula, so nothing is recorded)";
  const std::size_t accepts = target.positional_count();
  BoundFlopsCall call;
  if (positional.size() > accepts && !target.variadic) {
    std::string message = op + ": takes " + std::to_string(accepts) + " positional arguments but " +
                          std::to_string(positional.size()) + " were given";
    if (accepts < target.parameters.size()) {
      message +=
          "; `" + std::string(target.parameters[accepts].name) + "` and after are keyword-only (--arg NAME=VALUE)";
    }
    return Error::Usage(message + raises);
  }
  for (std::size_t i = 0; i < positional.size(); ++i) {
    if (i < accepts) {
      call.arguments[std::string(target.parameters[i].name)] = positional[i];
    } else {
      ++call.extra_positional;
    }
  }
  std::vector<std::string> seen;
  for (const auto& argument : named) {
    const std::string& name = argument.first;
    const nlohmann::json& value = argument.second;
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return Error::Usage(op + ": `" + name + "` is given twice");
    }
    seen.push_back(name);
    const bool is_parameter = std::any_of(target.parameters.begin(), target.parameters.end(),
                                          [&name](const BuiltinParameter& p) { return p.name == name; });
    if (!is_parameter) {
      call.absorbed.emplace_back(name, value);
      continue;
    }
    if (call.arguments.contains(name)) {
      return Error::Usage(op + ": got multiple values for argument `" + name + "` (by position and by name)" + raises);
    }
    call.arguments[name] = value;
  }
  std::vector<std::string> missing;  // required and read by the formula
  for (const BuiltinParameter& parameter : target.parameters) {
    const std::string name(parameter.name);
    if (!parameter.default_value.empty() || call.arguments.contains(name)) continue;
    if (std::find(target.used.begin(), target.used.end(), parameter.name) == target.used.end()) {
      call.arguments[name] = nullptr;
      call.not_given.push_back(name);
    } else {
      missing.push_back("`" + name + "`");
    }
  }
  if (!missing.empty()) {
    std::string names;
    for (std::size_t i = 0; i < missing.size(); ++i) {
      names += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    }
    std::string message = op + ": missing the required argument" + (missing.size() == 1 ? " " : "s ") + names +
                          ", which the formula reads" + raises;
    if (!call.not_given.empty()) {
      message += "; " + std::to_string(call.not_given.size()) + " more (" + Join(call.not_given, ", ") +
                 ") would be filled as not given: their values do not change the FLOPs";
    }
    return Error::Usage(message);
  }
  return call;
}

namespace {
constexpr int kMaxArgumentDepth = 16;
}  // namespace

nlohmann::json ParseFlopsArgumentValue(std::string_view text) {
  if (text == "True") return true;
  if (text == "False") return false;
  if (text == "None") return nullptr;
  // A Python tuple reads as a list: (0, 2, 1) -> [0, 2, 1].
  std::string json(text);
  if (json.size() >= 2 && json.front() == '(' && json.back() == ')') {
    json.front() = '[';
    json.back() = ']';
    if (json.size() > 2 && json[json.size() - 2] == ',') json.erase(json.size() - 2, 1);
  }
  // No argument nests deeper than a block-sparse mask (4); parsing and printing a value is
  // recursive, so a deeper one stays the text it is and is refused as not a shape.
  int depth = 0;
  int deepest = 0;
  for (char c : json) {
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if (c == ']' || c == '}') --depth;
  }
  if (deepest > kMaxArgumentDepth) return std::string(text);
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  if (parsed.is_discarded()) return std::string(text);
  return parsed;
}

std::string PythonRepr(const nlohmann::json& value) {
  if (value.is_null()) return "None";
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_string()) return PythonStringLiteral(value.get_ref<const std::string&>());
  if (value.is_array()) {
    std::string text = "[";
    bool first = true;
    for (const Json& element : value) {
      text += (first ? "" : ", ") + PythonRepr(element);
      first = false;
    }
    return text + "]";
  }
  if (value.is_object()) {
    std::string text = "{";
    bool first = true;
    for (const auto& [key, element] : value.items()) {
      text += (first ? "" : ", ") + PythonRepr(Json(key)) + ": " + PythonRepr(element);
      first = false;
    }
    return text + "}";
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<FlopsOutcome> EvaluateBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments,
                                          const FormulasVersion& version) {
  const Entry* entry = FindEntry(target.op_name);
  if (entry == nullptr) return Error::Usage(std::string(target.op_name) + ": not a built-in FLOPs target");
  Call call(entry->target, arguments, version);
  OPMFU_ASSIGN_OR_RETURN(const Int flops, entry->formula(call));
  if (flops < 0) {
    return Error::Usage(std::string(target.op_name) + ": the formula returns " + Decimal(flops) +
                        "; torch_npu records a value only when it is >= 0, so nothing lands in the DB");
  }
  FlopsOutcome outcome;
  outcome.decimal = Decimal(flops);
  if (flops <= static_cast<Int>(INT64_MAX)) outcome.value = static_cast<std::int64_t>(flops);
  outcome.warnings = call.TakeWarnings();
  return outcome;
}

Result<std::int64_t> ComputeBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments) {
  OPMFU_ASSIGN_OR_RETURN(const FlopsOutcome outcome, EvaluateBuiltinFlops(target, arguments, NewestFormulasVersion()));
  if (!outcome.value) {
    return Error::Usage(std::string(target.op_name) + ": the FLOPs " + outcome.decimal + " exceed 2^63-1");
  }
  return *outcome.value;
}

}  // namespace opmfu::registry
