#include "registry/builtin_flops.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace opmfu::registry {

namespace {

using Json = nlohmann::json;
using Shape = std::vector<std::int64_t>;

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  return text + "]";
}

// A value in an error message: one line, at most 80 characters.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Exact integer arithmetic as Python's, with an error instead of a silent wrap past 2^63.
class Count {
 public:
  Count(std::int64_t value = 0) : value_(value) {}  // NOLINT(google-explicit-constructor): arithmetic reads better
  Count operator*(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_mul_overflow(value_, other.value_, &result.value_);
    return result;
  }
  Count operator+(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_add_overflow(value_, other.value_, &result.value_);
    return result;
  }
  bool overflow() const { return overflow_; }
  std::int64_t value() const { return value_; }

 private:
  std::int64_t value_ = 0;
  bool overflow_ = false;
};

Count Product(const Shape& shape, std::size_t begin, std::size_t end) {
  Count product = 1;
  for (std::size_t i = begin; i < end; ++i) product = product * shape[i];
  return product;
}

// Argument access for one call; every error names the op and the argument.
class Call {
 public:
  Call(const BuiltinTarget& target, const Json& arguments) : target_(target), arguments_(arguments) {}

  Error Fail(const std::string& why) const { return Error::Usage(std::string(target_.op_name) + ": " + why); }

  const Json* Find(std::string_view name) const {
    if (!arguments_.is_object()) return nullptr;
    const auto found = arguments_.find(std::string(name));
    return found == arguments_.end() || found->is_null() ? nullptr : &*found;
  }
  bool Has(std::string_view name) const { return Find(name) != nullptr; }

  Result<Shape> Tensor(std::string_view name) const {
    const Json* value = Find(name);
    if (value == nullptr) return Fail("needs `" + std::string(name) + "` (a shape, such as [1024,512])");
    return ShapeOf(*value, name);
  }

  /// A tensor or a list of tensors, as `_as_tensor_list` reads it.
  Result<std::vector<Shape>> TensorList(std::string_view name) const {
    const Json* value = Find(name);
    if (value == nullptr) return Fail("needs `" + std::string(name) + "` (a shape, or a list of shapes)");
    std::vector<Shape> shapes;
    if (value->is_array() && !value->empty() && value->front().is_array()) {
      for (const Json& element : *value) {
        OPMFU_ASSIGN_OR_RETURN(Shape shape, ShapeOf(element, name));
        shapes.push_back(std::move(shape));
      }
      return shapes;
    }
    OPMFU_ASSIGN_OR_RETURN(Shape shape, ShapeOf(*value, name));
    shapes.push_back(std::move(shape));
    return shapes;
  }

  Result<std::int64_t> Integer(std::string_view name, std::optional<std::int64_t> fallback = std::nullopt) const {
    const Json* value = Find(name);
    if (value == nullptr) {
      if (fallback) return *fallback;
      return Fail("needs `" + std::string(name) + "` (an integer)");
    }
    if (!value->is_number_integer())
      return Fail("`" + std::string(name) + "` must be an integer, got " + Shown(*value));
    return value->get<std::int64_t>();
  }

  Result<std::string> Text(std::string_view name, std::optional<std::string> fallback = std::nullopt) const {
    const Json* value = Find(name);
    if (value == nullptr) {
      if (fallback) return *fallback;
      return Fail("needs `" + std::string(name) + "` (a string, such as BNSD)");
    }
    if (!value->is_string()) return Fail("`" + std::string(name) + "` must be a string, got " + Shown(*value));
    return value->get<std::string>();
  }

  Result<bool> Boolean(std::string_view name, bool fallback) const {
    const Json* value = Find(name);
    if (value == nullptr) return fallback;
    if (value->is_boolean()) return value->get<bool>();
    if (value->is_number_integer()) return value->get<std::int64_t>() != 0;
    return Fail("`" + std::string(name) + "` must be True or False, got " + Shown(*value));
  }

  /// A list of integers (group_list, actual_seq_qlen, perm_x1); nullopt when absent or None.
  Result<std::optional<std::vector<std::int64_t>>> Integers(std::string_view name) const {
    const Json* value = Find(name);
    if (value == nullptr) return std::optional<std::vector<std::int64_t>>{};
    if (!value->is_array()) return Fail("`" + std::string(name) + "` must be a list of integers, got " + Shown(*value));
    std::vector<std::int64_t> numbers;
    for (const Json& element : *value) {
      if (!element.is_number_integer()) {
        return Fail("`" + std::string(name) + "` must be a list of integers, got " + Shown(*value));
      }
      numbers.push_back(element.get<std::int64_t>());
    }
    return std::optional<std::vector<std::int64_t>>{std::move(numbers)};
  }

