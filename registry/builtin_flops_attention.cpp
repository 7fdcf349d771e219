// torch_npu's attention formulas: npu_fusion_attention, npu_fused_infer_attention_score and
// npu_block_sparse_attention, with the shapes, layouts and sequence lengths they read.
#include "registry/builtin_flops_call.h"

namespace opmfu::registry::flops {

namespace {

struct AttentionDims {
  Int batch = 0;
  Int heads = 0;
  Int sequence = 0;
  Int head_dim = 0;
};

bool IsLayout(const Json& layout, std::string_view name) {
  return layout.is_string() && layout.get_ref<const std::string&>() == name;
}

// `_head_dim`.
Result<Int> HeadDim(const Call& call, Int hidden, const Json& heads_value, std::string_view heads_name) {
  if (heads_value.is_null()) return call.Fail("the number of heads (`" + std::string(heads_name) + "`) is None");
  OPMFU_ASSIGN_OR_RETURN(const Int heads, call.Heads(heads_value, heads_name));
  if (heads <= 0 || hidden % heads != 0) {
    return call.Fail("hidden size " + Decimal(hidden) + " must be divisible by the number of heads " + Decimal(heads));
  }
  return hidden / heads;
}

// `_parse_dims`: B, N, S, D of one tensor in a BNSD/BSND/BSH/SBH layout.
Result<AttentionDims> ParseDims(const Call& call, std::string_view name, const Shape& shape, const Json& layout,
                                const Json& heads, std::string_view heads_name) {
  if (IsLayout(layout, "BNSD") || IsLayout(layout, "BSND")) {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 4));
    if (IsLayout(layout, "BNSD")) return AttentionDims{shape[0], shape[1], shape[2], shape[3]};
    return AttentionDims{shape[0], shape[2], shape[1], shape[3]};
  }
  if (IsLayout(layout, "BSH") || IsLayout(layout, "SBH")) {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 3));
    OPMFU_ASSIGN_OR_RETURN(const Int head_dim, HeadDim(call, shape[2], heads, heads_name));
    OPMFU_ASSIGN_OR_RETURN(const Int head_count, call.Heads(heads, heads_name));
    if (IsLayout(layout, "BSH")) return AttentionDims{shape[0], head_count, shape[1], head_dim};
    return AttentionDims{shape[1], head_count, shape[0], head_dim};
  }
  return call.Fail("invalid input_layout " + Shown(layout) + " (the formula knows BNSD, BSND, BSH, SBH and TND)");
}

// `_calculate_attention_scores` times the rest of `_calculate_common_layout_flops`. Modes 2 and 3
// divide by 2 in floating point, as Python's `/`, and int() truncates the float product.
Result<Int> ScoredFlops(const Call& call, Count prefix, Int q_s, Int k_s, const Json& sparse_mode_value,
                        Count head_dims) {
  std::optional<Int> mode;
  if (sparse_mode_value.is_boolean()) mode = sparse_mode_value.get<bool>() ? 1 : 0;
  if (const std::optional<Int> integer = JsonInteger(sparse_mode_value)) mode = integer;
  if (sparse_mode_value.is_number_float()) {
    const double number = sparse_mode_value.get<double>();
    if (number == std::trunc(number)) mode = Truncated(number);
  }
  const Int chosen = mode.value_or(-1);
  if (chosen == 0) return call.Done(prefix * q_s * k_s * head_dims);
  if (chosen != 2 && chosen != 3) {
    return call.Fail("torch_npu has no FLOPs formula for sparse_mode=" + Shown(sparse_mode_value) +
                     " (only 0, 2 and 3)");
  }
  const Count qk = Count(q_s) * k_s;
  const Count kk = Count(k_s) * k_s;
  const Count qq = Count(q_s) * q_s;
  if (qk.overflow() || kk.overflow() || qq.overflow() || prefix.overflow() || head_dims.overflow()) {
    return call.Overflow();
  }
  const auto d = [](Int v) { return static_cast<double>(v); };
  double scores = 0;
  if (chosen == 2) scores = q_s >= k_s ? d(qk.value()) - d(kk.value()) / 2 : d(qq.value()) / 2;
  if (chosen == 3) scores = q_s >= k_s ? d(kk.value()) / 2 : d(qk.value()) - d(qq.value()) / 2;
  const std::optional<Int> flops = Truncated(d(prefix.value()) * scores * d(head_dims.value()));
  if (!flops) return call.Overflow();
  return *flops;
}

