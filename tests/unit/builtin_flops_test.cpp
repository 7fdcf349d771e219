// The built-in FLOPs formulas against values computed by hand from torch_npu's formulas
// (shared/spec/collection-config.md 5.2); each expected number's arithmetic is in its comment.

#include "registry/builtin_flops.h"

#include <gtest/gtest.h>

namespace opmfu::registry {
namespace {

struct FlopsCase {
  const char* target;
  const char* arguments;  // JSON object
  std::int64_t expected;
};

void PrintTo(const FlopsCase& c, std::ostream* out) { *out << c.target << " " << c.arguments; }

Result<std::int64_t> Compute(const char* target, const char* arguments) {
  const BuiltinTarget* found = FindBuiltinTarget(target);
  if (found == nullptr) return Error::Usage(std::string("unknown target ") + target);
  return ComputeBuiltinFlops(*found, nlohmann::json::parse(arguments));
}

class BuiltinFlopsTest : public testing::TestWithParam<FlopsCase> {};

TEST_P(BuiltinFlopsTest, MatchesTheHandComputedValue) {
  const FlopsCase& c = GetParam();
  const Result<std::int64_t> flops = Compute(c.target, c.arguments);
  ASSERT_TRUE(flops.ok()) << flops.error().message;
  EXPECT_EQ(*flops, c.expected);
}

// clang-format off
const FlopsCase kCases[] = {
  // mm: 2*M*N*K
  {"mm", R"({"input":[1024,512],"other":[512,256]})", 268435456},            // 2*1024*256*512
  {"torch:mm", R"({"input":[4096,4096],"other":[4096,4096]})", 137438953472}, // 2*4096^3, the spec's example
  {"mm", R"({"input":[1,1],"other":[1,1]})", 2},
  {"mm", R"({"input":[0,5],"other":[5,7]})", 0},
  // addmm: self and beta/alpha ignored
  {"addmm", R"({"self":[32],"mat1":[128,64],"mat2":[64,32],"beta":0.5})", 524288},  // 2*128*32*64
  // bmm: 2*B*M*N*K
  {"bmm", R"({"input":[8,128,64],"other":[8,64,32]})", 4194304},              // 2*8*128*32*64
  // matmul
  {"matmul", R"({"input":[7],"other":[7]})", 14},                              // 1-D.1-D: 2*n
  {"matmul", R"({"input":[64],"other":[64,32]})", 4096},                       // M=1: 2*32*64
  {"matmul", R"({"input":[16,64],"other":[64]})", 2048},                       // N=1: 2*16*64
  {"matmul", R"({"input":[2,3,16,64],"other":[64,32]})", 393216},              // batch (2,3): 2*6*16*32*64
  {"matmul", R"({"input":[5,1,16,64],"other":[4,64,8]})", 327680},             // batch (5,4): 2*20*16*8*64
  {"matmul", R"({"input":[64],"other":[3,64,8]})", 3072},                      // batch (3), M=1: 2*3*8*64
  // linear: 2*prod(input[:-1])*out*in
  {"linear", R"({"input":[4,128,1024],"weight":[4096,1024],"bias":[4096]})", 4294967296},  // 2*512*4096*1024
  {"torch.nn.functional:linear", R"({"input":[1024],"weight":[10,1024]})", 20480},         // 2*1*10*1024
  // all_gather_base_mm: 2*m_local*world_size*K*N
  {"npu_all_gather_base_mm", R"({"x1":[512,1024],"x2":[1024,2048],"hcom":"g","world_size":8})", 17179869184},
  // transpose_batchmatmul: permute, then 2*prod(in[:-1])*K*N
  {"npu_transpose_batchmatmul", R"({"input":[16,32,64],"weight":[16,64,128]})", 8388608},  // 2*512*64*128
  {"npu_transpose_batchmatmul", R"({"input":[32,16,64],"weight":[16,64,128],"perm_x1":[1,0,2]})", 8388608},
  {"npu_transpose_batchmatmul", R"({"input":[16,32,64],"weight":[16,128,64],"perm_x2":[0,2,1]})", 8388608},
  // grouped_matmul
  {"npu_grouped_matmul", R"({"x":[[16,32],[8,32]],"weight":[[32,64],[32,16]]})", 73728},       // 2*16*32*64+2*8*32*16
  {"npu_grouped_matmul", R"({"x":[[24,32]],"weight":[[32,64],[32,16]],"group_list":[16,8]})", 73728},
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[[32,64],[32,16]],"group_list":[16,24]})", 73728},  // cumulative
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[32,64]})", 98304},                                // 2*24*32*64
  {"npu_grouped_matmul", R"({"x":[2,12,32],"weight":[[32,64],[32,16]],"group_list":[16,8]})", 73728},  // M=2*12
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[[32,64],[32,16],[32,8]],"group_list":[24,0,0]})", 98304},
  // quant_matmul_gelu and gmm_swiglu_quant_v2: 2*prod(x[:-1])*K*N
  {"npu_quant_matmul_gelu", R"({"x1":[128,256],"x2":[256,512],"x1_scale":[128],"x2_scale":[512]})", 33554432},
  {"npu_grouped_matmul_swiglu_quant_v2", R"({"x":[64,128],"weight":[4,128,256],"group_list":[16,16,16,16]})", 4194304},
  // alltoallv_gmm / gmm_alltoallv
  {"npu_alltoallv_gmm", R"({"gmm_x":[64,128],"gmm_weight":[128,256]})", 4194304},                         // 2*64*128*256
  {"npu_alltoallv_gmm", R"({"gmm_x":[64,128],"gmm_weight":[256,128],"trans_gmm_weight":true})", 4194304},  // N=w[-2]
  {"npu_gmm_alltoallv", R"({"gmm_x":[64,128],"gmm_weight":[128,256],"mm_x":[32,128],"mm_weight":[128,64]})", 4718592},
  {"npu_gmm_alltoallv", R"({"gmm_x":[64,128],"gmm_weight":[128,256],"mm_x":[32,128]})", 4194304},  // mm needs both
  {"npu_gmm_alltoallv", R"({"gmm_x":[64,128],"gmm_weight":[128,256],"mm_x":[32,128],"mm_weight":[64,128],"trans_mm_weight":true})", 4718592},
  // npu_fusion_attention, common layouts: 2*B*Nq*score*(Dq+Dv)
  {"npu_fusion_attention", R"({"query":[2,8,1024,128],"key":[2,8,1024,128],"value":[2,8,1024,128],"head_num":8,"input_layout":"BNSD"})", 8589934592},  // 2*2*8*1024*1024*256
  {"npu_fusion_attention", R"({"query":[2,1024,8,128],"key":[2,1024,8,128],"value":[2,1024,8,128],"head_num":8,"input_layout":"BSND"})", 8589934592},
  {"npu_fusion_attention", R"({"query":[2,1024,1024],"key":[2,1024,1024],"value":[2,1024,1024],"head_num":8,"input_layout":"BSH"})", 8589934592},
  {"npu_fusion_attention", R"({"query":[1024,2,1024],"key":[1024,2,1024],"value":[1024,2,1024],"head_num":8,"input_layout":"SBH"})", 8589934592},
  {"npu_fusion_attention", R"({"query":[1,32,512,128],"key":[1,8,512,128],"value":[1,8,512,128],"head_num":32,"input_layout":"BNSD"})", 4294967296},
  // GQA in BSH: kv heads = 1024/(4096/32) = 8, so Dk = Dv = 128 (head_num for both would give 32)
  {"npu_fusion_attention", R"({"query":[1,512,4096],"key":[1,512,1024],"value":[1,512,1024],"head_num":32,"input_layout":"BSH"})", 4294967296},
  // sparse modes: 2 and 3 halve the square part
  {"npu_fusion_attention", R"({"query":[2,8,1024,128],"key":[2,8,1024,128],"value":[2,8,1024,128],"head_num":8,"input_layout":"BNSD","sparse_mode":2})", 4294967296},
  {"npu_fusion_attention", R"({"query":[2,8,1024,128],"key":[2,8,1024,128],"value":[2,8,1024,128],"head_num":8,"input_layout":"BNSD","sparse_mode":3})", 4294967296},
  {"npu_fusion_attention", R"({"query":[1,8,512,128],"key":[1,8,1024,128],"value":[1,8,1024,128],"head_num":8,"input_layout":"BNSD","sparse_mode":2})", 536870912},    // Sq<Skv: Sq^2/2
  {"npu_fusion_attention", R"({"query":[1,8,512,128],"key":[1,8,1024,128],"value":[1,8,1024,128],"head_num":8,"input_layout":"BNSD","sparse_mode":3})", 1610612736},   // Sq*Skv-Sq^2/2
  {"npu_fusion_attention", R"({"query":[1,8,1024,128],"key":[1,8,512,128],"value":[1,8,512,128],"head_num":8,"input_layout":"BNSD","sparse_mode":3})", 536870912},    // Skv^2/2
  {"npu_fusion_attention", R"({"query":[1,8,1024,128],"key":[1,8,512,128],"value":[1,8,512,128],"head_num":8,"input_layout":"BNSD","sparse_mode":2})", 1610612736},   // Sq*Skv-Skv^2/2
  {"npu_fusion_attention", R"({"query":[1,1,3,3],"key":[1,1,3,3],"value":[1,1,3,3],"head_num":1,"input_layout":"BNSD","sparse_mode":2})", 54},  // 2*(9-4.5)*6
  // TND: 2*Nq*(Dq+Dv)*sum(q_i*kv_i); sparse_mode ignored
  {"npu_fusion_attention", R"({"query":[3072,8,128],"key":[3072,8,128],"value":[3072,8,128],"head_num":8,"input_layout":"TND","actual_seq_qlen":[1024,3072],"actual_seq_kvlen":[1024,3072]})", 21474836480},
  {"npu_fusion_attention", R"({"query":[3072,8,128],"key":[3072,8,128],"value":[3072,8,128],"head_num":8,"input_layout":"TND","actual_seq_qlen":[1024,3072],"actual_seq_kvlen":[1024,3072],"sparse_mode":3})", 21474836480},
  {"npu_fusion_attention", R"({"query":[3072,8,128],"key":[3072,8,128],"value":[3072,8,128],"head_num":8,"input_layout":"TND","actual_seq_qlen":[1024,3072,0,0],"actual_seq_kvlen":[1024,3072,0,0]})", 21474836480},
  {"npu_fusion_attention", R"({"query":[3072,8,128],"key":[3072,8,128],"value":[3072,8,128],"head_num":8,"input_layout":"TND","actual_seq_qlen":[1024,1024,3072],"actual_seq_kvlen":[1024,1024,3072]})", 21474836480},  // a zero-length sequence
  // npu_fused_infer_attention_score
  {"npu_fused_infer_attention_score", R"({"query":[1,32,1,128],"key":[1,8,2048,128],"value":[1,8,2048,128],"input_layout":"BNSD","num_heads":32,"num_key_value_heads":8})", 33554432},  // 2*32*1*2048*256
  {"npu_fused_infer_attention_score", R"({"query":[1,1,4096],"key":[1,2048,1024],"value":[1,2048,1024],"input_layout":"BSH","num_heads":32,"num_key_value_heads":8})", 33554432},
  {"npu_fused_infer_attention_score", R"({"query":[1,1,4096],"key":[1,2048,1024],"value":[1,2048,1024],"input_layout":"BSH","num_heads":32})", 20971520},  // kv heads 0 -> 32: Dv=32, 2*32*2048*160
  {"npu_fused_infer_attention_score", R"({"query":[300,4,64],"key":[300,4,64],"value":[300,4,64],"input_layout":"TND","num_heads":4,"actual_seq_lengths":[100,300],"actual_seq_lengths_kv":[100,300]})", 51200000},  // 2*4*128*(100^2+200^2)
  // npu_block_sparse_attention: 2*score*(Dq+Dv), score over valid blocks
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"key":[256,1,64],"value":[256,1,64],"block_sparse_mask":[[[[1,0],[1,1]],[[1,1],[1,1]]]],"block_shape":[128,128],"actual_seq_lengths":[256],"actual_seq_lengths_kv":[256]})", 29360128},  // 7 blocks*128^2*2*128
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"key":[256,1,64],"value":[256,1,64],"block_sparse_mask":[[[[1,0],[1,1]],[[1,1],[1,1]]]],"block_shape":[128,128]})", 29360128},  // lengths default to T
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"key":[256,1,64],"value":[256,1,64],"block_sparse_mask":[[[[true,false],[true,true]],[[1,1],[1,1]]]],"block_shape":[128,128],"actual_seq_lengths":[200],"actual_seq_lengths_kv":[200]})", 18120704},  // partial blocks of 72: 2*70784*128
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(HandComputed, BuiltinFlopsTest, testing::ValuesIn(kCases));

