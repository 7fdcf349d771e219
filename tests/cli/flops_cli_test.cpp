// `opmfu flops`: the calculator from the command line (the formulas themselves are tested in
// tests/unit/builtin_flops_test.cpp).

#include <gtest/gtest.h>

#include <filesystem>
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
  const auto parsed = nlohmann::json::parse(named.out);
  EXPECT_EQ(parsed["flops"], 4294967296LL);  // 2*2*8*(1024^2/2)*256
  EXPECT_EQ(parsed["message"], "4294967296-npu_fusion_attention");
  EXPECT_EQ(parsed["target"], "torch_npu:npu_fusion_attention");
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

TEST(FlopsCli, FillsArgumentsThatDoNotChangeTheFlopsAndNamesThemInOneNote) {
  // The command of the issue that used to fail four times, once per unread argument.
  const auto answered =
      RunOpmfu({"flops", "npu_alltoallv_gmm", "--arg", "gmm_x=[4096,7168]", "--arg", "gmm_weight=[4,7168,2048]"});
  ASSERT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_NE(answered.out.find("note: not given, as their values do not change the FLOPs: hcom, ep_world_size, "
                              "send_counts, recv_counts\n"),
            std::string::npos)
      << answered.out;
  EXPECT_NE(answered.out.find(" FLOPs ("), std::string::npos) << answered.out;
  const auto as_json = RunOpmfu({"flops", "npu_alltoallv_gmm", "--arg", "gmm_x=[4096,7168]", "--arg",
                                 "gmm_weight=[4,7168,2048]", "--format", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const auto parsed = nlohmann::json::parse(as_json.out);
  EXPECT_EQ(parsed["not_given"], nlohmann::json::parse(R"(["hcom","ep_world_size","send_counts","recv_counts"])"));
  EXPECT_EQ(parsed["notes"].size(), 1U);
  EXPECT_EQ(parsed["flops"], 2LL * 4096 * 7168 * 2048);  // gmm_x's rows through one expert's weight
  EXPECT_TRUE(parsed["arguments"]["hcom"].is_null());

  // An argument that matters and is missing: one error naming every missing one.
  const auto missing = RunOpmfu({"flops", "npu_alltoallv_gmm", "--arg", "hcom=group"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing the required arguments `gmm_x` and `gmm_weight`, which the formula reads"),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("3 more (ep_world_size, send_counts, recv_counts) would be filled as not given"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find("opmfu: error:", missing.err.find("opmfu: error:") + 1), std::string::npos)
      << "one error, not one per argument: " << missing.err;
}

TEST(FlopsCli, ListsTheFifteenBuiltInTargetsAndTheVersions) {
  const auto list = RunOpmfu({"flops", "--list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 17) << list.out;
  EXPECT_NE(list.out.find("torch.nn.functional:linear"), std::string::npos);
  EXPECT_NE(list.out.find("v26.1.0 (default) v26.1.0-beta.2"), std::string::npos) << list.out;
}

TEST(FlopsCli, IgnoresKeywordsTheFormulaTakesInKwargsAndSaysSo) {
  const auto run = RunOpmfu({"flops", "npu_fusion_attention", "[2,8,16,64]", "[2,8,16,64]", "[2,8,16,64]", "8", "BNSD",
                             "--arg", "num_heads=8", "--arg", "atten_mask=None", "--arg", "scale=0.125"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("ignored, as torch_npu's formula takes them in **kwargs: num_heads=8\n"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("formulas: torch_npu v26.1.0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(query=[2, 8, 16, 64], key=[2, 8, 16, 64], value=[2, 8, 16, 64], head_num=8, "
                         "input_layout='BNSD', atten_mask=None, scale=0.125)"),
            std::string::npos)
      << run.out;
}

TEST(FlopsCli, AnExplicitNoneRaisesWhereItRaisesInPython) {
  const auto run = RunOpmfu({"flops", "npu_transpose_batchmatmul", "[8,16,32]", "[8,32,4]", "--arg", "perm_x1=None"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("`perm_x1` is None"), std::string::npos) << run.err;
}

TEST(FlopsCli, PrintsWhatTheFormulaRecordsEvenWhenTorchRejectsTheOp) {
  const auto run = RunOpmfu({"flops", "torch:nn.functional.linear", "[4,32]", "[16,64]"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("range message: 8192-linear"), std::string::npos) << run.out;  // 2*4*16*64
  EXPECT_NE(run.err.find("warning"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("inner dimensions differ"), std::string::npos) << run.err;
}

TEST(FlopsCli, WritesValuesPastTwoToTheSixtyThreeAsText) {
  const auto run = RunOpmfu({"flops", "mm", "[4294967296,4294967296]", "[4294967296,8]", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto parsed = nlohmann::json::parse(run.out);
  EXPECT_EQ(parsed["flops"], "295147905179352825856");
  EXPECT_EQ(parsed["message"], "295147905179352825856-mm");
}

TEST(FlopsCli, ComputesTheOtherReleaseOnRequestOrFromAnInstalledFile) {
  const std::vector<std::string> gqa = {"flops", "npu_fusion_attention", "--arg", "query=[1,512,4096]",
                                        "--arg", "key=[1,512,1024]",     "--arg", "value=[1,512,1024]",
                                        "--arg", "head_num=32",          "--arg", "input_layout=BSH"};
  const auto newest = RunOpmfu(gqa);
  ASSERT_EQ(newest.exit_code, 0) << newest.err;
  EXPECT_NE(newest.out.find("range message: 4294967296-npu_fusion_attention"), std::string::npos) << newest.out;
  EXPECT_NE(newest.out.find("with the v26.1.0-beta.2 formulas: 2684354560-npu_fusion_attention"), std::string::npos)
      << newest.out;

  std::vector<std::string> beta = gqa;
  beta.insert(beta.end(), {"--formulas-version", "v26.1.0-beta.2"});
  const auto older = RunOpmfu(beta);
  ASSERT_EQ(older.exit_code, 0) << older.err;
  EXPECT_NE(older.out.find("range message: 2684354560-npu_fusion_attention"), std::string::npos) << older.out;

  testing::TempDir dir;
  const auto file = dir.Write("torch_npu/profiler/_flops_formulas.py",
                              "def _calculate_tnd_layout_flops(q_lens, kv_lens):\n"
                              "    if any(length <= 0 for length in q_lens + kv_lens):\n"
                              "        raise ValueError('bad lengths')\n");
  std::vector<std::string> installed = gqa;
  installed.insert(installed.end(), {"--formulas", file.string()});
  const auto from_file = RunOpmfu(installed);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.out.find("range message: 2684354560-npu_fusion_attention"), std::string::npos) << from_file.out;
  EXPECT_NE(from_file.out.find("formulas: torch_npu v26.1.0-beta.2 (recognized in"), std::string::npos)
      << from_file.out;

  const auto unknown = dir.Write("other.py", "x = 1\n");
  std::vector<std::string> cannot_tell = gqa;
  cannot_tell.insert(cannot_tell.end(), {"--formulas", unknown.string()});
  const auto guessed = RunOpmfu(cannot_tell);
  ASSERT_EQ(guessed.exit_code, 0) << guessed.err;
  EXPECT_NE(guessed.err.find("cannot tell"), std::string::npos) << guessed.err;

  // --installed finds the file as `registry` commands do: here through an interpreter's sys.path.
  const auto python =
      dir.Write("bin/python", "#!/bin/sh\necho '[\"" + (dir.path() / "torch_npu/..").string() + "\"]'\n");
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  std::vector<std::string> located = gqa;
  located.insert(located.end(), {"--installed", "--python", python.string()});
  const auto from_sys_path = RunOpmfu(located);
  ASSERT_EQ(from_sys_path.exit_code, 0) << from_sys_path.err;
  EXPECT_NE(from_sys_path.out.find("range message: 2684354560-npu_fusion_attention"), std::string::npos)
      << from_sys_path.out;
  located.insert(located.end(), {"--formulas-version", "v26.1.0"});
  EXPECT_EQ(RunOpmfu(located).exit_code, 2);  // one source of the version at a time
  std::vector<std::string> python_alone = gqa;
  python_alone.insert(python_alone.end(), {"--python", python.string()});
  EXPECT_EQ(RunOpmfu(python_alone).exit_code, 2);

  std::vector<std::string> bad = gqa;
  bad.insert(bad.end(), {"--formulas-version", "v1"});
  EXPECT_EQ(RunOpmfu(bad).exit_code, 2);
}

TEST(RegistryListCli, ShowsTheReleaseOfTheBuiltInFormulasItRead) {
  testing::TempDir dir;
  dir.Write("site/torch_npu-2.7.1.post3.dist-info/METADATA", "Name: torch-npu\nVersion: 2.7.1.post3\n");
  const auto file = dir.Write("site/torch_npu/profiler/_flops_formulas.py",
                              "@register_npu_flop(target=\"torch:mm\", is_default=True)\n"
                              "def mm_flops(input, other, **kwargs):\n"
                              "    return 0\n\n\n"
                              "def _infer_kv_heads(q_shape, k_shape, input_layout, q_heads):\n"
                              "    return q_heads\n\n\n"
                              "def _tnd(q_lens, kv_lens):\n"
                              "    if any(length < 0 for length in q_lens + kv_lens):\n"
                              "        raise ValueError('bad lengths')\n");
  const auto table = RunOpmfu({"registry", "list", "--formulas", file.string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("built-in formulas: torch_npu v26.1.0 (defines `_infer_kv_heads`"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("; installed torch_npu 2.7.1.post3"), std::string::npos) << table.out;
  const auto listed = RunOpmfu({"registry", "list", "--formulas", file.string(), "--format", "json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto document = nlohmann::json::parse(listed.out);
  EXPECT_EQ(document["formulas_version"], "v26.1.0");
  EXPECT_EQ(document["torch_npu_version"], "2.7.1.post3");
}

}  // namespace
}  // namespace opmfu
