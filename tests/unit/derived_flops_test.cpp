// Derived FLOPs and bytes per kernel family (report/derived_flops), each value computed by hand in
// the comment beside it. FLOAT is 4 bytes, FLOAT16/BF16 2, INT8 1, INT32 4, INT64 8, UINT64 8.
#include "report/derived_flops.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace opmfu::report {
namespace {

struct Case {
  const char* label;
  KernelRecord kernel;
  std::optional<double> flops;    ///< nullopt: skipped
  const char* skip = "";          ///< a part of the skip reason
  std::optional<double> read;     ///< bytes read; nullopt: not checked
  std::optional<double> written;  ///< bytes written
  bool padded = false;

  Case(const char* label_, KernelRecord kernel_, std::optional<double> flops_, const char* skip_ = "",
       std::optional<double> read_ = std::nullopt, std::optional<double> written_ = std::nullopt, bool padded_ = false)
      : label(label_), kernel(kernel_), flops(flops_), skip(skip_), read(read_), written(written_), padded(padded_) {}
};

KernelRecord K(const char* type, const char* in_formats, const char* in_types, const char* in_shapes,
               const char* out_formats, const char* out_types, const char* out_shapes) {
  return {type, in_formats, in_types, in_shapes, out_formats, out_types, out_shapes};
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

class DerivedFlops : public ::testing::TestWithParam<Case> {};

TEST_P(DerivedFlops, MatchesTheHandComputedValue) {
  const Case& c = GetParam();
  const DerivedKernel derived = DeriveKernel(c.kernel);
  if (c.flops) {
    ASSERT_TRUE(derived.flops.has_value()) << derived.skip_reason;
    EXPECT_DOUBLE_EQ(*derived.flops, *c.flops) << derived.formula;
    EXPECT_TRUE(derived.skip_reason.empty());
    EXPECT_FALSE(derived.formula.empty());
  } else {
    EXPECT_FALSE(derived.flops.has_value()) << derived.formula;
    EXPECT_NE(derived.skip_reason.find(c.skip), std::string::npos) << derived.skip_reason;
  }
  EXPECT_EQ(derived.padded, c.padded);
  if (c.read) {
    ASSERT_TRUE(derived.bytes_read.has_value());
    EXPECT_DOUBLE_EQ(*derived.bytes_read, *c.read);
  }
  if (c.written) {
    ASSERT_TRUE(derived.bytes_written.has_value());
    EXPECT_DOUBLE_EQ(*derived.bytes_written, *c.written);
  }
}

// --- MatMul / BatchMatMul (V2/V3) --------------------------------------------------------------
const Case kMatmuls[] = {
    // addmm(bias, x[32,9216], W[4096,9216]^T) from the msinsight Level1 DB: out [32,4096] gives M=32,
    // N=4096; A's rows 32 = M so K=9216; B's rows 4096 = N, so B is stored transposed, K=9216.
    // 2*32*9216*4096 = 2,415,919,104. Read (32*9216 + 4096*9216 + 4096)*4 = 38,047,744*4 =
    // 152,190,976; written 32*4096*4 = 524,288.
    {"addmm_weight_out_in",
     K("MatMulV2", "FORMAT_ND;FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT;FLOAT", "\"32,9216;4096,9216;4096\"", "FORMAT_ND",
       "FLOAT", "\"32,4096\""),
     2415919104.0, "", 152190976.0, 524288.0},
    // mm [32,1000]x[1000,4096]: 2*32*1000*4096 = 262,144,000; read (32,000+4,096,000)*4 =
    // 16,512,000; written 131,072*4 = 524,288.
    {"mm_plain",
     K("MatMulV2", "FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT", "32,1000;1000,4096", "FORMAT_ND", "FLOAT", "32,4096"),
     262144000.0, "", 16512000.0, 524288.0},
    // The weight gradient mm(x^T, dy): A [32,1000] stored transposed (out [1000,4096], M=1000 = A's
    // columns), K=32: 2*1000*32*4096 = 262,144,000; read (32,000+131,072)*4 = 652,288; written
    // 4,096,000*4 = 16,384,000.
    {"mm_a_transposed",
     K("MatMulV2", "FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT", "32,1000;32,4096", "FORMAT_ND", "FLOAT", "1000,4096"),
     262144000.0, "", 652288.0, 16384000.0},
    // MatMulV3 [32,4096]^T x [32,9216] -> [4096,9216]: 2*4096*32*9216 = 2,415,919,104; read
    // (131,072+294,912)*4 = 1,703,936; written 37,748,736*4 = 150,994,944.
    {"matmulv3_a_transposed",
     K("MatMulV3", "FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT", "32,4096;32,9216", "FORMAT_ND", "FLOAT", "4096,9216"),
     2415919104.0, "", 1703936.0, 150994944.0},
    // Square BF16 [4096,4096]x[4096,4096]: every orientation gives K=4096: 2*4096^3 =
    // 137,438,953,472; read 2*16,777,216*2 = 67,108,864; written 16,777,216*2 = 33,554,432.
    {"square_bf16", K("MatMulV2", "ND;ND", "BF16;BF16", "4096,4096;4096,4096", "ND", "BF16", "4096,4096"),
     137438953472.0, "", 67108864.0, 33554432.0},
    // The demo's QKV projection: 2*32768*4096*12288 = 3,298,534,883,328.
    {"demo_linear", K("MatMulV3", "", "BF16;BF16", "32768,4096;4096,12288", "", "BF16", "32768,12288"),
     3298534883328.0},
    // Inner dimensions 100 and 200 cannot make [32,4096].
    {"no_matmul_fits", K("MatMulV2", "ND;ND", "FLOAT16;FLOAT16", "32,100;200,4096", "ND", "FLOAT16", "32,4096"),
     std::nullopt, "do not form the recorded output"},
    // A FRACTAL_NZ operand is stored in blocks; its logical shape is not recorded.
    {"fractal_nz_operand",
     K("MatMulV2", "FORMAT_ND;FRACTAL_NZ", "FLOAT16;FLOAT16", "32,64;4,2,16,16", "ND", "FLOAT16", "32,64"),
     std::nullopt, "stored in FRACTAL_NZ"},
    {"vector_operand", K("MatMulV2", "ND;ND", "FLOAT16;FLOAT16", "64;64,32", "ND", "FLOAT16", "32"), std::nullopt,
     "fewer than two dimensions"},
    {"one_operand", K("MatMulV3", "ND", "FLOAT16", "32,64", "ND", "FLOAT16", "32,64"), std::nullopt,
     "does not record two operands"},
    // BatchMatMulV2 FP16 [8,128,64]x[8,64,256]: 2*8*128*64*256 = 33,554,432; read
    // (65,536+131,072)*2 = 393,216; written 262,144*2 = 524,288.
    {"bmm_plain", K("BatchMatMulV2", "ND;ND", "FLOAT16;FLOAT16", "8,128,64;8,64,256", "ND", "FLOAT16", "8,128,256"),
     33554432.0, "", 393216.0, 524288.0},
    // The same with B stored [8,256,64]: 33,554,432.
    {"bmm_b_transposed",
     K("BatchMatMulV3", "ND;ND", "FLOAT16;FLOAT16", "8,128,64;8,256,64", "ND", "FLOAT16", "8,128,256"), 33554432.0},
    // A 2-D weight broadcast over the batch: 2*8*128*64*256 = 33,554,432; read (65,536+16,384)*2 =
    // 163,840.
    {"bmm_broadcast_weight",
     K("BatchMatMulV2", "ND;ND", "FLOAT16;FLOAT16", "8,128,64;64,256", "ND", "FLOAT16", "8,128,256"), 33554432.0, "",
     163840.0},
    {"bmm_batch_mismatch",
     K("BatchMatMulV2", "ND;ND", "FLOAT16;FLOAT16", "8,128,64;4,64,256", "ND", "FLOAT16", "8,128,256"), std::nullopt,
     "do not broadcast"},
    // A 3-D operand cannot make a 2-D output.
    {"bmm_more_batch_than_output",
     K("BatchMatMulV2", "ND;ND", "FLOAT16;FLOAT16", "8,128,64;8,64,256", "ND", "FLOAT16", "128,256"), std::nullopt,
     "more batch dimensions"},
};
INSTANTIATE_TEST_SUITE_P(Matmul, DerivedFlops, ::testing::ValuesIn(kMatmuls),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.label); });

