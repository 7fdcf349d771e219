// `opmfu lint` with ruff's CI conventions: no path means `.`, --exit-zero, --quiet/--silent,
// --exclude/--extend-exclude, --extend-select/--extend-ignore, --config FILE, --output-file,
// pyproject.toml's [tool.opmfu], the JSON error object and `--run` in JSON, and the completions.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

// with_flops=False (OPM101, an error) and nothing else wrong.
constexpr const char* kNoFlops =
    "import time\n"
    "import torch_npu\n"
    "prof = torch_npu.profiler.profile(\n"
    "    activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],\n"
    "    on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(f'./p/{time.strftime(\"%Y%m%d-%H%M%S\")}'),\n"
    "    record_shapes=True,\n"
    "    with_flops=False,\n"
    "    experimental_config=torch_npu.profiler._ExperimentalConfig(\n"
    "        profiler_level=torch_npu.profiler.ProfilerLevel.Level1, mstx=True, msprof_tx=True,\n"
    "        export_type=[torch_npu.profiler.ExportType.Db]),\n"
    ")\n";

// The rule ids of a `--output-format json` findings array.
std::set<std::string> FindingCodes(const std::string& text) {
  std::set<std::string> codes;
  for (const auto& finding : nlohmann::json::parse(text)) codes.insert(finding["code"].get<std::string>());
  return codes;
}

std::set<std::string> FindingFiles(const std::string& text) {
  std::set<std::string> files;
  for (const auto& finding : nlohmann::json::parse(text)) files.insert(finding["filename"].get<std::string>());
  return files;
}

TEST(LintConventions, NoPathLintsTheWorkingDirectory) {
  TempDir dir;
  dir.Write("proj/src/train.py", kNoFlops);
  const fs::path proj = dir.path() / "proj";
  const auto bare = RunOpmfu({"lint", "--output-format", "json"}, proj);
  const auto dot = RunOpmfu({"lint", "--output-format", "json", "."}, proj);
  EXPECT_EQ(bare.exit_code, 1) << bare.err;
  EXPECT_EQ(bare.out, dot.out);
  EXPECT_EQ(FindingFiles(bare.out), std::set<std::string>{"src/train.py"});
}

TEST(LintConventions, ExitZeroQuietSilentAndOutputFile) {
  TempDir dir;
  const fs::path script = dir.Write("train.py", kNoFlops);
  const auto zero = RunOpmfu({"lint", "--no-config", "--exit-zero", "--output-format", "concise", script.string()});
  EXPECT_EQ(zero.exit_code, 0);
  EXPECT_NE(zero.out.find("OPM101"), std::string::npos);
  // Errors stay errors: a file that is not there is exit 2 whatever --exit-zero says.
  EXPECT_EQ(RunOpmfu({"lint", "--exit-zero", (dir.path() / "missing.py").string()}).exit_code, 2);

  const auto loud = RunOpmfu({"lint", "--no-config", "--output-format", "concise", script.string()});
  const auto quiet = RunOpmfu({"lint", "--no-config", "-q", "--output-format", "concise", script.string()});
  EXPECT_EQ(quiet.exit_code, 1);
  EXPECT_EQ(quiet.out, loud.out);
  EXPECT_NE(loud.err.find("Found"), std::string::npos) << loud.err;
  EXPECT_EQ(quiet.err, "");
  const auto silent = RunOpmfu({"lint", "--no-config", "--silent", script.string()});
  EXPECT_EQ(silent.exit_code, 1);
  EXPECT_EQ(silent.out, "");
  EXPECT_EQ(silent.err, "");
  const auto silent_error = RunOpmfu({"lint", "-s", (dir.path() / "missing.py").string()});
  EXPECT_EQ(silent_error.exit_code, 2);
  EXPECT_NE(silent_error.err.find("missing.py"), std::string::npos);  // an error is never silent

  const fs::path report = dir.path() / "report.json";
  const auto filed =
      RunOpmfu({"lint", "--no-config", "--output-format", "json", "--output-file", report.string(), script.string()});
  EXPECT_EQ(filed.exit_code, 1);
  EXPECT_EQ(filed.out, "");
  EXPECT_EQ(FindingCodes(testing::ReadFile(report)), std::set<std::string>{"OPM101"});
}

TEST(LintConventions, ExcludeReplacesTheConfigsAndExtendExcludeAddsToIt) {
  TempDir dir;
  dir.Write("proj/train.py", kNoFlops);
  dir.Write("proj/legacy/old.py", kNoFlops);
  dir.Write("proj/build/gen.py", kNoFlops);
  dir.Write("proj/.opmfu.yaml", "exclude: [\"build/**\"]\n");
  const fs::path proj = dir.path() / "proj";
  const auto lint = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"lint", "--output-format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return FindingFiles(RunOpmfu(args, proj).out);
  };
  EXPECT_EQ(lint({}), (std::set<std::string>{"legacy/old.py", "train.py"}));
  EXPECT_EQ(lint({"--extend-exclude", "legacy"}), std::set<std::string>{"train.py"});
  EXPECT_EQ(lint({"--exclude", "legacy"}), (std::set<std::string>{"build/gen.py", "train.py"}));
  EXPECT_EQ(lint({"--exclude", "legacy,build"}), std::set<std::string>{"train.py"});
  // A file named on the command line is linted, excluded or not (as ruff without --force-exclude).
  EXPECT_EQ(lint({"--exclude", "legacy", "legacy/old.py"}), std::set<std::string>{"legacy/old.py"});
}

