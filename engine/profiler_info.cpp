#include "engine/profiler_info.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::engine {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const json* Member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::optional<bool> Bool(const json* value) {
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::optional<std::string> Text(const json* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number()) return value->dump();
  return std::nullopt;
}

// A string or a list of strings (export_type was a string before v7.0.0, a list since).
std::optional<std::vector<std::string>> Strings(const json* value) {
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (value->is_string()) return std::vector<std::string>{value->get<std::string>()};
  if (!value->is_array()) return std::nullopt;
  std::vector<std::string> strings;
  for (const json& item : *value) {
    if (item.is_string()) strings.push_back(item.get<std::string>());
  }
  return strings;
}

bool Contains(const std::vector<std::string>& values, const std::string& wanted) {
  return std::find(values.begin(), values.end(), wanted) != values.end();
}

// ["a", "b"] -> "[a, b]", as the settings are written in profiler_info.json.
std::string ListText(const std::vector<std::string>& values) { return "[" + Join(values, ", ") + "]"; }

std::string BoolText(std::optional<bool> value) { return value ? (*value ? "true" : "false") : "not recorded"; }

}  // namespace

std::optional<std::int64_t> RankFromProfilerInfoName(const fs::path& rank_directory) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(rank_directory, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (const auto digits = DigitsBetween(name, "profiler_info_", ".json", 9)) return std::stoll(std::string(*digits));
  }
  return std::nullopt;
}

Result<std::optional<RecordedConfig>> ReadRecordedConfig(const fs::path& rank_directory,
                                                         std::optional<std::int64_t> rank_id) {
  std::error_code ec;
  fs::path file;
  if (rank_id && *rank_id >= 0) {
    const fs::path named = rank_directory / ("profiler_info_" + std::to_string(*rank_id) + ".json");
    if (fs::exists(named, ec)) file = named;
  }
  if (file.empty() && fs::exists(rank_directory / "profiler_info.json", ec))
    file = rank_directory / "profiler_info.json";
  if (file.empty()) {
    if (const auto other = RankFromProfilerInfoName(rank_directory)) {
      file = rank_directory / ("profiler_info_" + std::to_string(*other) + ".json");
    }
  }
  if (file.empty()) return std::optional<RecordedConfig>();
  // A recorded config is a few KB; the limit keeps nlohmann's tree of a hostile one small.
  ReadLimits limits;
  limits.max_bytes = std::uint64_t{1} << 20;
  OPMFU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(file, limits));
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Error::Input(file.string() + ": not a JSON object, so the recorded configuration is unknown");
  }
  RecordedConfig config;
  config.file = file;
  const json empty = json::object();
  const json* configuration = Member(root, "config");
  const auto section = [&](const char* key) -> const json& {
    const json* found = configuration != nullptr ? Member(*configuration, key) : nullptr;
    return found != nullptr ? *found : empty;
  };
  const json& common = section("common_config");
  const json& experimental = section("experimental_config");
  config.with_flops = Bool(Member(common, "with_flops"));
  config.record_shapes = Bool(Member(common, "record_shapes"));
  config.with_modules = Bool(Member(common, "with_modules"));
  config.activities = Strings(Member(common, "activities"));
  if (const json* schedule = Member(common, "schedule"); schedule != nullptr && schedule->is_object()) {
    std::string text_schedule;
    for (const char* key : {"wait", "warmup", "active", "repeat", "skip_first"}) {
      if (const json* value = Member(*schedule, key); value != nullptr && value->is_number_integer()) {
        text_schedule += (text_schedule.empty() ? "" : " ") + std::string(key) + "=" + value->dump();
      }
    }
    if (!text_schedule.empty()) config.schedule = text_schedule;
  }
  config.msprof_tx = Bool(Member(experimental, "_msprof_tx"));
  config.mstx = Bool(Member(experimental, "_mstx"));
  config.profiler_level = Text(Member(experimental, "_profiler_level"));
  config.export_type = Strings(Member(experimental, "_export_type"));
  config.mstx_domain_include = Strings(Member(experimental, "_mstx_domain_include"));
  config.mstx_domain_exclude = Strings(Member(experimental, "_mstx_domain_exclude"));
  config.torch_npu_version = Text(Member(root, "torch_npu_version"));
  config.cann_version = Text(Member(root, "cann_version"));
  if (const json* id = Member(root, "rank_id"); id != nullptr && id->is_number_integer()) {
    config.rank_id = id->get<std::int64_t>();
  }
  return std::optional<RecordedConfig>(std::move(config));
}