// --- quantized and grouped matmuls ----------------------------------------------------------------
const Case kQuantAndGrouped[] = {
    // QuantBatchMatmulV3 INT8 [32768,11008]x[11008,4096] + a UINT64 scale [4096], BF16 out:
    // 2*32768*11008*4096 = 2,954,937,499,648. Read 360,710,144 + 45,088,768 + 4,096*8 = 405,831,680;
    // written 134,217,728*2 = 268,435,456.
    {"quant_int8",
     K("QuantBatchMatmulV3", "ND;ND;ND", "INT8;INT8;UINT64", "32768,11008;11008,4096;4096", "ND", "BF16", "32768,4096"),
     2954937499648.0, "", 405831680.0, 268435456.0},
    // A weight-only quantized matmul computes in FP16: 2*16*4096*4096 = 536,870,912; read 16*4096*2
    // + 4096*4096*1 + 4096*2 = 131,072 + 16,777,216 + 8,192 = 16,916,480; written 131,072.
    {"weight_quant_fp16",
     K("WeightQuantBatchMatmulV2", "ND;ND;ND", "FLOAT16;INT8;FLOAT16", "16,4096;4096,4096;4096", "ND", "FLOAT16",
       "16,4096"),
     536870912.0, "", 16916480.0, 131072.0},
    // The FLOPs follow (2*16*32*64) but opmfu knows no HiF8 peak: skipped, not guessed.
    {"quant_hif8", K("QuantBatchMatmulV4", "ND;ND", "HIFLOAT8;HIFLOAT8", "16,32;32,64", "ND", "BF16", "16,64"),
     std::nullopt, "has no peak"},
    // GroupedMatmul x [1024,512], weight [8,512,256], group_list [8] INT64: every row goes through
    // one expert: 2*1024*512*256 = 268,435,456. Read 1,048,576 + 2,097,152 + 64 = 3,145,792;
    // written 262,144*2 = 524,288.
    {"grouped",
     K("GroupedMatmul", "ND;ND;ND", "FLOAT16;FLOAT16;INT64", "1024,512;8,512,256;8", "ND", "FLOAT16", "1024,256"),
     268435456.0, "", 3145792.0, 524288.0},
    // The weight stored [E,N,K]: 268,435,456.
    {"grouped_transposed",
     K("GroupedMatmul", "ND;ND;ND", "BF16;BF16;INT64", "1024,512;8,256,512;8", "ND", "BF16", "1024,256"), 268435456.0},
    // K = N = 128: both readings agree, 2*64*128*128 = 2,097,152.
    {"grouped_square", K("GroupedMatmul", "ND;ND;ND", "BF16;BF16;INT64", "64,128;4,128,128;4", "ND", "BF16", "64,128"),
     2097152.0},
    {"grouped_2d_weight", K("GroupedMatmul", "ND;ND", "BF16;BF16", "1024,512;512,256", "ND", "BF16", "1024,256"),
     std::nullopt, "split on K"},
    {"grouped_weight_mismatch",
     K("GroupedMatmul", "ND;ND;ND", "BF16;BF16;INT64", "1024,512;8,300,256;8", "ND", "BF16", "1024,256"), std::nullopt,
     "do not agree"},
    {"grouped_rows_mismatch",
     K("GroupedMatmul", "ND;ND;ND", "BF16;BF16;INT64", "1024,512;8,512,256;8", "ND", "BF16", "1000,256"), std::nullopt,
     "do not agree"},
};
INSTANTIATE_TEST_SUITE_P(QuantAndGrouped, DerivedFlops, ::testing::ValuesIn(kQuantAndGrouped),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.label); });

