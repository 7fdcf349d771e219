#include "registry/builtin_flops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "common/text.h"
#include "registry/formulas.h"

namespace opmfu::registry {

namespace {

using Json = nlohmann::json;

// Python ints are unbounded; 128 bits hold every value a realistic call gives (2^127 is far past
// any tensor), and an error says so beyond that instead of wrapping.
__extension__ typedef __int128 Int;  // NOLINT(modernize-use-using): __extension__ needs a typedef
using Shape = std::vector<Int>;

std::string Decimal(Int value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits += static_cast<char>('0' + (negative ? -digit : digit));
    value /= 10;
  }
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ", ") + Decimal(shape[i]);
  return text + "]";
}

// A value in an error message: one line, at most 80 characters.
std::string Shown(const Json& value) {
  std::string text = PythonRepr(value);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Exact integer arithmetic as Python's, with an overflow flag instead of a silent wrap.
class Count {
 public:
  Count(Int value = 0) : value_(value) {}  // NOLINT(google-explicit-constructor): arithmetic reads better
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
  Count operator-(Count other) const {
    Count result;
    result.overflow_ = overflow_ || other.overflow_ || __builtin_sub_overflow(value_, other.value_, &result.value_);
    return result;
  }
  bool overflow() const { return overflow_; }
  Int value() const { return value_; }

 private:
  Int value_ = 0;
  bool overflow_ = false;
};

Count Product(const Shape& shape, std::size_t begin, std::size_t end) {
  Count product = 1;
  for (std::size_t i = begin; i < end; ++i) product = product * shape[i];
  return product;
}

// A double as Python's int() of it: truncation toward zero, exact.
std::optional<Int> Truncated(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 0x1p126) return std::nullopt;
  return static_cast<Int>(std::trunc(value));
}

std::optional<Int> JsonInteger(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<Int>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return static_cast<Int>(value.get<std::int64_t>());
  return std::nullopt;
}

// Python's int() of a string: optional sign, decimal digits, single underscores between digits.
std::optional<Int> ParsePythonIntLiteral(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() == '_' || text.back() == '_') return std::nullopt;
  Count value = 0;
  char previous = 0;
  for (char c : text) {
    if (c == '_') {
      if (previous == '_') return std::nullopt;
    } else if (c >= '0' && c <= '9') {
      value = value * 10 + (c - '0');
    } else {
      return std::nullopt;
    }
    previous = c;
  }
  if (value.overflow()) return std::nullopt;
  return negative ? -value.value() : value.value();
}

bool Truthy(const Json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_float()) return value.get<double>() != 0;
  if (value.is_number()) return JsonInteger(value).value_or(0) != 0;
  if (value.is_string()) return !value.get_ref<const std::string&>().empty();
  return !value.empty();  // list or dict
}

// Argument access for one call; every error names the op and the argument, and says that torch_npu
// records nothing for the call.
class Call {
 public:
  Call(const BuiltinTarget& target, const Json& arguments, const FormulasVersion& version)
      : target_(target), arguments_(arguments), version_(version) {}

  const FormulasVersion& version() const { return version_; }

  Error Fail(const std::string& why) const {
    return Error::Usage(std::string(target_.op_name) + ": " + why +
                        " (torch_npu's formula raises here, so it records nothing for this call)");
  }
  void Warn(std::string warning) { warnings_.push_back(std::string(target_.op_name) + ": " + std::move(warning)); }
  std::vector<std::string> TakeWarnings() { return std::move(warnings_); }

  /// The argument as the formula sees it: the given value, else the parameter's default.
  Result<Json> Get(std::string_view name) const {
    if (arguments_.is_object()) {
      const auto found = arguments_.find(std::string(name));
      if (found != arguments_.end()) return *found;
    }
    for (const BuiltinParameter& parameter : target_.parameters) {
      if (parameter.name != name) continue;
      if (parameter.default_value.empty()) return Fail("needs `" + std::string(name) + "`");
      return ParseFlopsArgumentValue(parameter.default_value);
    }
    return Fail("needs `" + std::string(name) + "`");
  }

  /// `tensor.shape` of an argument: a list of non-negative integers.
  Result<Shape> Tensor(std::string_view name) const {
    OPMFU_ASSIGN_OR_RETURN(const Json value, Get(name));
    return ShapeOf(value, name);
  }

  Result<Shape> ShapeOf(const Json& value, std::string_view name) const {
    if (value.is_null()) return Fail("`" + std::string(name) + "` is None, and the formula reads its .shape");
    const std::string bad = "`" + std::string(name) +
                            "` must be a shape (a tensor is given as its shape: a list of non-negative integers such "
                            "as [1024,512]), got ";
    if (!value.is_array()) return Fail(bad + Shown(value));
    Shape shape;
    for (const Json& dim : value) {
      const std::optional<Int> size = dim.is_boolean() ? std::nullopt : JsonInteger(dim);
      if (!size || *size < 0) return Fail(bad + Shown(value));
      shape.push_back(*size);
    }
    return shape;
  }

