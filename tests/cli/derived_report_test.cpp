// The report's derived section ("derived from kernel shapes (not msprof-analyze)"): on `opmfu demo`
// data every matmul kernel's derived FLOPs equal the FLOPs the run recorded for it, and on a fixture
// with the traits of MindStudio Insight's public Level1 DB (no FLOPs records, no info.json, NC1HWC0
// convolutions, an addmm with its [out, in] weight, an HBM table) the Conv2D and addmm kernels get
// a derived MFU.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <sstream>

#include "common/sqlite.h"
#include "engine/analyze.h"
#include "engine/profiling_db_builder.h"
#include "report/derived_mfu.h"
#include "report/derived_render.h"
#include "report/report.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunOpmfu;
using testing::TableRows;
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
  // The derived MFU equals the recorded one, kernel group by kernel group and time-weighted over
  // every derived kernel (the compute rows of OperatorMFU). Not to the last digit: upstream's MFU
  // divides by its chip_peak_tflops rounded to two decimals (353.89 for 353.8944).
  auto recorded = db->Prepare(
      "SELECT SUM(mfu * \"kernel_duration(ns)\") / SUM(\"kernel_duration(ns)\"), COUNT(*) FROM OperatorMFU WHERE "
      "kernel_name = ?1 AND input_shapes = ?2");
  ASSERT_TRUE(recorded.ok());
  for (const json& group : derived["groups"]) {
    ASSERT_TRUE(recorded->Reset().ok());
    ASSERT_TRUE(recorded->Bind(1, group["kernel_name"].get<std::string>()).ok());
    ASSERT_TRUE(recorded->Bind(2, group["input_shapes"].get<std::string>()).ok());
    ASSERT_TRUE(*recorded->Step());
    ASSERT_EQ(recorded->Int64(1), group["count"].get<std::int64_t>()) << group.dump();
    EXPECT_NEAR(group["mfu"].get<double>(), recorded->Double(0), 1e-3 * recorded->Double(0)) << group.dump();
  }
  auto compute = db->Prepare(
      "SELECT SUM(mfu * \"kernel_duration(ns)\") / SUM(\"kernel_duration(ns)\"), COUNT(*) FROM OperatorMFU WHERE "
      "kernel_name LIKE '%MatMul%' OR kernel_name LIKE '%Matmul%' OR kernel_name LIKE '%Attention%'");
  ASSERT_TRUE(compute.ok());
  ASSERT_TRUE(*compute->Step());
  EXPECT_EQ(compute->Int64(1), derived["derived_kernels"].get<std::int64_t>());
  EXPECT_NEAR(derived["weighted_mfu"].get<double>(), compute->Double(0), 1e-4 * compute->Double(0));

  for (const std::string format : {"text", "markdown", "html"}) {
    const auto rendered = RunOpmfu({"report", "-d", demo.string(), "--format", format});
    EXPECT_NE(rendered.out.find("derived from kernel shapes (not msprof-analyze)"), std::string::npos) << format;
    // The HTML escapes the apostrophe as every page opmfu writes does (report::EscapeHtml).
    const std::string apostrophe = format == "html" ? "&#39;" : "'";
    EXPECT_NE(rendered.out.find("against the run" + apostrophe + "s FLOPs records"), std::string::npos) << format;
  }
}

// The derived section from the kernels the analysis' own scan grouped (RankAnalysis::
// kernel_signatures) equals the one from a second read of every rank DB, which it replaced and which
// still serves a rank the scan did not read.
TEST(DerivedReport, FromTheAnalysisScanEqualsASecondReadOfTheRankDbs) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "2", "--steps", "1", "--layers", "2"}).exit_code, 0);
  engine::AnalyzeOptions analyze;
  analyze.profiling_path = demo;
  analyze.with_kernel_signatures = true;
  auto data = report::LoadReportData(analyze);
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->analysis.ranks.size(), 2U);
  for (const engine::RankOutcome& rank : data->analysis.ranks) {
    ASSERT_TRUE(rank.analysis.kernel_signatures.has_value()) << rank.location.rank_id;
    EXPECT_FALSE(rank.analysis.kernel_signatures->kernels.empty());
  }
  report::DerivedOptions options;
  options.keep_rank_groups = true;
  auto from_scan = report::BuildDerivedSection(*data, options);
  ASSERT_TRUE(from_scan.ok()) << from_scan.error().message;
  for (engine::RankOutcome& rank : data->analysis.ranks) rank.analysis.kernel_signatures.reset();
  auto read_again = report::BuildDerivedSection(*data, options);
  ASSERT_TRUE(read_again.ok()) << read_again.error().message;

  EXPECT_GT(from_scan->compared, 0U);
  EXPECT_GT(from_scan->derived_kernels, 0U);
  EXPECT_EQ(report::DerivedJson(*from_scan).dump(1), report::DerivedJson(*read_again).dump(1));
  const auto rank_rows = [](const report::DerivedSection& section) {
    std::ostringstream out;
    for (const report::DerivedGroup& g : section.rank_groups) {
      out << g.rank_id << " " << g.kernel_name << " " << g.op_type << " " << g.input_formats << " " << g.input_types
          << " " << g.input_shapes << " " << g.output_formats << " " << g.output_types << " " << g.output_shapes << " "
          << g.count << " " << g.duration << " " << g.count_with_peak << " " << g.time_with_peak << " "
          << g.peak_seconds << "\n";
    }
    return out.str();
  };
  EXPECT_FALSE(from_scan->rank_groups.empty());
  EXPECT_EQ(rank_rows(*from_scan), rank_rows(*read_again));
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