// --- convolutions ---------------------------------------------------------------------------------
const Case kConvolutions[] = {
    // Conv2D1 of the msinsight Level1 DB (AlexNet's first layer, FP32, C0=8): the cube's GEMM has
    // M = 32*55*55 = 96,800, K = 121*8 = 968 (C1*11*11*C0), N = 4*16 = 64:
    // 2*96,800*968*64 = 11,993,907,200 (the model's 3 input channels give 4,497,868,800; the input is
    // padded to 8). Read (32*1*224*224*8 + 121*4*16*8 + 64)*4 = (12,845,056 + 61,952 + 64)*4 =
    // 51,628,288; written 32*8*55*55*8*4 = 24,780,800.
    {"conv2d1_padded",
     K("Conv2D", "NC1HWC0;FRACTAL_Z;NCHW", "FLOAT;FLOAT;FLOAT", "\"32,1,224,224,8;121,4,16,8;64\"", "NC1HWC0", "FLOAT",
       "\"32,8,55,55,8\""),
     11993907200.0, "", 51628288.0, 24780800.0, true},
    // Conv2D2: M = 32*27*27 = 23,328, K = 200*8 = 1,600 (64 channels x 5x5), N = 192:
    // 2*23,328*1,600*192 = 14,332,723,200.
    {"conv2d2",
     K("Conv2D", "NC1HWC0;FRACTAL_Z;NCHW", "FLOAT;FLOAT;FLOAT", "32,8,27,27,8;200,12,16,8;192", "NC1HWC0", "FLOAT",
       "32,24,27,27,8"),
     14332723200.0, "", std::nullopt, std::nullopt, true},
    // Conv2D3: M = 32*13*13 = 5,408, K = 216*8 = 1,728, N = 24*16 = 384: 2*5,408*1,728*384 =
    // 7,176,978,432.
    {"conv2d3",
     K("Conv2D", "NC1HWC0;FRACTAL_Z;NCHW", "FLOAT;FLOAT;FLOAT", "32,24,13,13,8;216,24,16,8;384", "NC1HWC0", "FLOAT",
       "32,48,13,13,8"),
     7176978432.0, "", std::nullopt, std::nullopt, true},
    // Conv2D4: M = 5,408, K = 432*8 = 3,456, N = 256: 2*5,408*3,456*256 = 9,569,304,576.
    {"conv2d4",
     K("Conv2D", "NC1HWC0;FRACTAL_Z;NCHW", "FLOAT;FLOAT;FLOAT", "32,48,13,13,8;432,16,16,8;256", "NC1HWC0", "FLOAT",
       "32,32,13,13,8"),
     9569304576.0, "", std::nullopt, std::nullopt, true},
    // FP16 (C0=16), 3x3, 64->64 channels, no bias: M = 8*56*56 = 25,088, K = 36*16 = 576, N = 64:
    // 2*25,088*576*64 = 1,849,688,064. Read (1,605,632 + 36,864)*2 = 3,284,992; written
    // 1,605,632*2 = 3,211,264.
    {"conv2d_fp16",
     K("Conv2D", "NC1HWC0;FRACTAL_Z", "FLOAT16;FLOAT16", "8,4,56,56,16;36,4,16,16", "NC1HWC0", "FLOAT16",
       "8,4,56,56,16"),
     1849688064.0, "", 3284992.0, 3211264.0, true},
    // The weight holds 16 output channels, the output 64: a grouped layout, not derived.
    {"conv2d_grouped_weight",
     K("Conv2D", "NC1HWC0;FRACTAL_Z", "FLOAT16;FLOAT16", "8,4,56,56,16;36,1,16,16", "NC1HWC0", "FLOAT16",
       "8,4,56,56,16"),
     std::nullopt, "grouped convolution"},
    {"conv2d_c0_mismatch",
     K("Conv2D", "NC1HWC0;FRACTAL_Z", "FLOAT16;FLOAT16", "8,4,56,56,16;36,4,16,8", "NC1HWC0", "FLOAT16",
       "8,4,56,56,16"),
     std::nullopt, "does not match the input's C0"},
    // 30 is not C1 (4) times a kernel size.
    {"conv2d_c1_mismatch",
     K("Conv2D", "NC1HWC0;FRACTAL_Z", "FLOAT16;FLOAT16", "8,4,56,56,16;30,4,16,16", "NC1HWC0", "FLOAT16",
       "8,4,56,56,16"),
     std::nullopt, "not a multiple of the input's C1"},
    // NCHW, the model's own count: 2*N*Cout*Ho*Wo*Cin*kh*kw = 2*8*128*56*56*64*9 = 3,699,376,128.
    {"conv2d_nchw",
     K("Conv2D", "NCHW;NCHW;ND", "FLOAT16;FLOAT16;FLOAT16", "8,64,56,56;128,64,3,3;128", "NCHW", "FLOAT16",
       "8,128,56,56"),
     3699376128.0},
    // Depthwise (groups = 64/1 from the channel ratio): 2*8*64*56*56*1*9 = 28,901,376.
    {"conv2d_nchw_depthwise",
     K("Conv2D", "NCHW;NCHW", "FLOAT16;FLOAT16", "8,64,56,56;64,1,3,3", "NCHW", "FLOAT16", "8,64,56,56"), 28901376.0},
    // 64 input channels are not a multiple of the weight's 3.
    {"conv2d_nchw_bad_groups",
     K("Conv2D", "NCHW;NCHW", "FLOAT16;FLOAT16", "8,64,56,56;96,3,3,3", "NCHW", "FLOAT16", "8,96,56,56"), std::nullopt,
     "do not form"},
    {"conv2d_nhwc",
     K("Conv2D", "NHWC;HWCN", "FLOAT16;FLOAT16", "8,56,56,64;3,3,64,128", "NHWC", "FLOAT16", "8,56,56,128"),
     std::nullopt, "in formats NHWC and HWCN"},
    {"conv2d_input_gradient",
     K("Conv2DBackpropInput", "NCHW;FRACTAL_Z;NC1HWC0", "INT32;FLOAT;FLOAT", "4;200,12,16,8;32,24,27,27,8", "NC1HWC0",
       "FLOAT", "32,8,27,27,8"),
     std::nullopt, "depends on the stride"},
    // Conv2DBackpropFilter10 of the Level1 DB: dW = im2col(x)^T . dY, the forward GEMM of Conv2D1:
    // 11,993,907,200. Read (12,845,056 + 6,195,200)*4 + 4*4 = 76,161,040; written 61,952*4 = 247,808.
    {"conv2d_filter_gradient",
     K("Conv2DBackpropFilter", "NC1HWC0;NCHW;NC1HWC0", "FLOAT;INT32;FLOAT", "32,1,224,224,8;4;32,8,55,55,8",
       "FRACTAL_Z", "FLOAT", "121,4,16,8"),
     11993907200.0, "", 76161040.0, 247808.0, true},
    // Conv3D NDC1HWC0, 3x3x3, 64->64, FP16: M = 2*16*56*56 = 100,352, K = 108*16 = 1,728, N = 64:
    // 2*100,352*1,728*64 = 22,196,256,768.
    {"conv3d_padded",
     K("Conv3D", "NDC1HWC0;FRACTAL_Z_3D", "FLOAT16;FLOAT16", "2,16,4,56,56,16;108,4,16,16", "NDC1HWC0", "FLOAT16",
       "2,16,4,56,56,16"),
     22196256768.0, "", std::nullopt, std::nullopt, true},
    // The same convolution in NCDHW: 2*2*64*16*56*56*64*27 = 22,196,256,768.
    {"conv3d_ncdhw",
     K("Conv3D", "NCDHW;NCDHW", "FLOAT16;FLOAT16", "2,64,16,56,56;64,64,3,3,3", "NCDHW", "FLOAT16", "2,64,16,56,56"),
     22196256768.0},
    {"conv_no_shapes", K("Conv2D", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A"), std::nullopt, "no readable"},
};
INSTANTIATE_TEST_SUITE_P(Convolution, DerivedFlops, ::testing::ValuesIn(kConvolutions),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.label); });

