#include "cli/run_prediction.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "common/text.h"
#include "engine/discovery.h"
#include "engine/profiler_info.h"

namespace opmfu::cli {

namespace {

// A recorded list as lint spells traced ones: sorted, "ProfilerActivity." dropped, joined by ",".
std::string Spelled(const std::vector<std::string>& items, bool lower) {
  std::vector<std::string> out;
  for (std::string item : items) {
    if (item.starts_with("ProfilerActivity.")) item = item.substr(17);
    if (lower) item = AsciiLower(item);
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(std::move(item));
  }
  std::sort(out.begin(), out.end());
  std::string joined;
  for (const std::string& item : out) joined += (joined.empty() ? "" : ",") + item;
  return joined;
}

// The recorded value of a traced setting, spelled like lint's; nullopt when not recorded.
std::optional<std::string> Recorded(const engine::RecordedConfig& config, SettingId id) {
  switch (Row(id).recorded_form) {
    case RecordedForm::kBool:
      if (const std::optional<bool> value = config.Bool(id)) return *value ? "true" : "false";
      return std::nullopt;
    case RecordedForm::kText:
    case RecordedForm::kSchedule:
      if (const std::string* value = config.Text(id)) return *value;
      return std::nullopt;
    case RecordedForm::kList: {
      const std::vector<std::string>* value = config.List(id);
      if (value == nullptr) return std::nullopt;
      // An empty activity list is recorded as given; torch_npu collects its default set for it.
      if (id == SettingId::kActivities && value->empty()) return std::string("CPU,NPU");
      return Spelled(*value, /*lower=*/id == SettingId::kExportType);
    }
  }
  return std::nullopt;
}

struct RecordedRun {
  engine::RecordedConfig config;
  std::vector<std::int64_t> ranks;
};

}  // namespace

Result<PredictionCheck> CheckPrediction(const std::vector<lint::TracedSite>& sites, const std::string& run_directory) {
  OPMFU_ASSIGN_OR_RETURN(engine::Discovery discovery, engine::DiscoverRanks(run_directory));
  std::vector<engine::RankLocation> ranks = discovery.ranks;
  ranks.insert(ranks.end(), discovery.unparsed.begin(), discovery.unparsed.end());
  // Ranks with the same recorded settings are one run configuration.
  std::map<std::string, RecordedRun> runs;
  for (const engine::RankLocation& rank : ranks) {
    auto config = engine::ReadRecordedConfig(rank.rank_directory, rank.rank_id);
    if (!config.ok()) return config.take_error();
    if (!*config) continue;
    std::string key;
    for (const engine::RecordedEntry& entry : engine::RecordedSettings(**config)) {
      key += entry.label + "=" + entry.value + ";";
    }
    auto [at, added] = runs.try_emplace(key, RecordedRun{**config, {}});
    at->second.ranks.push_back(rank.rank_id);
  }
  if (runs.empty()) {
    return Error::Input(run_directory +
                        ": no profiler_info_<rank>.json in its *_ascend_pt directories, so there is "
                        "no record of the run's settings to compare with");
  }
  PredictionCheck check;
  std::string& out = check.text;
  check.json = {{"directory", run_directory}, {"disagrees", false}, {"runs", nlohmann::ordered_json::array()}};
  out += "Lint's prediction against the run (" + run_directory + "):\n";
  if (sites.empty()) {
    out += "  no torch_npu profiler call was traced, so there is nothing to compare\n";
    return check;
  }
  bool any_consistent = false;
  for (const auto& [key, run] : runs) {
    std::vector<std::string> rank_names;
    for (std::int64_t rank : run.ranks) rank_names.push_back(std::to_string(rank));
    out += "  recorded in " + run.config.file.filename().string() + " (rank" + (run.ranks.size() == 1 ? " " : "s ") +
           Join(rank_names, ", ") + ")\n";
    nlohmann::ordered_json run_json{{"profiler_info", run.config.file.filename().string()},
                                    {"ranks", run.ranks},
                                    {"calls", nlohmann::ordered_json::array()}};
    for (const lint::TracedSite& site : sites) {
      out += "  " + site.file + ":" + std::to_string(site.line) + " " + site.callee + "\n";
      bool disagrees = false;
      nlohmann::ordered_json settings = nlohmann::ordered_json::array();
      for (const lint::TracedSetting& setting : site.settings) {
        const std::optional<std::string> recorded = Recorded(run.config, setting.id);
        const std::string traced = setting.values.empty() ? std::string("cannot tell")
                                   : setting.unknown      ? Join(setting.values, " | ") + " | cannot tell"
                                                          : Join(setting.values, " | ");
        std::string verdict;
        std::string token;  // the verdict for programs
        if (!recorded) {
          verdict = token = "not recorded";
        } else if (std::find(setting.values.begin(), setting.values.end(), *recorded) != setting.values.end()) {
          const bool one_path = setting.values.size() > 1 || setting.unknown;
          verdict = one_path ? "agrees (one of the traced paths)" : "agrees";
          token = one_path ? "agrees on one path" : "agrees";
        } else if (setting.unknown) {
          verdict = token = "lint could not tell";
        } else {
          verdict = "DISAGREES: changed at run time, a dynamic-profiler override, or a blind spot of opmfu lint";
          token = "disagrees";
          disagrees = true;
        }
        out += "    " + setting.name + std::string(setting.name.size() < 15 ? 15 - setting.name.size() : 1, ' ') +
               "lint: " + traced + "  run: " + recorded.value_or("-") + "  " + verdict + "\n";
        settings.push_back({{"name", setting.name},
                            {"traced", setting.values},
                            {"traced_unknown", setting.unknown},
                            {"recorded", recorded ? nlohmann::ordered_json(*recorded) : nlohmann::ordered_json()},
                            {"verdict", token}});
      }
      any_consistent = any_consistent || !disagrees;
      run_json["calls"].push_back({{"file", site.file},
                                   {"line", site.line},
                                   {"callee", site.callee},
                                   {"consistent", !disagrees},
                                   {"settings", std::move(settings)}});
    }
    check.json["runs"].push_back(std::move(run_json));
  }
  check.disagrees = !any_consistent;
  check.json["disagrees"] = check.disagrees;
  return check;
}

}  // namespace opmfu::cli