// `_calculate_common_layout_flops`.
Result<Int> CommonLayoutFlops(const Call& call, const Shape& q, const Shape& k, const Shape& v, const Json& layout,
                              const Json& sparse_mode, const Json& q_heads, const Json& kv_heads,
                              std::string_view q_heads_name) {
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims query, ParseDims(call, "query", q, layout, q_heads, q_heads_name));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims key, ParseDims(call, "key", k, layout, kv_heads, "key/value heads"));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims value, ParseDims(call, "value", v, layout, kv_heads, "key/value heads"));
  return ScoredFlops(call, Count(2) * query.batch * query.heads, query.sequence, key.sequence, sparse_mode,
                     Count(query.head_dim) + value.head_dim);
}

// `_parse_seq_len`: cumulative lengths, trailing zeros dropped, turned into per-sequence lengths.
Result<std::vector<Int>> PerSequenceLengths(const Call& call, const Json& cumulative, std::string_view name) {
  OPMFU_ASSIGN_OR_RETURN(std::vector<Int> lengths, call.Integers(cumulative, name));
  while (!lengths.empty() && lengths.back() == 0) lengths.pop_back();
  for (std::size_t i = lengths.size(); i-- > 1;) lengths[i] -= lengths[i - 1];
  return lengths;
}

// `_calculate_tnd_layout_flops`: sparse_mode is not consulted in TND (no causal halving).
Result<Int> TndLayoutFlops(const Call& call, const Shape& q, const Shape& v, std::string_view q_lengths_name,
                           std::string_view kv_lengths_name, const Json& q_heads) {
  OPMFU_ASSIGN_OR_RETURN(const Json q_cumulative, call.Get(q_lengths_name));
  OPMFU_ASSIGN_OR_RETURN(const Json kv_cumulative, call.Get(kv_lengths_name));
  if (q_cumulative.is_null() || kv_cumulative.is_null()) {
    return call.Fail("the TND layout needs `" + std::string(q_lengths_name) + "` and `" + std::string(kv_lengths_name) +
                     "` (cumulative sequence lengths)");
  }
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "query", q, 3));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "value", v, 3));
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Int> q_lengths, PerSequenceLengths(call, q_cumulative, q_lengths_name));
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Int> kv_lengths, PerSequenceLengths(call, kv_cumulative, kv_lengths_name));
  const bool zero_raises = call.version().zero_length_sequence_raises;
  const auto invalid = [zero_raises](Int length) { return zero_raises ? length <= 0 : length < 0; };
  if (q_lengths.size() != kv_lengths.size() || std::any_of(q_lengths.begin(), q_lengths.end(), invalid) ||
      std::any_of(kv_lengths.begin(), kv_lengths.end(), invalid)) {
    return call.Fail("`" + std::string(q_lengths_name) + "` and `" + std::string(kv_lengths_name) + "` must be " +
                     (zero_raises ? "increasing" : "non-decreasing") +
                     " cumulative lengths with the same number of sequences" +
                     (zero_raises ? std::string(" (in ") + std::string(call.version().name) +
                                        ", a zero-length sequence makes the formula raise)"
                                  : std::string()));
  }
  Count scores = 0;
  for (std::size_t i = 0; i < q_lengths.size(); ++i) scores = scores + Count(q_lengths[i]) * kv_lengths[i];
  Int heads = q[1];
  if (Truthy(q_heads)) {  // `q_heads or shape_q_heads`
    OPMFU_ASSIGN_OR_RETURN(heads, call.Heads(q_heads, "num_heads"));
  }
  return call.Done(Count(2) * heads * (Count(q[2]) + v[2]) * scores);
}