// --- attention ------------------------------------------------------------------------------------
// FlashAttentionScore outputs softmax_max, softmax_sum, softmax_out and the attention output.
const Case kAttention[] = {
    // BNSD q, k, v [2,8,1024,128], softmax_max [2,8,1024,8]: 2*B*N*Sq*Sk*(Dq+Dv) =
    // 2*2*8*1024*1024*256 = 8,589,934,592.
    {"fa_bnsd",
     K("FlashAttentionScore", "ND;ND;ND", "FLOAT16;FLOAT16;FLOAT16", "2,8,1024,128;2,8,1024,128;2,8,1024,128",
       "ND;ND;ND;ND", "FLOAT;FLOAT;;FLOAT16", "2,8,1024,8;2,8,1024,8;;2,8,1024,128"),
     8589934592.0},
    // BSND [2,1024,8,128]: the same 8,589,934,592.
    {"fa_bsnd",
     K("FlashAttentionScore", "ND;ND;ND", "BF16;BF16;BF16", "2,1024,8,128;2,1024,8,128;2,1024,8,128", "ND;ND;ND;ND",
       "FLOAT;FLOAT;;BF16", "2,8,1024,8;2,8,1024,8;;2,1024,8,128"),
     8589934592.0},
    // BSH [2,1024,1024] with 8 heads (from softmax_max): D = 128, 8,589,934,592.
    {"fa_bsh",
     K("FlashAttentionScore", "ND;ND;ND", "BF16;BF16;BF16", "2,1024,1024;2,1024,1024;2,1024,1024", "ND;ND;ND;ND",
       "FLOAT;FLOAT;;BF16", "2,8,1024,8;2,8,1024,8;;2,1024,1024"),
     8589934592.0},
    // An attention mask is recorded: causal or not (sparse_mode) is not.
    {"fa_masked",
     K("FlashAttentionScore", "ND;ND;ND;ND", "BF16;BF16;BF16;BOOL", "2,8,1024,128;2,8,1024,128;2,8,1024,128;2048,2048",
       "ND;ND;ND;ND", "FLOAT;FLOAT;;BF16", "2,8,1024,8;2,8,1024,8;;2,8,1024,128"),
     std::nullopt, "sparse mode is not recorded"},
    // No softmax_max: BNSD or BSND cannot be told apart.
    {"fa_no_softmax",
     K("FlashAttentionScore", "ND;ND;ND", "FLOAT16;FLOAT16;FLOAT16", "8,32,4096,128;8,32,4096,128;8,32,4096,128", "ND",
       "FLOAT16", "8,32,4096,128"),
     std::nullopt, "layout is not determinable"},
    {"fused_infer",
     K("FusedInferAttentionScore", "ND;ND;ND", "BF16;BF16;BF16", "1,1,4096;1,2048,512;1,2048,512", "ND", "BF16",
       "1,1,4096"),
     std::nullopt, "head count are not recorded"},
    // A query that is not [B,N,S,D] or [B,S,N,D] for softmax_max's B, N, S.
    {"fa_shape_mismatch",
     K("FlashAttentionScore", "ND;ND;ND", "BF16;BF16;BF16", "2,8,512,128;2,8,512,128;2,8,512,128", "ND;ND;ND;ND",
       "FLOAT;FLOAT;;BF16", "2,8,1024,8;2,8,1024,8;;2,8,512,128"),
     std::nullopt, "does not match softmax_max"},
};
INSTANTIATE_TEST_SUITE_P(Attention, DerivedFlops, ::testing::ValuesIn(kAttention),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.label); });

