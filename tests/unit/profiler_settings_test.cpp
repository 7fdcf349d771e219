// The settings table (linter/profiler_settings.h) against its readers and its docs: every row has
// a spelling a reader reads, each reader finds every setting the table gives it a spelling for,
// and docs/settings.md and docs/launchers.md's list are the table's. UPDATE_SETTING_DOCS=1
// rewrites the docs from the table; review the diff as for goldens.

#include "linter/profiler_settings.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/profiler_info.h"
#include "linter/dynamic_config.h"
#include "linter/known_launchers.h"
#include "linter/profiler_config.h"
#include "linter/torch_npu.h"
#include "python/module.h"
#include "tests/test_support.h"

namespace opmfu::linter {
namespace {

namespace fs = std::filesystem;

std::string Name(const ProfilerSettingSpec& spec) { return std::string(spec.Name()); }

TEST(SettingsTable, EveryRowHasASpellingAReaderReads) {
  std::set<std::string> names;
  std::set<std::pair<JsonLevel, std::string>> json_keys;
  std::vector<Setting ProfilerCallSite::*> sites;  // member pointers have no order: a list
  std::set<int> listings;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    SCOPED_TRACE(Name(spec));
    EXPECT_FALSE(spec.Name().empty());
    EXPECT_TRUE(names.insert(Name(spec)).second) << "two rows named " << spec.Name();
    EXPECT_FALSE(spec.Shared().summary.empty()) << "docs/settings.md says what each setting does";
    const bool python = spec.python_call != PythonCall::kNone;
    const bool json = spec.json_level != JsonLevel::kNone;
    EXPECT_EQ(python, !spec.python_keyword.empty()) << "a Python call and its keyword go together";
    EXPECT_EQ(json, !spec.json_key.empty()) << "a JSON level and its key go together";
    EXPECT_TRUE(python || json) << "no reader knows this setting";
    if (json) {
      EXPECT_TRUE(json_keys.insert({spec.json_level, std::string(spec.json_key)}).second) << "repeated JSON key";
      EXPECT_FALSE(JsonDefault(spec).json.empty()) << "messages about a missing key say its default";
    }
    if (spec.site != nullptr) {
      EXPECT_EQ(std::find(sites.begin(), sites.end(), spec.site), sites.end())
          << "two rows trace into one ProfilerCallSite member";
      sites.push_back(spec.site);
      // Every traced setting comes from a Python call (JSON and launchers are read into the same model).
      EXPECT_TRUE(python) << "a traced setting needs its Python spelling";
      EXPECT_FALSE(spec.fallback.python.empty()) << "messages about a missing argument say its default";
      if (json && spec.type != SettingType::kExperimentalConfig) {
        EXPECT_FALSE(spec.json_remedy.empty()) << "a finding on a JSON key says what to write there";
      }
    }
    EXPECT_TRUE(!spec.launcher || spec.site != nullptr) << "a launcher computes only traced settings";
    if (spec.Shared().run_listing > 0) {
      EXPECT_NE(spec.site, nullptr) << "`lint --run` compares traced values";
      EXPECT_TRUE(listings.insert(spec.Shared().run_listing).second) << "two settings on one `lint --run` line";
    }
    const bool enumerated = spec.type == SettingType::kProfilerLevel || spec.type == SettingType::kExportType ||
                            spec.type == SettingType::kActivities;
    EXPECT_EQ(enumerated, !spec.choices.empty()) << "levels, export types and activities list their values";
  }
  for (int line = 1; line <= static_cast<int>(listings.size()); ++line) EXPECT_TRUE(listings.contains(line));
}

// A Python value of the row's type that is not its default.
std::string PythonValue(const ProfilerSettingSpec& spec) {
  switch (spec.type) {
    case SettingType::kBool:
      return spec.fallback.boolean ? "False" : "True";
    case SettingType::kProfilerLevel:
      return "torch_npu.profiler.ProfilerLevel.Level2";
    case SettingType::kExportType:
      return "['db']";
    case SettingType::kActivities:
      return "[torch_npu.profiler.ProfilerActivity.NPU]";
    case SettingType::kStringList:
      return "['mfu_flops']";
    case SettingType::kString:
      return "'x'";
    case SettingType::kNumber:
      return "1";
    case SettingType::kIntList:
      return "[0]";
    case SettingType::kObject:
      return "{}";
    case SettingType::kCallable:
      return spec.Name() == "on_trace_ready" ? "handler" : "print";
    case SettingType::kExperimentalConfig:
      return "config";
  }
  return "None";
}

TEST(SettingsTable, ThePythonReaderFindsEveryTracedSettingWhereTheTableSpellsIt) {
  std::string profile, experimental, handler;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.site == nullptr) continue;
    const std::string argument = std::string(spec.python_keyword) + "=" + PythonValue(spec) + ", ";
    if (spec.python_call == PythonCall::kProfile) profile += argument;
    if (spec.python_call == PythonCall::kExperimentalConfig) experimental += argument;
    if (spec.python_call == PythonCall::kTraceHandler) handler += argument;
  }
  const std::string source = "import torch_npu\nconfig = torch_npu.profiler._ExperimentalConfig(" + experimental +
                             ")\nhandler = torch_npu.profiler.tensorboard_trace_handler('./out', " + handler +
                             ")\nprof = torch_npu.profiler.profile(" + profile + ")\n";
  auto module = python::PythonModule::Parse("t.py", source, TorchNpuKnowledge());
  ASSERT_TRUE(module.ok());
  const ProfilerFacts facts = ReadProfilerFacts(std::make_unique<python::PythonModule>(std::move(*module)));
  ASSERT_EQ(facts.sites.size(), 1U) << source;
  const ProfilerCallSite& site = facts.sites.front();
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.site == nullptr) continue;
    const Setting& setting = site.*spec.site;
    EXPECT_TRUE(setting.written) << spec.Name() << " is not read from " << source;
    EXPECT_EQ(setting.name, spec.python_keyword);
    ASSERT_FALSE(setting.values.empty()) << spec.Name();
    if (spec.type == SettingType::kBool) {
      EXPECT_NE(setting.values.front().boolean, spec.fallback.boolean) << spec.Name();
    }
  }
  // Without arguments, every traced setting is its default, and the chain says so.
  auto bare =
      python::PythonModule::Parse("t.py",
                                  "import torch_npu\nhandler = torch_npu.profiler.tensorboard_trace_handler('./out')\n"
                                  "prof = torch_npu.profiler.profile(on_trace_ready=handler)\n",
                                  TorchNpuKnowledge());
  ASSERT_TRUE(bare.ok());
  const ProfilerFacts defaults = ReadProfilerFacts(std::make_unique<python::PythonModule>(std::move(*bare)));
  ASSERT_EQ(defaults.sites.size(), 1U);
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.site == nullptr || spec.Name() == "on_trace_ready") continue;
    const Setting& setting = defaults.sites.front().*spec.site;
    ASSERT_EQ(setting.values.size(), 1U) << spec.Name();
    const python::Value& value = setting.values.front();
    EXPECT_EQ(value.kind, spec.fallback.kind) << spec.Name();
    ASSERT_FALSE(value.chain.empty()) << spec.Name();
    EXPECT_EQ(value.chain.back().message,
              "`" + std::string(spec.python_keyword) + "` not given: defaults to " + std::string(spec.fallback.python));
  }
}