// Two ranks whose DBs number the same strings differently (each STRING_IDS is the rank's own):
// every kernel is counted under its own text, never under another rank's string with the same id.
TEST(DerivedReport, RanksThatNumberTheirStringsDifferentlyMergeByText) {
  TempDir dir;
  const auto write_rank = [&](int rank_id, bool conv_first) {
    engine::ProfilingDbBuilder db;
    std::int64_t clock = 1'000'000;
    const auto add = [&](const char* name, const char* type, const char* in_shapes, const char* out_shapes) {
      const std::int64_t op = db.AddOp("aten::op", clock, clock + 100);
      engine::ProfilingDbBuilder::Kernel kernel;
      kernel.name = name;
      kernel.op_type = type;
      kernel.start = clock + 500;
      kernel.end = kernel.start + 1000;
      kernel.input_types = "FLOAT16;FLOAT16";
      kernel.input_shapes = in_shapes;
      kernel.output_shapes = out_shapes;
      db.AddKernel({op}, kernel);
      clock = kernel.end + 1000;
    };
    // 2*64*32*16 = 65,536 and 2*128*64*32 = 524,288.
    if (conv_first) add("MatMulBig", "MatMulV2", "128,64;64,32", "128,32");
    add("MatMulSmall", "MatMulV2", "64,32;32,16", "64,16");
    if (!conv_first) add("MatMulBig", "MatMulV2", "128,64;64,32", "128,32");
    const fs::path rank = dir.path() / ("rank" + std::to_string(rank_id) + "_ascend_pt");
    ASSERT_TRUE(
        db.Write(rank / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(rank_id) + ".db"))
            .ok());
    ASSERT_TRUE(engine::WriteDeviceInfo(rank, rank_id, "20", "\"1800\"").ok());
  };
  write_rank(0, false);
  write_rank(1, true);
  const auto result = RunOpmfu({"report", "-d", dir.path().string(), "--format", "json"});
  const json derived = json::parse(result.out)["derived"];
  ASSERT_EQ(derived["groups"].size(), 2U) << derived.dump(2);
  const json* small = FindGroup(derived, "MatMulSmall", "64,32;32,16");
  const json* big = FindGroup(derived, "MatMulBig", "128,64;64,32");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ((*small)["count"], 2);
  EXPECT_EQ((*small)["flops"].get<double>(), 65536.0);
  EXPECT_EQ((*big)["count"], 2);
  EXPECT_EQ((*big)["flops"].get<double>(), 524288.0);
  ASSERT_EQ(derived["ranks"].size(), 2U);
  EXPECT_EQ(derived["ranks"][1]["derived_kernels"], 2);
}

// `opmfu gate --mfu-source derived` on a run without FLOPs records: the upstream analysis fails
// the rank, the derived figures do not need records.
class DerivedGate : public ::testing::Test {
 protected:
  void SetUp() override { WriteLevel1LikeRank(dir_.path()); }
  json Gate(std::vector<std::string> args, int expected_exit) const {
    args.insert(args.begin(), {"gate", "-d", dir_.path().string(), "--mfu-source", "derived"});
    args.insert(args.end(), {"--output-format", "json"});
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, expected_exit) << result.out << result.err;
    return json::parse(result.out.empty() ? "{}" : result.out);
  }
  TempDir dir_;
  // Conv2D1 and the addmm: (11,993,907,200 + 2,415,919,104) FLOPs in (314,667 + 358,247) ns against
  // 24 x 1800 MHz x 8192 = 353.8944 TFLOPS: 6.06%.
  const double mfu_ = (11993907200.0 + 2415919104.0) / ((314667 + 358247) * 1e-9 * 353.8944e12);
  // Derived time over all kernel time (the input gradient and the TransData are skipped).
  const double coverage_ = (314667.0 + 358247) / (314667.0 + 358247 + 151643 + 71701);
};