TEST(LintConventions, ExtendSelectAndExtendIgnore) {
  TempDir dir;
  const fs::path script = dir.Write("proj/train.py", kNoFlops);
  dir.Write("proj/.opmfu.yaml", "select: [OPM104]\n");
  const fs::path proj = dir.path() / "proj";
  EXPECT_EQ(RunOpmfu({"lint", "--output-format", "json", "train.py"}, proj).out, "[]\n");
  EXPECT_EQ(
      FindingCodes(RunOpmfu({"lint", "--output-format", "json", "--extend-select", "OPM101", "train.py"}, proj).out),
      std::set<std::string>{"OPM101"});
  EXPECT_EQ(
      RunOpmfu({"lint", "--no-config", "--output-format", "json", "--extend-ignore", "OPM1", script.string()}).out,
      "[]\n");
  const auto typo = RunOpmfu({"lint", "--extend-select", "OPM9999", script.string()});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown rule 'OPM9999'"), std::string::npos);
}

TEST(LintConventions, PyprojectToolOpmfuAndConfigFile) {
  TempDir dir;
  dir.Write("proj/src/train.py", kNoFlops);
  const fs::path proj = dir.path() / "proj";
  const auto codes = [&](std::vector<std::string> extra, const fs::path& cwd) {
    std::vector<std::string> args{"lint", "--output-format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = RunOpmfu(args, cwd);
    EXPECT_LE(result.exit_code, 1) << result.err;
    return FindingCodes(result.out);
  };
  // [tool.opmfu] with the keys of .opmfu.yaml; a pyproject.toml without it is passed over.
  dir.Write("proj/pyproject.toml", "[project]\nname = \"x\"\n\n[tool.opmfu]\nignore = [\"OPM101\"]\n");
  dir.Write("proj/src/pyproject.toml", "[tool.ruff]\nline-length = 100\n");
  EXPECT_EQ(codes({"src/train.py"}, proj), std::set<std::string>{});
  dir.Write("proj/pyproject.toml", "[tool.opmfu]\nfail-on = \"error\"\n[tool.opmfu.severity]\nOPM101 = \"info\"\n");
  const auto info = RunOpmfu({"lint", "src/train.py"}, proj);
  EXPECT_EQ(info.exit_code, 0) << info.err;  // an info finding under fail-on error
  // In one directory .opmfu.yaml wins over pyproject.toml (as ruff's own file wins over it).
  dir.Write("proj/.opmfu.yaml", "select: [OPM104]\n");
  EXPECT_EQ(codes({"src/train.py"}, proj), std::set<std::string>{});
  fs::remove(proj / ".opmfu.yaml");
  // Errors name the file and the table.
  dir.Write("proj/pyproject.toml", "[tool.opmfu]\nselct = [\"OPM1\"]\n");
  auto bad_key = RunOpmfu({"lint", "src/train.py"}, proj);
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_NE(bad_key.err.find("pyproject.toml [tool.opmfu]: unknown key 'selct' (did you mean 'select'?)"),
            std::string::npos)
      << bad_key.err;
  dir.Write("proj/pyproject.toml", "[tool.opmfu]\nselect = [\"OPM1\"\n");
  auto bad_toml = RunOpmfu({"lint", "src/train.py"}, proj);
  EXPECT_EQ(bad_toml.exit_code, 2);
  EXPECT_NE(bad_toml.err.find("pyproject.toml:2:"), std::string::npos) << bad_toml.err;
  EXPECT_NE(bad_toml.err.find("invalid TOML"), std::string::npos) << bad_toml.err;
  fs::remove(proj / "pyproject.toml");

  // --config FILE applies to every input, instead of the nearest config; flags still win over it.
  const fs::path yaml = dir.Write("elsewhere/strict.yaml", "ignore: [OPM101]\n");
  const fs::path toml = dir.Write("elsewhere/opmfu.toml", "select = [\"OPM104\"]\n");
  dir.Write("proj/.opmfu.yaml", "select: [OPM101]\n");
  EXPECT_EQ(codes({"src/train.py"}, proj), std::set<std::string>{"OPM101"});
  EXPECT_EQ(codes({"--config", yaml.string(), "src/train.py"}, proj), std::set<std::string>{});
  EXPECT_EQ(codes({"--config", toml.string(), "src/train.py"}, proj), std::set<std::string>{});
  EXPECT_EQ(codes({"--config", yaml.string(), "--select", "OPM101", "--ignore", "OPM104", "src/train.py"}, proj),
            std::set<std::string>{});  // the file's ignore still applies beside the flags'
  EXPECT_EQ(codes({"--config", toml.string(), "--extend-select", "OPM101", "src/train.py"}, proj),
            std::set<std::string>{"OPM101"});
  EXPECT_EQ(RunOpmfu({"lint", "--config", yaml.string(), "--no-config", "src/train.py"}, proj).exit_code, 2);
  EXPECT_EQ(RunOpmfu({"lint", "--config", "nope.toml", "src/train.py"}, proj).exit_code, 2);
}

TEST(LintConventions, JsonModeErrorsAreTheErrorObject) {
  TempDir dir;
  const fs::path script = dir.Write("train.py", kNoFlops);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"lint", (dir.path() / "missing.py").string(), "--format", "json"},
        std::vector<std::string>{"lint", script.string(), (dir.path() / "missing.py").string(), "--output-format",
                                 "json"},
        std::vector<std::string>{"lint", script.string(), "--format", "json", "--run", dir.path().string()}}) {
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    const auto object = nlohmann::json::parse(result.out);
    EXPECT_EQ(object["error"]["exit_code"], 2) << result.out;
    EXPECT_EQ(object["error"]["kind"], "input") << result.out;
    EXPECT_NE(result.err.find(object["error"]["message"].get<std::string>()), std::string::npos);
  }
}

