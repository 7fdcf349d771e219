#pragma once
// FLOPs of one PyTorch framework op from what a profiler trace records about it (`Input Dims`,
// `Input type`, `Concrete Inputs`), with the same formula code as the Ascend derived path
// (report/derived_flops: torch_npu's built-in formulas, and its convolution derivation). Derived,
// never recorded: PyTorch writes no FLOPs into a trace, even with with_flops=True. An op whose
// FLOPs are not certain from its record is not derived, with the reason (docs/cross-vendor.md).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "report/derived_flops.h"
#include "report/gpu_peaks.h"

namespace opmfu::report {

struct TorchOpRecord {
  std::string_view name;             ///< "aten::addmm"
  std::string_view input_dims;       ///< args["Input Dims"] as JSON, "" when not recorded
  std::string_view input_types;      ///< args["Input type"] as JSON
  std::string_view concrete_inputs;  ///< args["Concrete Inputs"] as JSON
  /// A kernel the op launched: an FP32 matmul whose kernel says tf32/xf32 ran on the TF32 path.
  std::string_view kernel_name;
};

struct TorchOpFlops {
  KernelFamily family = KernelFamily::kOther;  ///< kOther: not an op opmfu derives
  std::optional<double> flops;
  std::string formula;      ///< "torch_npu's addmm formula: 2*M*K*N, M=888 K=2880 N=640"
  std::string skip_reason;  ///< why not derived
  GpuDtype dtype = GpuDtype::kUnknown;
  std::string dtype_reason;  ///< how the dtype was read ("Input type c10::BFloat16")
};

/// Whether opmfu has a formula for the op's name (whatever its record holds).
bool IsDerivableTorchOp(std::string_view name);

TorchOpFlops DeriveTorchOp(const TorchOpRecord& op);

/// A plain (NCHW/NCDHW, or 1-D) convolution's FLOPs from its input, weight and output shapes, with
/// the Ascend derivation the rest use; `output_source` says where the output came from, for the
/// formula text.
TorchOpFlops ConvolutionFlopsFromShapes(std::span<const std::int64_t> input, std::span<const std::int64_t> weight,
                                        std::span<const std::int64_t> output, std::string_view output_source);

}  // namespace opmfu::report