  Error Overflow() const { return Fail("the FLOPs exceed 2^63-1, more than the profiler's integer column holds"); }
  Result<std::int64_t> Done(Count flops) const {
    if (flops.overflow()) return Overflow();
    return flops.value();
  }

 private:
  Result<Shape> ShapeOf(const Json& value, std::string_view name) const {
    const std::string bad = "`" + std::string(name) + "` must be a shape (a list of non-negative integers), got ";
    if (!value.is_array()) return Fail(bad + Shown(value));
    Shape shape;
    for (const Json& dim : value) {
      if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) return Fail(bad + Shown(value));
      shape.push_back(dim.get<std::int64_t>());
    }
    return shape;
  }

  const BuiltinTarget& target_;
  const Json& arguments_;
};

Status NeedRank(const Call& call, std::string_view name, const Shape& shape, std::size_t rank) {
  if (shape.size() == rank) return Ok();
  return call.Fail("`" + std::string(name) + "` must be " + std::to_string(rank) + "-D, got " + ShapeText(shape));
}

// `_matmul_shape_flops`: 2 * prod(left[:-1]) * left[-1] * N, N the right's last (or, transposed,
// second-to-last) dimension.
Result<Count> MatmulShapeFlops(const Call& call, const Shape& left, const Shape& right, bool transposed_right) {
  if (left.size() < 2 || right.size() < 2) {
    return call.Fail("a matmul needs both operands of rank >= 2, got " + ShapeText(left) + " and " + ShapeText(right));
  }
  const std::int64_t n = transposed_right ? right[right.size() - 2] : right.back();
  return Count(2) * Product(left, 0, left.size() - 1) * left.back() * n;
}

// --- attention -------------------------------------------------------------------------------

struct AttentionDims {
  std::int64_t batch = 0;
  std::int64_t heads = 0;
  std::int64_t sequence = 0;
  std::int64_t head_dim = 0;
};

Result<std::int64_t> HeadDim(const Call& call, std::int64_t hidden, std::int64_t heads) {
  if (heads <= 0 || hidden % heads != 0) {
    return call.Fail("hidden size " + std::to_string(hidden) + " must be divisible by the number of heads " +
                     std::to_string(heads));
  }
  return hidden / heads;
}

// `_parse_dims`: B, N, S, D of one tensor in a BNSD/BSND/BSH/SBH layout.
Result<AttentionDims> ParseDims(const Call& call, std::string_view name, const Shape& shape, const std::string& layout,
                                std::int64_t heads) {
  if (layout == "BNSD" || layout == "BSND") {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 4));
    if (layout == "BNSD") return AttentionDims{shape[0], shape[1], shape[2], shape[3]};
    return AttentionDims{shape[0], shape[2], shape[1], shape[3]};
  }
  if (layout == "BSH" || layout == "SBH") {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 3));
    OPMFU_ASSIGN_OR_RETURN(const std::int64_t head_dim, HeadDim(call, shape[2], heads));
    if (layout == "BSH") return AttentionDims{shape[0], heads, shape[1], head_dim};
    return AttentionDims{shape[1], heads, shape[0], head_dim};
  }
  return call.Fail("invalid input_layout '" + layout + "' (the formula knows BNSD, BSND, BSH, SBH and TND)");
}

// `_calculate_attention_scores`. Modes 2 and 3 divide by 2 in floating point, as Python's `/`.
Result<double> AttentionScores(const Call& call, std::int64_t q_s, std::int64_t k_s, std::int64_t sparse_mode) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  const Count qk = Count(q_s) * k_s;
  const Count kk = Count(k_s) * k_s;
  const Count qq = Count(q_s) * q_s;
  if (qk.overflow() || kk.overflow() || qq.overflow()) return call.Fail("the attention score count exceeds 2^63-1");
  if (sparse_mode == 2) return q_s >= k_s ? d(qk.value()) - d(kk.value()) / 2 : d(qq.value()) / 2;
  if (sparse_mode == 3) return q_s >= k_s ? d(kk.value()) / 2 : d(qk.value()) - d(qq.value()) / 2;
  return call.Fail("torch_npu has no FLOPs formula for sparse_mode=" + std::to_string(sparse_mode) +
                   " (only 0, 2 and 3), so it records nothing for this call");
}

