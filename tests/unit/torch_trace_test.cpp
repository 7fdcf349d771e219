// PyTorch profiler traces (engine/torch_trace, engine/torch_trace_link, report/torch_op_flops,
// report/gpu_peaks, report/torch_analysis) on traces written here in the field layout Kineto
// writes: nested ops sharing an External id, two streams, a correlation-only kernel, CUDA-graph
// launches, an unattributed kernel, record_shapes off, a ROCm trace's names, gzip.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "engine/torch_trace.h"
#include "engine/torch_trace_link.h"
#include "report/gpu_peaks.h"
#include "report/torch_analysis.h"
#include "report/torch_op_flops.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

using Json = nlohmann::json;
using testing::TempDir;

Json Op(const std::string& name, double ts, double dur, int id, Json dims = nullptr, Json types = nullptr,
        Json concrete = nullptr) {
  Json args = {{"External id", id}, {"Record function id", 0}};
  if (!dims.is_null()) args["Input Dims"] = dims;
  if (!types.is_null()) args["Input type"] = types;
  if (!concrete.is_null()) args["Concrete Inputs"] = concrete;
  return {{"ph", "X"},  {"cat", "cpu_op"}, {"name", name}, {"pid", 100},
          {"tid", 100}, {"ts", ts},        {"dur", dur},   {"args", args}};
}

Json Launch(const std::string& name, double ts, int correlation, int id = -1) {
  Json args = {{"cbid", 211}, {"correlation", correlation}};
  if (id >= 0) args["External id"] = id;
  return {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", name}, {"pid", 100}, {"tid", 100}, {"ts", ts},
          {"dur", 4},  {"args", args}};
}

Json Kernel(const std::string& name, double ts, double dur, int correlation, int id, int stream) {
  Json args = {{"queued", 0}, {"device", 0}, {"context", 1}, {"stream", stream}, {"correlation", correlation}};
  if (id >= 0) args["External id"] = id;
  return {{"ph", "X"},     {"cat", "kernel"}, {"name", name}, {"pid", 0},
          {"tid", stream}, {"ts", ts},        {"dur", dur},   {"args", args}};
}