// `_infer_kv_heads` (from v26.1.0): GQA/MQA key heads from the key's shape.
Result<Json> InferKvHeads(const Call& call, const Shape& q, const Shape& k, const Json& layout, const Json& q_heads) {
  if (IsLayout(layout, "BNSD") || IsLayout(layout, "BSND")) {
    const std::size_t axis = IsLayout(layout, "BNSD") ? 1 : 2;
    if (k.size() <= axis) return call.Fail("`key` " + ShapeText(k) + " has no head axis for " + Shown(layout));
    return Json(static_cast<std::int64_t>(k[axis]));
  }
  if (!IsLayout(layout, "BSH") && !IsLayout(layout, "SBH")) return q_heads;
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "query", q, 3));
  OPMFU_RETURN_IF_ERROR(NeedRank(call, "key", k, 3));
  OPMFU_ASSIGN_OR_RETURN(const Int q_head_dim, HeadDim(call, q[2], q_heads, "head_num"));
  const Json head_dim_value = static_cast<std::int64_t>(q_head_dim);
  OPMFU_ASSIGN_OR_RETURN(const Int kv_heads, HeadDim(call, k[2], head_dim_value, "the query's head dimension"));
  return Json(static_cast<std::int64_t>(kv_heads));
}

}  // namespace