// `_calculate_common_layout_flops`.
Result<std::int64_t> CommonLayoutFlops(const Call& call, const Shape& q, const Shape& k, const Shape& v,
                                       const std::string& layout, std::int64_t sparse_mode, std::int64_t q_heads,
                                       std::int64_t kv_heads) {
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims query, ParseDims(call, "query", q, layout, q_heads));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims key, ParseDims(call, "key", k, layout, kv_heads));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims value, ParseDims(call, "value", v, layout, kv_heads));
  const Count head_dims = Count(query.head_dim) + value.head_dim;
  const Count prefix = Count(2) * query.batch * query.heads;
  if (sparse_mode == 0) return call.Done(prefix * query.sequence * key.sequence * head_dims);
  OPMFU_ASSIGN_OR_RETURN(const double scores, AttentionScores(call, query.sequence, key.sequence, sparse_mode));
  if (prefix.overflow() || head_dims.overflow()) return call.Overflow();
  // Python: int * float is float, and int() truncates toward zero.
  const double flops = static_cast<double>(prefix.value()) * scores * static_cast<double>(head_dims.value());
  if (!(flops < 0x1p63)) return call.Overflow();
  return static_cast<std::int64_t>(std::trunc(flops));
}

// `_parse_seq_len`: cumulative lengths, trailing zeros dropped, turned into per-sequence lengths.
std::vector<std::int64_t> PerSequenceLengths(std::vector<std::int64_t> cumulative) {
  while (!cumulative.empty() && cumulative.back() == 0) cumulative.pop_back();
  for (std::size_t i = cumulative.size(); i-- > 1;) cumulative[i] -= cumulative[i - 1];
  return cumulative;
}

// `_calculate_tnd_layout_flops`: sparse_mode is not consulted in TND (no causal halving).
Result<std::int64_t> TndLayoutFlops(const Call& call, const Shape& q, const Shape& v, std::string_view q_lengths_name,
                                    std::string_view kv_lengths_name, std::int64_t q_heads) {
  OPMFU_ASSIGN_OR_RETURN(const auto q_cumulative, call.Integers(q_lengths_name));
  OPMFU_ASSIGN_OR_RETURN(const auto kv_cumulative, call.Integers(kv_lengths_name));
  if (!q_cumulative || !kv_cumulative) {
    return call.Fail("the TND layout needs `" + std::string(q_lengths_name) + "` and `" + std::string(kv_lengths_name) +
                     "` (cumulative sequence lengths)");
  }
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "query", q, 3));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "value", v, 3));
  const std::vector<std::int64_t> q_lengths = PerSequenceLengths(*q_cumulative);
  const std::vector<std::int64_t> kv_lengths = PerSequenceLengths(*kv_cumulative);
  const bool negative = std::any_of(q_lengths.begin(), q_lengths.end(), [](std::int64_t l) { return l < 0; }) ||
                        std::any_of(kv_lengths.begin(), kv_lengths.end(), [](std::int64_t l) { return l < 0; });
  if (q_lengths.size() != kv_lengths.size() || negative) {
    return call.Fail("`" + std::string(q_lengths_name) + "` and `" + std::string(kv_lengths_name) +
                     "` must be non-decreasing cumulative lengths with the same number of sequences");
  }
  Count scores = 0;
  for (std::size_t i = 0; i < q_lengths.size(); ++i) scores = scores + Count(q_lengths[i]) * kv_lengths[i];
  const std::int64_t heads = q_heads != 0 ? q_heads : q[1];
  return call.Done(Count(2) * heads * (Count(q[2]) + v[2]) * scores);
}

// `_infer_kv_heads`: GQA/MQA key heads from the key's shape.
Result<std::int64_t> InferKvHeads(const Call& call, const Shape& q, const Shape& k, const std::string& layout,
                                  std::int64_t q_heads) {
  if (layout == "BNSD" || layout == "BSND") {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, "key", k, 4));
    return layout == "BNSD" ? k[1] : k[2];
  }
  if (layout != "BSH" && layout != "SBH") return q_heads;
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "query", q, 3));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "key", k, 3));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t q_head_dim, HeadDim(call, q[2], q_heads));
  return HeadDim(call, k[2], q_head_dim);
}

Result<std::int64_t> FusionAttention(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape k, call.Tensor("key"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t head_num, call.Integer("head_num"));
  OPMFU_ASSIGN_OR_RETURN(const std::string layout, call.Text("input_layout"));
  if (layout == "TND") return TndLayoutFlops(call, q, v, "actual_seq_qlen", "actual_seq_kvlen", 0);
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t sparse_mode, call.Integer("sparse_mode", 0));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t kv_heads, InferKvHeads(call, q, k, layout, head_num));
  return CommonLayoutFlops(call, q, k, v, layout, sparse_mode, head_num, kv_heads);
}

