// For `bench/run lint`:
//   opmfu_bench_lint corpus DIR N   writes N Python files of about 50 KB, each a training module
//                                   with argparse and a torch_npu profiler (so none is skipped);
//   opmfu_bench_lint launchers DIR N  writes N bash launchers of about 200 lines each (variables,
//                                   arrays, branches, functions, a torchrun line);
//   opmfu_bench_lint parse DIR J    parses every *.py and *.sh under DIR with tree-sitter on J
//                                   threads and nothing else: the baseline `opmfu lint` is measured
//                                   against.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/parallel.h"
#include "common/parse_allocator.h"
#include "common/tree_sitter.h"

namespace fs = std::filesystem;

namespace {

std::string Module(long index) {
  std::string text =
      "import argparse\nimport math\nimport os\n\nimport torch\nimport torch_npu\n"
      "from torch_npu.profiler import ExportType, ProfilerActivity, ProfilerLevel\n\n\n"
      "def parse_args():\n    parser = argparse.ArgumentParser()\n"
      "    parser.add_argument('--prof-level', default='level1', choices=['level0', 'level1'])\n"
      "    parser.add_argument('--with-flops', action='store_true')\n"
      "    parser.add_argument('--steps', type=int, default=100)\n    return parser.parse_args()\n\n\n"
      "LEVELS = {'level0': ProfilerLevel.Level0, 'level1': ProfilerLevel.Level1}\n\n\n";
  // Model code: what most of a real training module is.
  for (int block = 0; text.size() < 48000; ++block) {
    text += "class Block" + std::to_string(block) +
            "(torch.nn.Module):\n"
            "    def __init__(self, hidden=4096, heads=32, dropout=0.1):\n"
            "        super().__init__()\n"
            "        self.qkv = torch.nn.Linear(hidden, 3 * hidden)\n"
            "        self.proj = torch.nn.Linear(hidden, hidden)\n"
            "        self.heads = heads\n        self.scale = 1.0 / math.sqrt(hidden // heads)\n\n"
            "    def forward(self, x, mask=None):\n"
            "        b, s, h = x.shape\n"
            "        q, k, v = self.qkv(x).chunk(3, dim=-1)\n"
            "        scores = torch.matmul(q, k.transpose(-1, -2)) * self.scale\n"
            "        if mask is not None:\n            scores = scores.masked_fill(mask == 0, float('-inf'))\n"
            "        weights = torch.softmax(scores, dim=-1)\n"
            "        out = [w * 2 for w in weights.unbind(0) if w.numel() > 0]\n"
            "        return self.proj(torch.matmul(weights, v)) + x\n\n\n";
  }
  text +=
      "def build_profiler(args):\n"
      "    config = torch_npu.profiler._ExperimentalConfig(profiler_level=LEVELS[args.prof_level], mstx=True,\n"
      "                                                    msprof_tx=True, export_type=[ExportType.Db])\n"
      "    return torch_npu.profiler.profile(\n"
      "        activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],\n"
      "        schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),\n"
      "        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(os.environ.get('RUN_DIR', f'./p/" +
      std::to_string(index) +
      "')),\n"
      "        record_shapes=True, with_flops=args.with_flops, experimental_config=config)\n";
  return text;
}

std::string Launcher(long index) {
  std::string text = "#!/usr/bin/env bash\n# Generated launcher " + std::to_string(index) + "\nset -euo pipefail\n\n";
  for (int block = 0; block < 12; ++block) {
    const std::string n = std::to_string(block);
    text += "NODE_" + n + "=${NODE_" + n + ":-" + n +
            "}\n"
            "export MASTER_PORT_" +
            n + "=$((6000 + " + n +
            "))\n"
            "ARGS_" +
            n + "=(--hidden-size 4096 --num-layers " + n +
            " --seq-length 4096)\n"
            "ARGS_" +
            n +
            "+=(--lr 1e-4 --min-lr 1e-5)\n"
            "if [ \"${NODE_" +
            n + "}\" -gt 4 ]; then\n  LEVEL_" + n + "=level1\nelse\n  LEVEL_" + n +
            "=level0\nfi\n"
            "case \"${MODE:-train}\" in\n  train) STEPS_" +
            n + "=100 ;;\n  *) STEPS_" + n +
            "=10 ;;\nesac\n"
            "setup_" +
            n + "() {\n  mkdir -p \"./logs/" + n + "\"\n  echo \"node ${NODE_" + n +
            "}\" >> ./logs/run.log\n}\n"
            "setup_" +
            n + "\n\n";
  }
  text +=
      "PROFILE_ARGS=\"--profile --profile-level ${LEVEL_0} --profile-save-path ./prof/$(date +%s)\"\n"
      "torchrun --nproc_per_node 8 --nnodes 2 missing_pretrain.py \"${ARGS_0[@]}\" ${PROFILE_ARGS} \\\n"
      "    --train-iters \"${STEPS_0}\"\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc != 4 || (mode != "corpus" && mode != "launchers" && mode != "parse")) {
    std::fprintf(stderr, "usage: opmfu_bench_lint corpus DIR N | launchers DIR N | parse DIR JOBS\n");
    return 2;
  }
  const fs::path dir = argv[2];
  const long number = std::strtol(argv[3], nullptr, 10);
  if (mode == "corpus" || mode == "launchers") {
    for (long i = 0; i < number; ++i) {
      const std::string name =
          mode == "corpus" ? "module_" + std::to_string(i) + ".py" : "run_" + std::to_string(i) + ".sh";
      const fs::path path = dir / ("pkg" + std::to_string(i % 20)) / name;
      fs::create_directories(path.parent_path());
      if (!opmfu::WriteFileAtomically(path, mode == "corpus" ? Module(i) : Launcher(i)).ok()) return 1;
    }
    return 0;
  }
  opmfu::InstallParseAllocator();
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".py" || entry.path().extension() == ".sh") files.push_back(entry.path());
  }
  std::atomic<std::size_t> nodes{0};
  opmfu::ForEachInParallel(files.size(), static_cast<unsigned>(std::max(1L, number)), [&](std::size_t i) {
    auto source = opmfu::ReadTextFile(files[i]);
    if (!source.ok()) return;
    const auto grammar = files[i].extension() == ".sh" ? opmfu::Grammar::kBash : opmfu::Grammar::kPython;
    auto tree = opmfu::ParseSource(grammar, std::move(*source));
    if (tree.ok()) nodes += ts_node_child_count(tree->root());
  });
  std::printf("%zu files parsed\n", files.size());
  return 0;
}