const Json kBf16x3 = {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"};

// The trace the tests share; times are microseconds from a large base, as Kineto writes them.
Json CudaTrace() {
  const double t = 1428625731000.0;
  Json events = Json::array();
  // aten::linear -> aten::t, aten::addmm: the kernel's External id is the addmm's.
  events.push_back(Op("aten::linear", t + 0, 100, 1, {{8, 64}, {32, 64}, {32}}, {"c10::BFloat16", "c10::BFloat16"}));
  events.push_back(Op("aten::t", t + 5, 5, 2, {{32, 64}}, {"c10::BFloat16"}));
  events.push_back(
      Op("aten::addmm", t + 20, 70, 3, Json::parse("[[32],[8,64],[64,32],[],[]]"), kBf16x3, {"", "", "", "1", "1"}));
  events.push_back(Launch("cudaLaunchKernel", t + 30, 100, 3));
  events.push_back(Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", t + 200.5, 10.25, 100, 3, 7));
  // aten::matmul and aten::mm sharing External id 5 (nested ops): the kernel is the mm's, once.
  events.push_back(Op("aten::matmul", t + 120, 80, 5, {{16, 32}, {32, 8}}, {"c10::BFloat16", "c10::BFloat16"}));
  events.push_back(Op("aten::mm", t + 130, 60, 5, {{16, 32}, {32, 8}}, {"c10::BFloat16", "c10::BFloat16"}));
  events.push_back(Launch("cudaLaunchKernel", t + 140, 101, 5));
  events.push_back(Kernel("nvjet_tst_64x8", t + 220, 20, 101, 5, 13));
  // A kernel with no External id: its launch (by correlation) lies in aten::bmm on the thread.
  events.push_back(Op("aten::bmm", t + 240, 20, 7, {{2, 4, 8}, {2, 8, 4}}, {"c10::BFloat16", "c10::BFloat16"}));
  events.push_back(Launch("cudaLaunchKernel", t + 250, 102));
  events.push_back(Kernel("cutlass_bmm", t + 260, 5, 102, -1, 7));
  // A CUDA graph replayed inside an op: two kernels of one cudaGraphLaunch.
  events.push_back(Op("CUDAGraph::replay", t + 300, 30, 8));
  events.push_back(Launch("cudaGraphLaunch", t + 310, 103));
  events.push_back(Kernel("graph_kernel_a", t + 320, 3, 103, -1, 7));
  events.push_back(Kernel("graph_kernel_b", t + 324, 3, 103, -1, 13));
  // Causal SDPA (flash): is_causal at position 4.
  events.push_back(Op("aten::_scaled_dot_product_flash_attention", t + 400, 50, 9,
                      Json::parse("[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]]"),
                      {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"},
                      {"", "", "", "0.", "True", "False", "0.125"}));
  events.push_back(Launch("cudaLaunchKernelExC", t + 410, 104, 9));
  events.push_back(Kernel("void pytorch_flash::flash_fwd_kernel<>", t + 460, 8, 104, 9, 7));
  // An elementwise op (no formula) and a kernel no op launched.
  events.push_back(Op("aten::mul", t + 500, 10, 10, {{8, 32}, {8, 32}}, {"c10::BFloat16", "c10::BFloat16"}));
  events.push_back(Launch("cudaLaunchKernel", t + 505, 105, 10));
  events.push_back(Kernel("elementwise_kernel", t + 520, 2, 105, 10, 7));
  events.push_back(Kernel("orphan_kernel", t + 600, 1.5, 555, 999, 7));
  // What the reader skips: python functions, flows, memory events, metadata.
  events.push_back({{"ph", "X"},
                    {"cat", "python_function"},
                    {"name", "x.py(1): f"},
                    {"pid", 100},
                    {"tid", 100},
                    {"ts", t},
                    {"dur", 1000},
                    {"args", {{"Python id", 1}}}});
  events.push_back({{"ph", "f"},
                    {"id", 100},
                    {"pid", 0},
                    {"tid", 7},
                    {"ts", t + 200.5},
                    {"cat", "ac2g"},
                    {"name", "ac2g"},
                    {"bp", "e"}});
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 100}, {"tid", 0}, {"args", {{"name", "python3"}}}});
  return {{"schemaVersion", 1},
          {"deviceProperties", {{{"id", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"numSms", 132}}}},
          {"cupti_version", 24},
          {"cuda_runtime_version", 12080},
          {"distributedInfo", {{"backend", "nccl"}, {"rank", 3}, {"world_size", 8}}},
          {"record_shapes", 1},
          {"traceEvents", events},
          {"traceName", "rank3.pt.trace.json"}};
}

std::uint32_t OpNamed(const engine::TorchTrace& trace, std::string_view name) {
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i) {
    if (trace.strings->View(trace.ops[i].name) == name) return i;
  }
  ADD_FAILURE() << "no op " << name;
  return 0;
}

std::optional<std::string> OwnerOf(const engine::TorchTrace& trace, const engine::TraceLinks& links,
                                   std::string_view kernel) {
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    if (trace.strings->View(trace.kernels[k].name) != kernel) continue;
    if (!links.kernels[k].op) return std::nullopt;
    return std::string(trace.strings->View(trace.ops[*links.kernels[k].op].name));
  }
  ADD_FAILURE() << "no kernel " << kernel;
  return std::nullopt;
}

TEST(TorchTrace, ReadsTheEventsTheMfuNeedsWithExactTimes) {
  TempDir dir;
  const auto path = dir.Write("rank3.pt.trace.json", CudaTrace().dump(2));
  auto trace = engine::ReadTorchTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->ops.size(), 9u);
  EXPECT_EQ(trace->kernels.size(), 8u);
  EXPECT_EQ(trace->launches.size(), 6u);
  EXPECT_EQ(trace->rank, 3);
  EXPECT_EQ(trace->record_shapes, true);
  EXPECT_EQ(trace->runtime, "CUDA");
  ASSERT_EQ(trace->devices.size(), 1u);
  EXPECT_EQ(trace->devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(trace->devices[0].sms, 132);
  // 1428625731200.5 us, 10.25 us: nanoseconds exactly, not through a double.
  EXPECT_EQ(trace->kernels[0].ts, 1428625731200500);
  EXPECT_EQ(trace->kernels[0].duration, 10250);
  EXPECT_EQ(trace->kernels[0].stream, 7);
  const engine::TorchOp& addmm = trace->ops[OpNamed(*trace, "aten::addmm")];
  EXPECT_EQ(trace->strings->View(addmm.input_dims), "[[32],[8,64],[64,32],[],[]]");
  EXPECT_EQ(trace->strings->View(addmm.concrete_inputs), R"(["","","","1","1"])");
}

