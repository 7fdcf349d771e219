# Registrations with the mistakes `opmfu registry check` finds; used by the README and the tests.
from torch_npu.profiler._flops_registry import register_npu_flop as reg


@reg(target="torch:mm", is_default=True)
def mm_flop(input, other, **kwargs):
    m, k = input.shape
    n = other.shape[-1]
    return 2 * m * k * n


@reg(target="torch:mm", is_default=True)
def mm_again(input, other, **kwargs):
    return 2 * input.shape[0] * input.shape[1] * other.shape[1]


@reg(target="torch.bmm", is_default=True)
def bmm_flop(input, other, **kwargs):
    b, m, k = input.shape
    return 2 * b * m * k * other.shape[-1]


@reg(target="torch_npu:npu_rms_norm")
def rms_norm_flop(x, gamma, epsilon=1e-6):
    return x.numel() * 4 / 2


@reg(target="torch_npu:npu_swiglu")
def swiglu_flop(x, dim=-1, **kwargs):
    if x.dim() < 2:
        return None
    total = x.numel() * 3
    if total > 0:
        return total


@reg("npu_rotary_mul")
def rotary_flop(x, r1, r2, **kwargs):
    return 3 * x.numel()


@reg(is_default=True)
def orphan_flop(x, **kwargs):
    return 0
