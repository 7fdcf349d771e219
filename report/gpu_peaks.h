#pragma once
// The GPU peak table: DENSE tensor/matrix-core peaks per dtype from the vendors' datasheets
// (docs/cross-vendor.md cites each one). NVIDIA's datasheets print most tensor figures "with
// sparsity" (2:4 structured sparsity, twice the dense rate); this table holds the dense half
// and never a sparse figure, so MFU is measured against what a dense matmul can reach.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace opmfu::report {

enum class GpuDtype { kFp32, kTf32, kBf16, kFp16, kFp8, kInt8, kUnknown };
inline constexpr std::size_t kGpuDtypes = 6;
const char* GpuDtypeName(GpuDtype dtype);

/// The compute dtype of a PyTorch "Input type" entry ("c10::BFloat16" -> kBf16, "float" -> kFp32,
/// "c10::Float8_e4m3fn" -> kFp8, "signed char" -> kInt8); kUnknown for the rest.
GpuDtype GpuDtypeOfTorchType(std::string_view torch_type);

struct GpuPeak {
  std::string_view name;  ///< "H100 SXM"
  std::string_view vendor;
  /// Dense TFLOPS (TOPS for INT8) by GpuDtype order (FP32, TF32, BF16, FP16, FP8, INT8); 0: the
  /// GPU has no such tensor path (A100 FP8, MI250X TF32/FP8, MI355X TF32).
  std::array<double, kGpuDtypes> tflops{};
  std::string_view source;  ///< the datasheet, and how the dense figure follows from it
};

std::span<const GpuPeak> KnownGpus();
/// By table name, case-insensitive ("h100 sxm"); nullptr if unknown.
const GpuPeak* FindGpu(std::string_view name);

struct GpuMatch {
  const GpuPeak* gpu = nullptr;
  std::string why;  ///< how the device name was read, one line
};
/// Matches deviceProperties[].name ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X VF").
GpuMatch MatchGpu(std::string_view device_name);

/// The dense peak for a dtype in FLOP/s; nullopt when the table has none for it.
std::optional<double> PeakFlops(const GpuPeak& gpu, GpuDtype dtype);

}  // namespace opmfu::report