// A JSON value of the row's type that is not its default.
std::string JsonValue(const ProfilerSettingSpec& spec) {
  switch (spec.type) {
    case SettingType::kBool:
      return JsonDefault(spec).boolean ? "false" : "true";
    case SettingType::kProfilerLevel:
      return "\"Level2\"";
    case SettingType::kExportType:
      return "[\"db\"]";
    case SettingType::kActivities:
      return "[\"CPU\"]";
    case SettingType::kStringList:
      return "[\"mfu_flops\"]";
    case SettingType::kString:
      return "\"x\"";
    case SettingType::kNumber:
      return "1";
    case SettingType::kIntList:
      return "[0]";
    case SettingType::kObject:
    case SettingType::kCallable:
    case SettingType::kExperimentalConfig:
      return "{}";
  }
  return "null";
}

TEST(SettingsTable, TheJsonReaderKnowsEveryKeyAtItsLevelAndTracesTheTracedOnes) {
  std::string top, experimental;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.type == SettingType::kExperimentalConfig) continue;
    const std::string pair = "\"" + std::string(spec.json_key) + "\": " + JsonValue(spec);
    if (spec.json_level == JsonLevel::kTop) top += pair + ", ";
    if (spec.json_level == JsonLevel::kExperimental) experimental += (experimental.empty() ? "" : ", ") + pair;
  }
  const std::string text = "{" + top + "\"experimental_config\": {" + experimental + "}}";
  auto config = ReadDynamicConfig("profiler_config.json", text);
  ASSERT_TRUE(config.ok());
  ASSERT_FALSE(config->invalid) << text;
  const ProfilerCallSite site = DynamicConfigSite(*config);
  const std::vector<std::string> known = KnownConfigKeys();
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.json_level == JsonLevel::kNone) continue;
    SCOPED_TRACE(Name(spec));
    const bool top_level = spec.json_level == JsonLevel::kTop;
    EXPECT_EQ(IsTopLevelKey(spec.json_key), top_level);
    EXPECT_EQ(IsExperimentalKey(spec.json_key), !top_level);
    EXPECT_EQ(IsBooleanKey(spec.json_key), spec.type == SettingType::kBool && !spec.json_overwritten);
    EXPECT_NE(std::find(known.begin(), known.end(), spec.json_key), known.end());
    if (spec.site == nullptr || spec.type == SettingType::kExperimentalConfig) continue;
    const Setting& setting = site.*spec.site;
    EXPECT_TRUE(setting.written) << text;
    EXPECT_EQ(setting.remedy, spec.json_remedy);
    ASSERT_EQ(setting.values.size(), 1U);
    EXPECT_TRUE(setting.values.front().from_json);
  }
  EXPECT_EQ(known.size(), static_cast<std::size_t>(std::count_if(
                              ProfilerSettings().begin(), ProfilerSettings().end(),
                              [](const ProfilerSettingSpec& spec) { return spec.json_level != JsonLevel::kNone; })));
}