Result<std::int64_t> FusedInferAttentionScore(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape k, call.Tensor("key"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  // Keyword-only without a default in the formula: a call that leaves them to the API's
  // defaults makes the formula raise.
  OPMFU_ASSIGN_OR_RETURN(const std::string layout, call.Text("input_layout"));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t num_heads, call.Integer("num_heads"));
  OPMFU_ASSIGN_OR_RETURN(std::int64_t kv_heads, call.Integer("num_key_value_heads", 0));
  if (kv_heads == 0) kv_heads = num_heads;
  if (layout == "TND") return TndLayoutFlops(call, q, v, "actual_seq_lengths", "actual_seq_lengths_kv", num_heads);
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t sparse_mode, call.Integer("sparse_mode", 0));
  return CommonLayoutFlops(call, q, k, v, layout, sparse_mode, num_heads, kv_heads);
}

// `_parse_actual_lengths` of the block-sparse formula.
Result<std::vector<std::int64_t>> ActualLengths(const Call& call, std::string_view name, std::size_t batch,
                                                std::int64_t full_length, bool cumulative) {
  OPMFU_ASSIGN_OR_RETURN(auto given, call.Integers(name));
  if (!given) return std::vector<std::int64_t>(batch, full_length);
  std::vector<std::int64_t> lengths = *given;
  while (!lengths.empty() && lengths.back() == 0) lengths.pop_back();
  if (lengths.size() != batch) {
    return call.Fail("expected " + std::to_string(batch) + " lengths in `" + std::string(name) +
                     "` (one per batch of "
                     "block_sparse_mask), got " +
                     std::to_string(lengths.size()));
  }
  if (cumulative) {
    for (std::size_t i = lengths.size(); i-- > 1;) lengths[i] -= lengths[i - 1];
  }
  if (std::any_of(lengths.begin(), lengths.end(), [](std::int64_t l) { return l < 0; })) {
    return call.Fail("sequence lengths in `" + std::string(name) + "` must be non-negative");
  }
  return lengths;
}

// `_parse_attention_dims`: TND is (T, N, D); the other layouts as `_parse_dims`.
Result<AttentionDims> BlockSparseDims(const Call& call, std::string_view name, const Shape& shape,
                                      const std::string& layout, std::optional<std::int64_t> heads) {
  if (layout == "TND") {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 3));
    return AttentionDims{0, shape[1], shape[0], shape[2]};
  }
  if (!heads && (layout == "BSH" || layout == "SBH")) {
    return call.Fail("the " + layout + " layout needs the head count, and an empty block_sparse_mask gives none");
  }
  return ParseDims(call, name, shape, layout, heads.value_or(0));
}

Result<std::int64_t> BlockSparseAttention(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  const Json* mask = call.Find("block_sparse_mask");
  if (mask == nullptr || !mask->is_array()) {
    return call.Fail("needs `block_sparse_mask` as a nested list [batch][head][q_block][kv_block] of 0/1");
  }
  for (const Json& heads : *mask) {
    bool well_formed = heads.is_array();
    for (const Json& q_blocks : well_formed ? heads : Json::array()) {
      well_formed = well_formed && q_blocks.is_array();
      for (const Json& kv_blocks : well_formed ? q_blocks : Json::array()) {
        well_formed = well_formed && kv_blocks.is_array() &&
                      std::all_of(kv_blocks.begin(), kv_blocks.end(),
                                  [](const Json& cell) { return cell.is_boolean() || cell.is_number(); });
      }
    }
    if (!well_formed) return call.Fail("`block_sparse_mask` must be nested 4 deep: [batch][head][q_block][kv_block]");
  }
  OPMFU_ASSIGN_OR_RETURN(const auto block_shape, call.Integers("block_shape"));
  if (!block_shape || block_shape->size() != 2) return call.Fail("needs `block_shape` as [block_x, block_y]");
  OPMFU_ASSIGN_OR_RETURN(const std::string q_layout, call.Text("q_input_layout", "TND"));
  OPMFU_ASSIGN_OR_RETURN(const std::string kv_layout, call.Text("kv_input_layout", "TND"));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t kv_heads, call.Integer("num_key_value_heads", 1));
  std::optional<std::int64_t> q_heads;
  if (!mask->empty()) q_heads = static_cast<std::int64_t>(mask->front().size());
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims query, BlockSparseDims(call, "query", q, q_layout, q_heads));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims value, BlockSparseDims(call, "value", v, kv_layout, kv_heads));
  const std::size_t batch = mask->size();
  OPMFU_ASSIGN_OR_RETURN(const auto q_lengths,
                         ActualLengths(call, "actual_seq_lengths", batch, query.sequence, q_layout == "TND"));
  OPMFU_ASSIGN_OR_RETURN(const auto kv_lengths,
                         ActualLengths(call, "actual_seq_lengths_kv", batch, value.sequence, kv_layout == "TND"));
  const std::int64_t block_x = (*block_shape)[0];
  const std::int64_t block_y = (*block_shape)[1];
  Count score = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    for (const Json& q_blocks : (*mask)[b]) {
      for (std::size_t qi = 0; qi < q_blocks.size(); ++qi) {
        const Count q_start = Count(static_cast<std::int64_t>(qi)) * block_x;
        if (q_start.overflow()) return call.Done(q_start);
        const std::int64_t q_tokens = std::min(block_x, std::max<std::int64_t>(q_lengths[b] - q_start.value(), 0));
        if (q_tokens == 0) continue;
        const Json& kv_blocks = q_blocks[qi];
        for (std::size_t ki = 0; ki < kv_blocks.size(); ++ki) {
          const Json& cell = kv_blocks[ki];
          if (cell.is_boolean() ? !cell.get<bool>() : cell.get<double>() == 0) continue;
          const Count kv_start = Count(static_cast<std::int64_t>(ki)) * block_y;
          if (kv_start.overflow()) return call.Done(kv_start);
          const std::int64_t kv_tokens = std::min(block_y, std::max<std::int64_t>(kv_lengths[b] - kv_start.value(), 0));
          score = score + Count(q_tokens) * kv_tokens;
        }
      }
    }
  }
  return call.Done(Count(2) * score * (Count(query.head_dim) + value.head_dim));
}

