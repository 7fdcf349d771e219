#include "report/gpu_peaks.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace opmfu::report {

namespace {

std::string GpuNameLower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

bool NameHas(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Dense figures. Where a datasheet prints "with sparsity" (*), the dense figure is its half, as
// the same vendors' architecture whitepapers list it.
constexpr std::array<GpuPeak, 14> kGpus = {{
    {"A100",
     "NVIDIA",
     {19.5, 156, 312, 312, 0, 624},
     "NVIDIA A100 Tensor Core GPU datasheet (SXM and PCIe, 40/80 GB): FP32 19.5, TF32 156 (312*), BF16/FP16 312 "
     "(624*), INT8 624 (1248*); no FP8"},
    {"H100 SXM",
     "NVIDIA",
     {67, 494.7, 989.4, 989.4, 1978.9, 1978.9},
     "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: FP32 67, TF32 989*, BF16/FP16 1979*, FP8 3958*, INT8 "
     "3958*; dense = half, as the Hopper whitepaper lists them (494.7, 989.4, 1978.9)"},
    {"H100 PCIe",
     "NVIDIA",
     {51, 378, 756, 756, 1513, 1513},
     "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: FP32 51, TF32 756*, BF16/FP16 1513*, FP8 3026*, INT8 "
     "3026*; dense = half"},
    {"H100 NVL",
     "NVIDIA",
     {60, 417.5, 835.5, 835.5, 1670.5, 1670.5},
     "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL (per GPU): FP32 60, TF32 835*, BF16/FP16 1671*, FP8 3341*, "
     "INT8 3341*; dense = half"},
    {"H200",
     "NVIDIA",
     {67, 494.7, 989.4, 989.4, 1978.9, 1978.9},
     "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: FP32 67, TF32 989*, BF16/FP16 1979*, FP8 3958*, INT8 "
     "3958*; dense = half (the H100 SXM's compute)"},
    {"H200 NVL",
     "NVIDIA",
     {60, 417.5, 835.5, 835.5, 1670.5, 1670.5},
     "NVIDIA H200 Tensor Core GPU datasheet, H200 NVL: FP32 60, TF32 835*, BF16/FP16 1671*, FP8 3341*, INT8 "
     "3341*; dense = half"},
    {"B200",
     "NVIDIA",
     {75, 1100, 2250, 2250, 4500, 4500},
     "NVIDIA HGX B200 datasheet, per GPU: FP32 75, TF32 2.2 PF*, FP16/BF16 4.5 PF*, FP8 9 PF*, INT8 9 POPS*; "
     "dense = half"},
    {"GB200",
     "NVIDIA",
     {80, 1250, 2500, 2500, 5000, 5000},
     "NVIDIA GB200 NVL72 datasheet, per Blackwell GPU: FP32 80, TF32 2.5 PF*, FP16/BF16 5 PF*, FP8 10 PF*, INT8 10 "
     "POPS*; dense = half"},
    {"L40S",
     "NVIDIA",
     {91.6, 183, 362.05, 362.05, 733, 733},
     "NVIDIA L40S datasheet: FP32 91.6, TF32 183 (366*), BF16/FP16 362.05 (733*), FP8 733 (1466*), INT8 733 "
     "(1466*)"},
    {"MI250X",
     "AMD",
     {95.7, 0, 383, 383, 0, 383},
     "AMD Instinct MI250X data sheet: FP32 matrix 95.7, FP16/BF16 383, INT8 383 TOPS; no TF32 or FP8"},
    {"MI300X",
     "AMD",
     {163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9},
     "AMD Instinct MI300X data sheet: FP32 matrix 163.4, TF32 653.7, FP16/BF16 1307.4 (2614.9 with sparsity), FP8 "
     "2614.9, INT8 2614.9 TOPS"},
    {"MI325X",
     "AMD",
     {163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9},
     "AMD Instinct MI325X data sheet: FP32 matrix 163.4, TF32 653.7, FP16/BF16 1307.4, FP8 2614.9, INT8 2614.9 TOPS "
     "(dense; the MI300X's compute)"},
    {"MI355X",
     "AMD",
     {157.3, 0, 2516.6, 2516.6, 5033.2, 5033.2},
     "AMD Instinct MI355X data sheet: FP32 matrix 157.3, FP16/BF16 2.5 PF (2516.6), FP8 5.0 PF (5033.2), INT8 5.0 "
     "POPS (dense); no TF32 matrix path"},
    {"MI300A",
     "AMD",
     {122.6, 490.3, 980.6, 980.6, 1961.2, 1961.2},
     "AMD Instinct MI300A data sheet: FP32 matrix 122.6, TF32 490.3, FP16/BF16 980.6, FP8 1961.2, INT8 1961.2 TOPS "
     "(dense)"},
}};

}  // namespace

const char* GpuDtypeName(GpuDtype dtype) {
  switch (dtype) {
    case GpuDtype::kFp32:
      return "FP32";
    case GpuDtype::kTf32:
      return "TF32";
    case GpuDtype::kBf16:
      return "BF16";
    case GpuDtype::kFp16:
      return "FP16";
    case GpuDtype::kFp8:
      return "FP8";
    case GpuDtype::kInt8:
      return "INT8";
    case GpuDtype::kUnknown:
      return "unknown";
  }
  return "unknown";
}

GpuDtype GpuDtypeOfTorchType(std::string_view torch_type) {
  const std::string type = GpuNameLower(torch_type);
  if (type == "c10::bfloat16") return GpuDtype::kBf16;
  if (type == "c10::half") return GpuDtype::kFp16;
  if (type == "float") return GpuDtype::kFp32;
  if (type.starts_with("c10::float8_")) return GpuDtype::kFp8;
  if (type == "signed char" || type == "c10::qint8" || type == "char") return GpuDtype::kInt8;
  return GpuDtype::kUnknown;
}

std::span<const GpuPeak> KnownGpus() { return kGpus; }

const GpuPeak* FindGpu(std::string_view name) {
  const std::string wanted = GpuNameLower(name);
  for (const GpuPeak& gpu : kGpus) {
    if (GpuNameLower(gpu.name) == wanted) return &gpu;
  }
  return nullptr;
}

GpuMatch MatchGpu(std::string_view device_name) {
  const std::string name = GpuNameLower(device_name);
  GpuMatch match;
  const auto pick = [&](std::string_view table_name, std::string why) {
    match.gpu = FindGpu(table_name);
    match.why = "\"" + std::string(device_name) + "\" is the " + std::string(table_name) + std::move(why);
    return match;
  };
  if (NameHas(name, "gb200")) return pick("GB200", "");
  if (NameHas(name, "b200")) return pick("B200", "");
  if (NameHas(name, "h200")) return NameHas(name, "nvl") ? pick("H200 NVL", "") : pick("H200", " (SXM)");
  if (NameHas(name, "h100")) {
    if (NameHas(name, "nvl")) return pick("H100 NVL", "");
    if (NameHas(name, "pcie")) return pick("H100 PCIe", "");
    return pick("H100 SXM", NameHas(name, "hbm3") || NameHas(name, "sxm") ? " (HBM3/SXM in the name)"
                                                                          : " (neither PCIe nor NVL in the name)");
  }
  if (NameHas(name, "a100")) return pick("A100", "");
  if (NameHas(name, "l40s")) return pick("L40S", "");
  if (NameHas(name, "mi355x")) return pick("MI355X", "");
  if (NameHas(name, "mi325x")) return pick("MI325X", "");
  if (NameHas(name, "mi300x")) return pick("MI300X", NameHas(name, " vf") ? " (a virtual function of one)" : "");
  if (NameHas(name, "mi300a")) return pick("MI300A", "");
  if (NameHas(name, "mi250x") || NameHas(name, "mi250")) {
    return pick("MI250X", NameHas(name, "mi250x") ? "" : " (the MI250's figures are lower; give --peak-tflops)");
  }
  match.why = device_name.empty() ? "the trace names no device (no deviceProperties)"
                                  : "\"" + std::string(device_name) + "\" is not in opmfu's GPU table";
  return match;
}

std::optional<double> PeakFlops(const GpuPeak& gpu, GpuDtype dtype) {
  if (dtype == GpuDtype::kUnknown) return std::nullopt;
  const double tflops = gpu.tflops[static_cast<std::size_t>(dtype)];
  if (tflops <= 0) return std::nullopt;
  return tflops * 1e12;
}

}  // namespace opmfu::report
