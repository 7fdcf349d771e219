#include "engine/profiler_info.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "common/file_io.h"
#include "common/json_input.h"
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

// The schedule object as "wait=0 warmup=10 active=1 repeat=1 skip_first=40", its step counts only.
std::optional<std::string> ScheduleText(const json* schedule) {
  if (schedule == nullptr || !schedule->is_object()) return std::nullopt;
  std::string text;
  for (const char* key : {"wait", "warmup", "active", "repeat", "skip_first"}) {
    if (const json* value = Member(*schedule, key); value != nullptr && value->is_number_integer()) {
      text += (text.empty() ? "" : " ") + std::string(key) + "=" + value->dump();
    }
  }
  if (text.empty()) return std::nullopt;
  return text;
}

// A recorded value read as its row's form says; nullopt when absent or of another type.
std::optional<RecordedValue> Recorded(RecordedForm form, const json* value) {
  const auto wrap = [](auto read) -> std::optional<RecordedValue> {
    if (!read) return std::nullopt;
    return RecordedValue(std::move(*read));
  };
  switch (form) {
    case RecordedForm::kBool:
      return wrap(Bool(value));
    case RecordedForm::kText:
      return wrap(Text(value));
    case RecordedForm::kList:
      return wrap(Strings(value));
    case RecordedForm::kSchedule:
      return wrap(ScheduleText(value));
  }
  return std::nullopt;
}

bool Contains(const std::vector<std::string>& values, const std::string& wanted) {
  return std::find(values.begin(), values.end(), wanted) != values.end();
}

// ["a", "b"] -> "[a, b]", as the settings are written in profiler_info.json.
std::string ListText(const std::vector<std::string>& values) { return "[" + Join(values, ", ") + "]"; }

}  // namespace

std::optional<bool> RecordedConfig::Bool(SettingId id) const {
  const auto& value = values[static_cast<std::size_t>(id)];
  if (!value || !std::holds_alternative<bool>(*value)) return std::nullopt;
  return std::get<bool>(*value);
}

const std::string* RecordedConfig::Text(SettingId id) const {
  const auto& value = values[static_cast<std::size_t>(id)];
  return value ? std::get_if<std::string>(&*value) : nullptr;
}

const std::vector<std::string>* RecordedConfig::List(SettingId id) const {
  const auto& value = values[static_cast<std::size_t>(id)];
  return value ? std::get_if<std::vector<std::string>>(&*value) : nullptr;
}

std::optional<std::int64_t> RankFromProfilerInfoName(const fs::path& rank_directory) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(rank_directory, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const auto digits = DigitsBetween(name, "profiler_info_", ".json", std::string::npos);
    if (const auto rank = digits ? DecimalInt64(*digits) : std::nullopt) return rank;
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
  OPMFU_ASSIGN_OR_RETURN(const json root, ParseJsonWithinLimits(text, file.string()));
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
  for (const SettingRow& row : SettingRows()) {
    if (row.recorded_section == RecordedSection::kNotRead) continue;
    const json& holder = row.recorded_section == RecordedSection::kCommon ? common : experimental;
    const std::string key(row.recorded_key);
    config.values[static_cast<std::size_t>(row.id)] = Recorded(row.recorded_form, Member(holder, key.c_str()));
  }
  config.torch_npu_version = Text(Member(root, "torch_npu_version"));
  config.cann_version = Text(Member(root, "cann_version"));
  if (const json* id = Member(root, "rank_id"); id != nullptr && id->is_number_integer()) {
    config.rank_id = id->get<std::int64_t>();
  }
  return std::optional<RecordedConfig>(std::move(config));
}

