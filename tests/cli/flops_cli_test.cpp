// `opmfu flops`: the calculator from the command line (the formulas themselves are tested in
// tests/unit/builtin_flops_test.cpp).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace opmfu {
namespace {

using testing::RunOpmfu;

TEST(FlopsCli, ComputesFromPositionalAndNamedArguments) {
  const auto positional = RunOpmfu({"flops", "mm", "[1024,512]", "[512,256]"});
  EXPECT_EQ(positional.exit_code, 0) << positional.err;
  EXPECT_NE(positional.out.find("268435456 FLOPs"), std::string::npos) << positional.out;
  EXPECT_NE(positional.out.find("range message: 268435456-mm"), std::string::npos) << positional.out;

  const auto named = RunOpmfu({"flops", "npu_fusion_attention", "--arg", "query=[2,8,1024,128]", "--arg",
                               "key=[2,8,1024,128]", "--arg", "value=[2,8,1024,128]", "--arg", "head_num=8", "--arg",
                               "input_layout=BNSD", "--arg", "sparse_mode=3", "--format", "json"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  const auto json = nlohmann::json::parse(named.out);
  EXPECT_EQ(json["flops"], 4294967296LL);  // 2*2*8*(1024^2/2)*256
  EXPECT_EQ(json["message"], "4294967296-npu_fusion_attention");
  EXPECT_EQ(json["target"], "torch_npu:npu_fusion_attention");
}

TEST(FlopsCli, RefusesWhatTheFormulaCannotComputeWithExitTwo) {
  const auto sparse =
      RunOpmfu({"flops", "npu_fusion_attention", "--arg", "query=[1,8,64,64]", "--arg", "key=[1,8,64,64]", "--arg",
                "value=[1,8,64,64]", "--arg", "head_num=8", "--arg", "input_layout=BNSD", "--arg", "sparse_mode=1"});
  EXPECT_EQ(sparse.exit_code, 2);
  EXPECT_TRUE(sparse.out.empty()) << sparse.out;
  EXPECT_NE(sparse.err.find("sparse_mode=1"), std::string::npos) << sparse.err;

  const auto unknown = RunOpmfu({"flops", "conv2d", "[1,3,224,224]"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("not a built-in FLOPs target"), std::string::npos) << unknown.err;

  const auto bad_arg = RunOpmfu({"flops", "mm", "--arg", "input"});
  EXPECT_EQ(bad_arg.exit_code, 2);
  EXPECT_NE(bad_arg.err.find("NAME=VALUE"), std::string::npos) << bad_arg.err;

  const auto option = RunOpmfu({"flops", "mm", "[2,2]", "--nope"});
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_NE(option.err.find("--nope"), std::string::npos) << option.err;
}

TEST(FlopsCli, ListsTheFifteenBuiltInTargets) {
  const auto list = RunOpmfu({"flops", "--list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 15) << list.out;
  EXPECT_NE(list.out.find("torch.nn.functional:linear"), std::string::npos);
}

}  // namespace
}  // namespace opmfu