TEST(BuiltinFlops, EveryTargetHasHandComputedCases) {
  EXPECT_EQ(BuiltinTargets().size(), 15U);
  for (const BuiltinTarget& target : BuiltinTargets()) {
    const bool covered = std::any_of(std::begin(kCases), std::end(kCases),
                                     [&](const FlopsCase& c) { return FindBuiltinTarget(c.target) == &target; });
    EXPECT_TRUE(covered) << target.target;
  }
  EXPECT_GE(std::size(kCases), 40U);
}

struct FailureCase {
  const char* target;
  const char* arguments;
  const char* reason;  // a part of the error message
};

void PrintTo(const FailureCase& c, std::ostream* out) { *out << c.target << " " << c.arguments; }

class BuiltinFlopsFailureTest : public testing::TestWithParam<FailureCase> {};

TEST_P(BuiltinFlopsFailureTest, RefusesWithAReason) {
  const FailureCase& c = GetParam();
  const Result<std::int64_t> flops = Compute(c.target, c.arguments);
  ASSERT_FALSE(flops.ok()) << "computed " << *flops;
  EXPECT_NE(flops.error().message.find(c.reason), std::string::npos) << flops.error().message;
}

// clang-format off
const FailureCase kFailures[] = {
  {"npu_fusion_attention", R"({"query":[1,8,64,64],"key":[1,8,64,64],"value":[1,8,64,64],"head_num":8,"input_layout":"BNSD","sparse_mode":1})", "sparse_mode=1"},
  {"npu_fusion_attention", R"({"query":[1,8,64,64],"key":[1,8,64,64],"value":[1,8,64,64],"head_num":8,"input_layout":"BNSD","sparse_mode":4})", "only 0, 2 and 3"},
  {"npu_fusion_attention", R"({"query":[64,8,64],"key":[64,8,64],"value":[64,8,64],"head_num":8,"input_layout":"TND"})", "needs `actual_seq_qlen`"},
  {"npu_fusion_attention", R"({"query":[64,8,64],"key":[64,8,64],"value":[64,8,64],"head_num":8,"input_layout":"TND","actual_seq_qlen":[32,64],"actual_seq_kvlen":[64]})", "same number of sequences"},
  {"npu_fusion_attention", R"({"query":[64,8,64],"key":[64,8,64],"value":[64,8,64],"head_num":8,"input_layout":"TND","actual_seq_qlen":[64,32],"actual_seq_kvlen":[64,32]})", "non-decreasing"},
  {"npu_fusion_attention", R"({"query":[1,64,1000],"key":[1,64,1000],"value":[1,64,1000],"head_num":7,"input_layout":"BSH"})", "divisible"},
  {"npu_fusion_attention", R"({"query":[1,8,64,64],"key":[1,8,64,64],"value":[1,8,64,64],"head_num":8,"input_layout":"BNSD_BSND"})", "invalid input_layout"},
  {"npu_fusion_attention", R"({"query":[8,64,64],"key":[8,64,64],"value":[8,64,64],"head_num":8,"input_layout":"BNSD"})", "must be 4-D"},
  {"npu_fused_infer_attention_score", R"({"query":[1,8,1,64],"key":[1,8,64,64],"value":[1,8,64,64],"num_heads":8})", "needs `input_layout`"},
  {"npu_fused_infer_attention_score", R"({"query":[1,8,1,64],"key":[1,8,64,64],"value":[1,8,64,64],"input_layout":"BNSD"})", "needs `num_heads`"},
  {"mm", R"({"input":[4,8,16],"other":[16,4]})", "must be 2-D"},
  {"mm", R"({"input":[4,8]})", "needs `other`"},
  {"mm", R"({"input":[4,-8],"other":[-8,4]})", "non-negative"},
  {"mm", R"({"input":[4000000000,4000000000],"other":[4000000000,4000000000]})", "2^63-1"},
  {"matmul", R"({"input":[2,4,8],"other":[3,8,4]})", "cannot broadcast"},
  {"matmul", R"({"input":[],"other":[3]})", "0-D"},
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[[32,64],[32,16]],"group_list":[16,9]})", "does not add up"},
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[[32,64],[32,16]]})", "needs `group_list`"},
  {"npu_grouped_matmul", R"({"x":[24,32],"weight":[[32,64],[32,16]],"group_list":[24]})", "expected 2 entries"},
  {"npu_grouped_matmul", R"({"x":[[24,32],[8,32]],"weight":[[32,64],[32,16],[32,8]]})", "same number of tensors"},
  {"npu_transpose_batchmatmul", R"({"input":[32,64],"weight":[64,128]})", "does not match"},
  {"npu_grouped_matmul_swiglu_quant_v2", R"({"x":[64,128],"weight":[[128,256],[128,256]]})", "must be a shape"},
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"value":[256,1,64],"block_sparse_mask":[[[[1]]]],"block_shape":[128]})", "block_shape"},
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"value":[256,1,64],"block_sparse_mask":[[[[1]]]],"block_shape":[128,128],"actual_seq_lengths":[128,256]})", "expected 1 lengths"},
  {"npu_block_sparse_attention", R"({"query":[256,2,64],"value":[256,1,64],"block_sparse_mask":[[1]],"block_shape":[128,128]})", "nested 4 deep"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(CannotApply, BuiltinFlopsFailureTest, testing::ValuesIn(kFailures));

TEST(BuiltinFlops, UnknownTargetsAreNotGuessed) {
  EXPECT_EQ(FindBuiltinTarget("conv2d"), nullptr);
  EXPECT_EQ(FindBuiltinTarget("torch::mm"), nullptr);
  ASSERT_NE(FindBuiltinTarget("torch:addmm"), nullptr);
  // The same object, named from another module boundary.
  EXPECT_EQ(FindBuiltinTarget("torch:nn.functional.linear"), FindBuiltinTarget("torch.nn.functional:linear"));
  EXPECT_EQ(FindBuiltinTarget("torch.nn.functional.linear:"), nullptr);
  EXPECT_EQ(FindBuiltinTarget("torch:addmm")->op_name, "addmm");
}

TEST(BuiltinFlops, BindsPositionalAndNamedArgumentsLikeAPythonCall) {
  const BuiltinTarget& mm = *FindBuiltinTarget("mm");
  auto bound = BindFlopsArguments(mm, {nlohmann::json::parse("[8,4]")}, {{"other", nlohmann::json::parse("[4,2]")}});
  ASSERT_TRUE(bound.ok()) << bound.error().message;
  EXPECT_EQ(*ComputeBuiltinFlops(mm, bound->arguments), 2 * 8 * 2 * 4);

  // `mat2=` is not a parameter of the formula: its **kwargs takes it, so `other` is missing.
  auto keyword = BindFlopsArguments(mm, {nlohmann::json::parse("[8,4]")}, {{"mat2", nlohmann::json::parse("[4,2]")}});
  ASSERT_FALSE(keyword.ok());
  EXPECT_NE(keyword.error().message.find("missing the required argument `other`"), std::string::npos)
      << keyword.error().message;
  auto twice = BindFlopsArguments(mm, {nlohmann::json::parse("[8,4]")}, {{"input", nlohmann::json::parse("[8,4]")}});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("multiple values for argument `input`"), std::string::npos);
  auto same_name = BindFlopsArguments(
      mm, {}, {{"input", nlohmann::json::parse("[8,4]")}, {"input", nlohmann::json::parse("[8,4]")}});
  ASSERT_FALSE(same_name.ok());
  EXPECT_NE(same_name.error().message.find("given twice"), std::string::npos);
  // hcom is required but never read: bound to None as "not given", and the call binds.
  const BuiltinTarget& gather = *FindBuiltinTarget("npu_all_gather_base_mm");
  auto no_hcom =
      BindFlopsArguments(gather, {nlohmann::json::parse("[8,4]"), nlohmann::json::parse("[4,2]")}, {{"world_size", 2}});
  ASSERT_TRUE(no_hcom.ok()) << no_hcom.error().message;
  EXPECT_EQ(no_hcom->not_given, std::vector<std::string>{"hcom"});
  EXPECT_TRUE(no_hcom->arguments.at("hcom").is_null());
  // npu_alltoallv_gmm needs four arguments it never reads: all four are filled at once.
  const BuiltinTarget& alltoallv = *FindBuiltinTarget("npu_alltoallv_gmm");
  auto gmm = BindFlopsArguments(
      alltoallv, {},
      {{"gmm_x", nlohmann::json::parse("[4096,7168]")}, {"gmm_weight", nlohmann::json::parse("[4,7168,2048]")}});
  ASSERT_TRUE(gmm.ok()) << gmm.error().message;
  EXPECT_EQ(gmm->not_given, (std::vector<std::string>{"hcom", "ep_world_size", "send_counts", "recv_counts"}));
  // A missing argument the formula reads is named with every other missing one, in one error.
  auto no_weight = BindFlopsArguments(alltoallv, {}, {{"gmm_x", nlohmann::json::parse("[4096,7168]")}});
  ASSERT_FALSE(no_weight.ok());
  EXPECT_NE(no_weight.error().message.find("missing the required argument `gmm_weight`"), std::string::npos)
      << no_weight.error().message;
  EXPECT_NE(no_weight.error().message.find("(hcom, ep_world_size, send_counts, recv_counts) would be filled"),
            std::string::npos)
      << no_weight.error().message;
  const BuiltinTarget& mm_target = *FindBuiltinTarget("mm");
  auto neither = BindFlopsArguments(mm_target, {}, {});
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.error().message.find("missing the required arguments `input` and `other`"), std::string::npos)
      << neither.error().message;
  // input_layout is keyword-only in npu_fused_infer_attention_score: three positionals at most.
  const BuiltinTarget& fias = *FindBuiltinTarget("npu_fused_infer_attention_score");
  EXPECT_FALSE(BindFlopsArguments(fias, std::vector<nlohmann::json>(4, nlohmann::json::array()), {}).ok());
}

