// `opmfu audit` and `opmfu registry verify` on a hand-made rank whose every FLOPs record has a
// known right or wrong value.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
    Op("aten::mm", "65536-mm", {{"MatMulV2", "64,32;32,16"}});          // 2*64*16*32: right
    Op("aten::mm", "131072-mm", {{"MatMulV2", "64,32;32,16"}});         // twice the shapes' FLOPs
    Op("aten::linear", "65536-linear", {{"MatMulV3", "64,32;16,32"}});  // weight stored [out, in]: right
    Op("aten::mm", "16384-mm", {{"MatMulV2", "16,32;32,16"}});          // [16,32]x[32,16] or both transposed
    Op("npu_fusion_attention", "1000-npu_fusion_attention", {{"FlashAttentionScore", "1,8,64,64;1,8,64,64"}});
    Op("my_op", "5000-my_op", {{"MyKernel", "8,8"}});  // a custom registration
    Op("aten::mm", "65536-mm", {{"TransData", "32,16"}, {"MatMulV2", "64,32;32,16"}});
    const fs::path rank = dir_.path() / "worker_0_20250101000000000_ascend_pt";
    ASSERT_TRUE(db_.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
    ASSERT_TRUE(engine::WriteDeviceInfo(rank, 0, "20", "\"1800\"").ok());
  }

  void Op(const char* name, const char* message, std::vector<std::pair<const char*, const char*>> kernels) {
    const std::int64_t start = clock_;
    const std::int64_t op = db_.AddOp(name, start, start + 100);
    db_.AddMstx("mfu_flops", message, start - 10, start + 110);
    std::int64_t kernel_start = start + 200;
    for (const auto& [kernel_name, shapes] : kernels) {
      engine::ProfilingDbBuilder::Kernel kernel;
      kernel.name = kernel_name;
      kernel.start = kernel_start;
      kernel.end = kernel_start + 1000;
      kernel.input_types = "FLOAT16;FLOAT16";
      kernel.input_shapes = std::string("\"") + shapes + "\"";
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
  EXPECT_EQ(audit["rows"], 8U);
  EXPECT_EQ(audit["checked"], 4U);  // both right mm, the doubled mm, the transposed linear
  EXPECT_EQ(audit["agreed"], 3U);
  ASSERT_EQ(audit["disagreements"].size(), 1U);
  const json& wrong = audit["disagreements"][0];
  EXPECT_EQ(wrong["recorded"], 131072);
  EXPECT_EQ(wrong["recomputed"], 65536);
  EXPECT_NE(wrong["likely_cause"].get<std::string>().find("2 times"), std::string::npos);
  const std::string skipped = audit["skipped"].dump();
  EXPECT_NE(skipped.find("more than one matmul"), std::string::npos) << skipped;     // 16,32;32,16
  EXPECT_NE(skipped.find("does not record (layout"), std::string::npos) << skipped;  // attention
  EXPECT_NE(skipped.find("not a built-in target"), std::string::npos) << skipped;    // my_op
  EXPECT_NE(skipped.find("an auxiliary kernel"), std::string::npos) << skipped;      // TransData

  // Within a tolerance of 100% the doubled record agrees.
  EXPECT_EQ(RunOpmfu({"audit", "-d", dir_.path().string(), "--tolerance", "100%"}).exit_code, 0);
  const auto text = RunOpmfu({"audit", "-d", dir_.path().string()});
  EXPECT_NE(text.out.find("8 OperatorMFU rows: 4 checked (3 agree, 1 disagree), 4 skipped"), std::string::npos)
      << text.out;
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
  EXPECT_NE(mm.out.find("2 of 4 records match; the others record 16384 x1 131072 x1"), std::string::npos) << mm.out;

  const auto typo = RunOpmfu({"registry", "verify", "-d", dir_.path().string(), "--op-name", "my_opp"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.out.find("no records for `my_opp` (did you mean 'my_op'?)"), std::string::npos) << typo.out;

  const auto nothing = RunOpmfu({"registry", "verify", "-d", dir_.path().string()});
  EXPECT_EQ(nothing.exit_code, 2);
}

}  // namespace
}  // namespace opmfu
