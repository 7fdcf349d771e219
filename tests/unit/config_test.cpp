#include "common/config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "rules/rule_table.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

using testing::TempDir;

std::vector<RuleDescriptor> Rules() { return rules::RuleDescriptors(); }

TEST(Config, LoadsEveryKey) {
  TempDir dir;
  const auto path = dir.Write(".opmfu.yaml", R"(select: [OPM5, OPM001]
ignore: [formula-missing-kwargs]
severity:
  OPM509: error
per-file-ignores:
  "legacy/*.py": [OPM509]
exclude: ["build/**"]
fail-on: error
analyze:
  jobs: 2
  export-type: csv
)");
  auto config = LoadConfigFile(path, Rules());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->select, (std::vector<std::string>{"OPM5", "OPM001"}));
  EXPECT_EQ(config->ignore, (std::vector<std::string>{"formula-missing-kwargs"}));
  ASSERT_EQ(config->severity.size(), 1U);
  EXPECT_EQ(config->severity[0].second, Severity::kError);
  ASSERT_EQ(config->per_file_ignores.size(), 1U);
  EXPECT_EQ(config->fail_on, Severity::kError);
  EXPECT_EQ(config->analyze.jobs, 2);
  EXPECT_EQ(config->analyze.export_type, "csv");
}

TEST(Config, EmptyFileIsTheDefaults) {
  TempDir dir;
  auto config = LoadConfigFile(dir.Write(".opmfu.yaml", ""), Rules());
  ASSERT_TRUE(config.ok());
  EXPECT_TRUE(config->select.empty());
}

struct BadConfig {
  const char* text;
  const char* message;
};

class BadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigTest, IsAUsageErrorNamingFileLineAndCause) {
  TempDir dir;
  const auto path = dir.Write(".opmfu.yaml", GetParam().text);
  auto config = LoadConfigFile(path, Rules());
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().kind, Error::Kind::kUsage);
  EXPECT_EQ(config.error().message, path.string() + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, BadConfigTest,
    ::testing::Values(
        BadConfig{"selct: [OPM501]\n",
                  ":1:1: unknown key 'selct' (did you mean 'select'?); known keys: select, extend-select, ignore, "
                  "extend-ignore, severity, per-file-ignores, extend-per-file-ignores, exclude, extend-exclude, "
                  "fail-on, analyze, launchers, lint"},
        BadConfig{"select: [OPM5O1]\n", ":1:10: 'select': unknown rule 'OPM5O1' (did you mean 'OPM501'?)"},
        BadConfig{"ignore: [duplicate-targt]\n",
                  ":1:10: 'ignore': unknown rule 'duplicate-targt' (did you mean 'duplicate-target'?)"},
        BadConfig{"severity:\n  OPM501: fatal\n", ":2:11: unknown severity 'fatal' (expected error, warning or info)"},
        BadConfig{"fail-on: [error]\n", ":1:10: a severity must be a single value"},
        BadConfig{"analyze:\n  jobs: zero\n", ":2:9: 'jobs' must be a whole number from 1"},
        BadConfig{"analyze:\n  export-type: xlsx\n", ":2:16: unknown export-type 'xlsx'; choose db, text, csv or json"},
        BadConfig{"analyze:\n  job: 2\n",
                  ":2:3: unknown key 'job' in 'analyze' (did you mean 'jobs'?); known keys: jobs, export-type"},
        BadConfig{"select: [OPM501\n", ":2:1: invalid YAML: end of sequence flow not found"},
        BadConfig{"- just\n- a list\n", ":1:1: the config must be a mapping of keys (select, ignore, ...)"}));

TEST(Config, FoundUpwardFromTheInput) {
  TempDir dir;
  dir.Write("project/.opmfu.yaml", "ignore: [OPM506]\n");
  const auto file = dir.Write("project/src/pkg/formulas.py", "");
  const auto found = FindConfigFile(file);
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, dir.path() / "project" / ".opmfu.yaml");
  auto config = ConfigFor(file, Rules());
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->ignore, (std::vector<std::string>{"OPM506"}));
  // The nearest file wins.
  dir.Write("project/src/.opmfu.yaml", "ignore: [OPM509]\n");
  EXPECT_EQ(*FindConfigFile(file), dir.path() / "project" / "src" / ".opmfu.yaml");
}

