from torch_npu.profiler._flops_formulas import register_npu_flop

@register_npu_flop("npu_fusion_attention", op_name=f"{x}")
@register_npu_flop(*targets)
def f(input_shape, *args, **kwargs) -> int:
    return input_shape[0] * 2.0

@register_npu_flop
def g(): pass
