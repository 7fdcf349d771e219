#include "engine/demo.h"

#include <random>

#include "common/file_io.h"
#include "engine/profiling_db_builder.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

// 24 AI cores at 1800 MHz: the FP16 peak the demo's durations are derived from.
constexpr double kPeakFp16 = 24.0 * 1800.0 * 8192.0 * 1e6;

// Tokens per micro-batch (8 sequences of 4096) and the hidden size of the demo model.
constexpr std::int64_t kTokens = std::int64_t{8} * 4096;
constexpr std::int64_t kHidden = 4096;

class RankWriter {
 public:
  RankWriter(const DemoOptions& options, int rank)
      : options_(options), random_(options.seed * 1000003ULL + static_cast<std::uint64_t>(rank)) {}

  void WriteStep(int step) {
    const std::int64_t step_start = clock_;
    if (options_.with_modules) modules_.push_back({"Model", clock_, 0});
    const std::size_t model = modules_.empty() ? 0 : modules_.size() - 1;
    for (int layer = 0; layer < options_.layers; ++layer) Layer(layer);
    if (options_.with_modules) modules_[model].end = clock_ + 10;
    clock_ += 1000;
    // Backward: matmuls for each layer, outside every Module range (as real traces are).
    // Each layer's gradients are all-reduced as soon as they are ready, between two backward ops
    // (no FLOPs range holds the all-reduce; it takes no random draw, so the kernels are those of a
    // demo without it) and beside the compute kernels on the device.
    for (int layer = options_.layers - 1; layer >= 0; --layer) {
      for (int g = 0; g < 2; ++g) Gemm("aten::mm", "mm", "MatMulV2", 4096, 4096, 4096, "BF16;BF16", 0.45);
      AllReduce(clock_ - 150, clock_ - 100, kernel_clock_, 180'000 + 1'000 * (layer % 7));
    }
    // Optimizer and gradient all-reduce.
    const std::int64_t device_start = clock_ + 300;
    AllReduce(clock_, clock_ + 200, device_start, Jitter(2'000'000));
    clock_ += 2'500'000;
    // A FLOPs record with no device kernel: an mm on CPU tensors (coverage reports it unmatched).
    db_.AddMstx("mfu_flops", "8388608-mm", clock_, clock_ + 40);
    clock_ += 100;
    Elementwise("aten::_foreach_add_", "ForeachAdd", 40'000);
    db_.AddStep(step, step_start, clock_);
    clock_ += 5000;
  }

  // profiler_info_<rank>.json in the layout torch_npu writes, with the settings of the example
  // launcher (examples/train.py at --profile-level level1), so check-db has evidence to show.
  static Status WriteRecordedConfig(const fs::path& rank_directory, int rank, DemoExport export_type) {
    const std::string exports = export_type == DemoExport::kDb     ? "\"db\""
                                : export_type == DemoExport::kText ? "\"text\""
                                                                   : "\"db\",\n                \"text\"";
    const std::string text = R"({
    "config": {
        "common_config": {
            "activities": [
                "ProfilerActivity.CPU",
                "ProfilerActivity.NPU"
            ],
            "schedule": {
                "wait": 1,
                "active": 2,
                "warmup": 1,
                "repeat": 1,
                "skip_first": 0
            },
            "record_shapes": true,
            "profile_memory": false,
            "with_stack": false,
            "with_flops": true,
            "with_modules": false
        },
        "experimental_config": {
            "_profiler_level": "Level1",
            "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION",
            "_l2_cache": false,
            "_msprof_tx": true,
            "_mstx": true,
            "_data_simplification": true,
            "record_op_args": false,
            "_export_type": [
                )" + exports +
                             R"(
            ],
            "_mstx_domain_include": [],
            "_mstx_domain_exclude": [],
            "_op_attr": false,
            "_gc_detect_threshold": null
        }
    },
    "torch_npu_version": "2.7.1.post2",
    "rank_id": )" + std::to_string(rank) +
                             "\n}\n";
    return WriteFileAtomically(rank_directory / ("profiler_info_" + std::to_string(rank) + ".json"), text);
  }

  Result<DemoSummary> Finish(const fs::path& rank_directory, int rank) {
    for (const ModuleSpan& module : modules_) db_.AddMstx("Module", module.name, module.start, module.end);
    const fs::path db =
        rank_directory / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(rank) + ".db");
    if (options_.export_type != DemoExport::kText) OPMFU_RETURN_IF_ERROR(db_.Write(db));
    if (options_.export_type != DemoExport::kDb) OPMFU_RETURN_IF_ERROR(db_.WriteText(db.parent_path()));
    OPMFU_RETURN_IF_ERROR(WriteDeviceInfo(rank_directory, rank % 16, "24", "\"1800\""));
    OPMFU_RETURN_IF_ERROR(WriteRecordedConfig(rank_directory, rank, options_.export_type));
    return DemoSummary{{rank_directory}, db_.kernel_count()};
  }

 private:
  std::int64_t Jitter(std::int64_t nanoseconds) {
    std::uniform_real_distribution<double> factor(0.8, 1.25);
    return static_cast<std::int64_t>(static_cast<double>(nanoseconds) * factor(random_));
  }

  // A c10d::allreduce_ op on the host and its HCCL op on the device, with the device tasks as the
  // chosen CANN version records them: one schedule task, or (older) the notify/copy/notify tasks.
  void AllReduce(std::int64_t op_start, std::int64_t op_end, std::int64_t device_start, std::int64_t duration) {
    const std::int64_t op = db_.AddOp("c10d::allreduce_", op_start, op_end);
    const std::int64_t device_end = device_start + duration;
    const std::int64_t flow = db_.AddCommunication(op, "hcom_allReduce_", device_start, device_end);
    if (options_.communication == CommunicationTables::kSchedule) {
      db_.AddCommunicationTask(flow, "hcom_allReduce_", "hcom_allReduce_", device_start, device_end);
      return;
    }
    const std::int64_t copy_start = device_start + duration / 10;
    const std::int64_t copy_end = device_end - duration / 10;
    db_.AddCommunicationTask(flow, "Notify_Wait", "hcom_allReduce_", device_start, copy_start, true);
    db_.AddCommunicationTask(flow, "Memcpy", "hcom_allReduce_", copy_start, copy_end, true);
    db_.AddCommunicationTask(flow, "Notify_Record", "hcom_allReduce_", copy_end, device_end, true);
  }

  // An op with a FLOPs range whose kernel runs at `efficiency` (+-) of the peak.
  // `aux_kernel`: a format-conversion kernel (TransData) the op launches first; it inherits the
  // range's whole FLOPs, as on real hardware. `shapes`: the kernel's input shapes when they are
  // not the two matrices (attention records q, k and v).
  void Gemm(const char* op, const char* flops_name, const char* kernel, std::int64_t m, std::int64_t k, std::int64_t n,
            const char* types, double efficiency, int batch = 1, const char* aux_kernel = nullptr,
            const char* shapes = nullptr, const char* outputs = nullptr) {
    const std::int64_t flops = std::int64_t{2} * batch * m * k * n;
    std::uniform_real_distribution<double> spread(0.6, 1.3);
    const double peak = std::string_view(types).rfind("INT8", 0) == 0 ? 2 * kPeakFp16 : kPeakFp16;
    const auto duration =
        static_cast<std::int64_t>(static_cast<double>(flops) / (peak * efficiency * spread(random_)) * 1e9) + 1;
    const std::int64_t op_start = clock_;
    const std::string shape =
        (batch > 1 ? std::to_string(batch) + "," : "") + std::to_string(m) + "," + std::to_string(k);
    const std::string weight =
        (batch > 1 ? std::to_string(batch) + "," : "") + std::to_string(k) + "," + std::to_string(n);
    // The op's own shapes, as record_shapes gives them: linear's weight is [out, in].
    const std::string op_shapes = shapes != nullptr ? std::string(shapes)
                                  : std::string_view(op) == "aten::linear"
                                      ? shape + ";" + std::to_string(n) + "," + std::to_string(k)
                                      : shape + ";" + weight;
    const std::int64_t connection = db_.AddOp(op, op_start, op_start + 120, op_shapes);
    if (std::string_view(op) == "aten::linear") {  // linear(x, w) without bias runs mm(x, t(w))
      db_.AddNestedOp(connection, "aten::t", std::to_string(n) + "," + std::to_string(k), false);
      db_.AddNestedOp(connection, "aten::mm", shape + ";" + weight, true);
    }
    db_.AddMstx("mfu_flops", std::to_string(flops) + "-" + flops_name, op_start - 5, op_start + 130);
    kernel_clock_ = std::max(kernel_clock_, op_start + 500);
    if (aux_kernel != nullptr) {
      ProfilingDbBuilder::Kernel aux;
      aux.name = aux_kernel;
      aux.op_type = aux_kernel;
      aux.start = kernel_clock_;
      aux.end = aux.start + Jitter(40'000);
      aux.input_types = types;
      aux.input_shapes = "\"" + std::to_string(k) + "," + std::to_string(n) + "\"";
      aux.output_shapes = aux.input_shapes;
      aux.output_types = std::string(std::string_view(types).substr(0, std::string_view(types).find(';')));
      db_.AddKernel({connection}, aux);
      kernel_clock_ = aux.end + 200;
    }
    ProfilingDbBuilder::Kernel launched;
    launched.name = kernel;
    launched.start = kernel_clock_;
    launched.end = launched.start + duration;
    launched.input_types = types;
    launched.input_shapes = "\"" + (shapes != nullptr ? std::string(shapes) : shape + ";" + weight) + "\"";
    launched.output_shapes =
        "\"" + (batch > 1 ? std::to_string(batch) + "," : "") + std::to_string(m) + "," + std::to_string(n) + "\"";
    launched.op_type = kernel;
    // The output dtype: a quantized matmul dequantizes to BF16; the others keep the input's.
    const std::string_view input_type = std::string_view(types).substr(0, std::string_view(types).find(';'));
    launched.output_types = std::string(input_type == "INT8" ? "BF16" : input_type);
    if (outputs != nullptr) {
      // FlashAttentionScore records softmax_max, softmax_sum, softmax_out (absent) and the output.
      launched.output_shapes = "\"" + std::string(outputs) + "\"";
      launched.output_types = "FLOAT;FLOAT;;" + std::string(input_type);
    }
    db_.AddKernel({connection}, launched);
    kernel_clock_ = launched.end + 200;
    clock_ += 300;
  }

  void Elementwise(const char* op, const char* kernel, std::int64_t nanoseconds) {
    const std::int64_t connection = db_.AddOp(op, clock_, clock_ + 60, "8,4096,4096");
    ProfilingDbBuilder::Kernel launched;
    launched.name = kernel;
    launched.start = kernel_clock_ = std::max(kernel_clock_, clock_ + 400);
    launched.end = launched.start + Jitter(nanoseconds);
    launched.op_type = kernel;
    launched.input_shapes = "\"8,4096,4096\"";
    launched.output_shapes = "\"8,4096,4096\"";
    db_.AddKernel({connection}, launched);
    kernel_clock_ = launched.end + 200;
    clock_ += 150;
  }

  void Layer(int layer) {
    const std::int64_t start = clock_;
    std::size_t index = 0;
    if (options_.with_modules) {
      modules_.push_back({"Layer", start, 0});
      index = modules_.size() - 1;
    }
    const auto sub = [&](const char* name, auto&& body) {
      const std::int64_t sub_start = clock_;
      body();
      if (options_.with_modules) modules_.push_back({name, sub_start, clock_});
      clock_ += 20;
    };
    sub("Attention", [&] {
      Elementwise("aten::layer_norm", "LayerNorm", 30'000);
      Gemm("aten::linear", "linear", "MatMulV3", kTokens, kHidden, 3 * kHidden, "BF16;BF16", 0.55);
      // BNSD q, k, v of [8, 32, 4096, 128]: QK^T and PV, 2*B*N*S*S*(Dq+Dv), as torch_npu's formula.
      Gemm("torch_npu::npu_fusion_attention", "npu_fusion_attention", "FlashAttentionScore", 4096,
           std::int64_t{2} * 128, 4096, "FLOAT16;FLOAT16;FLOAT16", 0.42, 8 * 32, nullptr,
           "8,32,4096,128;8,32,4096,128;8,32,4096,128", "8,32,4096,8;8,32,4096,8;;8,32,4096,128");
      Gemm("aten::linear", "linear", "MatMulV3", kTokens, kHidden, kHidden, "BF16;BF16", 0.5, 1, "TransData");
      Elementwise("aten::add", "Add", 25'000);
    });
    sub("MLP", [&] {
      Elementwise("aten::layer_norm", "LayerNorm", 30'000);
      // The MoE router: N = 8 experts is far too narrow for the cube (a low-MFU group with hints);
      // it reads the whole [32768, 4096] activation for 2 FLOPs a byte, so it is memory-bound.
      Gemm("aten::linear", "linear", "MatMulV3", kTokens, kHidden, 8, "BF16;BF16", 0.025);
      Gemm("aten::linear", "linear", "MatMulV3", kTokens, kHidden, 11008, "BF16;BF16", 0.62);
      Elementwise("aten::gelu", "Gelu", 60'000);
      // A quantized projection on every other layer: the INT8 peak applies.
      if (layer % 2 == 1) {
        Gemm("torch_npu::npu_quant_matmul", "npu_quant_matmul", "QuantBatchMatmulV3", kTokens, 11008, kHidden,
             "INT8;INT8", 0.35);
      } else {
        Gemm("aten::linear", "linear", "MatMulV3", kTokens, 11008, kHidden, "BF16;BF16", 0.58);
      }
      Elementwise("aten::add", "Add", 25'000);
    });
    if (options_.with_modules) modules_[index].end = clock_;
    clock_ += 50;
  }

  const DemoOptions& options_;
  std::mt19937_64 random_;
  ProfilingDbBuilder db_;
  struct ModuleSpan {
    std::string name;
    std::int64_t start;
    std::int64_t end;
  };
  std::vector<ModuleSpan> modules_;
  std::int64_t clock_ = 1'700'000'000'000'000'000;
  std::int64_t kernel_clock_ = 0;
};

}  // namespace

Result<DemoSummary> WriteDemo(const DemoOptions& options) {
  if (options.ranks < 1 || options.ranks > 4096) return Error::Usage("--ranks must be between 1 and 4096");
  if (options.steps < 1 || options.layers < 1) return Error::Usage("--steps and --layers must be at least 1");
  DemoSummary summary;
  for (int rank = 0; rank < options.ranks; ++rank) {
    RankWriter writer(options, rank);
    for (int step = 1; step <= options.steps; ++step) writer.WriteStep(step);
    const fs::path directory = options.directory / ("worker_" + std::to_string(rank) + "_20261129120000" +
                                                    std::to_string(100 + rank % 900) + "_ascend_pt");
    OPMFU_ASSIGN_OR_RETURN(DemoSummary written, writer.Finish(directory, rank));
    summary.rank_directories.push_back(directory);
    summary.kernels_per_rank = written.kernels_per_rank;
  }
  return summary;
}

}  // namespace opmfu::engine