// --- matmuls ---------------------------------------------------------------------------------

Result<std::int64_t> AllGatherBaseMm(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape x1, call.Tensor("x1"));
  OPMFU_ASSIGN_OR_RETURN(const Shape x2, call.Tensor("x2"));
  OPMFU_ASSIGN_OR_RETURN(const std::int64_t world_size, call.Integer("world_size"));
  if (x1.size() < 2 || x2.empty()) {
    return call.Fail("`x1` must have rank >= 2 and `x2` rank >= 1, got " + ShapeText(x1) + " and " + ShapeText(x2));
  }
  return call.Done(Count(2) * x1[x1.size() - 2] * world_size * x1.back() * x2.back());
}

Result<Shape> Permute(const Call& call, std::string_view name, const Shape& shape, std::string_view perm_name) {
  OPMFU_ASSIGN_OR_RETURN(auto given, call.Integers(perm_name));
  const std::vector<std::int64_t> perm = given.value_or(std::vector<std::int64_t>{0, 1, 2});
  if (perm.size() != shape.size()) {
    return call.Fail("`" + std::string(perm_name) + "` " + ShapeText(perm) + " does not match `" + std::string(name) +
                     "` " + ShapeText(shape) + " (the default is (0, 1, 2): a 3-D tensor)");
  }
  Shape permuted;
  const auto rank = static_cast<std::int64_t>(shape.size());
  for (std::int64_t index : perm) {
    if (index < -rank || index >= rank) {
      return call.Fail("`" + std::string(perm_name) + "` index " + std::to_string(index) + " is out of range");
    }
    permuted.push_back(shape[static_cast<std::size_t>(index < 0 ? index + rank : index)]);
  }
  return permuted;
}

Result<std::int64_t> TransposeBatchMatmul(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape input, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.Tensor("weight"));
  OPMFU_ASSIGN_OR_RETURN(const Shape left, Permute(call, "input", input, "perm_x1"));
  OPMFU_ASSIGN_OR_RETURN(const Shape right, Permute(call, "weight", weight, "perm_x2"));
  OPMFU_ASSIGN_OR_RETURN(const Count flops, MatmulShapeFlops(call, left, right, false));
  return call.Done(flops);
}

// `_parse_group_lengths`: per-group row counts, or cumulative ones when the last equals M.
Result<std::vector<std::int64_t>> GroupLengths(const Call& call, std::size_t groups, std::int64_t total_m) {
  if (groups == 1) return std::vector<std::int64_t>{total_m};
  OPMFU_ASSIGN_OR_RETURN(const auto given, call.Integers("group_list"));
  if (!given) return call.Fail("splitting one x across " + std::to_string(groups) + " weights needs `group_list`");
  std::vector<std::int64_t> lengths = *given;
  if (lengths.size() != groups) {
    return call.Fail("expected " + std::to_string(groups) + " entries in `group_list` (one per weight), got " +
                     std::to_string(lengths.size()));
  }
  Count sum = 0;
  for (std::int64_t length : lengths) sum = sum + length;
  if (lengths.back() == total_m && !sum.overflow() && sum.value() > total_m) {
    for (std::size_t i = lengths.size(); i-- > 1;) lengths[i] -= lengths[i - 1];
    sum = 0;
    for (std::int64_t length : lengths) sum = sum + length;
  }
  if (sum.overflow() || sum.value() != total_m) {
    return call.Fail("`group_list` " + ShapeText(*given) + " does not add up to the " + std::to_string(total_m) +
                     " rows of x");
  }
  return lengths;
}