TEST(SettingsTable, ALauncherDescriptionMayComputeExactlyTheLauncherSettings) {
  const std::string head =
      "name: T\nmatch: {scripts: [t.py]}\nenabled_by: prof\noptions:\n  prof: {name: --prof, type: bool}\n"
      "settings:\n";
  std::string settings;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (!spec.launcher) continue;
    settings += "  " + std::string(spec.Name()) +
                ": {fixed: " + (spec.type == SettingType::kBool ? std::string("true") : std::string("[x]")) + "}\n";
  }
  auto launcher = ParseKnownLauncher(head + settings, "t.yaml");
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  Launch launch;
  launch.script.text = "t.py";
  launch.arguments.push_back({"--prof", true, {}});
  const KnownLaunchFacts facts = ReadKnownLaunch(*launcher, launch, DiskFiles());
  ASSERT_EQ(facts.sites.size(), 1U);
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    SCOPED_TRACE(Name(spec));
    if (spec.launcher) {
      EXPECT_EQ((facts.sites.front().*spec.site).values.size(), 1U);
      continue;
    }
    auto refused = ParseKnownLauncher(head + "  " + std::string(spec.Name()) + ": {fixed: true}\n", "t.yaml");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("unknown setting '" + std::string(spec.Name()) + "'"), std::string::npos)
        << refused.error().message;
  }
}

bool Updating() {
  const char* update = std::getenv("UPDATE_SETTING_DOCS");
  return update != nullptr && std::string(update) == "1";
}

// `text` with the lines between the marker lines starting `begin` and `end` replaced by `block`;
// nullopt without the markers.
std::optional<std::string> WithBlock(const std::string& text, std::string_view begin, std::string_view end,
                                     const std::string& block) {
  const std::size_t first = text.find(begin);
  if (first == std::string::npos) return std::nullopt;
  const std::size_t body = text.find('\n', first);
  const std::size_t last = text.find(end, first);
  if (body == std::string::npos || last == std::string::npos || last < body) return std::nullopt;
  return text.substr(0, body + 1) + block + text.substr(last);
}

void ExpectGenerated(const fs::path& page, std::string_view begin, std::string_view end, const std::string& block) {
  const std::string text = testing::ReadFile(page);
  const std::optional<std::string> generated = WithBlock(text, begin, end, block);
  ASSERT_TRUE(generated.has_value()) << page << " lacks the marker comments `" << begin << "` and `" << end << "`";
  if (Updating()) {
    if (*generated != text) std::ofstream(page, std::ios::binary | std::ios::trunc) << *generated;
    return;
  }
  EXPECT_EQ(text, *generated) << page
                              << ": the generated part comes from linter/profiler_settings.cpp; run with "
                                 "UPDATE_SETTING_DOCS=1";
}