TEST(LintConventions, RunComparisonIsInTheJson) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "2", "--steps", "1"}).exit_code, 0);
  const auto result = RunOpmfu(
      {"lint", "--no-config", "--format", "json", "--run", demo.string(), (demo / "example" / "train.sh").string()});
  ASSERT_LE(result.exit_code, 1) << result.err;
  const auto document = nlohmann::json::parse(result.out);
  ASSERT_TRUE(document["findings"].is_array());
  const auto& run = document["run"];
  EXPECT_EQ(run["directory"], demo.string());
  EXPECT_EQ(run["disagrees"], false);
  ASSERT_EQ(run["runs"].size(), 1U);  // both ranks recorded the same settings
  EXPECT_EQ(run["runs"][0]["ranks"], nlohmann::json({0, 1}));
  const auto& call = run["runs"][0]["calls"][0];
  EXPECT_EQ(call["consistent"], true);
  std::map<std::string, nlohmann::json> settings;
  for (const auto& setting : call["settings"]) settings[setting["name"]] = setting;
  EXPECT_EQ(settings.at("with_flops")["recorded"], "true");
  EXPECT_EQ(settings.at("with_flops")["verdict"], "agrees");
  EXPECT_EQ(settings.at("with_flops")["traced"], nlohmann::json({"true"}));
  EXPECT_EQ(result.err.find("Lint's prediction"), std::string::npos);  // no second copy on stderr
}

TEST(LintConventions, CompletionsOfferRuleIdsAndEveryChoice) {
  const auto bash = RunOpmfu({"completion", "bash"});
  ASSERT_EQ(bash.exit_code, 0);
  TempDir dir;
  const fs::path script = dir.Write("opmfu.bash", bash.out);
  // The words bash offers for a command line (the last word is being typed).
  const auto offered = [&](const std::string& line) {
    const fs::path probe = dir.Write("probe.sh", "source '" + script.string() + "'\nCOMP_WORDS=(" + line +
                                                     ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_opmfu\n"
                                                     "printf '%s\\n' \"${COMPREPLY[@]}\"\n");
    std::string out;
    const std::string command = "bash '" + probe.string() + "'";
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
      char buffer[4096];
      while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
      ::pclose(pipe);
    }
    return out;
  };
  EXPECT_NE(offered("opmfu lint --output-format ''").find("gitlab\n"), std::string::npos);
  EXPECT_EQ(offered("opmfu lint --select OPM10"),
            "OPM101\nOPM102\nOPM103\nOPM104\nOPM105\nOPM106\nOPM107\nOPM108\nOPM109\n");
  EXPECT_NE(offered("opmfu lint --ignore OPM101,OPM20").find("OPM101,OPM201\n"), std::string::npos);
  EXPECT_EQ(offered("opmfu lint --fail-on w"), "warning\n");
  EXPECT_EQ(offered("opmfu analyze --export_type c"), "csv\n");
  EXPECT_EQ(offered("opmfu analyze -m o"), "operator_mfu\n");
  EXPECT_EQ(offered("opmfu registry list --format m"), "markdown\n");
  EXPECT_EQ(offered("opmfu compl"), "completion\n");
  const auto zsh = RunOpmfu({"completion", "zsh"});
  ASSERT_EQ(zsh.exit_code, 0);
  EXPECT_NE(zsh.out.find(":rules:_sequence -s , compadd - ALL OPM001"), std::string::npos);
  EXPECT_NE(zsh.out.find("--format}'[full, concise, gcc, json, sarif, github, gitlab"), std::string::npos);
  EXPECT_NE(offered("opmfu lint --output-format r").find("rdjson\n"), std::string::npos);
  EXPECT_NE(offered("opmfu gate --output-format g").find("gitlab\n"), std::string::npos);
  EXPECT_EQ(RunOpmfu({"completion", "fish"}).exit_code, 2);
}

constexpr const char* kRuffUserScript = testing::kScriptWithSafeFixesAndFindingsThatStay;

// ruff users' habits (docs/cli.md, "Coming from ruff").
TEST(LintRuffHabits, ExcludeNamesAFolderAsRuffDoesInTheConfigAndOnTheCommandLine) {
  testing::TempDir dir;
  dir.Write("proj/pyproject.toml",
            "[tool.opmfu]\nexclude = [\"tests\"]\nper-file-ignores = {\"src/train.py\" = [\"OPM101\"]}\n");
  dir.Write("proj/src/train.py", kRuffUserScript);
  dir.Write("proj/tests/deep/t.py", kRuffUserScript);
  const fs::path proj = dir.path() / "proj";
  // The nearest config, and the same file named bare or with ./: the folder excluded, the ignore kept.
  for (const std::vector<std::string>& config :
       {std::vector<std::string>{}, {"--config", "pyproject.toml"}, {"--config", "./pyproject.toml"}}) {
    std::vector<std::string> args{"lint", "--output-format", "json", "."};
    args.insert(args.end(), config.begin(), config.end());
    const auto result = RunOpmfu(args, proj);
    const std::string spelled = ::testing::PrintToString(config);
    EXPECT_EQ(FindingFiles(result.out), std::set<std::string>{"src/train.py"}) << spelled << result.out;
    EXPECT_EQ(result.out.find("OPM101"), std::string::npos) << spelled;
    EXPECT_NE(result.out.find("OPM109"), std::string::npos) << spelled;
  }
  // --exclude tests, tests/ and ./tests all name the folder.
  for (const std::string spelling : {"tests", "tests/", "./tests"}) {
    const auto result = RunOpmfu({"lint", "--no-config", "--output-format", "json", "--exclude", spelling, "."}, proj);
    EXPECT_EQ(FindingFiles(result.out), std::set<std::string>{"src/train.py"}) << spelling;
  }
}