Result<std::int64_t> GroupedMatmul(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Shape> xs, call.TensorList("x"));
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Shape> weights, call.TensorList("weight"));
  Count flops = 0;
  if (xs.size() == weights.size()) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      OPMFU_ASSIGN_OR_RETURN(const Count one, MatmulShapeFlops(call, xs[i], weights[i], false));
      flops = flops + one;
    }
    return call.Done(flops);
  }
  if (xs.size() != 1) {
    return call.Fail("x and weight must have the same number of tensors, or x exactly one; got " +
                     std::to_string(xs.size()) + " and " + std::to_string(weights.size()));
  }
  const Shape& x = xs.front();
  if (x.empty()) return call.Fail("`x` must have rank >= 1, got []");
  const Count total_m = Product(x, 0, x.size() - 1);
  if (total_m.overflow()) return call.Done(total_m);
  OPMFU_ASSIGN_OR_RETURN(const auto lengths, GroupLengths(call, weights.size(), total_m.value()));
  for (std::size_t i = 0; i < weights.size(); ++i) {
    OPMFU_ASSIGN_OR_RETURN(const Count one, MatmulShapeFlops(call, Shape{lengths[i], x.back()}, weights[i], false));
    flops = flops + one;
  }
  return call.Done(flops);
}

// `_matrix_tensor_flops` of two named tensors.
Result<std::int64_t> TwoTensorMatmul(const Call& call, std::string_view left, std::string_view right) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor(left));
  const Json* b_value = call.Find(right);
  if (b_value != nullptr && b_value->is_array() && !b_value->empty() && b_value->front().is_array()) {
    return call.Fail("`" + std::string(right) + "` must be a single tensor here, not a list");
  }
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor(right));
  OPMFU_ASSIGN_OR_RETURN(const Count flops, MatmulShapeFlops(call, a, b, false));
  return call.Done(flops);
}

// `_gmm_with_optional_mm_flops`: the routed GMM, plus the shared-expert mm when both are given.
Result<std::int64_t> GmmWithOptionalMm(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape gmm_x, call.Tensor("gmm_x"));
  OPMFU_ASSIGN_OR_RETURN(const Shape gmm_weight, call.Tensor("gmm_weight"));
  OPMFU_ASSIGN_OR_RETURN(const bool trans_gmm, call.Boolean("trans_gmm_weight", false));
  OPMFU_ASSIGN_OR_RETURN(Count flops, MatmulShapeFlops(call, gmm_x, gmm_weight, trans_gmm));
  if (call.Has("mm_x") && call.Has("mm_weight")) {
    OPMFU_ASSIGN_OR_RETURN(const Shape mm_x, call.Tensor("mm_x"));
    OPMFU_ASSIGN_OR_RETURN(const Shape mm_weight, call.Tensor("mm_weight"));
    OPMFU_ASSIGN_OR_RETURN(const bool trans_mm, call.Boolean("trans_mm_weight", false));
    OPMFU_ASSIGN_OR_RETURN(const Count shared, MatmulShapeFlops(call, mm_x, mm_weight, trans_mm));
    flops = flops + shared;
  }
  return call.Done(flops);
}

Status SameInner(const Call& call, std::int64_t left_k, std::int64_t right_k, const Shape& left, const Shape& right) {
  if (left_k == right_k) return Ok();
  return call.Fail("the inner dimensions differ (" + ShapeText(left) + " and " + ShapeText(right) +
                   "): torch rejects this call, so nothing is recorded");
}

Result<std::int64_t> Mm(const Call& call, std::string_view left_name, std::string_view right_name) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor(left_name));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor(right_name));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, left_name, a, 2));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, right_name, b, 2));
  OPMFU_RETURN_IF_ERROR(SameInner(call, a[1], b[0], a, b));
  return call.Done(Count(2) * a[0] * b[1] * a[1]);
}

Result<std::int64_t> Bmm(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor("other"));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "input", a, 3));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "other", b, 3));
  OPMFU_RETURN_IF_ERROR(SameInner(call, a[2], b[1], a, b));
  if (a[0] != b[0]) return call.Fail("the batch sizes differ (" + ShapeText(a) + " and " + ShapeText(b) + ")");
  return call.Done(Count(2) * a[0] * a[1] * b[2] * a[2]);
}

// `_broadcast_shapes`, including its use of max() per dimension.
Result<Shape> BroadcastBatch(const Call& call, const Shape& left, const Shape& right) {
  const std::size_t rank = std::max(left.size(), right.size());
  Shape result(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const bool in_left = i < left.size();
    const bool in_right = i < right.size();
    const std::int64_t l = in_left ? left[left.size() - 1 - i] : 1;
    const std::int64_t r = in_right ? right[right.size() - 1 - i] : 1;
    if (in_left && in_right && l != r && l != 1 && r != 1) {
      return call.Fail("cannot broadcast the batch dimensions " + ShapeText(left) + " and " + ShapeText(right));
    }
    result[rank - 1 - i] = in_left && in_right ? std::max(l, r) : (in_left ? l : r);
  }
  return result;
}

