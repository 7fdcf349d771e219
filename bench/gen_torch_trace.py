#!/usr/bin/env python3
"""bench/run trace: writes a PyTorch profiler trace of about TARGET bytes (default 1 GiB) in the layout
Kineto writes. Usage: gen_torch_trace.py OUT [TARGET_BYTES]"""
import sys
# Per step: an aten::linear with its aten::addmm, a causal SDPA and an elementwise aten::mul, each
# with its runtime launch and kernel, and a Python function event and a flow event the reader skips.
target = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
out = open(sys.argv[1], "w")
out.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}], '
          '"record_shapes": 1, "cuda_runtime_version": 12080, "traceEvents": [\n')
block = (
    '{{"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1750): _call_impl", "pid": 7, "tid": 7, "ts": {t0}.000, "dur": 90.5, "args": {{"Python parent id": {e0}, "Python id": {e1}, "Ev Idx": {e0}}}}},\n'
    '{{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 7, "tid": 7, "ts": {t0}.100, "dur": 30.2, "args": {{"External id": {e0}, "Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[4194304, 4096, 1], [4096, 1], [1]], "Input Dims": [[8, 512, 4096], [{n}, 4096], [{n}]], "Ev Idx": {e0}}}}},\n'
    '{{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": {t0}.200, "dur": 20.1, "args": {{"External id": {e1}, "Record function id": 0, "Concrete Inputs": ["", "", "", "1", "1"], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[1], [4096, 1], [1, 4096], [], []], "Input Dims": [[{n}], [4096, 4096], [4096, {n}], [], []], "Ev Idx": {e1}}}}},\n'
    '{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": {t0}.300, "dur": 5.2, "args": {{"External id": {e1}, "cbid": 211, "correlation": {c0}}}}},\n'
    '{{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": {t1}.000, "dur": {gd}, "args": {{"External id": {e1}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {c0}, "registers per thread": 168, "shared memory": 213248, "blocks per SM": 1, "warps per SM": 4, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %": 6}}}},\n'
    '{{"ph": "X", "cat": "cpu_op", "name": "aten::_scaled_dot_product_flash_attention", "pid": 7, "tid": 7, "ts": {t0}.500, "dur": 25.0, "args": {{"External id": {e2}, "Record function id": 0, "Concrete Inputs": ["", "", "", "0.", "True", "False", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", ""], "Input Strides": [[2097152, 128, 4096, 1], [2097152, 128, 4096, 1], [2097152, 128, 4096, 1], [], [], [], []], "Input Dims": [[8, 32, 512, 128], [8, 32, 512, 128], [8, 32, 512, 128], [], [], [], []], "Ev Idx": {e2}}}}},\n'
    '{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 7, "tid": 7, "ts": {t0}.600, "dur": 6.1, "args": {{"External id": {e2}, "cbid": 430, "correlation": {c1}}}}},\n'
    '{{"ph": "X", "cat": "kernel", "name": "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >(pytorch_flash::Flash_fwd_params)", "pid": 0, "tid": 7, "ts": {t2}.000, "dur": 220.4, "args": {{"External id": {e2}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {c1}, "grid": [4, 256, 1], "block": [128, 1, 1]}}}},\n'
    '{{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 7, "tid": 7, "ts": {t0}.800, "dur": 8.0, "args": {{"External id": {e3}, "Record function id": 0, "Concrete Inputs": ["", ""], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Input Strides": [[4096, 1], [4096, 1]], "Input Dims": [[4096, 4096], [4096, 4096]], "Ev Idx": {e3}}}}},\n'
    '{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": {t0}.900, "dur": 4.4, "args": {{"External id": {e3}, "cbid": 211, "correlation": {c2}}}}},\n'
    '{{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)", "pid": 0, "tid": 7, "ts": {t3}.000, "dur": 12.3, "args": {{"External id": {e3}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {c2}, "grid": [65536, 1, 1], "block": [128, 1, 1]}}}},\n'
    '{{"ph": "f", "id": {c0}, "pid": 0, "tid": 7, "ts": {t1}.000, "cat": "ac2g", "name": "ac2g", "bp": "e"}},\n'
)
written = 0
i = 0
base = 1428625731000
widths = (4096, 11008, 12288, 14336)
while written < target:
    t = base + i * 2000
    text = block.format(t0=t, t1=t + 100, t2=t + 1000, t3=t + 1300, e0=4 * i + 1, e1=4 * i + 2, e2=4 * i + 3,
                        e3=4 * i + 4, c0=3 * i + 1, c1=3 * i + 2, c2=3 * i + 3, n=widths[i % 4], gd="%.3f" % (widths[i % 4] * 0.06))
    out.write(text)
    written += len(text)
    i += 1
out.write('{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "end", "pid": 7, "tid": 7, "ts": %d.0}\n], "traceName": "bench"}\n' % (base + i * 2000 + 4000))
out.close()
print(i, "steps")