TEST(BuiltinFlops, KeywordsTheFormulaDoesNotNameGoToItsKwargsAndAreIgnored) {
  const BuiltinTarget& attention = *FindBuiltinTarget("npu_fusion_attention");
  const nlohmann::json q = nlohmann::json::parse("[2,8,16,64]");
  auto bound = BindFlopsArguments(
      attention,
      {q, q, q, 8, "BNSD", nullptr, nullptr, nullptr, 0.125, 1.0, 1, 1, 0, nullptr, nullptr, nullptr, 0, "extra", 7},
      {{"num_heads", 8}, {"block_table", nlohmann::json::parse("[1,2]")}});
  ASSERT_TRUE(bound.ok()) << bound.error().message;
  EXPECT_EQ(bound->extra_positional, 2U);
  ASSERT_EQ(bound->absorbed.size(), 2U);
  EXPECT_EQ(bound->absorbed[0].first, "num_heads");
  EXPECT_EQ(*ComputeBuiltinFlops(attention, bound->arguments), 2LL * 2 * 8 * 16 * 16 * 128);
  // mm has no *args: a third positional value is a TypeError in Python.
  const BuiltinTarget& mm = *FindBuiltinTarget("mm");
  EXPECT_FALSE(BindFlopsArguments(mm, {q, q, q}, {}).ok());
}