Result<Int> FusionAttention(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape k, call.Tensor("key"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  OPMFU_ASSIGN_OR_RETURN(const Json head_num, call.Get("head_num"));
  OPMFU_ASSIGN_OR_RETURN(const Json layout, call.Get("input_layout"));
  if (IsLayout(layout, "TND")) return TndLayoutFlops(call, q, v, "actual_seq_qlen", "actual_seq_kvlen", nullptr);
  OPMFU_ASSIGN_OR_RETURN(const Json sparse_mode, call.Get("sparse_mode"));
  Json kv_heads = head_num;
  if (call.version().infers_kv_heads) {
    OPMFU_ASSIGN_OR_RETURN(kv_heads, InferKvHeads(call, q, k, layout, head_num));
  }
  return CommonLayoutFlops(call, q, k, v, layout, sparse_mode, head_num, kv_heads, "head_num");
}

Result<Int> FusedInferAttentionScore(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Json num_heads, call.Get("num_heads"));
  OPMFU_ASSIGN_OR_RETURN(Json kv_heads, call.Get("num_key_value_heads"));
  if (!Truthy(kv_heads)) kv_heads = num_heads;  // `num_key_value_heads or num_heads`
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape k, call.Tensor("key"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  OPMFU_ASSIGN_OR_RETURN(const Json layout, call.Get("input_layout"));
  if (IsLayout(layout, "TND")) {
    return TndLayoutFlops(call, q, v, "actual_seq_lengths", "actual_seq_lengths_kv", num_heads);
  }
  OPMFU_ASSIGN_OR_RETURN(const Json sparse_mode, call.Get("sparse_mode"));
  return CommonLayoutFlops(call, q, k, v, layout, sparse_mode, num_heads, kv_heads, "num_heads");
}

namespace {

// `_parse_actual_lengths` of the block-sparse formula.
Result<std::vector<Int>> ActualLengths(const Call& call, std::string_view name, std::size_t batch, Int full_length,
                                       bool cumulative) {
  OPMFU_ASSIGN_OR_RETURN(const Json given, call.Get(name));
  if (given.is_null()) return std::vector<Int>(batch, full_length);
  OPMFU_ASSIGN_OR_RETURN(std::vector<Int> lengths, call.Integers(given, name));
  while (!lengths.empty() && lengths.back() == 0) lengths.pop_back();
  if (lengths.size() != batch) {
    return call.Fail("expected " + std::to_string(batch) + " lengths in `" + std::string(name) +
                     "` (one per batch of block_sparse_mask), got " + std::to_string(lengths.size()));
  }
  if (cumulative) {
    if (lengths.empty()) return call.Fail("`" + std::string(name) + "` has no first length to start from");
    for (std::size_t i = lengths.size(); i-- > 1;) lengths[i] -= lengths[i - 1];
  }
  if (std::any_of(lengths.begin(), lengths.end(), [](Int l) { return l < 0; })) {
    return call.Fail("sequence lengths in `" + std::string(name) + "` must be non-negative");
  }
  return lengths;
}

// `_parse_attention_dims`: TND is (T, N, D); the other layouts as `_parse_dims`.
Result<AttentionDims> BlockSparseDims(const Call& call, std::string_view name, const Shape& shape, const Json& layout,
                                      const Json& heads, std::string_view heads_name) {
  if (IsLayout(layout, "TND")) {
    OPMFU_RETURN_IF_ERROR(NeedRank(call, name, shape, 3));
    return AttentionDims{0, shape[1], shape[0], shape[2]};
  }
  return ParseDims(call, name, shape, layout, heads, heads_name);
}

}  // namespace

Result<Int> BlockSparseAttention(Call& call) {
  OPMFU_ASSIGN_OR_RETURN(const Shape q, call.Tensor("query"));
  OPMFU_ASSIGN_OR_RETURN(const Shape v, call.Tensor("value"));
  OPMFU_ASSIGN_OR_RETURN(const Json mask, call.Get("block_sparse_mask"));
  if (!mask.is_array()) {
    return call.Fail("`block_sparse_mask` must be a nested list [batch][head][q_block][kv_block], got " + Shown(mask));
  }
  Json q_heads = nullptr;
  if (!mask.empty()) {
    if (!mask.front().is_array()) return call.Fail("`block_sparse_mask[0]` must be a list of heads");
    q_heads = static_cast<std::int64_t>(mask.front().size());
  }
  OPMFU_ASSIGN_OR_RETURN(const Json q_layout, call.Get("q_input_layout"));
  OPMFU_ASSIGN_OR_RETURN(const Json kv_layout, call.Get("kv_input_layout"));
  OPMFU_ASSIGN_OR_RETURN(const Json kv_heads, call.Get("num_key_value_heads"));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims query,
                         BlockSparseDims(call, "query", q, q_layout, q_heads, "the heads of block_sparse_mask"));
  OPMFU_ASSIGN_OR_RETURN(const AttentionDims value,
                         BlockSparseDims(call, "value", v, kv_layout, kv_heads, "num_key_value_heads"));
  const std::size_t batch = mask.size();
  OPMFU_ASSIGN_OR_RETURN(const auto q_lengths,
                         ActualLengths(call, "actual_seq_lengths", batch, query.sequence, IsLayout(q_layout, "TND")));
  OPMFU_ASSIGN_OR_RETURN(const auto kv_lengths, ActualLengths(call, "actual_seq_lengths_kv", batch, value.sequence,
                                                              IsLayout(kv_layout, "TND")));
  OPMFU_ASSIGN_OR_RETURN(const Json block_shape_value, call.Get("block_shape"));
  if (block_shape_value.is_null()) return call.Fail("`block_shape` is None; it must be [block_x, block_y]");
  OPMFU_ASSIGN_OR_RETURN(const std::vector<Int> block_shape, call.Integers(block_shape_value, "block_shape"));
  if (block_shape.size() != 2) return call.Fail("`block_shape` must be [block_x, block_y]");
  const Int block_x = block_shape[0];
  const Int block_y = block_shape[1];
  Count score = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    const Json& heads = mask[b];
    if (!heads.is_array()) return call.Fail("`block_sparse_mask` must be nested 4 deep: [batch][head][q][kv]");
    for (const Json& q_blocks : heads) {
      if (!q_blocks.is_array()) return call.Fail("`block_sparse_mask` must be nested 4 deep: [batch][head][q][kv]");
      for (std::size_t qi = 0; qi < q_blocks.size(); ++qi) {
        const Count q_start = Count(static_cast<Int>(qi)) * block_x;
        if (q_start.overflow()) return call.Overflow();
        const Int q_tokens = std::min(block_x, std::max<Int>(q_lengths[b] - q_start.value(), 0));
        if (q_tokens == 0) continue;
        const Json& kv_blocks = q_blocks[qi];
        if (!kv_blocks.is_array()) return call.Fail("`block_sparse_mask` must be nested 4 deep: [batch][head][q][kv]");
        for (std::size_t ki = 0; ki < kv_blocks.size(); ++ki) {
          if (!Truthy(kv_blocks[ki])) continue;
          const Count kv_start = Count(static_cast<Int>(ki)) * block_y;
          if (kv_start.overflow()) return call.Overflow();
          const Int kv_tokens = std::min(block_y, std::max<Int>(kv_lengths[b] - kv_start.value(), 0));
          score = score + Count(q_tokens) * kv_tokens;
        }
      }
    }
  }
  return call.Done(Count(2) * score * (Count(query.head_dim) + value.head_dim));
}

}  // namespace opmfu::registry::flops