TEST_F(DerivedGate, PassesAndFailsAtTheDerivedMfu) {
  const auto ratio = [](double value) { return std::to_string(value); };
  json passed = Gate({"--chip", "Ascend910B2", "--min-mfu", ratio(mfu_ - 1e-4)}, 0);
  EXPECT_EQ(passed["mfu_source"], "derived");
  EXPECT_EQ(passed["derived"]["label"], "derived from kernel shapes (not msprof-analyze)");
  EXPECT_EQ(passed["derived"]["derived_kernels"], 2);
  ASSERT_EQ(passed["checks"].size(), 1U);  // no gate/incomplete: the rank's kernels were all read
  EXPECT_EQ(passed["checks"][0]["subject"], "derived kernels");
  EXPECT_NEAR(passed["checks"][0]["actual"].get<double>(), mfu_, 1e-12);
  // The message says what the figure rests on.
  EXPECT_NE(passed["checks"][0]["message"].get<std::string>().find("2 of 4 kernels"), std::string::npos)
      << passed.dump(2);
  json failed = Gate({"--chip", "Ascend910B2", "--min-mfu", ratio(mfu_ + 1e-4)}, 1);
  EXPECT_FALSE(failed["passed"]);
  // --peak-tflops gives the same peak.
  json peak = Gate({"--peak-tflops", "353.8944", "--min-mfu", ratio(mfu_ - 1e-4)}, 0);
  EXPECT_NEAR(peak["checks"][0]["actual"].get<double>(), mfu_, 1e-12);

  // Per kernel op type: Conv2D alone, 11,993,907,200 / (314,667 ns x 353.8944 TFLOPS) = 10.77%.
  const double conv = 11993907200.0 / (314667e-9 * 353.8944e12);
  json by_type = Gate({"--chip", "Ascend910B2", "--min-mfu-op", "Conv2D=" + ratio(conv - 1e-4), "--min-mfu-op",
                       "Conv2DBackpropInput=0.01"},
                      1);
  ASSERT_EQ(by_type["checks"].size(), 2U);
  EXPECT_TRUE(by_type["checks"][0]["passed"]);
  EXPECT_NEAR(by_type["checks"][0]["actual"].get<double>(), conv, 1e-12);
  // An op type with no derived kernel fails rather than passing vacuously.
  EXPECT_FALSE(by_type["checks"][1]["passed"]);
  EXPECT_NE(by_type["checks"][1]["message"].get<std::string>().find("no kernel of this op type has derived FLOPs"),
            std::string::npos);

  // Text output states the source and the coverage before the checks.
  const auto text = RunOpmfu(
      {"gate", "-d", dir_.path().string(), "--mfu-source", "derived", "--chip", "Ascend910B2", "--min-mfu", "1%"});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_EQ(text.out.rfind("MFU derived from kernel shapes (not msprof-analyze): FLOPs derived for 2 of 4 kernels", 0),
            0U)
      << text.out;
}

TEST_F(DerivedGate, CoverageIsTheShareOfKernelTimeDerived) {
  json passed = Gate({"--min-coverage", std::to_string(coverage_ - 1e-4)}, 0);
  ASSERT_EQ(passed["checks"].size(), 1U);
  EXPECT_EQ(passed["checks"][0]["subject"], "rank 0 derived coverage");
  EXPECT_NEAR(passed["checks"][0]["actual"].get<double>(), coverage_, 1e-12);
  Gate({"--min-coverage", std::to_string(coverage_ + 1e-4)}, 1);
  // Against itself as the baseline nothing dropped.
  json drop = Gate({"--chip", "Ascend910B2", "--baseline", dir_.path().string(), "--max-drop", "0"}, 0);
  EXPECT_NEAR(drop["checks"][0]["actual"].get<double>(), 0.0, 1e-12);
}