TEST(SettingsTable, TheDocsAreTheTables) {
  const fs::path docs = testing::SourceDir() / "docs";
  ExpectGenerated(docs / "settings.md", "<!-- settings table:", "<!-- end of the settings table",
                  ProfilerSettingsMarkdown());
  ExpectGenerated(docs / "launchers.md", "<!-- launcher settings:", "<!-- end of the launcher settings",
                  LauncherSettingsMarkdown());
  // Every setting is in the generated page, under its own name, with every reader's spelling.
  const std::string page = testing::ReadFile(docs / "settings.md");
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    EXPECT_NE(page.find("| `" + Name(spec) + "` |"), std::string::npos) << spec.Name();
    if (!spec.python_keyword.empty()) {
      EXPECT_NE(page.find("(" + std::string(spec.python_keyword) + "=)"), std::string::npos) << spec.Name();
    }
  }
}

// One table: every shared row (common/profiler_settings.h) is extended by exactly one linter row,
// and every linter row extends a shared one. A setting is named once, by its id.
TEST(SettingsTable, EveryLinterRowExtendsOneSharedRow) {
  std::set<SettingId> extended;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    EXPECT_TRUE(extended.insert(spec.id).second) << "two linter rows extend " << spec.Name();
    EXPECT_EQ(FindSetting(spec.Name()), &spec.Shared());
  }
  for (const SettingRow& row : SettingRows()) {
    EXPECT_TRUE(extended.contains(row.id)) << row.name << " has no linter row";
    EXPECT_EQ(&Row(row.id), &row);
  }
}

// What a recorded row needs to be read, listed by check-db and compared by `lint --run` is all in
// its row: a profiler_info JSON with a value at every recorded key gives every value back, without
// the engine naming a setting. (So a new recorded setting touches no engine or cli file.)
TEST(SettingsTable, TheRunRecordReaderReadsEveryRecordedRowWhereTheTableSaysIt) {
  nlohmann::json common = nlohmann::json::object();
  nlohmann::json experimental = nlohmann::json::object();
  for (const SettingRow& row : SettingRows()) {
    if (row.recorded_section == RecordedSection::kNotRead) {
      EXPECT_EQ(row.run_listing, 0) << row.name << ": `lint --run` compares only what the run records";
      EXPECT_TRUE(row.mfu_needs.empty()) << row.name << ": check-db shows needs only of recorded settings";
      continue;
    }
    EXPECT_FALSE(row.recorded_key.empty()) << row.name;
    EXPECT_FALSE(row.recorded_label.empty()) << row.name;
    nlohmann::json value;
    switch (row.recorded_form) {
      case RecordedForm::kBool:
        value = true;
        break;
      case RecordedForm::kText:
        value = "Level2";
        break;
      case RecordedForm::kList:
        value = {"x", "y"};
        break;
      case RecordedForm::kSchedule:
        value = {{"wait", 1}, {"active", 2}};
        break;
    }
    (row.recorded_section == RecordedSection::kCommon ? common : experimental)[std::string(row.recorded_key)] = value;
  }
  testing::TempDir dir;
  dir.Write("profiler_info_0.json",
            nlohmann::json{{"config", {{"common_config", common}, {"experimental_config", experimental}}}}.dump());
  auto config = engine::ReadRecordedConfig(dir.path(), 0);
  ASSERT_TRUE(config.ok() && config->has_value());
  const std::vector<engine::RecordedEntry> entries = engine::RecordedSettings(**config);
  std::size_t at = 0;
  for (const SettingRow& row : SettingRows()) {
    if (row.recorded_section == RecordedSection::kNotRead) continue;
    SCOPED_TRACE(std::string(row.name));
    ASSERT_LT(at, entries.size());
    EXPECT_EQ(entries[at].label, row.recorded_label);
    EXPECT_EQ(entries[at].mfu_needs, row.mfu_needs);
    const std::string expected = row.recorded_form == RecordedForm::kBool   ? "true"
                                 : row.recorded_form == RecordedForm::kText ? "Level2"
                                 : row.recorded_form == RecordedForm::kList ? "[x, y]"
                                                                            : "wait=1 active=2";
    EXPECT_EQ(entries[at].value, expected);
    ++at;
  }
  ASSERT_EQ(at + 1, entries.size()) << "then the torch_npu version";
  EXPECT_EQ(entries.back().label, "torch_npu");
}

}  // namespace
}  // namespace opmfu::linter