TEST(TorchTrace, LinksKernelsAsTorchDoes) {
  TempDir dir;
  auto trace = engine::ReadTorchTrace(dir.Write("t.json", CudaTrace().dump()));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const engine::TraceLinks links = engine::LinkKernels(*trace);
  EXPECT_EQ(OwnerOf(*trace, links, "sm90_xmma_gemm_bf16bf16_bf16f32"), "aten::addmm");
  // Nested ops with one id: the innermost holding the launch, and the kernel counted once.
  EXPECT_EQ(OwnerOf(*trace, links, "nvjet_tst_64x8"), "aten::mm");
  EXPECT_EQ(OwnerOf(*trace, links, "cutlass_bmm"), "aten::bmm");
  EXPECT_EQ(OwnerOf(*trace, links, "graph_kernel_a"), "CUDAGraph::replay");
  EXPECT_EQ(OwnerOf(*trace, links, "graph_kernel_b"), "CUDAGraph::replay");
  EXPECT_EQ(OwnerOf(*trace, links, "orphan_kernel"), std::nullopt);
  EXPECT_EQ(links.by_external_id, 4u);
  EXPECT_EQ(links.by_correlation, 3u);
  EXPECT_EQ(links.unattributed, 1u);
  EXPECT_EQ(links.graph_kernels, 2u);
  EXPECT_EQ(links.by_external_id + links.by_correlation + links.unattributed, trace->kernels.size());
}

TEST(TorchTrace, GzipIsReadLikeThePlainFile) {
  TempDir dir;
  const std::string text = CudaTrace().dump();
  const auto gz = dir.path() / "t.json.gz";
  gzFile file = gzopen(gz.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
  auto plain = engine::ReadTorchTrace(dir.Write("t.json", text));
  auto zipped = engine::ReadTorchTrace(gz);
  ASSERT_TRUE(zipped.ok()) << zipped.error().message;
  EXPECT_EQ(zipped->kernels.size(), plain->kernels.size());
  EXPECT_EQ(zipped->bytes, text.size());
  EXPECT_EQ(zipped->kernels.back().ts, plain->kernels.back().ts);
}

TEST(TorchTrace, BadInputIsOneLineNamingFileLineAndCause) {
  TempDir dir;
  const auto broken = dir.Write("broken.json", "{\n \"traceEvents\": [\n  {\"ph\": \"X\",, }\n ]\n}\n");
  auto result = engine::ReadTorchTrace(broken);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message.find(broken.string() + ": line 3: malformed JSON"), 0u) << result.error().message;
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos);

  auto not_trace = engine::ReadTorchTrace(dir.Write("config.json", R"({"a": [1, 2]})"));
  ASSERT_FALSE(not_trace.ok());
  EXPECT_NE(not_trace.error().message.find("no \"traceEvents\" array"), std::string::npos);

  auto empty = engine::ReadTorchTrace(dir.Write("empty.json", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty file"), std::string::npos);

  engine::TorchTraceLimits limits;
  limits.max_depth = 8;
  auto deep = engine::ReadTorchTrace(dir.Write("deep.json", R"({"traceEvents": [[[[[[[[[[1]]]]]]]]]]})"), limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().message.find("nested deeper than 8 levels"), std::string::npos) << deep.error().message;

  limits = {};
  limits.max_events = 5;
  auto many = engine::ReadTorchTrace(dir.Write("many.json", CudaTrace().dump()), limits);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.error().message.find("more than 5 trace events"), std::string::npos);

  const auto corrupt = dir.Write("corrupt.json.gz", std::string("\x1f\x8b\x08\x00garbage-not-deflate", 24));
  auto bad_gz = engine::ReadTorchTrace(corrupt);
  ASSERT_FALSE(bad_gz.ok());
  EXPECT_EQ(bad_gz.error().message.find(corrupt.string() + ": "), 0u);

  const auto fifo = dir.path() / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = engine::ReadTorchTrace(fifo);  // refused at once, never blocks
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_NE(from_fifo.error().message.find("FIFO"), std::string::npos) << from_fifo.error().message;
}