TEST(LintRuffHabits, StdinTakesDiffAndFixAndANameWithoutTheDash) {
  testing::TempDir dir;
  const fs::path input = dir.Write("input.py", kRuffUserScript);
  const fs::path named = dir.Write("job/train.py", "# the file on disk is not the piped text\n");
  // --diff on stdin prints the diff of the piped text.
  const auto diff =
      RunOpmfu({"lint", "--no-config", "-", "--diff", "--stdin-filename", "job/train.py"}, dir.path(), {}, input);
  EXPECT_EQ(diff.exit_code, 1) << diff.err;
  EXPECT_NE(diff.out.find("+++ b/job/train.py"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("+    with_flops=True,"), std::string::npos) << diff.out;
  // --fix on stdin prints the fixed text (the findings left on stderr) and writes no file.
  const auto fixed =
      RunOpmfu({"lint", "--no-config", "-", "--fix", "--stdin-filename", "job/train.py"}, dir.path(), {}, input);
  EXPECT_NE(fixed.out.find("    with_flops=True,\n"), std::string::npos) << fixed.out;
  EXPECT_EQ(fixed.out.rfind("import torch_npu\n", 0), 0U) << fixed.out;
  EXPECT_NE(fixed.err.find("Fixed "), std::string::npos) << fixed.err;
  EXPECT_EQ(testing::ReadFile(named), "# the file on disk is not the piped text\n");
  EXPECT_EQ(testing::ReadFile(input), kRuffUserScript);
  // The fixed text lints clean of what was fixed.
  const fs::path again = dir.Write("again.py", fixed.out);
  const auto relint = RunOpmfu({"lint", "--no-config", "--select", "OPM101", again.string()});
  EXPECT_EQ(relint.exit_code, 0) << relint.out;
  // --stdin-filename with no path reads stdin, as ruff.
  const auto without_dash = RunOpmfu(
      {"lint", "--no-config", "--output-format", "concise", "--stdin-filename", "job/train.py"}, dir.path(), {}, input);
  EXPECT_EQ(without_dash.exit_code, 1);
  EXPECT_NE(without_dash.out.find("job/train.py:9:5: OPM101"), std::string::npos) << without_dash.out;
}

TEST(LintRuffHabits, NoqaInAnyCaseAndTheFileLevelNoqa) {
  testing::TempDir dir;
  const std::string call = "import torch_npu\np = torch_npu.profiler.profile(with_flops=False)";
  const fs::path upper = dir.Write("upper.py", call + "  # NOQA: OPM101\n");
  const fs::path mixed = dir.Write("mixed.py", call + "  # NoQa:OPM101\n");
  const fs::path whole = dir.Write("whole.py", "# opmfu: noqa\n" + call + "\n");
  const fs::path some = dir.Write("some.py", "# opmfu: noqa: OPM101\n" + call + "\n");
  for (const fs::path& file : {upper, mixed, whole}) {
    const auto result = RunOpmfu({"lint", "--no-config", "--select", "OPM101", file.string()});
    EXPECT_EQ(result.exit_code, 0) << file << result.out;
  }
  const auto all_rules = RunOpmfu({"lint", "--no-config", whole.string()});
  EXPECT_EQ(all_rules.exit_code, 0) << all_rules.out;
  const auto listed = RunOpmfu({"lint", "--no-config", "--output-format", "json", some.string()});
  EXPECT_EQ(listed.exit_code, 1);
  EXPECT_EQ(listed.out.find("OPM101"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("OPM10"), std::string::npos) << listed.out;  // the other rules still run
}

TEST(LintRuffHabits, ASeverityChangesNoFix) {
  testing::TempDir dir;
  // OPM101 (an error), OPM104 (an error) and OPM107 (a warning), each with a safe fix.
  const fs::path script = dir.Write("proj/a.py",
                                    "import torch_npu\n"
                                    "cfg = torch_npu.profiler._ExperimentalConfig(profiler_level='level0')\n"
                                    "prof = torch_npu.profiler.profile(with_flops=False, record_shapes=False,\n"
                                    "                                  experimental_config=cfg)\n");
  const fs::path proj = dir.path() / "proj";
  const auto diff = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"lint", "--diff", "a.py"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunOpmfu(args, proj).out;
  };
  const std::string plain = diff({"--no-config"});
  ASSERT_NE(plain.find("with_flops=True"), std::string::npos) << plain;
  ASSERT_NE(plain.find("record_shapes=True"), std::string::npos) << plain;
  ASSERT_NE(plain.find("'Level1'"), std::string::npos) << plain;
  for (const std::vector<std::string>& severity : {std::vector<std::string>{"--severity", "OPM101=warning"},
                                                   {"--severity", "OPM101=info", "--severity", "OPM104=warning"},
                                                   {"--severity", "OPM107=error"},
                                                   {"--severity", "OPM1=info"}}) {
    std::vector<std::string> args{"--no-config"};
    args.insert(args.end(), severity.begin(), severity.end());
    EXPECT_EQ(diff(args), plain) << ::testing::PrintToString(severity);
  }
  // The same from a config's severity table.
  dir.Write("proj/.opmfu.yaml", "severity:\n  OPM101: warning\n  OPM104: info\n");
  EXPECT_EQ(diff({}), plain);
}

TEST(LintRuffHabits, RdjsonCarriesTheSafeFixesAsSuggestions) {
  testing::TempDir dir;
  dir.Write("train.py", kRuffUserScript);
  const auto result = RunOpmfu({"lint", "--no-config", "--output-format", "rdjson", "train.py"}, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(result.err, "");  // a document for reviewdog: no summary beside it
  const auto document = nlohmann::json::parse(result.out);
  EXPECT_EQ(document["source"]["name"], "opmfu");
  std::map<std::string, nlohmann::json> by_code;
  for (const auto& finding : document["diagnostics"]) by_code[finding["code"]["value"]] = finding;
  ASSERT_TRUE(by_code.contains("OPM101")) << result.out;
  const auto& flops = by_code["OPM101"];
  EXPECT_EQ(flops["location"]["path"], "train.py");
  ASSERT_EQ(flops["suggestions"].size(), 1U) << flops;
  // The suggestion, applied to its line, is what --fix writes there.
  const auto& range = flops["suggestions"][0]["range"];
  ASSERT_EQ(range["start"]["line"], 9);
  ASSERT_EQ(range["end"]["line"], 9);
  std::string line = "    with_flops=False,";
  const std::size_t begin = range["start"]["column"].get<std::size_t>() - 1;
  line.replace(begin, range["end"]["column"].get<std::size_t>() - 1 - begin,
               flops["suggestions"][0]["text"].get<std::string>());
  EXPECT_EQ(line, "    with_flops=True,");
  // Every safe fix the json format shows, and only those, is a suggestion.
  const auto findings =
      nlohmann::json::parse(RunOpmfu({"lint", "--no-config", "--output-format", "json", "train.py"}, dir.path()).out);
  std::size_t safe = 0;
  for (const auto& finding : findings) safe += finding["fix"].is_object() && finding["fix"]["applicability"] == "safe";
  std::size_t suggested = 0;
  for (const auto& finding : document["diagnostics"]) suggested += finding.contains("suggestions");
  EXPECT_EQ(suggested, safe);
  EXPECT_EQ(document["diagnostics"].size(), findings.size());
}

TEST(LintRuffHabits, ShowFilesListsWhatLintReadsAfterTheExcludes) {
  testing::TempDir dir;
  dir.Write("proj/.opmfu.yaml", "exclude: [\"build/**\"]\n");
  dir.Write("proj/train.py", kNoFlops);
  dir.Write("proj/legacy/old.py", kNoFlops);
  dir.Write("proj/build/gen.py", kNoFlops);
  dir.Write("proj/run.sh", "#!/bin/bash\npython3 train.py\n");
  dir.Write("proj/notes.txt", "not linted\n");
  const fs::path proj = dir.path() / "proj";
  const auto show = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"lint", "--show-files"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = RunOpmfu(args, proj);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    return result.out;
  };
  EXPECT_EQ(show({}), "legacy/old.py\nrun.sh\ntrain.py\n");
  EXPECT_EQ(show({"--extend-exclude", "legacy"}), "run.sh\ntrain.py\n");
  EXPECT_EQ(show({"--exclude", "legacy"}), "build/gen.py\nrun.sh\ntrain.py\n");  // the config's replaced
  EXPECT_EQ(show({"build/gen.py", "train.py"}), "build/gen.py\ntrain.py\n");     // named: always linted
  // What lint reports on is among what --show-files lists.
  std::set<std::string> listed;
  std::string out = show({});
  for (std::size_t start = 0, end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
    listed.insert(out.substr(start, end - start));
  }
  const std::set<std::string> linted = FindingFiles(RunOpmfu({"lint", "--output-format", "json"}, proj).out);
  EXPECT_EQ(linted, (std::set<std::string>{"legacy/old.py", "train.py"}));
  for (const std::string& file : linted) EXPECT_TRUE(listed.contains(file)) << file;
  // A path that is not there is an error, as for lint itself.
  EXPECT_EQ(RunOpmfu({"lint", "--show-files", "missing.py"}, proj).exit_code, 2);
}

// The config's `exclude` skips launchers and profiler_config.json a walk finds, as it skips Python
// files (docs/configuration.md); before, build/run.sh was linted and its OPM205 reported.
TEST(LintRuffHabits, ConfigExcludeSkipsFoundLaunchersAndDynamicConfigs) {
  testing::TempDir dir;
  dir.Write("proj/.opmfu.yaml", "exclude: [\"build/**\"]\n");
  dir.Write("proj/train.py", kNoFlops);
  dir.Write("proj/build/run.sh", "#!/bin/bash\ntorchrun --nproc_per_node 8 missing.py\n");
  dir.Write("proj/build/profiler_config.json", "{\"with_flops\": false}\n");
  const fs::path proj = dir.path() / "proj";
  const auto shown = RunOpmfu({"lint", "--show-files"}, proj);
  EXPECT_EQ(shown.out, "train.py\n") << shown.err;
  EXPECT_EQ(FindingFiles(RunOpmfu({"lint", "--output-format", "json"}, proj).out), (std::set<std::string>{"train.py"}));
  // Named, they are linted; with --force-exclude, the config skips them even then.
  EXPECT_TRUE(
      FindingFiles(RunOpmfu({"lint", "--output-format", "json", "build/run.sh"}, proj).out).contains("build/run.sh"));
  EXPECT_EQ(
      RunOpmfu({"lint", "--show-files", "--force-exclude", "build/run.sh", "build/profiler_config.json"}, proj).out,
      "");
}

TEST(LintRuffHabits, ShowSettingsSaysWhatIsInForceForAFile) {
  testing::TempDir dir;
  dir.Write("proj/pyproject.toml",
            "[tool.opmfu]\nselect = [\"OPM1\"]\nignore = [\"OPM105\"]\nexclude = [\"tests\"]\nfail-on = \"error\"\n"
            "per-file-ignores = {\"src/*.py\" = [\"OPM101\"]}\n[tool.opmfu.severity]\nOPM107 = \"error\"\n");
  dir.Write("proj/src/train.py", kNoFlops);
  const fs::path proj = dir.path() / "proj";
  const auto result = RunOpmfu(
      {"lint", "--show-settings", "--severity", "OPM102=info", "--extend-ignore", "OPM106", "src/train.py"}, proj);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string& out = result.out;
  EXPECT_EQ(out.rfind("settings for: src/train.py\nconfig file: ", 0), 0U) << out;
  EXPECT_NE(out.find("proj/pyproject.toml\n"), std::string::npos) << out;
  for (const std::string line :
       {"select: [OPM1] (config)\n", "ignore (config): [OPM105]\n", "ignore (command line): [OPM106]\n",
        "severity (config): {OPM107: error}\n", "severity (command line, wins): {OPM102: info}\n",
        "fail-on (config): error\n", "): [tests]\n", "per-file-ignores (config):\n  src/*.py: [OPM101]\n",
        "  OPM101 with-flops-not-true: off\n", "  OPM102 mstx-disabled: info\n", "  OPM107 record-shapes-off: error\n",
        "  OPM104 profiler-level-below-level1: error\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  }
  ASSERT_NE(out.find("  OPM201 "), std::string::npos) << out;
  EXPECT_NE(out.find(": off\n", out.find("  OPM201 ")), std::string::npos) << out;  // not selected
  // --no-config and --config say so.
  const auto bare = RunOpmfu({"lint", "--show-settings", "--no-config", "src/train.py"}, proj);
  EXPECT_NE(bare.out.find("config file: none (--no-config)\n"), std::string::npos) << bare.out;
  EXPECT_NE(bare.out.find("  OPM101 with-flops-not-true: error\n"), std::string::npos) << bare.out;
  const auto named = RunOpmfu({"lint", "--show-settings", "--config", "pyproject.toml", "src/train.py"}, proj);
  EXPECT_NE(named.out.find("config file: pyproject.toml (--config)\n"), std::string::npos) << named.out;
  // And lint reports only what the settings say is on.
  const auto linted = FindingCodes(RunOpmfu({"lint", "--output-format", "json", "src/train.py"}, proj).out);
  EXPECT_FALSE(linted.contains("OPM101"));
}

TEST(LintRuffHabits, ForceExcludeSkipsNamedPathsToo) {
  testing::TempDir dir;
  dir.Write("proj/.opmfu.yaml", "exclude: [\"build/**\"]\n");
  dir.Write("proj/train.py", kNoFlops);
  dir.Write("proj/build/gen.py", kNoFlops);
  dir.Write("proj/legacy/old.py", kNoFlops);
  dir.Write("proj/legacy/run.sh", "#!/bin/bash\nif [ ; then\n");
  const fs::path proj = dir.path() / "proj";
  const auto files = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"lint", "--output-format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return FindingFiles(RunOpmfu(args, proj).out);
  };
  const std::vector<std::string> named = {"train.py", "build/gen.py", "legacy/old.py", "legacy/run.sh"};
  std::vector<std::string> plain = named;
  EXPECT_EQ(files(plain), (std::set<std::string>{"build/gen.py", "legacy/old.py", "legacy/run.sh", "train.py"}));
  std::vector<std::string> forced = named;
  forced.insert(forced.begin(), "--force-exclude");
  // The config's exclude, and --extend-exclude's, now skip what is named (a pre-commit hook names files).
  EXPECT_EQ(files(forced), (std::set<std::string>{"legacy/old.py", "legacy/run.sh", "train.py"}));
  forced.insert(forced.begin(), {"--extend-exclude", "legacy"});
  EXPECT_EQ(files(forced), std::set<std::string>{"train.py"});
  // --show-files agrees.
  std::vector<std::string> shown{"lint", "--show-files"};
  shown.insert(shown.end(), forced.begin(), forced.end());
  EXPECT_EQ(RunOpmfu(shown, proj).out, "train.py\n");
  // A directory named that an exclude matches is skipped whole.
  EXPECT_EQ(files({"--force-exclude", "--extend-exclude", "legacy", "legacy"}), std::set<std::string>{});
}

TEST(LintRuffHabits, AnEmptyPathSaysAVariableMayBeUnset) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"lint", ""}, {"analyze", "-d", ""}, {"check-db", "-d", ""}, {"report", "-d", ""}}) {
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, 2) << args[0];
    EXPECT_NE(result.err.find(": an empty path (is the variable meant to name it, e.g. $PROF_DIR, unset?)"),
              std::string::npos)
        << args[0] << ": " << result.err;
  }
}