// --- everything else: bytes only ------------------------------------------------------------------
const Case kOthers[] = {
    // Add FP16 [8,4096]+[8,4096]: no FLOPs derived; read 2*32,768*2 = 131,072; written 65,536.
    {"add_bytes_only", K("Add", "ND;ND", "FLOAT16;FLOAT16", "8,4096;8,4096", "ND", "FLOAT16", "8,4096"), std::nullopt,
     "not a matmul, convolution or attention", 131072.0, 65536.0},
    // ForeachAddList as the Level1 DB records it: two lists and a trailing scalar (an empty shape
    // with a dtype: one element). Read (4 + 3 + 4 + 3 + 1)*4 = 60; written (4 + 3)*4 = 28.
    {"trailing_scalar",
     K("ForeachAddList", "ND;ND;ND;ND;ND", "FLOAT;FLOAT;FLOAT;FLOAT;FLOAT", "\"4;3;4;3;\"", "ND;ND", "FLOAT;FLOAT",
       "\"4;3\""),
     std::nullopt, "not a matmul", 60.0, 28.0},
    // Fewer dtypes than tensors: the bytes are not known.
    {"dtype_count_mismatch", K("Add", "ND;ND", "FLOAT16", "8,4096;8,4096", "ND", "FLOAT16", "8,4096"), std::nullopt,
     "not a matmul"},
};
INSTANTIATE_TEST_SUITE_P(Other, DerivedFlops, ::testing::ValuesIn(kOthers),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.label); });

