// `opmfu audit` and `opmfu registry verify` on a hand-made rank whose every FLOPs record has a
// known right or wrong value.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunOpmfu;
using testing::TempDir;

// Each op gets its own FLOPs range and kernels; times are spaced so no range holds another op.
class AuditFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    Op("aten::mm", "65536-mm", {{"MatMulV2", "64,32;32,16", "64,16"}});          // 2*64*16*32: right
    Op("aten::mm", "131072-mm", {{"MatMulV2", "64,32;32,16", "64,16"}});         // twice the shapes' FLOPs
    Op("aten::linear", "65536-linear", {{"MatMulV3", "64,32;16,32", "64,16"}});  // weight stored [out, in]: right
    // [16,32]x[32,16], or both transposed: ambiguous from the inputs alone; the output [16,16]
    // settles it for the derived count (M=16 from A's rows, K=32): 2*16*32*16 = 16,384, right.
    Op("aten::mm", "16384-mm", {{"MatMulV2", "16,32;32,16", "16,16"}});
    // q, k, v [B=1,N=8,S=64,D=64] in BNSD, softmax_max [1,8,64,8]: 4*B*N*S*S*D = 8,388,608, right.
    Op("npu_fusion_attention", "8388608-npu_fusion_attention",
       {{"FlashAttentionScore", "1,8,64,64;1,8,64,64;1,8,64,64", "1,8,64,8;1,8,64,8;1;1,8,64,64"}});
    Op("my_op", "5000-my_op", {{"MyKernel", "8,8", "8,8"}});  // a custom registration
    Op("aten::mm", "65536-mm", {{"TransData", "32,16", "32,16"}, {"MatMulV2", "64,32;32,16", "64,16"}});
    // The deliberate disagreement only the derived count sees: x [64,32] through 4 experts' [32,16]
    // is 2*64*32*16 = 65,536, recorded 1,000 (the formula check cannot read a group list).
    Op("npu_grouped_matmul", "1000-npu_grouped_matmul", {{"GroupedMatmul", "64,32;4,32,16", "64,16"}});
    // An empty dimension: [64,,32] is not read as [64,32] (which would agree); skipped by both.
    Op("aten::mm", "65536-mm", {{"MatMulV2", "64,,32;32,16", "64,16"}});
    const fs::path rank = dir_.path() / "worker_0_20250101000000000_ascend_pt";
    ASSERT_TRUE(db_.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
    ASSERT_TRUE(engine::WriteDeviceInfo(rank, 0, "20", "\"1800\"").ok());
  }

  struct KernelShapes {
    const char* name;
    const char* inputs;
    const char* outputs;
  };
  void Op(const char* name, const char* message, std::vector<KernelShapes> kernels) {
    const std::int64_t start = clock_;
    const std::int64_t op = db_.AddOp(name, start, start + 100);
    db_.AddMstx("mfu_flops", message, start - 10, start + 110);
    std::int64_t kernel_start = start + 200;
    for (const KernelShapes& shapes : kernels) {
      engine::ProfilingDbBuilder::Kernel kernel;
      kernel.name = shapes.name;
      kernel.op_type = shapes.name;
      kernel.start = kernel_start;
      kernel.end = kernel_start + 1000;
      const std::size_t inputs =
          1 + static_cast<std::size_t>(std::count(shapes.inputs, shapes.inputs + std::strlen(shapes.inputs), ';'));
      std::string types = "FLOAT16";
      for (std::size_t i = 1; i < inputs; ++i) types += ";FLOAT16";
      kernel.input_types = types;
      kernel.input_shapes = std::string("\"") + shapes.inputs + "\"";
      kernel.output_shapes = std::string("\"") + shapes.outputs + "\"";
      db_.AddKernel({op}, kernel);
      kernel_start += 1500;
    }
    clock_ += 10000;
  }

  TempDir dir_;
  engine::ProfilingDbBuilder db_;
  std::int64_t clock_ = 100000;
};