TEST(TorchOpFlops, MatmulAttentionAndConvolutionUseTheBuiltinFormulas) {
  const auto derive = [](std::string_view name, std::string_view dims, std::string_view types,
                         std::string_view concrete = "") {
    return report::DeriveTorchOp({name, dims, types, concrete, ""});
  };
  const auto addmm = derive("aten::addmm", "[[32],[8,64],[64,32],[],[]]", R"(["c10::BFloat16"])");
  EXPECT_EQ(addmm.flops, 2.0 * 8 * 64 * 32);
  EXPECT_EQ(addmm.dtype, report::GpuDtype::kBf16);
  EXPECT_EQ(derive("aten::baddbmm", "[[2,4,4],[2,4,8],[2,8,4],[],[]]", "[]").flops, 2.0 * 2 * 4 * 8 * 4);
  EXPECT_EQ(derive("aten::linear", "[[3,5,64],[32,64],[32]]", "[]").flops, 2.0 * 15 * 64 * 32);
  const auto fp8 = derive("aten::_scaled_mm", "[[16,32],[32,64],[],[]]", R"(["c10::Float8_e4m3fn"])");
  EXPECT_EQ(fp8.flops, 2.0 * 16 * 32 * 64);
  EXPECT_EQ(fp8.dtype, report::GpuDtype::kFp8);
  // Attention: 2*B*N*Sq*Sk*(D+Dv), the scores halved when the op says causal.
  const std::string qkv = "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]]";
  const double full = 2.0 * 2 * 4 * 128 * 128 * (64 + 64);
  EXPECT_EQ(
      derive("aten::_scaled_dot_product_flash_attention", qkv, "[]", R"(["","","","0.","False","False",""])").flops,
      full);
  EXPECT_EQ(
      derive("aten::_scaled_dot_product_flash_attention", qkv, "[]", R"(["","","","0.","True","False",""])").flops,
      full / 2);
  // flash-attn's layout is [B,S,N,D] and its causal flag is position 5.
  const std::string bsnd = "[[2,128,4,64],[2,128,4,64],[2,128,4,64],[],[],[],[],[],[],[],[]]";
  EXPECT_EQ(derive("flash_attn::_flash_attn_forward", bsnd, "[]", R"(["","","","0.0","0.125","True","-1","-1"])").flops,
            full / 2);
  EXPECT_FALSE(
      derive("flash_attn::_flash_attn_forward", bsnd, "[]", R"(["","","","0.0","0.125","True","256","0"])").flops);
  // Convolution: the output size from stride, padding and dilation, then Ascend's NCHW derivation.
  const auto conv =
      derive("aten::cudnn_convolution", "[[128,3,224,224],[768,3,16,16],[],[],[],[],[],[],[]]", R"(["c10::BFloat16"])",
             R"(["","","[0, 0]","[16, 16]","[1, 1]","1","False","False","True"])");
  EXPECT_EQ(conv.flops, 2.0 * 128 * 768 * 14 * 14 * 3 * 16 * 16);
  // Not derived, with why.
  EXPECT_FALSE(derive("aten::mul", "[[8,32],[8,32]]", "[]").flops);
  const auto no_shapes = derive("aten::mm", "", "");
  EXPECT_FALSE(no_shapes.flops);
  EXPECT_NE(no_shapes.skip_reason.find("record_shapes"), std::string::npos);
  EXPECT_FALSE(derive("aten::_flash_attention_forward", "[[64,4,64],[64,4,64],[64,4,64],[3],[3]]", "[]").flops);
}