Result<std::int64_t> Matmul(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape a, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape b, call.Tensor("other"));
  if (a.empty() || b.empty()) return call.Fail("both operands need at least one dimension (torch.matmul rejects 0-D)");
  if (a.size() == 1 && b.size() == 1) {
    OPMFU_RETURN_IF_ERROR(SameInner(call, a[0], b[0], a, b));
    return call.Done(Count(2) * a[0]);
  }
  Shape batch;
  std::int64_t m = 1;
  std::int64_t k = 0;
  std::int64_t n = 1;
  if (a.size() == 1) {
    batch.assign(b.begin(), b.end() - 2);
    OPMFU_RETURN_IF_ERROR(SameInner(call, a[0], b[b.size() - 2], a, b));
    k = a[0];
    n = b.back();
  } else if (b.size() == 1) {
    batch.assign(a.begin(), a.end() - 2);
    OPMFU_RETURN_IF_ERROR(SameInner(call, a.back(), b[0], a, b));
    m = a[a.size() - 2];
    k = a.back();
  } else {
    OPMFU_RETURN_IF_ERROR(SameInner(call, a.back(), b[b.size() - 2], a, b));
    OPMFU_ASSIGN_OR_RETURN(batch, BroadcastBatch(call, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)));
    m = a[a.size() - 2];
    k = a.back();
    n = b.back();
  }
  return call.Done(Count(2) * Product(batch, 0, batch.size()) * m * n * k);
}

Result<std::int64_t> Linear(const Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape input, call.Tensor("input"));
  OPMFU_ASSIGN_OR_RETURN(const Shape weight, call.Tensor("weight"));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "weight", weight, 2));
  if (input.empty()) return call.Fail("`input` needs at least one dimension");
  OPMFU_RETURN_IF_ERROR(SameInner(call, input.back(), weight[1], input, weight));
  return call.Done(Count(2) * Product(input, 0, input.size() - 1) * weight[0] * weight[1]);
}

using Formula = Result<std::int64_t> (*)(const Call&);