TEST(BuiltinFlops, AnExplicitNoneIsPassedAsNoneNotReplacedByTheDefault) {
  const BuiltinTarget& transpose = *FindBuiltinTarget("npu_transpose_batchmatmul");
  const nlohmann::json shapes = {{"input", {8, 16, 32}}, {"weight", {8, 32, 4}}};
  EXPECT_EQ(*ComputeBuiltinFlops(transpose, shapes), 2LL * 8 * 16 * 32 * 4);  // default perm (0, 1, 2)
  nlohmann::json with_none = shapes;
  with_none["perm_x1"] = nullptr;
  const auto refused = ComputeBuiltinFlops(transpose, with_none);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("`perm_x1` is None"), std::string::npos) << refused.error().message;
  // num_key_value_heads=None: `None or num_heads` in the formula.
  const BuiltinTarget& infer = *FindBuiltinTarget("npu_fused_infer_attention_score");
  const nlohmann::json call = {{"query", {2, 16, 1024}}, {"key", {2, 16, 1024}}, {"value", {2, 16, 1024}},
                               {"input_layout", "BSH"},  {"num_heads", 8},       {"num_key_value_heads", nullptr}};
  EXPECT_EQ(*ComputeBuiltinFlops(infer, call), 2LL * 2 * 8 * 16 * 16 * 256);
  EXPECT_EQ(PythonRepr(nullptr), "None");
  EXPECT_EQ(PythonRepr(nlohmann::json::parse(R"([1, "BNSD", true, null])")), "[1, 'BNSD', True, None]");
}

