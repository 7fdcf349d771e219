#include "engine/chip.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "common/file_io.h"
#include "common/json_input.h"
#include "common/text.h"
#include "engine/numeric.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

bool IsDeviceDirectory(const std::string& name) { return DigitsBetween(name, "device_", "", 2).has_value(); }

bool IsInfoFile(const std::string& name) { return DigitsBetween(name, "info.json.", "", 2).has_value(); }

// Top-down walk in directory order, as os.walk does; the first device dir with an info file wins.
std::optional<fs::path> FindInfoFile(const fs::path& directory, int depth) {
  if (depth > 10) return std::nullopt;
  std::error_code ec;
  std::vector<fs::path> subdirectories;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      subdirectories.push_back(it->path());
    } else if (it->is_regular_file(ec)) {
      files.push_back(it->path());
    }
  }
  if (IsDeviceDirectory(directory.filename().string())) {
    for (const fs::path& file : files) {
      if (IsInfoFile(file.filename().string())) return file;
    }
  }
  for (const fs::path& subdirectory : subdirectories) {
    if (auto found = FindInfoFile(subdirectory, depth + 1)) return found;
  }
  return std::nullopt;
}

// Python float(): accepts ints, floats and numeric strings.
std::optional<double> PythonFloat(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text(TrimWhitespace(value.get<std::string>()));
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) return parsed;
  }
  if (value.is_boolean()) return value.get<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

}  // namespace

double ChipInfo::PeakFlops(DtypeClass dtype) const {
  const double ops_per_cycle = dtype == DtypeClass::kInt8 ? 16.0 * 32 * 16 * 2 : 16.0 * 16 * 16 * 2;
  return ((ai_core_num * aic_frequency_mhz) * ops_per_cycle) * 1000000.0;
}

ChipInfo LoadChipInfo(const fs::path& rank_directory, std::vector<RankNote>& notes) {
  ChipInfo chip;
  const auto fail = [&](const std::string& why) {
    notes.push_back({RankNote::Level::kError, why});
    notes.push_back({RankNote::Level::kError, "ChipPeakFLOPSCalculator initialization failed"});
    // Invalid, but still naming the file it came from: check-db's cause is that file, not a missing one.
    ChipInfo invalid;
    invalid.info_file = chip.info_file;
    return invalid;
  };
  std::error_code ec;
  if (!fs::exists(rank_directory, ec)) return fail("Profiler path does not exist: " + rank_directory.string());
  const auto info_file = FindInfoFile(rank_directory, 0);
  if (!info_file) {
    return fail("Failed to load device information: Device info JSON not found in: " + rank_directory.string());
  }
  chip.info_file = *info_file;
  auto text = ReadTextFile(*info_file, ReadLimits{.max_bytes = 1U << 20, .reject_nul = true});
  if (!text.ok()) return fail("Failed to load device information: " + text.error().message);
  auto parsed = ParseJsonWithinLimits(*text, info_file->string());
  if (!parsed.ok()) return fail("Failed to load device information: " + parsed.error().message);
  const nlohmann::json json = std::move(parsed).value();
  if (json.is_discarded() || !json.is_object() || !json.contains("DeviceInfo") || !json["DeviceInfo"].is_array() ||
      json["DeviceInfo"].empty()) {
    ChipInfo invalid;
    invalid.info_file = *info_file;
    fail("No DeviceInfo data found in device/info.json file");
    return invalid;
  }
  const auto& device = json["DeviceInfo"][0];
  if (!device.is_object()) return fail("No DeviceInfo data found in device/info.json file");
  const auto cores = device.contains("ai_core_num") ? device["ai_core_num"] : nlohmann::json(0);
  if (!cores.is_number()) {
    // Upstream crashes the whole run here (B1d); we report this rank only.
    return fail("Invalid device parameters: ai_core_num is " + cores.dump() + ", not a number, in " +
                info_file->string());
  }
  chip.ai_core_num = cores.get<double>();
  const auto frequency = device.contains("aic_frequency") ? device["aic_frequency"] : nlohmann::json("0");
  if (auto value = PythonFloat(frequency)) {
    chip.aic_frequency_mhz = *value;
  } else {
    notes.push_back({RankNote::Level::kError, "Can not convert " + frequency.dump() + " to float"});
  }
  if (!chip.valid()) {
    // Upstream's truthiness test would compute MFU from a negative or infinite peak (B12); a
    // figure no chip has fails the rank instead, naming the file and the value.
    ChipInfo invalid;
    invalid.info_file = *info_file;
    fail("Invalid device parameters: AICore=" + cores.dump() +
         ", frequency=" + PythonFloatRepr(chip.aic_frequency_mhz) + " MHz in " + info_file->string() +
         " (each must be a finite positive number, and their peak finite)");
    return invalid;
  }
  notes.push_back({RankNote::Level::kInfo, "Device info loaded: AICore count=" + cores.dump() +
                                               ", frequency=" + PythonFloatRepr(chip.aic_frequency_mhz) + " MHz"});
  return chip;
}

std::vector<std::string> DtypeTokens(std::string_view input_types) {
  std::vector<std::string> tokens;
  for (const std::string& part : SplitString(input_types, ';')) {
    std::string token(TrimWhitespace(part));
    if (token.empty()) continue;
    std::transform(token.begin(), token.end(), token.begin(), [](unsigned char c) { return std::toupper(c); });
    tokens.push_back(token);
  }
  return tokens;
}

Result<DtypeClass> DtypeClassOf(const std::optional<std::string>& input_types) {
  if (!input_types || input_types->empty()) return DtypeClass::kFloat16;
  const std::vector<std::string> tokens = DtypeTokens(*input_types);
  if (tokens.empty()) return DtypeClass::kFloat16;
  const std::string& first = tokens.front();
  if (first == "FLOAT" || first == "FLOAT16" || first == "BF16" || first == "DT_BF16") return DtypeClass::kFloat16;
  if (first == "INT8") return DtypeClass::kInt8;
  return Error::Input("Not supported data type: " + first);
}

}  // namespace opmfu::engine