  /// Python's int(value).
  Result<Int> PyInt(const Json& value, std::string_view what) const {
    if (value.is_boolean()) return Int{value.get<bool>() ? 1 : 0};
    if (const std::optional<Int> integer = JsonInteger(value)) return *integer;
    if (value.is_number_float()) {
      if (const std::optional<Int> truncated = Truncated(value.get<double>())) return *truncated;
    }
    if (value.is_string()) {
      if (const std::optional<Int> parsed = ParsePythonIntLiteral(value.get_ref<const std::string&>())) return *parsed;
    }
    return Fail("int() of " + std::string(what) + " " + Shown(value) + " fails");
  }

  /// The elements Python's `for x in value` visits: a list's, or a string's characters.
  Result<std::vector<Json>> Elements(const Json& value, std::string_view name) const {
    if (value.is_array()) return std::vector<Json>(value.begin(), value.end());
    if (value.is_string()) {
      std::vector<Json> characters;
      for (char c : value.get_ref<const std::string&>()) characters.emplace_back(std::string(1, c));
      return characters;
    }
    return Fail("`" + std::string(name) + "` must be a list, got " + Shown(value));
  }

  /// `[int(x) for x in value]`.
  Result<std::vector<Int>> Integers(const Json& value, std::string_view name) const {
    OPMFU_ASSIGN_OR_RETURN(const std::vector<Json> elements, Elements(value, name));
    std::vector<Int> numbers;
    for (const Json& element : elements) {
      OPMFU_ASSIGN_OR_RETURN(const Int number, PyInt(element, "an element of `" + std::string(name) + "`"));
      numbers.push_back(number);
    }
    return numbers;
  }

  /// A head count as `_head_dim` and the layouts compare and divide it.
  Result<Int> Heads(const Json& value, std::string_view name) const {
    if (value.is_boolean()) return Int{value.get<bool>() ? 1 : 0};
    if (const std::optional<Int> integer = JsonInteger(value)) return *integer;
    if (value.is_number_float()) {
      return Error::Usage(std::string(target_.op_name) + ": `" + std::string(name) +
                          "` is a float; opmfu computes integer head counts only");
    }
    return Fail("`" + std::string(name) + "` must be an integer head count, got " + Shown(value));
  }

  Error Overflow() const {
    return Error::Usage(std::string(target_.op_name) +
                        ": the FLOPs exceed 2^126, beyond what opmfu computes (torch_npu would write the exact "
                        "integer)");
  }
  Result<Int> Done(Count flops) const {
    if (flops.overflow()) return Overflow();
    return flops.value();
  }

 private:
  const BuiltinTarget& target_;
  const Json& arguments_;
  const FormulasVersion& version_;
  std::vector<std::string> warnings_;
};

Status NeedRank(const Call& call, std::string_view name, const Shape& shape, std::size_t rank) {
  if (shape.size() == rank) return Ok();
  return call.Fail("`" + std::string(name) + "` must be " + std::to_string(rank) + "-D, got " + ShapeText(shape));
}

// After torch_npu's hook has computed and recorded the FLOPs, it calls the op; torch rejects
// operands whose inner dimensions differ, but the range (and so the value) is already recorded.
void WarnInner(Call& call, Int left_k, Int right_k, const Shape& left, const Shape& right) {
  if (left_k == right_k) return;
  call.Warn("the inner dimensions differ (" + ShapeText(left) + " and " + ShapeText(right) +
            "): torch rejects this op, but only after torch_npu's formula has run and its value was recorded");
}

// `_matmul_shape_flops`: 2 * prod(left[:-1]) * left[-1] * N, N the right's last (or, transposed,
// second-to-last) dimension.
Result<Count> MatmulShapeFlops(Call& call, const Shape& left, const Shape& right, bool transposed_right) {
  if (left.size() < 2 || right.size() < 2) {
    return call.Fail("a matmul needs both operands of rank >= 2, got " + ShapeText(left) + " and " + ShapeText(right));
  }
  const Int n = transposed_right ? right[right.size() - 2] : right.back();
  WarnInner(call, left.back(), transposed_right ? right.back() : right[right.size() - 2], left, right);
  return Count(2) * Product(left, 0, left.size() - 1) * left.back() * n;
}

// --- attention -------------------------------------------------------------------------------

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
  if (value.is_string()) {
    std::string text = "'";
    for (char c : SanitizeUtf8(value.get_ref<const std::string&>())) {
      if (c == '\'' || c == '\\') text += '\\';
      text += c;
    }
    return text + "'";
  }
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
