// Writes a synthetic _flops_formulas.py with N registrations, for `bench/run`.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/rank_reader.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--analysis-queries") {
    // Only the tables a demo DB has: the schedule-task table is absent there.
    for (const std::string& query : opmfu::engine::AnalysisQueries()) {
      if (query.find("COMMUNICATION_SCHEDULE_TASK_INFO") == std::string::npos) std::printf("%s;\n", query.c_str());
    }
    return 0;
  }
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