TEST(GpuPeaks, DenseFiguresMatchedFromTheDeviceName) {
  const auto peak = [](std::string_view device, report::GpuDtype dtype) -> double {
    const report::GpuMatch match = report::MatchGpu(device);
    if (match.gpu == nullptr) return -1;
    return report::PeakFlops(*match.gpu, dtype).value_or(0) / 1e12;
  };
  EXPECT_DOUBLE_EQ(peak("NVIDIA H100 80GB HBM3", report::GpuDtype::kBf16), 989.4);  // dense, not the 1979 sparse
  EXPECT_DOUBLE_EQ(peak("NVIDIA H100 PCIe", report::GpuDtype::kBf16), 756);
  EXPECT_DOUBLE_EQ(peak("NVIDIA H100 NVL", report::GpuDtype::kFp8), 1670.5);
  EXPECT_DOUBLE_EQ(peak("NVIDIA H200", report::GpuDtype::kBf16), 989.4);
  EXPECT_DOUBLE_EQ(peak("NVIDIA B200", report::GpuDtype::kBf16), 2250);
  EXPECT_DOUBLE_EQ(peak("NVIDIA GB200", report::GpuDtype::kFp8), 5000);
  EXPECT_DOUBLE_EQ(peak("NVIDIA A100-SXM4-80GB", report::GpuDtype::kTf32), 156);
  EXPECT_DOUBLE_EQ(peak("NVIDIA A100-SXM4-80GB", report::GpuDtype::kFp8), 0);  // no FP8 path
  EXPECT_DOUBLE_EQ(peak("NVIDIA L40S", report::GpuDtype::kFp16), 362.05);
  EXPECT_DOUBLE_EQ(peak("AMD Instinct MI300X VF", report::GpuDtype::kBf16), 1307.4);
  EXPECT_DOUBLE_EQ(peak("AMD Instinct MI325X", report::GpuDtype::kFp8), 2614.9);
  EXPECT_DOUBLE_EQ(peak("AMD Instinct MI355X", report::GpuDtype::kBf16), 2516.6);
  EXPECT_DOUBLE_EQ(peak("AMD Instinct MI250X", report::GpuDtype::kFp16), 383);
  EXPECT_DOUBLE_EQ(peak("NVIDIA GeForce RTX 4090", report::GpuDtype::kBf16), -1);
  for (const report::GpuPeak& gpu : report::KnownGpus()) {
    EXPECT_FALSE(gpu.source.empty()) << gpu.name;
    // Dense FP16 is the BF16 figure on every listed part; FP8 about twice it where it exists (the
    // L40S datasheet: 362.05 and 733). A sparse figure in the table would break both.
    EXPECT_EQ(gpu.tflops[2], gpu.tflops[3]) << gpu.name;
    if (gpu.tflops[4] > 0) {
      EXPECT_NEAR(gpu.tflops[4] / gpu.tflops[2], 2, 0.03) << gpu.name;
    }
  }
}

TEST(TorchAnalysis, RowsDerivedSectionAndWhatIsMissing) {
  TempDir dir;
  const auto path = dir.Write("rank3.pt.trace.json", CudaTrace().dump());
  auto data = report::LoadTorchTraces({path}, path, {});
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_NE(data->traces, nullptr);
  const report::TraceAnalysis& analysis = *data->traces;
  ASSERT_EQ(analysis.ranks.size(), 1u);
  EXPECT_EQ(analysis.ranks[0].rank_id, 3);
  EXPECT_EQ(analysis.ranks[0].unattributed, 1u);
  EXPECT_EQ(analysis.ranks[0].unattributed_time, 1500);
  // Matmul FLOPs: addmm + mm + bmm, the nested matmul not counted again.
  EXPECT_EQ(analysis.matmul_flops[0], 2.0 * 8 * 64 * 32 + 2.0 * 16 * 32 * 8 + 2.0 * 2 * 4 * 8 * 4);
  // One row per kernel of a derived op: addmm, mm, bmm, the attention.
  EXPECT_EQ(data->analysis.tables.operator_rows.size(), 4u);
  for (const engine::OperatorMfuRow& row : data->analysis.tables.operator_rows) {
    EXPECT_EQ(row.rank_id, 3);
    EXPECT_DOUBLE_EQ(row.chip_peak_tflops, 989.4);
    if (row.op_name() == "aten::addmm") {
      EXPECT_EQ(row.flops, 32768);
      EXPECT_EQ(row.kernel_duration, 10250);
      EXPECT_EQ(row.input_shapes(), "32;8,64;64,32;;");
      EXPECT_DOUBLE_EQ(row.mfu, std::round(32768 / (10250e-9 * 989.4e12) * 1e4) / 1e4);
    }
  }
  const report::DerivedSection section = report::TraceDerivedSection(analysis, true);
  EXPECT_EQ(section.kernels, 8u);
  EXPECT_EQ(section.derived_kernels, 4u);
  EXPECT_NE(section.chip.find("H100 SXM"), std::string::npos);
  EXPECT_NE(section.chip.find("dense"), std::string::npos);
  bool listed_mul = false;
  bool listed_orphan = false;
  for (const auto& [reason, figures] : section.skipped) {
    listed_mul = listed_mul || reason.starts_with("aten::mul: ");
    listed_orphan = listed_orphan || (reason.starts_with("no framework op") && figures.second == 1500);
  }
  EXPECT_TRUE(listed_mul);
  EXPECT_TRUE(listed_orphan);
  bool noted = false;
  for (const std::string& note : data->notes) noted = noted || note.find("1 of 8 kernels") != std::string::npos;
  EXPECT_TRUE(noted);

  // --peak-tflops: every op against the given figure.
  auto overridden = report::LoadTorchTraces({path}, path, {100.0, 1});
  ASSERT_TRUE(overridden.ok());
  for (const engine::OperatorMfuRow& row : overridden->analysis.tables.operator_rows) {
    EXPECT_DOUBLE_EQ(row.chip_peak_tflops, 100);
  }
}