// A gate on nothing never passes: no peak, or no kernel whose FLOPs could be derived, fails the
// MFU check with the reason; a derived gate on a cluster DB is a usage error.
TEST_F(DerivedGate, NothingToMeasureFailsWithTheReason) {
  json no_peak = Gate({"--min-mfu", "1%"}, 1);
  EXPECT_TRUE(no_peak["checks"][0]["actual"].is_null());
  EXPECT_NE(no_peak["checks"][0]["message"].get<std::string>().find("pass --chip NAME or --peak-tflops"),
            std::string::npos)
      << no_peak.dump(2);

  TempDir other;
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::add", 1000, 1100);
  engine::ProfilingDbBuilder::Kernel add;
  add.name = "Add1";
  add.op_type = "Add";
  add.start = 1500;
  add.end = 2500;
  db.AddKernel({op}, add);
  const fs::path rank = other.path() / "rank0_ascend_pt";
  ASSERT_TRUE(db.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  const auto nothing = RunOpmfu(
      {"gate", "-d", other.path().string(), "--mfu-source", "derived", "--chip", "Ascend910B2", "--min-mfu", "1%"});
  EXPECT_EQ(nothing.exit_code, 1) << nothing.out << nothing.err;
  EXPECT_NE(nothing.out.find("none of the 1 kernels has FLOPs derivable from its shapes"), std::string::npos)
      << nothing.out;
  EXPECT_NE(nothing.out.find("not a matmul, convolution or attention kernel"), std::string::npos) << nothing.out;
  EXPECT_NE(nothing.out.find("gate failed"), std::string::npos) << nothing.out;

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"gate", "--db", (dir_.path() / "x.db").string(), "--mfu-source", "derived",
                                 "--min-mfu", "1%"},
        {"gate", "-d", dir_.path().string(), "--chip", "Ascend910B2", "--min-mfu", "1%"},
        {"gate", "-d", dir_.path().string(), "--mfu-source", "estimated", "--min-mfu", "1%"},
        {"gate", "-d", dir_.path().string(), "--mfu-source", "derived", "--chip", "Ascend999", "--min-mfu", "1%"}}) {
    const auto refused = RunOpmfu(args);
    EXPECT_EQ(refused.exit_code, 2) << args[args.size() - 3] << ": " << refused.out;
    EXPECT_FALSE(refused.err.empty());
  }
}