TEST(DerivedFlopsDetails, PeakClassFollowsTheComputeDtype) {
  EXPECT_EQ(DeriveKernel(K("MatMulV2", "", "FLOAT;FLOAT", "2,2;2,2", "", "FLOAT", "2,2")).peak, PeakClass::kFloat32);
  EXPECT_EQ(DeriveKernel(K("MatMulV2", "", "BF16;BF16", "2,2;2,2", "", "BF16", "2,2")).peak, PeakClass::kFloat16);
  EXPECT_EQ(DeriveKernel(K("QuantBatchMatmulV3", "", "INT8;INT8", "2,2;2,2", "", "BF16", "2,2")).peak,
            PeakClass::kInt8);
}

TEST(DerivedFlopsDetails, AnUnknownDtypeLeavesTheBytesUnknown) {
  const DerivedKernel derived = DeriveKernel(K("MatMulV2", "", "FLOAT16;COMPLEX32", "2,2;2,2", "", "FLOAT16", "2,2"));
  EXPECT_TRUE(derived.flops.has_value());  // 2*2*2*2 = 16
  EXPECT_DOUBLE_EQ(*derived.flops, 16.0);
  EXPECT_FALSE(derived.bytes_read.has_value());
  EXPECT_FALSE(derived.bytes_written.has_value());
}