// "Fixed N findings" counts findings, as the lint's "N fixable" does, not the edits: one OPM102
// on a profile() that two configs reach carries an edit in each.
TEST(LintRuffHabits, FixedCountsFindingsNotEdits) {
  testing::TempDir dir;
  const fs::path script = dir.Write("t.py", R"(import torch_npu


def run(cfg):
    return torch_npu.profiler.profile(
        activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
        with_flops=True, record_shapes=True,
        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler("./prof"),
        experimental_config=cfg)


def main():
    run(torch_npu.profiler._ExperimentalConfig(profiler_level=torch_npu.profiler.ProfilerLevel.Level1,
        export_type=[torch_npu.profiler.ExportType.Text, torch_npu.profiler.ExportType.Db]))
    run(torch_npu.profiler._ExperimentalConfig(profiler_level=torch_npu.profiler.ProfilerLevel.Level1,
        export_type=[torch_npu.profiler.ExportType.Text, torch_npu.profiler.ExportType.Db]))
)");
  const auto lint = RunOpmfu({"lint", "--no-config", "--select", "OPM102", script.string()});
  ASSERT_NE(lint.err.find("Found 1 finding (1 error); 1 fixable with --fix."), std::string::npos) << lint.err;
  const auto diff = RunOpmfu({"lint", "--no-config", "--select", "OPM102", "--diff", script.string()});
  std::size_t added = 0;
  for (std::size_t at = diff.out.find("\n+"); at != std::string::npos; at = diff.out.find("\n+", at + 1)) {
    if (diff.out.compare(at, 5, "\n+++ ") != 0) ++added;
  }
  EXPECT_GE(added, 2U) << diff.out;  // the one finding edits both configs
  const auto fixed = RunOpmfu({"lint", "--no-config", "--select", "OPM102", "--fix", script.string()});
  EXPECT_NE(fixed.err.find("Fixed 1 finding in "), std::string::npos) << fixed.err;
}