// `analyze --derived` adds DerivedMFU and leaves upstream's tables exactly as without the flag.
TEST(DerivedTable, OnDemoDataSitsBesideUpstreamsUntouchedTables) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "2", "--steps", "1", "--layers", "2"}).exit_code, 0);
  const fs::path plain = dir.path() / "plain";
  const fs::path with = dir.path() / "with";
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo.string(), "-o", plain.string()}).exit_code, 0);
  const auto result = RunOpmfu({"analyze", "-d", demo.string(), "-o", with.string(), "--derived", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const fs::path plain_db = plain / "cluster_analysis_output" / "cluster_analysis.db";
  const fs::path with_db = with / "cluster_analysis_output" / "cluster_analysis.db";
  for (const std::string table : {"OperatorMFU", "ModuleMFU"}) {
    EXPECT_EQ(TableRows(with_db, table), TableRows(plain_db, table)) << table;
  }
  {
    auto db = Database::OpenReadOnly(plain_db);
    EXPECT_FALSE(*db->HasTable("DerivedMFU"));  // without the flag, no table of ours
  }
  const json summary = json::parse(result.out);
  const std::vector<std::string> rows = TableRows(with_db, "DerivedMFU");  // its schema, then its rows
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(summary["derived_mfu_rows"].get<std::size_t>(), rows.size() - 1);

  // Every matmul row of OperatorMFU has the FLOPs of its signature in DerivedMFU (same rank).
  auto db = Database::OpenReadOnly(with_db);
  ASSERT_TRUE(db.ok());
  auto joined = db->Prepare(
      "SELECT o.flops, d.flops, d.basis, d.mfu FROM OperatorMFU o JOIN DerivedMFU d ON d.rank_id = o.rank_id AND "
      "d.kernel_name = o.kernel_name AND d.input_shapes = o.input_shapes WHERE o.kernel_name LIKE '%MatMul%'");
  ASSERT_TRUE(joined.ok());
  std::size_t matched = 0;
  while (*joined->Step()) {
    ++matched;
    EXPECT_EQ(joined->Double(1), static_cast<double>(joined->Int64(0)));
    EXPECT_EQ(joined->Text(2), "derived from kernel shapes (not msprof-analyze)");
    EXPECT_FALSE(joined->IsNull(3));  // the demo has info.json: a peak, so an MFU
  }
  EXPECT_GE(matched, 12U);
  // Skipped signatures are rows too, with their reason and no FLOPs; both ranks are there.
  auto skipped = db->Prepare(
      "SELECT COUNT(*), COUNT(DISTINCT rank_id) FROM DerivedMFU WHERE flops IS NULL AND skip_reason IS NOT NULL");
  ASSERT_TRUE(skipped.ok());
  ASSERT_TRUE(*skipped->Step());
  EXPECT_GT(skipped->Int64(0), 0);
  EXPECT_EQ(skipped->Int64(1), 2);

  // A later analysis without --derived replaces the rows DerivedMFU was made from: it drops the table
  // in the same write.
  const auto again = RunOpmfu({"analyze", "-d", demo.string(), "-o", with.string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  auto after = Database::OpenReadOnly(with / "cluster_analysis_output" / "cluster_analysis.db");
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(*after->HasTable("DerivedMFU"));
  EXPECT_TRUE(*after->HasTable("OperatorMFU"));
  EXPECT_EQ(again.err.find("DerivedMFU"), std::string::npos) << again.err;
}

// A run without FLOPs records: the analysis writes nothing, --derived writes DerivedMFU alone.
TEST(DerivedTable, ARunWithoutFlopsRecordsGetsATableOfItsOwn) {
  TempDir dir;
  WriteLevel1LikeRank(dir.path());
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "--derived", "--chip", "Ascend910B2"});
  EXPECT_EQ(result.exit_code, 1) << result.err;  // the rank fails upstream's analysis (no records)
  EXPECT_NE(result.out.find("DerivedMFU: 4 rows"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Wrote "), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("Nothing written"), std::string::npos) << result.out;  // it was: DerivedMFU
  const fs::path db_path = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
  auto db = Database::OpenReadOnly(db_path);
  ASSERT_TRUE(db.ok()) << result.out << result.err;
  EXPECT_FALSE(*db->HasTable("OperatorMFU"));
  auto conv = db->Prepare(
      "SELECT flops, padded, mfu, chip_peak_tflops, kernel_count, \"total_duration(ns)\", family FROM DerivedMFU "
      "WHERE kernel_name = 'Conv2D1'");
  ASSERT_TRUE(conv.ok());
  ASSERT_TRUE(*conv->Step());
  // 2*(32*55*55)*(121*8)*(4*16) = 11,993,907,200 in 314,667 ns against 353.8944 TFLOPS.
  EXPECT_EQ(conv->Double(0), 11993907200.0);
  EXPECT_EQ(conv->Int64(1), 1);
  EXPECT_NEAR(conv->Double(2), 11993907200.0 / (314667e-9 * 353.8944e12), 1e-12);
  EXPECT_NEAR(conv->Double(3), 353.8944, 1e-9);
  EXPECT_EQ(conv->Int64(4), 1);
  EXPECT_EQ(conv->Int64(5), 314667);
  EXPECT_EQ(conv->Text(6), "convolution");
  auto skipped = db->Prepare("SELECT flops, skip_reason, mfu FROM DerivedMFU WHERE op_type = 'Conv2DBackpropInput'");
  ASSERT_TRUE(skipped.ok());
  ASSERT_TRUE(*skipped->Step());
  EXPECT_TRUE(skipped->IsNull(0));
  EXPECT_NE(std::string(skipped->Text(1)).find("depends on the stride"), std::string::npos);
  EXPECT_TRUE(skipped->IsNull(2));
  // Coverage from the table alone: (314,667 + 358,247) of all 896,258 ns.
  auto coverage = db->Prepare(
      "SELECT SUM(CASE WHEN flops IS NOT NULL THEN \"total_duration(ns)\" ELSE 0 END), SUM(\"total_duration(ns)\") "
      "FROM DerivedMFU");
  ASSERT_TRUE(coverage.ok());
  ASSERT_TRUE(*coverage->Step());
  EXPECT_EQ(coverage->Int64(0), 314667 + 358247);
  EXPECT_EQ(coverage->Int64(1), 314667 + 358247 + 151643 + 71701);
}

TEST(DerivedTable, RefusesWhatItCannotWriteHonestly) {
  TempDir dir;
  WriteLevel1LikeRank(dir.path());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"analyze", "-d", dir.path().string(), "--derived", "--export-type", "csv"},
        {"analyze", "-d", dir.path().string(), "--chip", "Ascend910B2"},
        {"analyze", "-d", dir.path().string(), "--derived", "--chip", "Ascend999"}}) {
    const auto refused = RunOpmfu(args);
    EXPECT_EQ(refused.exit_code, 2) << args.back() << ": " << refused.out;
    EXPECT_FALSE(refused.err.empty());
  }
  EXPECT_FALSE(fs::exists(dir.path() / "cluster_analysis_output"));
  // An earlier analysis' DB that this run does not replace is not mixed with its derived rows.
  const fs::path db_path = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
  fs::create_directories(db_path.parent_path());
  {
    auto earlier = Database::OpenForWrite(db_path);
    ASSERT_TRUE(earlier.ok());
    ASSERT_TRUE(earlier->Execute("CREATE TABLE OperatorMFU (rank_id INTEGER)").ok());
  }
  const auto mixed = RunOpmfu({"analyze", "-d", dir.path().string(), "--derived"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("holds an earlier analysis' tables"), std::string::npos) << mixed.err;
  auto db = Database::OpenReadOnly(db_path);
  EXPECT_FALSE(*db->HasTable("DerivedMFU"));
}

// HFU from the Db export's hardware counters: TASK_PMU_INFO's aic_mac_ratio (one row per task and
// counter, the name a STRING_IDS id), time-weighted per kernel group as from kernel_details.csv.
TEST(DerivedReport, HfuFromTheDbExportsPmuTable) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "1", "--steps", "1", "--layers", "2"}).exit_code, 0);
  fs::path rank_db;
  for (const auto& entry : fs::recursive_directory_iterator(demo)) {
    if (entry.path().filename() == "ascend_pytorch_profiler_0.db") rank_db = entry.path();
  }
  ASSERT_FALSE(rank_db.empty());
  const auto before = json::parse(RunOpmfu({"report", "-d", demo.string(), "--format", "json"}).out)["derived"];
  EXPECT_TRUE(before["hfu_counters"].empty());
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(rank_db.c_str(), &raw), SQLITE_OK);
    std::unique_ptr<sqlite3, decltype(&sqlite3_close)> handle(raw, &sqlite3_close);
    // Every kernel of a matmul signature (any case) busy 0.25 of its time, the others 0.5; a counter opmfu
    // does not read, and a NULL, beside them.
    const char* sql =
        "CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value NUMERIC);"
        "INSERT INTO STRING_IDS (id, value) VALUES (900001, 'aic_mac_ratio'), (900002, 'aic_mte2_ratio');"
        "INSERT INTO TASK_PMU_INFO SELECT c.globalTaskId, 900001, CASE WHEN s.value LIKE '%MatMul%' THEN 0.25 "
        "ELSE 0.5 END FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.name;"
        "INSERT INTO TASK_PMU_INFO SELECT globalTaskId, 900002, 0.9 FROM COMPUTE_TASK_INFO;"
        "INSERT INTO TASK_PMU_INFO SELECT globalTaskId, 900001, NULL FROM COMPUTE_TASK_INFO LIMIT 1;";
    ASSERT_EQ(sqlite3_exec(handle.get(), sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(handle.get());
  }
  const auto result = RunOpmfu({"report", "-d", demo.string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json derived = json::parse(result.out)["derived"];
  EXPECT_EQ(derived["hfu_counters"], json::array({"aic_mac_ratio (PipeUtilization)"}));
  ASSERT_EQ(derived["groups"].size(), before["groups"].size());
  std::size_t matmuls = 0;
  for (const json& group : derived["groups"]) {
    std::string name = group["kernel_name"].get<std::string>();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool matmul = name.find("matmul") != std::string::npos;  // as SQL's LIKE, case-blind
    matmuls += matmul ? 1 : 0;
    EXPECT_NEAR(group["hfu_mac_ratio"].get<double>(), matmul ? 0.25 : 0.5, 1e-12) << group.dump();
    EXPECT_TRUE(group["hfu_cube_fops"].is_null());
  }
  EXPECT_GT(matmuls, 0U);
  // The rest of the section is what it was without the counters.
  EXPECT_EQ(derived["weighted_mfu"], before["weighted_mfu"]);
  EXPECT_EQ(derived["compared"], before["compared"]);
  const auto text = RunOpmfu({"report", "-d", demo.string()});
  EXPECT_NE(text.out.find("HFU (mac): hardware counter aic_mac_ratio"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace opmfu