std::vector<RecordedBlocker> FlopsBlockers(const RecordedConfig& config) {
  std::vector<RecordedBlocker> blockers;
  if (config.Bool(SettingId::kWithFlops) == false) {
    blockers.push_back({SettingId::kWithFlops, "with_flops=false",
                        "torch_npu installs no FLOPs hooks, so no mfu_flops record is written"});
  }
  // FLOPs records are msTX ranges. With both switches recorded off, none is written; mstx=true
  // alone works only from v26.1.0 final on, so that case is not a definite blocker.
  const std::optional<bool> mstx = config.Bool(SettingId::kMstx);
  if (config.Bool(SettingId::kMsprofTx) == false && mstx != true) {
    blockers.push_back({SettingId::kMsprofTx, mstx ? "_msprof_tx=false, _mstx=false" : "_msprof_tx=false",
                        "msTX is off, so no mfu_flops range is written"});
  }
  const std::vector<std::string>* include = config.List(SettingId::kMstxDomainInclude);
  const std::vector<std::string>* exclude = config.List(SettingId::kMstxDomainExclude);
  if (include != nullptr && !include->empty() && !Contains(*include, "mfu_flops")) {
    blockers.push_back({SettingId::kMstxDomainInclude, "mstx_domain_include=" + ListText(*include),
                        "the mfu_flops domain is not included, so its ranges are dropped"});
  } else if (exclude != nullptr && Contains(*exclude, "mfu_flops")) {
    blockers.push_back({SettingId::kMstxDomainExclude, "mstx_domain_exclude=" + ListText(*exclude),
                        "the mfu_flops domain is excluded, so its ranges are dropped"});
  }
  return blockers;
}

std::vector<RecordedBlocker> KernelBlockers(const RecordedConfig& config) {
  std::vector<RecordedBlocker> blockers;
  if (const std::vector<std::string>* activities = config.List(SettingId::kActivities);
      activities != nullptr && !activities->empty()) {
    const auto has = [&](const char* kind) {
      return std::any_of(activities->begin(), activities->end(),
                         [&](const std::string& a) { return AsciiLower(a).find(kind) != std::string::npos; });
    };
    if (!has("cpu")) {
      blockers.push_back(
          {SettingId::kActivities, "activities=" + ListText(*activities), "no CPU activity, so no framework ops"});
    }
    if (!has("npu")) {
      blockers.push_back(
          {SettingId::kActivities, "activities=" + ListText(*activities), "no NPU activity, so no kernels"});
    }
  }
  if (const std::string* level = config.Text(SettingId::kProfilerLevel)) {
    const std::string lowered = AsciiLower(*level);
    if (lowered == "level0" || lowered == "level_none") {
      blockers.push_back({SettingId::kProfilerLevel, "_profiler_level=" + *level,
                          "kernels are not linked to framework ops and carry no shapes below Level1"});
    }
  }
  if (config.Bool(SettingId::kRecordShapes) == false) {
    blockers.push_back({SettingId::kRecordShapes, "record_shapes=false", "kernels carry no input shapes"});
  }
  return blockers;
}

std::string DescribeBlockers(const std::vector<RecordedBlocker>& blockers, const RecordedConfig& config) {
  if (blockers.empty()) return {};
  std::string settings;
  for (const RecordedBlocker& blocker : blockers) settings += (settings.empty() ? "" : ", ") + blocker.setting;
  return "this run had " + settings + " (" + config.file.filename().string() + ")";
}

std::vector<RecordedEntry> RecordedSettings(const RecordedConfig& config) {
  std::vector<RecordedEntry> entries;
  for (const SettingRow& row : SettingRows()) {
    if (row.recorded_section == RecordedSection::kNotRead) continue;
    std::string text = "not recorded";
    if (const auto& value = config.values[static_cast<std::size_t>(row.id)]) {
      if (const bool* flag = std::get_if<bool>(&*value)) text = *flag ? "true" : "false";
      if (const std::string* word = std::get_if<std::string>(&*value)) text = *word;
      if (const auto* list = std::get_if<std::vector<std::string>>(&*value)) text = ListText(*list);
    }
    entries.push_back({std::string(row.recorded_label), std::move(text), row.mfu_needs});
  }
  entries.push_back({"torch_npu", config.torch_npu_version.value_or("not recorded"), {}});
  return entries;
}

}  // namespace opmfu::engine
