#pragma once
// The chip's peak FLOPS, from the rank's device_<n>/info.json.<n> (there is no per-chip table).

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

enum class DtypeClass { kFloat16, kInt8 };

struct ChipInfo {
  double ai_core_num = 0;
  double aic_frequency_mhz = 0;
  std::filesystem::path info_file;
  /// Both figures finite and positive, and the peak they give finite. (Upstream only asks for
  /// both non-zero, and so computes MFU from a negative or infinite peak.)
  bool valid() const {
    return std::isfinite(ai_core_num) && ai_core_num > 0 && std::isfinite(aic_frequency_mhz) && aic_frequency_mhz > 0 &&
           std::isfinite(PeakFlops(DtypeClass::kInt8));
  }
  /// ((cores * MHz) * ops per cycle) * 1e6, evaluated in that order.
  double PeakFlops(DtypeClass dtype) const;
};

/// Finds and reads the first `device_<n>/info.json.<n>` below the rank directory (depth <= 10,
/// directory order as upstream walks it). Problems are logged in `notes` with upstream's words
/// and give an invalid ChipInfo.
ChipInfo LoadChipInfo(const std::filesystem::path& rank_directory, std::vector<RankNote>& notes);

/// The dtype class of a kernel's `inputDataTypes`: the first ';'-separated token, trimmed and
/// upper-cased; empty or absent means FP16. An unsupported token is an Error naming it.
Result<DtypeClass> DtypeClassOf(const std::optional<std::string>& input_types);

/// The tokens of an inputDataTypes string (trimmed, upper-cased, empty ones dropped).
std::vector<std::string> DtypeTokens(std::string_view input_types);

}  // namespace opmfu::engine
