// `opmfu lint` end to end through the binary: stdin, --fix, config, SARIF fields, exit codes.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/file_io.h"
#include "common/text.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;

constexpr const char* kBroken = testing::kScriptWithSafeFixesAndFindingsThatStay;

TEST(LintCli, FixRewritesTheSafeFixesAndTheFileThenLintsClean) {
  testing::TempDir dir;
  const fs::path script = dir.Write("train.py", kBroken);
  auto preview = RunOpmfu({"lint", "--no-config", "--diff", script.string()});
  EXPECT_EQ(preview.exit_code, 1);
  EXPECT_NE(preview.out.find("+    with_flops=True,"), std::string::npos) << preview.out;
  EXPECT_NE(preview.out.find("profiler_level='Level1'"), std::string::npos) << preview.out;
  EXPECT_EQ(testing::ReadFile(script), kBroken);  // --diff writes nothing

  auto fixed = RunOpmfu({"lint", "--no-config", "--fix", script.string()});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;  // every finding had a safe fix
  EXPECT_NE(fixed.err.find("Fixed 4 findings"), std::string::npos) << fixed.err;
  const std::string after = testing::ReadFile(script);
  EXPECT_NE(after.find("record_shapes=True"), std::string::npos) << after;
  EXPECT_NE(after.find("with_flops=True"), std::string::npos);
  EXPECT_NE(after.find("export_type=['text', 'db']"), std::string::npos) << after;
  auto again = RunOpmfu({"lint", "--no-config", "--output-format", "concise", script.string()});
  EXPECT_EQ(again.out.find("OPM101"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("OPM109"), std::string::npos) << again.out;
}

// --fix leaves a file with a syntax error as it is, so its fixes are not counted as fixable;
// a format spec tree-sitter misreads is no syntax error, and its file's fixes count and apply.
TEST(LintCli, FixableCountsOnlyFixesThatFixApplies) {
  testing::TempDir dir;
  const fs::path broken = dir.Write("broken.py", std::string(kBroken) + "def oops(:\n    pass\n");
  auto listed = RunOpmfu({"lint", "--no-config", broken.string()});
  EXPECT_NE(listed.out.find("OPM001"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.err.find("fixable with --fix"), std::string::npos) << listed.err;
  auto fixed = RunOpmfu({"lint", "--no-config", "--fix", broken.string()});
  EXPECT_EQ(testing::ReadFile(broken), std::string(kBroken) + "def oops(:\n    pass\n");

  const fs::path spec = dir.Write("spec.py", std::string(kBroken) + "print(f'{run_id:=^40}')\n");
  auto clean = RunOpmfu({"lint", "--no-config", spec.string()});
  EXPECT_EQ(clean.out.find("OPM001"), std::string::npos) << clean.out;
  EXPECT_NE(clean.err.find("4 fixable with --fix"), std::string::npos) << clean.err;
  auto applied = RunOpmfu({"lint", "--no-config", "--fix", spec.string()});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_NE(testing::ReadFile(spec).find("with_flops=True"), std::string::npos);
}

// Issue 44: a generated module past the input size limit in a tree (a 9 MB `_pb2.py`) used to
// abort `lint .` with exit 2. Read in pieces: one that mentions no profiler is skipped (said
// under --verbose), one that does is an OPM005 finding; the rest is linted, the exit code follows
// the findings.
TEST(LintCli, AFileOverTheSizeLimitInATreeIsSkippedOrAFindingNotAnError) {
  testing::TempDir dir;
  const std::string filler = "X = b'" + std::string(std::size_t{5} << 20, 'x') + "'\n";
  dir.Write("tree/messages_pb2.py", "DESCRIPTOR = None\n" + filler);
  dir.Write("tree/huge_profiling.py", filler + "import torch_npu\n");
  dir.Write("tree/train.py", kBroken);
  auto linted =
      RunOpmfu({"lint", "--no-config", "--output-format", "concise", "--verbose", (dir.path() / "tree").string()});
  EXPECT_EQ(linted.exit_code, 1) << linted.err;
  EXPECT_EQ(linted.err.find("Not linted"), std::string::npos) << linted.err;
  EXPECT_NE(linted.out.find("huge_profiling.py:1:1: OPM005 file too large"), std::string::npos) << linted.out;
  EXPECT_NE(linted.out.find("train.py"), std::string::npos) << linted.out;
  EXPECT_EQ(linted.out.find("messages_pb2.py"), std::string::npos) << linted.out;
  EXPECT_NE(linted.err.find("messages_pb2.py: 5.0 MiB"), std::string::npos) << linted.err;
  EXPECT_NE(linted.err.find("mentions no profiler or torch_npu: skipped unread"), std::string::npos) << linted.err;
  // Named on the command line, the file is still an input that could not be read.
  auto named = RunOpmfu({"lint", "--no-config", (dir.path() / "tree" / "messages_pb2.py").string()});
  EXPECT_EQ(named.exit_code, 2) << named.err;
}

// Issue 30: `opmfu lint --fix examples/broken_train.sh` leaves no MFU-blocking error. The level
// comes from the launcher (`LEVEL=${LEVEL:-level0}` ... `--profile-level ${LEVEL}`) into
// `LEVELS[args.profile_level]`: the fix edits the launcher, where the key is spelled; --diff
// shows both files, and a fresh lint agrees with what --fix printed.
TEST(LintCli, FixOfTheBrokenExampleEditsTheLauncherAndLeavesNoMfuBlockingError) {
  testing::TempDir dir;
  const fs::path examples = testing::SourceDir() / "examples";
  const fs::path launcher = dir.Write("broken_train.sh", testing::ReadFile(examples / "broken_train.sh"));
  dir.Write("broken_train.py", testing::ReadFile(examples / "broken_train.py"));
  auto preview = RunOpmfu({"lint", "--no-config", "--diff", "broken_train.sh"}, dir.path());
  EXPECT_NE(preview.out.find("+++ b/broken_train.sh"), std::string::npos) << preview.out;
  EXPECT_NE(preview.out.find("+LEVEL=${LEVEL:-level1}"), std::string::npos) << preview.out;
  EXPECT_NE(preview.out.find("+++ b/broken_train.py"), std::string::npos) << preview.out;

  auto fixed = RunOpmfu({"lint", "--no-config", "--fix", "--output-format", "concise", "broken_train.sh"}, dir.path());
  EXPECT_NE(fixed.err.find("Fixed 1 finding in broken_train.sh"), std::string::npos) << fixed.err;
  EXPECT_NE(testing::ReadFile(launcher).find("LEVEL=${LEVEL:-level1}\n"), std::string::npos);
  auto again = RunOpmfu({"lint", "--no-config", "--output-format", "concise", "broken_train.sh"}, dir.path());
  EXPECT_EQ(again.out, fixed.out);
  for (const char* blocking : {"OPM101", "OPM102", "OPM103", "OPM104", "OPM105", "OPM106", "OPM108"}) {
    EXPECT_EQ(again.out.find(blocking), std::string::npos) << blocking << " after --fix:\n" << again.out;
  }
}

// Two configs lack mstx; one lint places the finding at one of them. --fix lints again after its
// fixes, so the findings it prints (here the other config's, which has no safe fix yet) and its
// exit code are a fresh lint's, and --diff shows what --fix writes (issue 30, class 4).
TEST(LintCli, FixLintsAgainUntilNoSafeFixIsLeftAndDiffShowsWhatItWrites) {
  constexpr const char* kTwoConfigs =
      "import torch_npu\n"
      "from torch_npu.profiler import ExportType, ProfilerActivity, ProfilerLevel\n"
      "\n"
      "\n"
      "def collect(config):\n"
      "    return torch_npu.profiler.profile(\n"
      "        activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],\n"
      "        record_shapes=True,\n"
      "        with_flops=True,\n"
      "        experimental_config=config,\n"
      "    )\n"
      "\n"
      "\n"
      "slow = torch_npu.profiler._ExperimentalConfig(profiler_level=ProfilerLevel.Level1, "
      "export_type=[ExportType.Db])\n"
      "fast = torch_npu.profiler._ExperimentalConfig(profiler_level=ProfilerLevel.Level2, "
      "export_type=[ExportType.Db])\n"
      "first = collect(slow)\n"
      "second = collect(fast)\n";
  testing::TempDir dir;
  const fs::path script = dir.Write("train.py", kTwoConfigs);
  auto before = RunOpmfu({"lint", "--no-config", "--output-format", "concise", script.string()});
  ASSERT_NE(before.out.find("OPM102"), std::string::npos) << before.out;

  auto preview = RunOpmfu({"lint", "--no-config", "--diff", script.string()});
  EXPECT_EQ(testing::ReadFile(script), kTwoConfigs);  // --diff writes nothing
  auto fixed = RunOpmfu({"lint", "--no-config", "--fix", "--output-format", "concise", script.string()});
  const std::string after = testing::ReadFile(script);
  EXPECT_NE(after.find("mstx=True"), std::string::npos) << after;
  auto fresh = RunOpmfu({"lint", "--no-config", "--output-format", "concise", script.string()});
  EXPECT_NE(fixed.out, before.out);
  EXPECT_EQ(fixed.out, fresh.out);  // what --fix says is left is what a fresh lint finds
  EXPECT_EQ(fixed.exit_code, fresh.exit_code);

  // The preview is the change --fix made: its removed lines are the original's, its added ones
  // the fixed file's.
  const std::string original = kTwoConfigs;
  for (const std::string& line : SplitString(preview.out, '\n')) {
    if (line.starts_with("---") || line.starts_with("+++")) continue;
    if (line.starts_with("-")) {
      EXPECT_NE(original.find(line.substr(1) + "\n"), std::string::npos) << line;
    } else if (line.starts_with("+")) {
      EXPECT_NE(after.find(line.substr(1) + "\n"), std::string::npos) << line;
    }
  }
  EXPECT_NE(preview.out.find("mstx=True"), std::string::npos) << preview.out;
}

// --fix on a symlink fixes the file it names and leaves the link a link, with the mode kept.
TEST(LintCli, FixWritesThroughASymlinkAndKeepsTheMode) {
  testing::TempDir dir;
  const fs::path target = dir.Write("src/train.py", kBroken);
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const fs::path link = dir.path() / "train.py";
  fs::create_symlink("src/train.py", link);
  auto fixed = RunOpmfu({"lint", "--no-config", "--fix", link.string()});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_NE(testing::ReadFile(target).find("with_flops=True"), std::string::npos);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(LintCli, StdinIsLintedUnderItsGivenName) {
  testing::TempDir dir;
  const fs::path input = dir.Write("input.py", kBroken);
  auto result = RunOpmfu({"lint", "--no-config", "--output-format", "concise", "--stdin-filename", "job/train.py", "-"},
                         {}, {}, input);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("job/train.py:9:5: OPM101"), std::string::npos) << result.out;
}

TEST(LintCli, ConfigSelectsSeveritiesAndPerFileIgnores) {
  testing::TempDir dir;
  dir.Write("proj/.opmfu.yaml",
            "severity:\n  OPM101: warning\nper-file-ignores:\n  \"legacy/*.py\": [OPM1]\nfail-on: error\n"
            "exclude:\n  - \"vendor/*\"\n");
  dir.Write("proj/train.py", kBroken);
  dir.Write("proj/legacy/old.py", kBroken);
  dir.Write("proj/vendor/third.py", kBroken);
  auto result = RunOpmfu({"lint", "--output-format", "json", "."}, dir.path() / "proj");
  const auto findings = nlohmann::json::parse(result.out);
  bool with_flops_warning = false;
  for (const auto& finding : findings) {
    const std::string file = finding["filename"];
    EXPECT_EQ(file.find("vendor"), std::string::npos) << file;
    if (file.find("legacy") != std::string::npos) {
      EXPECT_NE(finding["code"].get<std::string>().rfind("OPM1", 0), 0U) << finding;
    }
    if (finding["code"] == "OPM101") with_flops_warning = finding["severity"] == "warning";
  }
  EXPECT_TRUE(with_flops_warning) << result.out;
  EXPECT_EQ(result.exit_code, 1);  // OPM109 is still an error
}

TEST(LintCli, SarifHasTheFieldsCodeScanningRequires) {
  auto result = RunOpmfu({"lint", "--no-config", "--output-format", "sarif", "examples/broken_train.py"});
  ASSERT_EQ(result.exit_code, 1);
  const auto log = nlohmann::json::parse(result.out);
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_TRUE(log.contains("$schema"));
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "opmfu");
  std::set<std::string> rule_ids;
  for (const auto& rule : run["tool"]["driver"]["rules"]) rule_ids.insert(rule["id"].get<std::string>());
  ASSERT_FALSE(run["results"].empty());
  for (const auto& r : run["results"]) {
    EXPECT_TRUE(rule_ids.count(r["ruleId"].get<std::string>())) << r["ruleId"];
    EXPECT_TRUE(r["level"] == "error" || r["level"] == "warning" || r["level"] == "note");
    EXPECT_FALSE(r["message"]["text"].get<std::string>().empty());
    const auto& location = r["locations"][0]["physicalLocation"];
    EXPECT_EQ(location["artifactLocation"]["uri"], "examples/broken_train.py");
    EXPECT_GE(location["region"]["startLine"].get<int>(), 1);
    EXPECT_GE(location["region"]["startColumn"].get<int>(), 1);
  }
}

TEST(LintCli, UsageErrorsExitTwo) {
  EXPECT_EQ(RunOpmfu({"lint", "--output-format", "xml", "examples/train.py"}).exit_code, 2);
  EXPECT_EQ(RunOpmfu({"lint", "--fail-on", "sometimes", "examples/train.py"}).exit_code, 2);
  testing::TempDir dir;
  dir.Write(".opmfu.yaml", "selct: [OPM1]\n");
  const fs::path script = dir.Write("train.py", kBroken);
  auto bad_config = RunOpmfu({"lint", script.string()}, dir.path());
  EXPECT_EQ(bad_config.exit_code, 2);
  EXPECT_NE(bad_config.err.find(".opmfu.yaml"), std::string::npos) << bad_config.err;
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

// Imports are followed below --root only; beyond it the trail ends with OPM004 saying so.
TEST(LintCli, RootBoundsTheModulesImportsLeadTo) {
  testing::TempDir dir;
  dir.Write("job/train.py",
            "import torch_npu\nfrom helpers.args import get_args\nargs = get_args()\n"
            "prof = torch_npu.profiler.profile(with_flops=args.with_flops)\n");
  dir.Write("job/helpers/__init__.py", "");
  dir.Write("job/helpers/args.py",
            "import argparse\ndef get_args():\n    p = argparse.ArgumentParser()\n"
            "    p.add_argument('--with-flops', action='store_true')\n    return p.parse_args()\n");
  dir.Write("job/sub/.keep", "");
  const std::string script = (dir.path() / "job" / "train.py").string();
  auto inside = testing::RunOpmfu({"lint", "--no-config", "--output-format", "concise", script});
  EXPECT_NE(inside.out.find("train.py:4:35: OPM101"), std::string::npos) << inside.out;
  EXPECT_NE(inside.out.find("(args.py:4)"), std::string::npos) << inside.out;  // the chain crosses files
  auto outside = testing::RunOpmfu(
      {"lint", "--no-config", "--output-format", "concise", "--root", (dir.path() / "job" / "sub").string(), script});
  EXPECT_NE(outside.out.find("OPM004"), std::string::npos) << outside.out;
  EXPECT_NE(outside.out.find("outside the project root"), std::string::npos) << outside.out;
  EXPECT_EQ(outside.out.find("OPM101"), std::string::npos) << outside.out;
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

// --statistics is a count table, or JSON with --output-format json; never written into a SARIF file.
TEST(LintCli, StatisticsAreJsonWithJsonAndRefusedWithSarif) {
  testing::TempDir dir;
  const std::string script = dir.Write("train.py", "import torch_npu\np = torch_npu.profiler.profile()\n").string();
  auto table = testing::RunOpmfu({"lint", "--no-config", "--statistics", script});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("\tOPM101\twith-flops-not-true"), std::string::npos) << table.out;
  auto as_json = testing::RunOpmfu({"lint", "--no-config", "--statistics", "--output-format", "json", script});
  EXPECT_EQ(as_json.exit_code, 1);
  EXPECT_EQ(as_json.out.rfind("[", 0), 0U) << as_json.out;
  EXPECT_NE(as_json.out.find("\"code\": \"OPM101\""), std::string::npos) << as_json.out;
  EXPECT_NE(as_json.out.find("\"count\": 1"), std::string::npos) << as_json.out;
  const std::string sarif_file = (dir.path() / "out.sarif").string();
  auto sarif =
      testing::RunOpmfu({"lint", "--no-config", "--statistics", "--output-format", "sarif", "-o", sarif_file, script});
  EXPECT_EQ(sarif.exit_code, 2);
  EXPECT_NE(sarif.err.find("--statistics"), std::string::npos) << sarif.err;
  EXPECT_FALSE(std::filesystem::exists(sarif_file));
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

// `lint --run DIR`: the traced settings against the run's profiler_info_<rank>.json.
TEST(LintCli, RunComparesTheTracedSettingsWithWhatTheRunRecorded) {
  testing::TempDir dir;
  const std::string run = (dir.path() / "prof").string();
  ASSERT_EQ(testing::RunOpmfu({"demo", run, "--ranks", "2"}).exit_code, 0);
  const std::string launcher = (testing::SourceDir() / "examples" / "train.sh").string();
  auto agree = testing::RunOpmfu({"lint", "--no-config", "--output-format", "concise", launcher, "--run", run});
  EXPECT_EQ(agree.exit_code, 0) << agree.out << agree.err;
  EXPECT_NE(agree.out.find("recorded in profiler_info_0.json (ranks 0, 1)"), std::string::npos) << agree.out;
  EXPECT_NE(agree.out.find("with_flops     lint: true  run: true  agrees"), std::string::npos) << agree.out;
  EXPECT_EQ(agree.out.find("DISAGREES"), std::string::npos) << agree.out;

  // The run says otherwise (e.g. a dynamic-profiler override): each disagreement is named, exit 1.
  for (const auto& entry : std::filesystem::directory_iterator(run)) {
    if (!entry.path().filename().string().ends_with("_ascend_pt")) continue;
    for (const auto& file : std::filesystem::directory_iterator(entry.path())) {
      if (!file.path().filename().string().starts_with("profiler_info_")) continue;
      std::string text = testing::ReadFile(file.path());
      const std::size_t at = text.find("\"with_flops\": true");
      ASSERT_NE(at, std::string::npos);
      text.replace(at, 18, "\"with_flops\": false");
      ASSERT_TRUE(WriteFileAtomically(file.path(), text).ok());
    }
  }
  auto differ = testing::RunOpmfu({"lint", "--no-config", "--output-format", "concise", launcher, "--run", run});
  EXPECT_EQ(differ.exit_code, 1) << differ.out << differ.err;
  EXPECT_NE(differ.out.find("with_flops     lint: true  run: false  DISAGREES"), std::string::npos) << differ.out;
  EXPECT_NE(differ.out.find("profiler_level lint: Level1  run: Level1  agrees"), std::string::npos) << differ.out;

  // Nothing recorded: one line naming the directory and the cause, exit 2.
  const std::string empty = dir.Write("empty/x_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", "")
                                .parent_path()
                                .parent_path()
                                .parent_path()
                                .string();
  auto none = testing::RunOpmfu({"lint", "--no-config", launcher, "--run", empty});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("no profiler_info_<rank>.json"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace opmfu