TEST(BuiltinFlops, ValuesTorchWouldRejectAreStillWhatTheFormulaRecordsWithAWarning) {
  const BuiltinTarget& mm = *FindBuiltinTarget("mm");
  const auto outcome = EvaluateBuiltinFlops(mm, {{"input", {4, 8}}, {"other", {16, 4}}}, NewestFormulasVersion());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->decimal, "256");  // 2*4*4*8: the formula reads k from input
  ASSERT_EQ(outcome->warnings.size(), 1U);
  EXPECT_NE(outcome->warnings[0].find("inner dimensions differ"), std::string::npos);
  const BuiltinTarget& bmm = *FindBuiltinTarget("bmm");
  const auto batch = EvaluateBuiltinFlops(bmm, {{"input", {2, 4, 8}}, {"other", {3, 8, 4}}}, NewestFormulasVersion());
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->decimal, "512");
  EXPECT_NE(batch->warnings.at(0).find("batch sizes differ"), std::string::npos);
}

TEST(BuiltinFlops, ValuesPastTwoToTheSixtyThreeAreExactText) {
  const BuiltinTarget& mm = *FindBuiltinTarget("mm");
  const auto big = EvaluateBuiltinFlops(mm, {{"input", {4294967296LL, 4294967296LL}}, {"other", {4294967296LL, 8}}},
                                        NewestFormulasVersion());
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(big->decimal, "295147905179352825856");  // 2 * 2^32 * 8 * 2^32 = 2^68
  EXPECT_FALSE(big->value.has_value());
}

