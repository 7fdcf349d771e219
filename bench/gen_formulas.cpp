// Writes a synthetic _flops_formulas.py with N registrations, for `bench/run`.
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  const long count = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 5000;
  std::printf("from torch_npu.profiler._flops_registry import register_npu_flop\n\n\n");
  for (long i = 0; i < count; ++i) {
    std::printf(
        "@register_npu_flop(\n    target=\"torch_npu:npu_generated_op_%ld\",\n    is_default=True,\n)\n"
        "def generated_op_%ld_flops(input, weight, bias=None, *args, **kwargs):\n"
        "    \"\"\"2*M*K*N for generated op %ld.\"\"\"\n"
        "    m, k = input.shape[-2], input.shape[-1]\n"
        "    n = weight.shape[-1]\n"
        "    return 2 * m * k * n\n\n\n",
        i, i, i);
  }
  return 0;
}