TEST_F(AuditFixture, RecomputesTheGemmsAndFlagsTheDoubledRecord) {
  const auto result = RunOpmfu({"audit", "-d", dir_.path().string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 1) << result.err;  // a disagreement is a finding
  const json audit = json::parse(result.out);
  EXPECT_EQ(audit["rows"], 10U);
  EXPECT_EQ(audit["checked"], 4U);  // both right mm, the doubled mm, the transposed linear
  EXPECT_EQ(audit["agreed"], 3U);
  ASSERT_EQ(audit["disagreements"].size(), 1U);
  const json& wrong = audit["disagreements"][0];
  EXPECT_EQ(wrong["recorded"], 131072);
  EXPECT_EQ(wrong["recomputed"], 65536);
  EXPECT_NE(wrong["likely_cause"].get<std::string>().find("2 times"), std::string::npos);
  const std::string skipped = audit["skipped"].dump();
  EXPECT_NE(skipped.find("more than one matmul"), std::string::npos) << skipped;     // 16,32;32,16
  EXPECT_NE(skipped.find("does not record (layout"), std::string::npos) << skipped;  // attention, grouped
  EXPECT_NE(skipped.find("not a built-in target"), std::string::npos) << skipped;    // my_op
  EXPECT_NE(skipped.find("an auxiliary kernel"), std::string::npos) << skipped;      // TransData
  EXPECT_NE(skipped.find("not readable: a shape with an empty dimension"), std::string::npos) << skipped;

  // Within a tolerance of 100% the doubled record agrees with the formula check (the derived
  // comparison is exact and still flags it).
  const json lenient =
      json::parse(RunOpmfu({"audit", "-d", dir_.path().string(), "--tolerance", "100%", "--format", "json"}).out);
  EXPECT_TRUE(lenient["disagreements"].empty());
  const auto text = RunOpmfu({"audit", "-d", dir_.path().string()});
  EXPECT_NE(text.out.find("10 OperatorMFU rows: 4 checked (3 agree, 1 disagree), 6 skipped"), std::string::npos)
      << text.out;
}

// Every recorded compute kernel against the FLOPs derived from its own shapes, exactly.
TEST_F(AuditFixture, ComparesEveryRecordedKernelWithItsDerivedFlops) {
  const auto result = RunOpmfu({"audit", "-d", dir_.path().string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 1) << result.err;
  const json derived = json::parse(result.out)["derived"];
  ASSERT_TRUE(derived.is_object()) << result.out;
  EXPECT_EQ(derived["label"], "derived from kernel shapes (not msprof-analyze)");
  EXPECT_EQ(derived["tolerance"], 0);
  // The matmuls (the right mm, the doubled one, the linear, the 16x32 one, the one beside the
  // TransData), the attention and the grouped matmul.
  EXPECT_EQ(derived["compared"], 7U) << derived.dump(2);
  EXPECT_EQ(derived["agreed"], 5U) << derived.dump(2);
  ASSERT_EQ(derived["disagreements"].size(), 2U) << derived.dump(2);
  std::map<std::string, json> by_type;
  for (const json& d : derived["disagreements"]) by_type[d["op_type"].get<std::string>()] = d;
  ASSERT_EQ(by_type.count("MatMulV2"), 1U);
  EXPECT_EQ(by_type["MatMulV2"]["recorded"], 131072);
  EXPECT_EQ(by_type["MatMulV2"]["derived"].get<double>(), 65536.0);
  EXPECT_EQ(by_type["MatMulV2"]["op_name"], "aten::mm");
  EXPECT_NE(by_type["MatMulV2"]["likely_cause"].get<std::string>().find("2 times"), std::string::npos);
  ASSERT_EQ(by_type.count("GroupedMatmul"), 1U);
  EXPECT_EQ(by_type["GroupedMatmul"]["recorded"], 1000);
  EXPECT_EQ(by_type["GroupedMatmul"]["derived"].get<double>(), 65536.0);
  EXPECT_EQ(by_type["GroupedMatmul"]["flops_op_name"], "npu_grouped_matmul");
  // The unreadable shape is not compared, and says why.
  EXPECT_NE(derived["not_compared"].dump().find("unreadable shapes: a shape with an empty dimension"),
            std::string::npos)
      << derived.dump(2);

  const auto text = RunOpmfu({"audit", "-d", dir_.path().string()});
  EXPECT_NE(text.out.find("7 kernels with a record compared (5 agree, 2 disagree)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Disagreements with the derived FLOPs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("exact: both come from the same built-in formula code"), std::string::npos) << text.out;

  // From the cluster DB there are no kernel shapes: said, not silently left out.
  ASSERT_EQ(RunOpmfu({"analyze", "-d", dir_.path().string()}).exit_code, 0);
  const auto from_db =
      RunOpmfu({"audit", "--db", (dir_.path() / "cluster_analysis_output" / "cluster_analysis.db").string(), "--format",
                "json"});
  const json db_audit = json::parse(from_db.out);
  EXPECT_TRUE(db_audit["derived"].is_null());
  EXPECT_NE(db_audit["derived_unavailable"].get<std::string>().find("no kernel shapes"), std::string::npos);
}

// On `opmfu demo` data every recorded compute kernel agrees with its derived FLOPs.
TEST(AuditOnDemo, EveryRecordedKernelAgreesWithItsDerivedFlops) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "2", "--steps", "1", "--layers", "2"}).exit_code, 0);
  const auto result = RunOpmfu({"audit", "-d", demo.string(), "--format", "json"});
  const json audit = json::parse(result.out);
  const json& derived = audit["derived"];
  EXPECT_GT(derived["compared"].get<std::size_t>(), 20U) << derived.dump(2);
  EXPECT_EQ(derived["agreed"], derived["compared"]) << derived.dump(2);
  EXPECT_TRUE(derived["disagreements"].empty()) << derived.dump(2);
  EXPECT_EQ(result.exit_code, audit["disagreements"].empty() ? 0 : 1) << result.err;
}

TEST_F(AuditFixture, RegistryVerifyChecksRecordsAgainstTheExpectedValue) {
  const auto linear = RunOpmfu({"registry", "verify", "-d", dir_.path().string(), "--target",
                                "torch.nn.functional:linear", "--expect", "65536"});
  EXPECT_EQ(linear.exit_code, 0) << linear.out << linear.err;
  EXPECT_NE(linear.out.find("expected 65536: 1 of 1 records match"), std::string::npos) << linear.out;
  EXPECT_NE(linear.out.find("verdict: ok"), std::string::npos);

  const auto mm =
      RunOpmfu({"registry", "verify", "-d", dir_.path().string(), "--target", "torch:mm", "--expect", "65536"});
  EXPECT_EQ(mm.exit_code, 1);
  EXPECT_NE(mm.out.find("3 of 5 records match; the others record 16384 x1 131072 x1"), std::string::npos) << mm.out;

  const auto typo = RunOpmfu({"registry", "verify", "-d", dir_.path().string(), "--op-name", "my_opp"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.out.find("no records for `my_opp` (did you mean 'my_op'?)"), std::string::npos) << typo.out;

  const auto nothing = RunOpmfu({"registry", "verify", "-d", dir_.path().string()});
  EXPECT_EQ(nothing.exit_code, 2);
}

}  // namespace
}  // namespace opmfu