TEST(BuiltinFlops, ReleasesDifferForGroupedQueryAttentionAndZeroLengthSequences) {
  const BuiltinTarget& attention = *FindBuiltinTarget("npu_fusion_attention");
  const FormulasVersion& beta = *FindFormulasVersion("v26.1.0-beta.2");
  const FormulasVersion& release = *FindFormulasVersion("26.1.0");
  EXPECT_EQ(&release, &NewestFormulasVersion());
  // BSH, 32 query heads, 8 key/value heads (hidden 1024 = 8 * 128).
  const nlohmann::json gqa = {{"query", {1, 512, 4096}},
                              {"key", {1, 512, 1024}},
                              {"value", {1, 512, 1024}},
                              {"head_num", 32},
                              {"input_layout", "BSH"}};
  EXPECT_EQ(EvaluateBuiltinFlops(attention, gqa, release)->decimal, "4294967296");  // Dq = Dv = 128
  EXPECT_EQ(EvaluateBuiltinFlops(attention, gqa, beta)->decimal, "2684354560");     // Dv = 1024/32 = 32
  const nlohmann::json zero = {{"query", {256, 8, 128}},
                               {"key", {256, 8, 128}},
                               {"value", {256, 8, 128}},
                               {"head_num", 8},
                               {"input_layout", "TND"},
                               {"actual_seq_qlen", {128, 128, 256}},
                               {"actual_seq_kvlen", {128, 128, 256}}};
  EXPECT_TRUE(EvaluateBuiltinFlops(attention, zero, release).ok());
  const auto refused = EvaluateBuiltinFlops(attention, zero, beta);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("zero-length"), std::string::npos) << refused.error().message;
  EXPECT_EQ(FindFormulasVersion("v9"), nullptr);
}

