#pragma once
// FLOPs and bytes of one kernel derived from what COMPUTE_TASK_INFO records about it (its opType,
// input/output shapes, formats and dtypes), for runs that have no `mfu_flops` records. Derived,
// never recorded: everything built on it is labelled "derived from kernel shapes (not
// msprof-analyze)". A kernel whose FLOPs are not certain from its own record is skipped with the
// reason, never guessed (docs/derived-mfu.md lists the families and the rules).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::report {

/// One COMPUTE_TASK_INFO row as recorded (';'-separated lists; shapes with or without quotes).
struct KernelRecord {
  std::string_view op_type;  ///< "MatMulV2"
  std::string_view input_formats;
  std::string_view input_types;
  std::string_view input_shapes;
  std::string_view output_formats;
  std::string_view output_types;
  std::string_view output_shapes;
};

enum class KernelFamily { kMatmul, kBatchMatmul, kGroupedMatmul, kQuantMatmul, kConvolution, kAttention, kOther };
const char* FamilyName(KernelFamily family);
KernelFamily FamilyOf(std::string_view op_type);

/// Which of the chip's peaks a kernel's FLOPs are measured against.
enum class PeakClass {
  kFloat16,  ///< FP16/BF16 cube
  kFloat32,  ///< FP32: no published cube rate; measured against the FP16 peak, as msprof-analyze does
  kInt8,
  kUnknown,  ///< a dtype with no peak opmfu knows (FP8, INT4, ...): no MFU
};

struct DerivedKernel {
  KernelFamily family = KernelFamily::kOther;
  /// The FLOPs, when derived; otherwise `skip_reason` says why.
  std::optional<double> flops;
  std::string skip_reason;
  /// How the FLOPs were obtained, e.g. "2*M*K*N, M=32 K=9216 N=4096 (B transposed)".
  std::string formula;
  /// Convolutions in NC1HWC0/FRACTAL_Z: the count the cube executes with the channels padded to
  /// C0/16, not the model's (the true input channel count is not recorded).
  bool padded = false;
  PeakClass peak = PeakClass::kUnknown;
  /// Each input read once and each output written once, from the shapes as stored (a lower bound of
  /// the memory traffic); nullopt when a shape or dtype is not readable.
  std::optional<double> bytes_read;
  std::optional<double> bytes_written;
};

/// torch_npu's built-in formula `op` ("mm", "bmm", "npu_fusion_attention", ...) on named arguments
/// (a tensor as its shape), computed by registry/builtin_flops: the one formula code every derived
/// path uses (Ascend kernels here, PyTorch ops of GPU traces in report/torch_op_flops). nullopt
/// with `why` when the formula raises or the op has none.
std::optional<double> BuiltinFormulaFlops(std::string_view op, const nlohmann::json& arguments, std::string& why);

/// Derives one kernel. Pure: the same record always gives the same answer.
DerivedKernel DeriveKernel(const KernelRecord& kernel);

/// Bytes of one element of a recorded dtype ("FLOAT16" -> 2); nullopt for an unknown one.
std::optional<double> DtypeBytes(std::string_view dtype);

/// The one reader of a recorded shape list (COMPUTE_TASK_INFO, OperatorMFU's input_shapes):
/// "32,1,224,224,8;121,4,16,8;64" -> three shapes, surrounding quotes dropped; an empty entry is an
/// absent tensor (an empty shape); "" and "N/A" are no tensors. A dimension that is empty ("4,,5"),
/// not a non-negative integer or too large makes the whole list unreadable: the Error says which of
/// these, in words that do not depend on the text, so callers can count skips by reason. Never a
/// guess: a list read with a dimension dropped would give a wrong FLOPs count, which is worse than
/// none.
Result<std::vector<std::vector<std::int64_t>>> ParseShapeList(std::string_view text);

}  // namespace opmfu::report