TEST(DerivedFlopsDetails, ShapeListsParseAsRecorded) {
  const auto shapes = ParseShapeList("\"32,1,224,224,8;121,4,16,8;64\"");
  ASSERT_TRUE(shapes.ok());
  ASSERT_EQ(shapes->size(), 3U);
  EXPECT_EQ((*shapes)[1], (std::vector<std::int64_t>{121, 4, 16, 8}));
  EXPECT_EQ((*shapes)[2], (std::vector<std::int64_t>{64}));
  // OperatorMFU's input_shapes come without quotes, with spaces as some exporters write them.
  const auto spaced = ParseShapeList(" 64, 32 ; 32 ,16 ");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(*spaced, (std::vector<std::vector<std::int64_t>>{{64, 32}, {32, 16}}));
  // An empty entry is an absent tensor (an optional input), kept in place so positions hold.
  const auto absent = ParseShapeList("4;;8,8");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, (std::vector<std::vector<std::int64_t>>{{4}, {}, {8, 8}}));
  EXPECT_EQ(ParseShapeList("4;")->size(), 2U);  // a trailing empty tensor
  EXPECT_TRUE(ParseShapeList("N/A")->empty());
  EXPECT_TRUE(ParseShapeList("")->empty());
  EXPECT_TRUE(ParseShapeList("\"\"")->empty());
}

// An unreadable dimension makes the whole list unreadable, with a reason that names the defect and
// not the text (skips are counted by reason): dropping the dimension would read "4,,5" as [4,5], a
// matrix that is not the tensor, and give a wrong FLOPs count.
TEST(DerivedFlopsDetails, AnUnreadableDimensionIsASkipWithItsReasonNeverADroppedDimension) {
  const auto empty = ParseShapeList("4,,5");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "a shape with an empty dimension");
  EXPECT_FALSE(ParseShapeList("64,32,").ok());  // a trailing comma is an empty dimension too
  const auto letter = ParseShapeList("4,x");
  ASSERT_FALSE(letter.ok());
  EXPECT_EQ(letter.error().message, "a shape dimension that is not a non-negative integer");
  EXPECT_FALSE(ParseShapeList("-4,5").ok());
  const auto huge = ParseShapeList("99999999999999999999,2");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message, "a shape dimension too large to count");

  // The same matmul with an empty dimension in A: [32,,9216] read as [32,9216] would be derived as
  // 2*32*9216*4096; it is skipped instead, with the reason, and its bytes stay unknown.
  const DerivedKernel derived =
      DeriveKernel({"MatMulV2", "ND;ND", "FLOAT16;FLOAT16", "32,,9216;9216,4096", "ND", "FLOAT16", "32,4096"});
  EXPECT_FALSE(derived.flops.has_value());
  EXPECT_EQ(derived.skip_reason, "unreadable shapes: a shape with an empty dimension");
  EXPECT_FALSE(derived.bytes_read.has_value());
  const DerivedKernel output =
      DeriveKernel({"MatMulV2", "ND;ND", "FLOAT16;FLOAT16", "32,9216;9216,4096", "ND", "FLOAT16", "32,4x096"});
  EXPECT_EQ(output.skip_reason, "unreadable shapes: a shape dimension that is not a non-negative integer");
}

TEST(DerivedFlopsDetails, FamiliesByOpType) {
  EXPECT_EQ(FamilyOf("MatMulV3"), KernelFamily::kMatmul);
  EXPECT_EQ(FamilyOf("BatchMatMulV2"), KernelFamily::kBatchMatmul);
  EXPECT_EQ(FamilyOf("GroupedMatmul"), KernelFamily::kGroupedMatmul);
  EXPECT_EQ(FamilyOf("QuantBatchMatmulV3"), KernelFamily::kQuantMatmul);
  EXPECT_EQ(FamilyOf("Conv2DBackpropFilter"), KernelFamily::kConvolution);
  EXPECT_EQ(FamilyOf("FlashAttentionScoreGrad"), KernelFamily::kAttention);
  EXPECT_EQ(FamilyOf("TransData"), KernelFamily::kOther);
}

}  // namespace
}  // namespace opmfu::report