TEST(BuiltinFlops, RecognizesTheReleaseFromTheFormulasText) {
  const std::string newest =
      "def _infer_kv_heads(q, k):\n    pass\n"
      "    if any(length < 0 for length in q_lens + kv_lens):\n";
  const std::string beta = "    if any(length <= 0 for length in q_lens + kv_lens):\n";
  ASSERT_TRUE(RecognizeFormulasVersion(newest).has_value());
  EXPECT_EQ(RecognizeFormulasVersion(newest)->version.name, "v26.1.0");
  ASSERT_TRUE(RecognizeFormulasVersion(beta).has_value());
  EXPECT_EQ(RecognizeFormulasVersion(beta)->version.name, "v26.1.0-beta.2");
  EXPECT_EQ(RecognizeFormulasVersion("def _infer_kv_heads(\n" + beta)->version.name, "unreleased-2026-07-03");
  EXPECT_FALSE(RecognizeFormulasVersion("@register_npu_flop(target='torch:mm')\n").has_value());
  EXPECT_FALSE(RecognizeFormulasVersion(newest + beta).has_value());  // both: cannot tell
}

TEST(BuiltinFlops, ReadsArgumentValuesAsJsonOrPython) {
  EXPECT_EQ(ParseFlopsArgumentValue("[1024,512]"), nlohmann::json::parse("[1024,512]"));
  EXPECT_EQ(ParseFlopsArgumentValue("(0, 2, 1)"), nlohmann::json::parse("[0,2,1]"));
  EXPECT_EQ(ParseFlopsArgumentValue("(4,)"), nlohmann::json::parse("[4]"));
  EXPECT_EQ(ParseFlopsArgumentValue("8"), 8);
  EXPECT_EQ(ParseFlopsArgumentValue("True"), true);
  EXPECT_TRUE(ParseFlopsArgumentValue("None").is_null());
  EXPECT_EQ(ParseFlopsArgumentValue("BNSD"), "BNSD");
  // Deeper than any argument can be: kept as text (parsing it would recurse 60,000 deep).
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  EXPECT_TRUE(ParseFlopsArgumentValue(deep).is_string());
  EXPECT_TRUE(ParseFlopsArgumentValue("[[[[1]]]]").is_array());
}

}  // namespace
}  // namespace opmfu::registry
