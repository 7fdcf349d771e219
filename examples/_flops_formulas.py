# Example FLOPs formulas for opmfu, in the structure of torch_npu/profiler/_flops_formulas.py.
# Written for opmfu's examples and tests; the counting rules follow torch_npu's documented ones:
# only the main GEMM / attention matmuls count, a multiply-add is 2 FLOPs, results are ints.

from torch_npu.profiler._flops_registry import register_npu_flop


def _shape(tensor):
    """Shape of a tensor or of anything with a .shape, as a tuple of ints."""
    return tuple(int(dim) for dim in tensor.shape)


def _prod(values):
    result = 1
    for value in values:
        result *= int(value)
    return result


def _matmul_flops(left_shape, right_shape):
    """2*M*K*N over broadcast batch dims for a @ b with 2-D or larger operands."""
    if left_shape[-1] != right_shape[-2]:
        raise ValueError("inner dimensions differ")
    batch = left_shape[:-2] if len(left_shape) >= len(right_shape) else right_shape[:-2]
    m, k, n = left_shape[-2], left_shape[-1], right_shape[-1]
    return 2 * _prod(batch) * m * k * n


def _attention_score(sq, skv, sparse_mode):
    """Score elements per (batch, head): full, or causal-shaped for sparse modes 2 and 3."""
    if sparse_mode == 0:
        return sq * skv
    if sparse_mode == 2:
        return sq * skv - skv * skv // 2 if sq >= skv else sq * sq // 2
    if sparse_mode == 3:
        return skv * skv // 2 if sq >= skv else sq * skv - sq * sq // 2
    raise ValueError(f"sparse_mode {sparse_mode} has no FLOPs formula")


@register_npu_flop(target="torch:mm", is_default=True)
def mm_flop(input, other, *args, **kwargs):
    """[M, K] @ [K, N]: 2*M*K*N."""
    m, k = _shape(input)
    k2, n = _shape(other)
    if k != k2:
        raise ValueError("mm: inner dimensions differ")
    return 2 * m * k * n


@register_npu_flop(target="torch:bmm", is_default=True)
def bmm_flop(input, other, *args, **kwargs):
    """[B, M, K] @ [B, K, N]: 2*B*M*K*N."""
    b, m, k = _shape(input)
    _, _, n = _shape(other)
    return 2 * b * m * k * n


@register_npu_flop(target="torch:addmm", is_default=True)
def addmm_flop(self, mat1, mat2, *args, **kwargs):
    """beta*self + alpha*(mat1 @ mat2): only the GEMM counts."""
    return _matmul_flops(_shape(mat1), _shape(mat2))


@register_npu_flop(
    target="torch.nn.functional:linear",
    is_default=True,
)
def linear_flop(input, weight, bias=None, *args, **kwargs):
    """x @ W^T with x [..., in] and W [out, in]: 2*prod(x[:-1])*out*in; bias ignored."""
    x = _shape(input)
    out_features, in_features = _shape(weight)
    return 2 * _prod(x[:-1]) * out_features * in_features


@register_npu_flop(target="torch:matmul", is_default=True)
def matmul_flop(input, other, *args, **kwargs):
    """torch.matmul for operands of two or more dimensions."""
    left, right = _shape(input), _shape(other)
    if len(left) < 2 or len(right) < 2:
        raise ValueError("matmul: 1-D operands are not counted by this example")
    return _matmul_flops(left, right)


@register_npu_flop(
    target="torch_npu:npu_fusion_attention",
    is_default=True,
)
def npu_fusion_attention_flop(query, key, value, head_num, input_layout, pse=None, padding_mask=None,
                              atten_mask=None, scale=1.0, keep_prob=1.0, pre_tockens=2147483647,
                              next_tockens=2147483647, inner_precise=0, prefix=None, actual_seq_qlen=None,
                              actual_seq_kvlen=None, sparse_mode=0, *args, **kwargs):
    """QK^T and PV: 2*B*N*score*(Dq+Dv) for layouts BNSD, BSND, BSH and SBH."""
    q, k, v = _shape(query), _shape(key), _shape(value)
    if input_layout == "BNSD":
        b, n, sq, dq = q
        skv, dv = k[2], v[3]
    elif input_layout == "BSND":
        b, sq, n, dq = q
        skv, dv = k[1], v[3]
    elif input_layout == "BSH":
        b, sq, hidden = q
        n = head_num
        dq = hidden // head_num
        skv = k[1]
        dv = dq
    elif input_layout == "SBH":
        sq, b, hidden = q
        n = head_num
        dq = hidden // head_num
        skv = k[0]
        dv = dq
    else:
        raise ValueError(f"layout {input_layout} is not covered by this example")
    return 2 * b * n * _attention_score(sq, skv, sparse_mode) * (dq + dv)


@register_npu_flop(target="torch_npu:npu_grouped_matmul", is_default=True)
def npu_grouped_matmul_flop(x, weight, *args, **kwargs):
    """One GEMM per group when x and weight lists pair up: sum of 2*prod(x_i[:-1])*K_i*N_i."""
    if len(x) != len(weight):
        raise ValueError("grouped matmul: only paired x/weight lists are covered by this example")
    total = 0
    for x_i, w_i in zip(x, weight):
        xs, ws = _shape(x_i), _shape(w_i)
        total += 2 * _prod(xs[:-1]) * xs[-1] * ws[-1]
    return total