// ruff's --unsafe-fixes: an unsafe fix is shown, counted as hidden, left out of --diff and --fix,
// and applied only when asked for; the fixed file then lints clean.
TEST(LintRuffHabits, UnsafeFixesOnlyWhenAskedFor) {
  testing::TempDir dir;
  const std::string original = "from torch_npu.profiler.profiler import analyse\nanalyse(\"./prof\")\n";
  const fs::path script = dir.Write("parse.py", original);
  const std::vector<std::string> lint{"lint", "--no-config", script.string()};
  const auto plain = RunOpmfu(lint);
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_NE(plain.out.find("OPM115"), std::string::npos) << plain.out;
  // Quoted as the call's own string is.
  EXPECT_NE(plain.out.find("= fix (unsafe): add `export_type=[\"text\", \"db\"]`"), std::string::npos) << plain.out;
  EXPECT_NE(plain.err.find("Found 1 finding (1 warning); 1 hidden fix can be enabled with --unsafe-fixes."),
            std::string::npos)
      << plain.err;
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = lint;
    args.insert(args.end() - 1, extra.begin(), extra.end());
    return RunOpmfu(args);
  };
  const auto safe_diff = with({"--diff"});
  EXPECT_EQ(safe_diff.exit_code, 0) << safe_diff.err;
  EXPECT_EQ(safe_diff.out, "");
  const auto unsafe_diff = with({"--diff", "--unsafe-fixes"});
  EXPECT_EQ(unsafe_diff.exit_code, 1) << unsafe_diff.err;
  EXPECT_NE(unsafe_diff.out.find("+analyse(\"./prof\", export_type=[\"text\", \"db\"])"), std::string::npos)
      << unsafe_diff.out;
  EXPECT_EQ(testing::ReadFile(script), original);  // --diff changes nothing
  const auto safe_fix = with({"--fix"});
  EXPECT_EQ(testing::ReadFile(script), original) << safe_fix.err;
  const auto unsafe_fix = with({"--fix", "--unsafe-fixes"});
  EXPECT_EQ(unsafe_fix.exit_code, 0) << unsafe_fix.err;
  EXPECT_NE(unsafe_fix.err.find("Fixed 1 finding in "), std::string::npos) << unsafe_fix.err;
  EXPECT_EQ(testing::ReadFile(script),
            "from torch_npu.profiler.profiler import analyse\nanalyse(\"./prof\", export_type=[\"text\", \"db\"])\n");
  EXPECT_EQ(RunOpmfu(lint).exit_code, 0);
}

