// The report's derived section ("derived from kernel shapes (not msprof-analyze)"): on `opmfu demo`
// data every matmul kernel's derived FLOPs equal the FLOPs the run recorded for it, and on a fixture
// with the traits of MindStudio Insight's public Level1 DB (no FLOPs records, no info.json, NC1HWC0
// convolutions, an addmm with its [out, in] weight, an HBM table) the Conv2D and addmm kernels get
// a derived MFU.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/sqlite.h"
#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunOpmfu;
using testing::TempDir;

const json* FindGroup(const json& derived, std::string_view kernel, std::string_view shapes) {
  for (const json& group : derived["groups"]) {
    if (group["kernel_name"] == kernel && group["input_shapes"] == shapes) return &group;
  }
  return nullptr;
}

TEST(DerivedReport, OnDemoDataEveryMatmulKernelsDerivedFlopsEqualItsRecordedFlops) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "1", "--steps", "1", "--layers", "2"}).exit_code, 0);
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo.string()}).exit_code, 0);
  const auto result = RunOpmfu({"report", "-d", demo.string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json derived = json::parse(result.out)["derived"];
  EXPECT_EQ(derived["label"], "derived from kernel shapes (not msprof-analyze)");

  // Every matmul row upstream's analysis wrote, against the derived group of its kernel.
  auto db = Database::OpenReadOnly(demo / "cluster_analysis_output" / "cluster_analysis.db");
  ASSERT_TRUE(db.ok());
  auto rows = db->Prepare("SELECT kernel_name, input_shapes, flops FROM OperatorMFU");
  ASSERT_TRUE(rows.ok());
  std::size_t matmul_rows = 0;
  while (*rows->Step()) {
    const std::string kernel(rows->Text(0));
    if (kernel.find("MatMul") == std::string::npos && kernel.find("Matmul") == std::string::npos) continue;
    ++matmul_rows;
    const json* group = FindGroup(derived, kernel, rows->Text(1));
    ASSERT_NE(group, nullptr) << kernel << " " << rows->Text(1);
    EXPECT_EQ((*group)["flops"].get<double>(), static_cast<double>(rows->Int64(2))) << kernel << " " << rows->Text(1);
  }
  EXPECT_GE(matmul_rows, 12U);
  // The report's own comparison agrees: matmuls and the attention kernel, none disagreeing.
  EXPECT_GT(derived["compared"].get<std::size_t>(), matmul_rows);
  EXPECT_EQ(derived["agreed"], derived["compared"]);
  EXPECT_TRUE(derived["disagreements"].empty());
  // The recorded section's weighted MFU and the derived one cover the same kernels here.
  EXPECT_NEAR(derived["weighted_mfu"].get<double>(), json::parse(result.out)["summary"]["weighted_mfu"].get<double>(),
              0.05);

  for (const std::string format : {"text", "markdown", "html"}) {
    const auto rendered = RunOpmfu({"report", "-d", demo.string(), "--format", format});
    EXPECT_NE(rendered.out.find("derived from kernel shapes (not msprof-analyze)"), std::string::npos) << format;
    EXPECT_NE(rendered.out.find("against the run's FLOPs records"), std::string::npos) << format;
  }
}

// The traits of the msinsight Level1 rank: FP32, NC1HWC0/FRACTAL_Z convolutions, no info.json, no
// msTX, an HBM table.
fs::path WriteLevel1LikeRank(const fs::path& root) {
  engine::ProfilingDbBuilder db;
  std::int64_t clock = 1'000'000;
  const auto add = [&](const char* name, const char* type, const char* in_formats, const char* in_types,
                       const char* in_shapes, const char* out_formats, const char* out_types, const char* out_shapes,
                       std::int64_t duration) {
    const std::int64_t op = db.AddOp("aten::op", clock, clock + 100);
    engine::ProfilingDbBuilder::Kernel kernel;
    kernel.name = name;
    kernel.op_type = type;
    kernel.start = clock + 500;
    kernel.end = kernel.start + duration;
    kernel.input_formats = in_formats;
    kernel.input_types = in_types;
    kernel.input_shapes = std::string("\"") + in_shapes + "\"";
    kernel.output_formats = out_formats;
    kernel.output_types = out_types;
    kernel.output_shapes = std::string("\"") + out_shapes + "\"";
    db.AddKernel({op}, kernel);
    clock = kernel.end + 1000;
  };
  add("Conv2D1", "Conv2D", "NC1HWC0;FRACTAL_Z;NCHW", "FLOAT;FLOAT;FLOAT", "32,1,224,224,8;121,4,16,8;64", "NC1HWC0",
      "FLOAT", "32,8,55,55,8", 314667);
  add("aclnnAddmm_MatMulCommon_MatMulV2", "MatMulV2", "FORMAT_ND;FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT;FLOAT",
      "32,9216;4096,9216;4096", "FORMAT_ND", "FLOAT", "32,4096", 358247);
  add("Conv2DBackpropInput8", "Conv2DBackpropInput", "NCHW;FRACTAL_Z;NC1HWC0", "INT32;FLOAT;FLOAT",
      "4;200,12,16,8;32,24,27,27,8", "NC1HWC0", "FLOAT", "32,8,27,27,8", 151643);
  add("trans_TransData_24", "TransData", "NCHW", "FLOAT", "32,3,224,224", "NC1HWC0", "FLOAT", "32,1,224,224,8", 71701);
  // Two HBM units, read and write, at two instants: the largest total is 10+20+30+40 GB/s.
  for (std::int64_t hbm = 0; hbm < 2; ++hbm) {
    db.AddHbmSample(1000, hbm, 5e9, false);
    db.AddHbmSample(1000, hbm, 5e9, true);
    db.AddHbmSample(2000, hbm, hbm == 0 ? 10e9 : 30e9, false);
    db.AddHbmSample(2000, hbm, hbm == 0 ? 20e9 : 40e9, true);
  }
  const fs::path rank = root / "rank0_ascend_pt";
  EXPECT_TRUE(db.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  return rank;
}

TEST(DerivedReport, Level1LikeRankGetsDerivedMfuForConvAndAddmm) {
  TempDir dir;
  WriteLevel1LikeRank(dir.path());
  const auto result = RunOpmfu({"report", "-d", dir.path().string(), "--format", "json", "--chip", "Ascend910B2"});
  EXPECT_EQ(result.exit_code, 1) << result.err;  // the rank has no FLOPs records: it fails upstream's analysis
  const json derived = json::parse(result.out)["derived"];
  // 24 cores x 1800 MHz x 8192 FLOP/cycle = 353.8944 TFLOPS.
  EXPECT_DOUBLE_EQ(derived["peak_fp16_flops"].get<double>(), 24.0 * 1800 * 8192 * 1e6);
  EXPECT_TRUE(derived["hbm_bandwidth_uncertain"].get<bool>());
  EXPECT_DOUBLE_EQ(derived["observed_hbm_bytes_per_s"].get<double>(), 100e9);

  const json* conv = FindGroup(derived, "Conv2D1", "32,1,224,224,8;121,4,16,8;64");
  ASSERT_NE(conv, nullptr);
  // 2*(32*55*55)*(121*8)*(4*16) = 11,993,907,200 in 314,667 ns against 353.8944 TFLOPS.
  EXPECT_DOUBLE_EQ((*conv)["flops"].get<double>(), 11993907200.0);
  EXPECT_TRUE((*conv)["padded"].get<bool>());
  EXPECT_NEAR((*conv)["mfu"].get<double>(), 11993907200.0 / (314667e-9 * 353.8944e12), 1e-9);
  const json* addmm = FindGroup(derived, "aclnnAddmm_MatMulCommon_MatMulV2", "32,9216;4096,9216;4096");
  ASSERT_NE(addmm, nullptr);
  // 2*32*9216*4096 = 2,415,919,104; bytes 152,190,976 + 524,288; intensity 15.82 FLOP/B, below
  // the ridge 353.89/1.6 = 221.2: memory-bound.
  EXPECT_DOUBLE_EQ((*addmm)["flops"].get<double>(), 2415919104.0);
  EXPECT_NEAR((*addmm)["intensity"].get<double>(), 2415919104.0 / (152190976.0 + 524288.0), 1e-9);
  EXPECT_NE((*addmm)["roofline"].get<std::string>().find("memory-bound"), std::string::npos);
  // Coverage: 4 kernels, 2 derived; the input gradient and the TransData skipped with reasons.
  EXPECT_EQ(derived["kernels"], 4);
  EXPECT_EQ(derived["derived_kernels"], 2);
  EXPECT_EQ(derived["derived_time_ns"], 314667 + 358247);
  const std::string skipped = derived["skipped"].dump();
  EXPECT_NE(skipped.find("depends on the stride"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("not a matmul, convolution or attention"), std::string::npos) << skipped;
}

TEST(DerivedReport, WithoutAPeakTheFlopsStandButNoMfuIsClaimed) {
  TempDir dir;
  WriteLevel1LikeRank(dir.path());
  const auto result = RunOpmfu({"report", "-d", dir.path().string(), "--format", "json"});
  const json derived = json::parse(result.out)["derived"];
  EXPECT_TRUE(derived["peak_fp16_flops"].is_null());
  EXPECT_TRUE(derived["weighted_mfu"].is_null());
  const json* conv = FindGroup(derived, "Conv2D1", "32,1,224,224,8;121,4,16,8;64");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE((*conv)["mfu"].is_null());
  // The observed HBM ceiling stands in for the bandwidth, labelled as such.
  EXPECT_NE(derived["hbm_bandwidth_source"].get<std::string>().find("observed"), std::string::npos);
  EXPECT_NE(derived["notes"].dump().find("--chip NAME or --peak-tflops"), std::string::npos);

  const auto bad = RunOpmfu({"report", "-d", dir.path().string(), "--chip", "Ascend999"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--chip Ascend999: not a known chip"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

TEST(DerivedReport, OverridesReplaceThePeakAndTheBandwidth) {
  TempDir dir;
  WriteLevel1LikeRank(dir.path());
  const auto result =
      RunOpmfu({"report", "-d", dir.path().string(), "--format", "json", "--peak-tflops", "100", "--hbm-tbps", "0.5"});
  const json derived = json::parse(result.out)["derived"];
  EXPECT_DOUBLE_EQ(derived["peak_fp16_flops"].get<double>(), 100e12);
  EXPECT_DOUBLE_EQ(derived["hbm_bandwidth_bytes_per_s"].get<double>(), 0.5e12);
  EXPECT_EQ(derived["hbm_bandwidth_source"], "--hbm-tbps");
  EXPECT_DOUBLE_EQ(derived["ridge_flop_per_byte"].get<double>(), 200.0);  // 100e12 / 0.5e12
}

}  // namespace
}  // namespace opmfu
