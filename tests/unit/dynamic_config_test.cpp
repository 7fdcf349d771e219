// The dynamic-profiler JSON reader: what json.load would reject, which entry wins, how values map
// onto the profile(...) model, and input that must not crash it.

#include "linter/dynamic_config.h"

#include <gtest/gtest.h>

#include "lint/lint.h"
#include "linter/profiler_config.h"
#include "tests/test_support.h"

namespace opmfu::linter {
namespace {

DynamicConfig Read(std::string text) {
  auto config = ReadDynamicConfig("profiler_config.json", std::move(text));
  EXPECT_TRUE(config.ok());
  return std::move(*config);
}

TEST(DynamicConfig, KeysAreReadAtTheirLevelAndTheLastRepeatWins) {
  const DynamicConfig config = Read(R"({
  "with_flops": false,
  "with_flops": true,
  "experimental_config": {"profiler_level": "Level1", "export_type": ["text", "db"]}
})");
  EXPECT_FALSE(config.invalid);
  ASSERT_TRUE(config.top_is_object);
  ASSERT_EQ(config.top.size(), 3U);
  ASSERT_NE(config.Top("with_flops"), nullptr);
  EXPECT_TRUE(config.Top("with_flops")->value.is_true());
  EXPECT_EQ(config.Top("with_flops")->where.range().start.line, 3);
  ASSERT_NE(config.Experimental("export_type"), nullptr);
  EXPECT_EQ(config.Experimental("export_type")->value.Describe(), R"(["text", "db"])");
  EXPECT_EQ(config.Top("profiler_level"), nullptr);
}

TEST(DynamicConfig, SiteMapsJsonOntoTheProfileModel) {
  const DynamicConfig config = Read(R"({"activities": ["cpu", "npu", "gpu"],
 "experimental_config": {"profiler_level": "Level2", "mstx": true}})");
  const ProfilerCallSite site = DynamicConfigSite(config);
  EXPECT_EQ(site.origin, SiteOrigin::kDynamicConfig);
  ASSERT_EQ(site.activities.values.size(), 1U);
  const python::Value& activities = site.activities.values.front();
  ASSERT_EQ(activities.items.size(), 2U);  // "gpu" is dropped, the others upper-cased
  EXPECT_EQ(activities.items[0].kind, python::ValueKind::kEnum);
  EXPECT_EQ(activities.items[1].text, "NPU");
  EXPECT_EQ(site.profiler_level.values.front().kind, python::ValueKind::kEnum);
  EXPECT_TRUE(site.mstx.written);
  EXPECT_FALSE(site.msprof_tx.written);
  EXPECT_FALSE(site.with_flops.written);
  EXPECT_EQ(site.with_flops.values.front().Describe(), "false");
  // A missing experimental key is reported at `experimental_config`, a missing top key at `{`.
  EXPECT_EQ(site.msprof_tx.where.range().start.line, 2);
  EXPECT_EQ(site.with_flops.where.range().start, (SourcePosition{1, 1}));
}

TEST(DynamicConfig, WhatJsonLoadRejectsIsInvalid) {
  for (const char* text : {"{\"a\": 1,}", "{\"a\": 1} // note", "{\"a\": 1}\n{}", "", "{'a': 1}", "{\"a\": [1, 2"}) {
    EXPECT_TRUE(Read(text).invalid) << text;
  }
  EXPECT_FALSE(Read("{}").invalid);
  EXPECT_FALSE(Read("[1]").invalid);
  EXPECT_FALSE(Read("[1]").top_is_object);
}

TEST(DynamicConfig, HostileInputIsBounded) {
  // Nesting to the limit (deeper is refused before parsing: ParseBounds.*), a key with escapes,
  // NUL inside a string, a huge number.
  const std::string deep = "{\"metadata\": " + std::string(255, '[') + std::string(255, ']') + "}";
  const DynamicConfig nested = Read(deep);
  EXPECT_FALSE(nested.invalid);
  ASSERT_NE(nested.Top("metadata"), nullptr);
  EXPECT_FALSE(ReadDynamicConfig("profiler_config.json", "{\"m\": " + std::string(100000, '[') + "}").ok());
  const DynamicConfig odd = Read(R"({"with\u005fflops": true, "prof_dir": "a\u0000b", "active": 1e999999})");
  ASSERT_NE(odd.Top("with_flops"), nullptr);
  EXPECT_TRUE(odd.Top("with_flops")->value.is_true());
  EXPECT_EQ(odd.Top("prof_dir")->value.text, std::string("a\0b", 3));
}

}  // namespace
}  // namespace opmfu::linter

namespace opmfu::rules {
namespace {

using lint::LintedFile;
using lint::LintOptions;
using lint::LintPaths;
using lint::LintReport;
using lint::LintRuleDescriptors;

TEST(DynamicConfigLint, FixWritesTheValuesTorchNpuWouldAccept) {
  testing::TempDir dir;
  const std::string original =
      "{\n  \"with_flops\": \"TRUE\",\n  \"start_step\": 3,\n  \"analyse\": true,\n"
      "  \"experimental_config\": {\"profiler_level\": \"level1\", \"mstx\": true, \"msprof_tx\": true,\n"
      "                          \"export_type\": \"DB\"}\n}\n";
  const auto config = dir.Write("profiler_config.json", original);
  auto fixed = testing::RunOpmfu({"lint", "--no-config", "--fix", config.string()});
  EXPECT_EQ(fixed.exit_code, 1) << fixed.out << fixed.err;  // record_shapes is still off (a warning)...
  const std::string after = testing::ReadFile(config);
  EXPECT_NE(after.find("\"with_flops\": true"), std::string::npos) << after;
  EXPECT_NE(after.find("\"profiler_level\": \"Level1\""), std::string::npos) << after;
  EXPECT_NE(after.find("\"export_type\": \"db\""), std::string::npos) << after;
  auto again = testing::RunOpmfu({"lint", "--no-config", "--output-format", "concise", config.string()});
  EXPECT_EQ(again.out.find("OPM302"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("OPM107"), std::string::npos) << again.out;  // ...and reported, not fixed
}

TEST(DynamicConfigLint, ADirectoryFindsItsConfigsAndReportsUnreadableOnes) {
  testing::TempDir dir;
  dir.Write("job/profiler_config.json", "{\"with_flops\": true}\n");
  dir.Write("job/other.json", "not even json");  // only profiler_config.json is picked from directories
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({dir.path().string()}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->files.size(), 1U);
  EXPECT_EQ(std::filesystem::path(report->files.front().path).filename(), "profiler_config.json");
  auto binary = LintPaths({dir.Write("b.json", std::string("{\"a\": \"\xff\"}")).string()}, options);
  ASSERT_TRUE(binary.ok());
  ASSERT_EQ(binary->errors.size(), 1U);
  EXPECT_NE(binary->errors.front().message.find("b.json: not valid UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace opmfu::rules