// ruff's --add-noqa: every finding's line gets a `# noqa: CODES` (merged into a noqa it has, in
// front of a plain comment; for a command continued with `\`, on its last line, which covers it
// whole), after which lint reports only what no directive can cover: a line inside a multi-line
// string (the `#` would become its text), a JSON config. The edited files still parse (no OPM001), and no directive is
// unused (no OPM003).
TEST(LintRuffHabits, AddNoqaSilencesWhatADirectiveCanCover) {
  testing::TempDir dir;
  dir.Write("train.py", R"py(import argparse
import torch_npu
parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int)
args = parser.parse_args()
NOTE = """profile(
with_flops=False)"""
prof = torch_npu.profiler.profile(  # keep this comment
    activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
    record_shapes=False)  # noqa: OPM104
)py");
  dir.Write("run.sh",
            "python train.py --steps 2 \\\n  --bad 1\npython train.py --bad 2 \\\n  --steps 3\n"
            "python train.py --bad 3 --steps \"2\n\"\npython train.py --bad 4 \\\n\necho done\n");
  dir.Write("end.sh", "python train.py --bad 5 \\\n");  // bash runs the command at the end of the file
  dir.Write("profiler_config.json", R"json({"activities": ["CPU", "NPU"], "prof_dir": "./prof", "start_step": 10,
 "analyse": true, "record_shapes": true, "with_flops": false,
 "experimental_config": {"profiler_level": "Level1", "export_type": ["db"], "msprof_tx": true}})json");
  const std::vector<std::string> lint{"lint", "--no-config", "--output-format", "concise", dir.path().string()};
  const auto before = RunOpmfu(lint);
  ASSERT_EQ(before.exit_code, 1) << before.err;
  std::vector<std::string> add = lint;
  add.push_back("--add-noqa");
  const auto added = RunOpmfu(add);
  EXPECT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out, "");
  EXPECT_NE(added.err.find("Added 6 noqa directives. 3 findings take none"), std::string::npos) << added.err;
  const std::string script = testing::ReadFile(dir.path() / "train.py");
  EXPECT_NE(script.find("prof = torch_npu.profiler.profile(  # noqa: OPM101, OPM102, OPM103, OPM104, OPM108  "
                        "# keep this comment\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("record_shapes=False)  # noqa: OPM104, OPM107\n"), std::string::npos) << script;
  EXPECT_NE(script.find("NOTE = \"\"\"profile(\nwith_flops=False)\"\"\"\n"), std::string::npos) << script;
  EXPECT_EQ(testing::ReadFile(dir.path() / "run.sh"),
            "python train.py --steps 2 \\\n  --bad 1  # noqa: OPM201\npython train.py --bad 2 \\\n  --steps 3  # noqa: "
            "OPM201\n"
            "python train.py --bad 3 --steps \"2\n\"\npython train.py --bad 4 \\\n# noqa: OPM201\necho done\n");
  EXPECT_EQ(testing::ReadFile(dir.path() / "end.sh"), "python train.py --bad 5 \\\n# noqa: OPM201\n");
  const auto after = RunOpmfu(lint);
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_NE(after.out.find("run.sh:5:17: OPM201"), std::string::npos) << after.out;  // in a string
  EXPECT_NE(after.out.find("profiler_config.json:"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find("/train.py:"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find("OPM001"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find("OPM003"), std::string::npos) << after.out;
  EXPECT_NE(after.err.find("Found 2 findings"), std::string::npos) << after.err;
  // One edit at a time, and never the standard input.
  add.push_back("--fix");
  EXPECT_EQ(RunOpmfu(add).exit_code, 2);
  EXPECT_EQ(RunOpmfu({"lint", "--no-config", "--add-noqa", "-"}).exit_code, 2);
}

// A trailing noqa covers the whole command it ends, continued lines included (one line to bash);
// a finding in a launcher another one runs is hidden by the noqa of the launcher it is in, never by
// one at the same line number of the launcher that ran it (which is then unused: OPM003).
TEST(LintRuffHabits, ANoqaCoversItsCommandInItsOwnFile) {
  testing::TempDir dir;
  const fs::path caller = dir.Write("a.sh", "bash b.sh\necho hi  # noqa: OPM205\n");
  const fs::path runs = dir.Write("b.sh", "cd \"$UNKNOWN_DIR\"\npython missing.py  # noqa: OPM205\n");
  const fs::path continued =
      dir.Write("c.sh", "torchrun --nproc_per_node 8 missing.py \\\n    --steps 2 \\\n    --x 1  # noqa: OPM205\n");
  // In a function body, called or not: the directive is read from the file, not from the run.
  const fs::path in_function = dir.Write("d.sh",
                                         "run() {\n  torchrun --nproc_per_node 8 \"${D}/x.py\"  # noqa: OPM205\n}\n"
                                         "unused() {\n  echo  # noqa: OPM205\n}\nrun\n");
  const auto lint = RunOpmfu({"lint", "--no-config", "--output-format", "concise", caller.string(), runs.string(),
                              continued.string(), in_function.string()});
  EXPECT_EQ(lint.out.find(": OPM205 "), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("a.sh:2:10: OPM003"), std::string::npos) << lint.out;
  EXPECT_EQ(lint.out.find("b.sh:2:20: OPM003"), std::string::npos) << lint.out;
  EXPECT_EQ(lint.out.find("c.sh:3:12: OPM003"), std::string::npos) << lint.out;
  EXPECT_EQ(lint.out.find("d.sh:2:"), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("d.sh:5:9: OPM003"), std::string::npos) << lint.out;  // hides nothing
}

// ruff's inline --config: a TOML setting laid over the config in force, key by key (in the lint
// table or at the top level, whichever the file used); beside a --config FILE too; bad TOML, an
// unknown key and a second file are usage errors naming the cause.
TEST(LintRuffHabits, InlineConfigSettingsOverTheConfigInForce) {
  testing::TempDir dir;
  dir.Write("pyproject.toml", "[tool.opmfu.lint]\nignore = [\"OPM101\"]\nextend-exclude = [\"tests\"]\n");
  const std::string script = "import torch_npu\nprof = torch_npu.profiler.profile()\n";
  dir.Write("src/train.py", script);
  dir.Write("tests/test_train.py", script);
  const auto rules_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"lint", ".", "--output-format", "concise"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto run = RunOpmfu(args, dir.path());
    std::set<std::string> seen;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
      const std::size_t at = line.find(" OPM");
      if (at != std::string::npos) seen.insert(line.substr(0, line.find(':')) + " " + line.substr(at + 1, 6));
    }
    return std::pair{run.exit_code, seen};
  };
  const auto [plain_code, plain] = rules_of({});
  EXPECT_EQ(plain.count("src/train.py OPM101"), 0U);
  EXPECT_EQ(plain.count("src/train.py OPM104"), 1U);
  for (const std::string& finding : plain) EXPECT_EQ(finding.rfind("tests/", 0), std::string::npos) << finding;
  // The inline ignore replaces the file's: OPM101 is back, OPM104 goes.
  const auto [over_code, over] = rules_of({"--config", "lint.ignore = [\"OPM104\"]"});
  EXPECT_EQ(over.count("src/train.py OPM101"), 1U);
  EXPECT_EQ(over.count("src/train.py OPM104"), 0U);
  // Two settings, the top-level spelling of a key the file has in `lint`.
  const auto [both_code, both] =
      rules_of({"--config", "ignore = [\"OPM101\", \"OPM104\"]", "--config", "extend-exclude = []"});
  EXPECT_EQ(both.count("tests/test_train.py OPM102"), 1U);
  EXPECT_EQ(both.count("src/train.py OPM104"), 0U);
  // Beside a named file.
  dir.Write("strict.toml", "select = [\"OPM104\"]\n");
  const auto [file_code, file] = rules_of({"--config", "strict.toml", "--config", "extend-select = [\"OPM101\"]"});
  EXPECT_EQ(file.count("src/train.py OPM104"), 1U);
  EXPECT_EQ(file.count("src/train.py OPM101"), 1U);
  EXPECT_EQ(file.count("src/train.py OPM102"), 0U);

  const auto broken = RunOpmfu({"lint", ".", "--config", "select = ["}, dir.path());
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("--config:1:"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("invalid TOML"), std::string::npos) << broken.err;
  const auto unknown = RunOpmfu({"lint", ".", "--config", "selct = []"}, dir.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("with --config settings: unknown key 'selct' (did you mean 'select'?)"), std::string::npos)
      << unknown.err;
  const auto missing = RunOpmfu({"lint", ".", "--config", "nofile.toml"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--config nofile.toml: no such file (and not a KEY = VALUE setting)"), std::string::npos)
      << missing.err;
  const auto two = RunOpmfu({"lint", ".", "--config", "strict.toml", "--config", "pyproject.toml"}, dir.path());
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("a second config file"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace opmfu