TEST(TorchAnalysis, RecordShapesOffSaysInOneLineThatNoFlopsCanBeDerived) {
  Json trace = CudaTrace();
  trace["record_shapes"] = 0;
  for (Json& event : trace["traceEvents"]) {
    if (event.contains("args")) {
      event["args"].erase("Input Dims");
      event["args"].erase("Input type");
      event["args"].erase("Concrete Inputs");
    }
  }
  TempDir dir;
  const auto path = dir.Write("noshapes.json", trace.dump());
  auto data = report::LoadTorchTraces({path}, path, {});
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->analysis.ranks.size(), 1u);
  ASSERT_TRUE(data->analysis.ranks[0].failure.has_value());
  const std::string& line = *data->analysis.ranks[0].failure;
  EXPECT_EQ(line, path.string() +
                      ": record_shapes is off, so no FLOPs can be derived (an op's FLOPs come from its input shapes): "
                      "profile with torch.profiler.profile(record_shapes=True)");
  EXPECT_TRUE(data->analysis.tables.operator_rows.empty());
}

TEST(TorchAnalysis, RocmTraceAndADirectoryOfRanks) {
  Json rocm = CudaTrace();
  rocm.erase("cupti_version");
  rocm.erase("cuda_runtime_version");
  rocm["roctracer_version"] = 4;
  rocm["hip_runtime_version"] = 60241;
  rocm["deviceProperties"][0]["name"] = "AMD Instinct MI300X";
  rocm["distributedInfo"]["rank"] = 1;
  for (Json& event : rocm["traceEvents"]) {
    if (event.value("cat", "") == "cuda_runtime") {
      event["name"] = event["name"] == "cudaGraphLaunch" ? "hipGraphLaunch" : "hipExtModuleLaunchKernel";
    }
    if (event.value("name", "") == "sm90_xmma_gemm_bf16bf16_bf16f32") {
      event["name"] = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x224x64_MI16x16x1_ISA942";
    }
  }
  Json cuda = CudaTrace();
  cuda["distributedInfo"]["rank"] = 0;
  TempDir dir;
  dir.Write("run/rank1.pt.trace.json", rocm.dump());
  dir.Write("run/rank0.pt.trace.json", cuda.dump());
  dir.Write("run/notes.txt", "not a trace");
  auto inputs = report::TorchTraceInputs(dir.path() / "run");
  ASSERT_TRUE(inputs.has_value());
  ASSERT_EQ(inputs->size(), 2u);
  auto data = report::LoadTorchTraces(*inputs, dir.path() / "run", {});
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->traces->ranks.size(), 2u);
  const report::TraceRank& amd = data->traces->ranks[1];
  EXPECT_EQ(amd.rank_id, 1);
  EXPECT_EQ(amd.runtime, "ROCm");
  EXPECT_EQ(amd.graph_kernels, 2u);
  EXPECT_NE(amd.peak_source.find("MI300X"), std::string::npos);
  for (const engine::OperatorMfuRow& row : data->analysis.tables.operator_rows) {
    EXPECT_DOUBLE_EQ(row.chip_peak_tflops, row.rank_id == 1 ? 1307.4 : 989.4);
  }
  EXPECT_EQ(data->traces->matmul_flops[0], data->traces->matmul_flops[1]);
}

}  // namespace
}  // namespace opmfu