struct Entry {
  BuiltinTarget target;
  Formula formula;
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
      {{"torch_npu:npu_fusion_attention",
        "npu_fusion_attention",
        {"query", "key", "value", "head_num", "input_layout", "pse", "padding_mask", "atten_mask", "scale", "keep_prob",
         "pre_tockens", "next_tockens", "inner_precise", "prefix", "actual_seq_qlen", "actual_seq_kvlen",
         "sparse_mode"},
        17,
        {"query", "key", "value", "head_num", "input_layout", "actual_seq_qlen", "actual_seq_kvlen", "sparse_mode"}},
       FusionAttention},
      {{"torch_npu:npu_fused_infer_attention_score",
        "npu_fused_infer_attention_score",
        {"query", "key", "value", "input_layout", "num_heads", "num_key_value_heads", "actual_seq_lengths",
         "actual_seq_lengths_kv", "sparse_mode"},
        3,
        {"query", "key", "value", "input_layout", "num_heads", "num_key_value_heads", "actual_seq_lengths",
         "actual_seq_lengths_kv", "sparse_mode"}},
       FusedInferAttentionScore},
      {{"torch_npu:npu_all_gather_base_mm",
        "npu_all_gather_base_mm",
        {"x1", "x2", "hcom", "world_size", "bias", "x1_scale", "x2_scale", "gather_index", "gather_output", "comm_turn",
         "output_dtype", "comm_mode"},
        12,
        {"x1", "x2", "world_size"}},
       AllGatherBaseMm},
      {{"torch_npu:npu_transpose_batchmatmul",
        "npu_transpose_batchmatmul",
        {"input", "weight", "bias", "scale", "perm_x1", "perm_x2", "perm_y", "batch_split_factor"},
        2,
        {"input", "weight", "perm_x1", "perm_x2"}},
       TransposeBatchMatmul},
      {{"torch_npu:npu_grouped_matmul",
        "npu_grouped_matmul",
        {"x", "weight", "bias", "scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale",
         "group_list", "activation_input", "activation_quant_scale", "activation_quant_offset", "split_item",
         "group_type", "group_list_type", "act_type", "output_dtype", "tuning_config"},
        2,
        {"x", "weight", "group_list"}},
       GroupedMatmul},
      {{"torch_npu:npu_quant_matmul_gelu",
        "npu_quant_matmul_gelu",
        {"x1", "x2", "x1_scale", "x2_scale", "bias", "approximate"},
        4,
        {"x1", "x2"}},
       [](const Call& call) { return TwoTensorMatmul(call, "x1", "x2"); }},
      {{"torch_npu:npu_grouped_matmul_swiglu_quant_v2",
        "npu_grouped_matmul_swiglu_quant_v2",
        {"x", "weight", "weight_scale", "x_scale", "group_list", "smooth_scale", "weight_assist_matrix", "bias",
         "dequant_mode", "dequant_dtype", "quant_mode", "quant_dtype", "group_list_type", "tuning_config"},
        5,
        {"x", "weight"}},
       [](const Call& call) { return TwoTensorMatmul(call, "x", "weight"); }},
      {{"torch_npu:npu_alltoallv_gmm",
        "npu_alltoallv_gmm",
        {"gmm_x", "gmm_weight", "hcom", "ep_world_size", "send_counts", "recv_counts", "send_counts_tensor",
         "recv_counts_tensor", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight", "permute_out_flag"},
        6,
        {"gmm_x", "gmm_weight", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight"}},
       GmmWithOptionalMm},
      {{"torch_npu:npu_gmm_alltoallv",
        "npu_gmm_alltoallv",
        {"gmm_x", "gmm_weight", "hcom", "ep_world_size", "send_counts", "recv_counts", "send_counts_tensor",
         "recv_counts_tensor", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight"},
        6,
        {"gmm_x", "gmm_weight", "mm_x", "mm_weight", "trans_gmm_weight", "trans_mm_weight"}},
       GmmWithOptionalMm},
      {{"torch_npu:npu_block_sparse_attention",
        "npu_block_sparse_attention",
        {"query", "key", "value", "block_sparse_mask", "block_shape", "q_input_layout", "kv_input_layout",
         "num_key_value_heads", "scale_value", "inner_precise", "actual_seq_lengths", "actual_seq_lengths_kv",
         "softmax_lse_flag"},
        5,
        {"query", "value", "block_sparse_mask", "block_shape", "q_input_layout", "kv_input_layout",
         "num_key_value_heads", "actual_seq_lengths", "actual_seq_lengths_kv"}},
       BlockSparseAttention},
      {{"torch:mm", "mm", {"input", "other"}, 2, {"input", "other"}},
       [](const Call& call) { return Mm(call, "input", "other"); }},
      {{"torch:bmm", "bmm", {"input", "other"}, 2, {"input", "other"}}, Bmm},
      {{"torch:matmul", "matmul", {"input", "other"}, 2, {"input", "other"}}, Matmul},
      {{"torch.nn.functional:linear", "linear", {"input", "weight", "bias"}, 3, {"input", "weight"}}, Linear},
      {{"torch:addmm", "addmm", {"self", "mat1", "mat2", "beta", "alpha"}, 5, {"mat1", "mat2"}},
       [](const Call& call) { return Mm(call, "mat1", "mat2"); }},
  };
  return entries;
}

const Entry* FindEntry(std::string_view name) {
  for (const Entry& entry : Entries()) {
    if (entry.target.op_name == name || entry.target.target == name) return &entry;
  }
  return nullptr;
}

}  // namespace

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
  return nullptr;
}

Result<FlopsArguments> BindFlopsArguments(const BuiltinTarget& target, const std::vector<nlohmann::json>& positional,
                                          const std::vector<std::pair<std::string, nlohmann::json>>& named) {
  const std::string op(target.op_name);
  if (positional.size() > target.positional) {
    return Error::Usage(op + ": takes at most " + std::to_string(target.positional) + " positional arguments, got " +
                        std::to_string(positional.size()));
  }
  FlopsArguments arguments = FlopsArguments::object();
  for (std::size_t i = 0; i < positional.size(); ++i) arguments[std::string(target.parameters[i])] = positional[i];
  for (const auto& [name, value] : named) {
    if (std::find(target.parameters.begin(), target.parameters.end(), name) == target.parameters.end()) {
      std::string known;
      for (std::string_view parameter : target.used) known += (known.empty() ? "" : ", ") + std::string(parameter);
      return Error::Usage(op + ": no parameter named `" + name + "` (the formula reads " + known + ")");
    }
    if (arguments.contains(name)) return Error::Usage(op + ": `" + name + "` is given twice");
    arguments[name] = value;
  }
  return arguments;
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

Result<std::int64_t> ComputeBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments) {
  const Entry* entry = FindEntry(target.op_name);
  if (entry == nullptr) return Error::Usage(std::string(target.op_name) + ": not a built-in FLOPs target");
  return entry->formula(Call(entry->target, arguments));
}

}  // namespace opmfu::registry