std::vector<RecordedBlocker> FlopsBlockers(const RecordedConfig& config) {
  std::vector<RecordedBlocker> blockers;
  if (config.with_flops == false) {
    blockers.push_back({"with_flops=false", "torch_npu installs no FLOPs hooks, so no mfu_flops record is written"});
  }
  // FLOPs records are msTX ranges. With both switches recorded off, none is written; mstx=true
  // alone works only from v26.1.0 final on, so that case is not a definite blocker.
  if (config.msprof_tx == false && config.mstx != true) {
    blockers.push_back({config.mstx ? "_msprof_tx=false, _mstx=false" : "_msprof_tx=false",
                        "msTX is off, so no mfu_flops range is written"});
  }
  if (config.mstx_domain_include && !config.mstx_domain_include->empty() &&
      !Contains(*config.mstx_domain_include, "mfu_flops")) {
    blockers.push_back({"mstx_domain_include=" + ListText(*config.mstx_domain_include),
                        "the mfu_flops domain is not included, so its ranges are dropped"});
  } else if (config.mstx_domain_exclude && Contains(*config.mstx_domain_exclude, "mfu_flops")) {
    blockers.push_back({"mstx_domain_exclude=" + ListText(*config.mstx_domain_exclude),
                        "the mfu_flops domain is excluded, so its ranges are dropped"});
  }
  return blockers;
}

std::vector<RecordedBlocker> KernelBlockers(const RecordedConfig& config) {
  std::vector<RecordedBlocker> blockers;
  if (config.activities && !config.activities->empty()) {
    const bool cpu = std::any_of(config.activities->begin(), config.activities->end(),
                                 [](const std::string& a) { return AsciiLower(a).find("cpu") != std::string::npos; });
    const bool npu = std::any_of(config.activities->begin(), config.activities->end(),
                                 [](const std::string& a) { return AsciiLower(a).find("npu") != std::string::npos; });
    if (!cpu)
      blockers.push_back({"activities=" + ListText(*config.activities), "no CPU activity, so no framework ops"});
    if (!npu) blockers.push_back({"activities=" + ListText(*config.activities), "no NPU activity, so no kernels"});
  }
  if (config.profiler_level) {
    const std::string level = AsciiLower(*config.profiler_level);
    if (level == "level0" || level == "level_none") {
      blockers.push_back({"_profiler_level=" + *config.profiler_level,
                          "kernels are not linked to framework ops and carry no shapes below Level1"});
    }
  }
  if (config.record_shapes == false) {
    blockers.push_back({"record_shapes=false", "kernels carry no input shapes"});
  }
  return blockers;
}

std::string DescribeBlockers(const std::vector<RecordedBlocker>& blockers, const RecordedConfig& config) {
  if (blockers.empty()) return {};
  std::string settings;
  for (const RecordedBlocker& blocker : blockers) settings += (settings.empty() ? "" : ", ") + blocker.setting;
  return "this run had " + settings + " (" + config.file.filename().string() + ")";
}

std::vector<std::pair<std::string, std::string>> RecordedSettings(const RecordedConfig& config) {
  const auto strings = [](const std::optional<std::vector<std::string>>& values) {
    return values ? ListText(*values) : std::string("not recorded");
  };
  return {
      {"with_flops", BoolText(config.with_flops)},
      {"_msprof_tx", BoolText(config.msprof_tx)},
      {"_mstx", BoolText(config.mstx)},
      {"mstx_domain_include", strings(config.mstx_domain_include)},
      {"mstx_domain_exclude", strings(config.mstx_domain_exclude)},
      {"_export_type", strings(config.export_type)},
      {"_profiler_level", config.profiler_level.value_or("not recorded")},
      {"activities", strings(config.activities)},
      {"record_shapes", BoolText(config.record_shapes)},
      {"with_modules", BoolText(config.with_modules)},
      {"schedule", config.schedule.value_or("not recorded")},
      {"torch_npu", config.torch_npu_version.value_or("not recorded")},
  };
}

}  // namespace opmfu::engine