TEST(EffectiveRules, SelectIgnoreSeverityAndPerFileIgnores) {
  TempDir dir;
  Config config;
  config.path = dir.path() / ".opmfu.yaml";
  config.select = {"OPM50"};
  config.ignore = {"OPM506"};
  config.severity = {{"OPM509", Severity::kError}};
  config.per_file_ignores = {{"legacy/*.py", {"OPM501"}}};
  const auto rules = Rules();

  auto effective = EffectiveRules(config, {}, rules, dir.path() / "f.py");
  EXPECT_EQ(effective["OPM001"], std::nullopt);  // not selected
  EXPECT_EQ(effective["OPM501"], Severity::kError);
  EXPECT_EQ(effective["OPM506"], std::nullopt);      // ignored
  EXPECT_EQ(effective["OPM509"], Severity::kError);  // raised from warning

  auto legacy = EffectiveRules(config, {}, rules, dir.path() / "legacy" / "old.py");
  EXPECT_EQ(legacy["OPM501"], std::nullopt);

  RuleOverrides overrides;
  overrides.select = {"ALL"};
  overrides.severity = {{"OPM509", Severity::kInfo}};
  auto cli = EffectiveRules(config, overrides, rules, dir.path() / "f.py");
  EXPECT_EQ(cli["OPM001"], Severity::kError);  // the CLI's select replaces the config's
  EXPECT_EQ(cli["OPM506"], std::nullopt);      // ignores still apply
  EXPECT_EQ(cli["OPM509"], Severity::kInfo);   // the CLI's severity wins
}

// ruff's layout and keys: the lint settings in a `lint` table ([tool.opmfu.lint]), and the
// extend- forms adding to their key; a key given in both places is an error naming it.
TEST(Config, ALintTableAndTheExtendKeys) {
  TempDir dir;
  const auto path = dir.Write("pyproject.toml", R"([tool.opmfu]
exclude = ["build"]
extend-exclude = ["tests"]

[tool.opmfu.lint]
select = ["OPM50"]
extend-select = ["OPM101"]
ignore = ["OPM506"]
extend-ignore = ["OPM507"]
per-file-ignores = {"legacy/*.py" = ["OPM501"]}
extend-per-file-ignores = {"old/*.py" = ["OPM502"]}
)");
  auto config = LoadConfigFile(path, Rules());
  ASSERT_TRUE(config.ok()) << config.error().message;
  std::vector<std::string> excluded = config->exclude;
  std::sort(excluded.begin(), excluded.end());
  EXPECT_EQ(excluded, (std::vector<std::string>{"build", "tests"}));
  EXPECT_EQ(config->select, (std::vector<std::string>{"OPM50"}));
  EXPECT_EQ(config->extend_select, (std::vector<std::string>{"OPM101"}));
  std::vector<std::string> ignored = config->ignore;  // TOML tables are read in key order
  std::sort(ignored.begin(), ignored.end());
  EXPECT_EQ(ignored, (std::vector<std::string>{"OPM506", "OPM507"}));
  ASSERT_EQ(config->per_file_ignores.size(), 2U);
  const auto rules = Rules();
  auto effective = EffectiveRules(*config, {}, rules, dir.path() / "f.py");
  EXPECT_EQ(effective["OPM101"], Severity::kError);  // extend-select adds to select
  EXPECT_EQ(effective["OPM102"], std::nullopt);      // not selected
  EXPECT_EQ(effective["OPM501"], Severity::kError);
  EXPECT_EQ(effective["OPM506"], std::nullopt);
  EXPECT_EQ(effective["OPM507"], std::nullopt);
  EXPECT_EQ(EffectiveRules(*config, {}, rules, dir.path() / "old" / "x.py")["OPM502"], std::nullopt);

  const auto twice =
      dir.Write("twice/pyproject.toml", "[tool.opmfu]\nselect = [\"OPM1\"]\n[tool.opmfu.lint]\nselect = [\"OPM2\"]\n");
  auto refused = LoadConfigFile(twice, Rules());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("'select' is given both at the top level and in 'lint'"), std::string::npos)
      << refused.error().message;
  const auto misplaced = dir.Write("misplaced/.opmfu.yaml", "lint:\n  analyze:\n    jobs: 2\n");
  auto unknown = LoadConfigFile(misplaced, Rules());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown key 'analyze' in 'lint'"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find(".opmfu.yaml:2:3:"), std::string::npos) << unknown.error().message;
}

TEST(ParseSeverityOverride, ReadsRuleEqualsLevel) {
  auto parsed = ParseSeverityOverride("OPM104=error");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->first, "OPM104");
  EXPECT_EQ(parsed->second, Severity::kError);
  EXPECT_FALSE(ParseSeverityOverride("OPM104").ok());
  EXPECT_FALSE(ParseSeverityOverride("OPM104=loud").ok());
}

}  // namespace
}  // namespace opmfu
