// The binary on PyTorch profiler traces: `report -d TRACE`, `analyze -d TRACE --derived` (the
// DerivedMFU table), and `diff NPU_RUN GPU_TRACE` against an Ascend demo run, in every format.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::RunOpmfu;
using testing::TempDir;

Json Event(const std::string& cat, const std::string& name, double ts, double dur, Json args) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}, {"args", args}};
}

// A GPU trace with the demo's ops: aten::mm at the demo's shapes, the demo's aten::linear as the
// GPU's aten::addmm (mat2 stored [K,N]), and the demo's attention as SDPA flash.
std::string GpuTrace() {
  Json events = Json::array();
  double t = 1000000;
  int id = 1;
  const auto op = [&](const std::string& name, const Json& dims, const Json& concrete, double kernel_us,
                      const std::string& kernel) {
    events.push_back(Event("cpu_op", name, t, 50,
                           {{"External id", id},
                            {"Input Dims", dims},
                            {"Input type", {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}},
                            {"Concrete Inputs", concrete}}));
    events.push_back(Event("cuda_runtime", "cudaLaunchKernel", t + 10, 5, {{"External id", id}, {"correlation", id}}));
    events.push_back(Event("kernel", kernel, t + 100, kernel_us,
                           {{"External id", id}, {"correlation", id}, {"device", 0}, {"stream", 7}}));
    t += 100000;
    ++id;
  };
  for (int i = 0; i < 4; ++i) {
    op("aten::mm", Json::parse("[[4096,4096],[4096,4096]]"), Json::parse(R"(["",""])"), 200, "nvjet_tst_mm");
    op("aten::addmm", Json::parse("[[12288],[32768,4096],[4096,12288],[],[]]"), Json::parse(R"(["","","","1","1"])"),
       4500, "sm90_xmma_gemm_bf16");
    op("aten::_scaled_dot_product_flash_attention",
       Json::parse("[[8,32,4096,128],[8,32,4096,128],[8,32,4096,128],[],[],[],[]]"),
       Json::parse(R"(["","","","0.","False","False",""])"), 5000, "flash_fwd_kernel");
  }
  return Json{{"deviceProperties", {{{"id", 0}, {"name", "NVIDIA H100 80GB HBM3"}}}},
              {"record_shapes", 1},
              {"traceEvents", events}}
      .dump();
}

TEST(CrossVendor, ReportAndAnalyzeDerivedOnATrace) {
  TempDir dir;
  const fs::path trace = dir.Write("gpu/rank0.pt.trace.json", GpuTrace());
  const auto report = RunOpmfu({"report", "-d", trace.string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("H100 SXM"), std::string::npos);
  EXPECT_NE(report.out.find("aten::addmm"), std::string::npos);
  const auto analyzed = RunOpmfu({"analyze", "-d", (dir.path() / "gpu").string(), "--derived"});
  EXPECT_EQ(analyzed.exit_code, 0) << analyzed.err;
  const fs::path db = dir.path() / "gpu" / "cluster_analysis_output" / "cluster_analysis.db";
  ASSERT_TRUE(fs::exists(db)) << analyzed.out << analyzed.err;
  EXPECT_EQ(testing::TableRows(db, "OperatorMFU").size(), 1u + 12u);  // schema line + one row per kernel
  EXPECT_GT(testing::TableRows(db, "DerivedMFU").size(), 1u);
  // gate reads the same rows; audit says there is nothing recorded to check.
  EXPECT_EQ(RunOpmfu({"gate", "-d", trace.string(), "--min-mfu", "0.01"}).exit_code, 0);
  EXPECT_EQ(RunOpmfu({"gate", "-d", trace.string(), "--min-mfu", "0.99"}).exit_code, 1);
  const auto audit = RunOpmfu({"audit", "-d", trace.string()});
  EXPECT_EQ(audit.exit_code, 1);
  EXPECT_NE(audit.err.find("records no FLOPs"), std::string::npos) << audit.err;
}

TEST(CrossVendor, DiffAlignsAnAscendRunWithAGpuTraceOpByOp) {
  TempDir dir;
  const fs::path demo = dir.path() / "npu";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "1", "--steps", "1", "--layers", "2"}).exit_code, 0);
  const fs::path trace = dir.Write("gpu.pt.trace.json", GpuTrace());
  const auto as_json = RunOpmfu({"diff", demo.string(), trace.string(), "--format", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const Json diff = Json::parse(as_json.out);
  bool mm = false;
  bool linear = false;
  bool attention = false;
  double previous_lost = 1e300;
  for (const Json& row : diff["rows"]) {
    if (row["npu"].is_null() || row["gpu"].is_null()) continue;
    EXPECT_LE(row["npu_lost_time_ns"].get<double>(), previous_lost);  // biggest lost time first
    previous_lost = row["npu_lost_time_ns"].get<double>();
    const std::string npu_op = row["npu"]["op_name"];
    const std::string gpu_op = row["gpu"]["op_name"];
    EXPECT_EQ(row["npu"]["flops_per_call"], row["gpu"]["flops_per_call"]) << npu_op << " " << gpu_op;
    if (npu_op == "aten::mm" && gpu_op == "aten::mm") {
      mm = true;
      EXPECT_EQ(row["aligned"], "same op, same shapes");
      EXPECT_DOUBLE_EQ(row["gpu"]["mfu"].get<double>(), 2.0 * 4096 * 4096 * 4096 / (200e-6 * 989.4e12));
    }
    if (npu_op == "aten::linear" && gpu_op == "aten::addmm") {
      linear = true;
      EXPECT_NE(row["aligned"].get<std::string>().find("FLOPs per call"), std::string::npos);
    }
    attention = attention ||
                (npu_op == "torch_npu::npu_fusion_attention" && gpu_op == "aten::_scaled_dot_product_flash_attention");
  }
  EXPECT_TRUE(mm);
  EXPECT_TRUE(linear);
  EXPECT_TRUE(attention);
  // Either order, and the other formats.
  const auto text = RunOpmfu({"diff", trace.string(), demo.string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("NPU lost time"), std::string::npos);
  const auto markdown = RunOpmfu({"diff", demo.string(), trace.string(), "--format", "markdown"});
  EXPECT_NE(markdown.out.find("| # |"), std::string::npos);
  const auto html = RunOpmfu({"diff", demo.string(), trace.string(), "--format", "html"});
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.out.find("</table>"), std::string::npos);
  // HTML is for this comparison only.
  EXPECT_EQ(RunOpmfu({"diff", demo.string(), demo.string(), "--format", "html"}).exit_code, 2);
}

}  // namespace
}  // namespace opmfu
