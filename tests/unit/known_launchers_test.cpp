// Known-launcher descriptions: the built-in ones load, bad ones are one-line errors naming the
// file and line, matching picks the right package, and an added description is used by `lint`.

#include "linter/known_launchers.h"

#include <gtest/gtest.h>

#include "common/file_reader.h"
#include "linter/bash_launcher.h"
#include "linter/profiler_config.h"
#include "rules/known_launcher_set.h"
#include "tests/test_support.h"

namespace opmfu::linter {
namespace {

constexpr const char* kDescription = R"(name: BigTrain
source: big/profiling.py
match: {scripts: [train_big.py]}
enabled_by: prof
options:
  prof: {name: --prof, type: bool}
  level: {name: --prof-level, choices: [l0, l1], default: l0}
settings:
  with_flops: {fixed: true}
  mstx: {fixed: true}
  profiler_level: {option: level, map: {l0: Level0, l1: Level1}, remedy: pass `--prof-level l1`}
)";

TEST(KnownLaunchers, BuiltInDescriptionsLoad) {
  auto built_in = rules::BuiltInLaunchers();
  ASSERT_TRUE(built_in.ok()) << built_in.error().message;
  std::set<std::string> names;
  for (const KnownLauncher& launcher : **built_in) names.insert(launcher.name);
  EXPECT_EQ(names, (std::set<std::string>{"MindSpeed", "MindSpeed-LLM", "MindSpeed-LLM FSDP2",
                                          "msMonitor (dyno nputrace)", "SGLang", "vLLM (vllm-ascend)", "verl"}));
}

TEST(KnownLaunchers, BadDescriptionsNameTheFileAndLine) {
  struct Case {
    std::string yaml;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"name: x\nmatch: {scripts: [a.py]}\nenabled_by: p\noptions: {p: {name: --p, type: bool}}\nsettings:\n  "
       "with_flop: {fixed: true}\n",
       "d.yaml:6: unknown setting 'with_flop' (did you mean 'with_flops'?)"},
      {"name: x\nmatch: {scripts: [a.py]}\nenabled_by: q\noptions: {p: {name: --p}}\nsettings: {}\n",
       "d.yaml:3: 'enabled_by' names no option: 'q'"},
      {"name: x\nmatch: {scripts: [a.py]}\noptions: {p: {name: --p}}\nsettings: {}\n",
       "d.yaml:1: 'enabled_by' (an option) or 'enabled_by_env' (variables) is required"},
      {"name: x\nmatch: {scripts: [a.py]}\nenabled_by_env: V\noptions: {p: {name: --p}}\nsettings: {}\n",
       "d.yaml:3: 'enabled_by_env' must be a list"},
      {"name: x\nmatch: {}\n", "d.yaml:2: 'match' needs 'scripts' or 'modules'"},
      {"name: [unclosed\n", "d.yaml:2: not valid YAML"},
      {"- a list\n", "d.yaml: a launcher description must be a YAML mapping"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseKnownLauncher(c.yaml, "d.yaml");
    ASSERT_FALSE(parsed.ok()) << c.yaml;
    EXPECT_NE(parsed.error().message.find(c.message), std::string::npos) << parsed.error().message;
    EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos);
  }
}

// A server profiled when its launch exports a variable: the description needs no enabling option,
// and the settings it hard-codes are a site only when the variable is there.
TEST(KnownLaunchers, AnExportedVariableTurnsProfilingOn) {
  auto parsed = ParseKnownLauncher(
      "name: Srv\nmatch: {modules: [srv.main]}\nenabled_by_env: [SRV_PROFILE_DIR]\noptions: {p: {name: --p}}\n"
      "settings:\n  with_flops: {fixed: false}\n",
      "d.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Launch launch;
  launch.module = "srv.main";
  launch.script.text = "srv/main.py";
  MemoryFileReader files;
  EXPECT_FALSE(ReadKnownLaunch(*parsed, launch, files).profiling_enabled);
  auto environment = std::make_shared<std::map<std::string, ShellWord, std::less<>>>();
  (*environment)["SRV_PROFILE_DIR"] = ShellWord("./prof", true, {});
  launch.environment = environment;
  const KnownLaunchFacts facts = ReadKnownLaunch(*parsed, launch, files);
  EXPECT_TRUE(facts.profiling_enabled);
  EXPECT_EQ(facts.sites.size(), 1U);
}

Launch LaunchOf(std::string script, std::vector<std::string> arguments) {
  Launch launch;
  launch.script.text = std::move(script);
  for (std::string& argument : arguments) launch.arguments.push_back({std::move(argument), true, {}});
  return launch;
}

TEST(KnownLaunchers, MatchingUsesScriptImportsAndTheOptionsPassed) {
  auto built_in = rules::BuiltInLaunchers();
  ASSERT_TRUE(built_in.ok());
  std::vector<const KnownLauncher*> all;
  for (const KnownLauncher& launcher : **built_in) all.push_back(&launcher);
  const Launch plain = LaunchOf("pretrain_gpt.py", {"--profile", "--profile-level", "level1"});
  // Unreadable script: both MindSpeed packages fit; the one defining more options wins.
  const auto source = [](std::optional<std::string> text) { return [text] { return text; }; };
  EXPECT_EQ(MatchKnownLauncher(all, plain, source(std::nullopt))->name, "MindSpeed-LLM");
  EXPECT_EQ(MatchKnownLauncher(all, plain, source("import mindspeed.megatron_adaptor\n"))->name, "MindSpeed");
  EXPECT_EQ(MatchKnownLauncher(all, plain, source("import torch\n")), nullptr);
  bool read = false;
  const auto unread = [&]() -> std::optional<std::string> {
    read = true;
    return std::nullopt;
  };
  EXPECT_EQ(MatchKnownLauncher(all, LaunchOf("train.py", {"--profile"}), unread), nullptr);
  EXPECT_FALSE(read);  // no name matched: the script is not read
}

TEST(KnownLaunchers, FlagsBecomeSettingsWithTheirOrigin) {
  auto launcher = ParseKnownLauncher(kDescription, "big.yaml");
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  const KnownLaunchFacts off =
      ReadKnownLaunch(*launcher, LaunchOf("train_big.py", {"--prof-level", "l1"}), DiskFiles());
  EXPECT_FALSE(off.profiling_enabled);
  EXPECT_TRUE(off.sites.empty());
  const KnownLaunchFacts on =
      ReadKnownLaunch(*launcher, LaunchOf("train_big.py", {"--prof", "--prof-level=L1"}), DiskFiles());
  ASSERT_TRUE(on.profiling_enabled);
  ASSERT_EQ(on.choice_violations.size(), 1U);
  EXPECT_EQ(on.choice_violations.front().written, "--prof-level L1");
  const KnownLaunchFacts good =
      ReadKnownLaunch(*launcher, LaunchOf("train_big.py", {"--prof", "--prof-level", "l1"}), DiskFiles());
  ASSERT_EQ(good.sites.size(), 1U);
  const ProfilerCallSite& site = good.sites.front();
  EXPECT_EQ(site.origin, SiteOrigin::kKnownLauncher);
  ASSERT_EQ(site.profiler_level.values.size(), 1U);
  EXPECT_EQ(site.profiler_level.values.front().kind, python::ValueKind::kEnum);
  EXPECT_EQ(site.profiler_level.values.front().text, "Level1");
  EXPECT_EQ(site.profiler_level.remedy, "pass `--prof-level l1`");
  EXPECT_TRUE(site.with_flops.values.front().is_true());
  EXPECT_TRUE(site.record_shapes.values.empty());  // not described: not checked
}

TEST(KnownLaunchers, AnAddedDescriptionIsUsedByLint) {
  testing::TempDir dir;
  dir.Write("big.yaml", kDescription);
  dir.Write(".opmfu.yaml", "launchers: [big.yaml]\n");
  dir.Write("run.sh", "#!/bin/bash\npython train_big.py --prof --prof-level l0\n");
  auto result = testing::RunOpmfu({"lint", "--output-format", "concise", (dir.path() / "run.sh").string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("run.sh:2:28: OPM104"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("OPM101"), std::string::npos) << result.out;  // BigTrain sets with_flops itself
  EXPECT_EQ(result.out.find("OPM205"), std::string::npos) << result.out;

  dir.Write("big.yaml", "name: broken\n");
  auto broken = testing::RunOpmfu({"lint", (dir.path() / "run.sh").string()});
  EXPECT_EQ(broken.exit_code, 2) << broken.out << broken.err;
  EXPECT_NE(broken.err.find("big.yaml:1: 'match' is required"), std::string::npos) << broken.err;
}

// A description that says how a package sets only one of the two range switches (msprof_tx and
// not mstx) is judged on that one; the other is not checked (it crashed OPM102 once).
TEST(KnownLaunchers, OneRangeSwitchDescribedIsJudgedOnThatOne) {
  testing::TempDir dir;
  dir.Write("tx.yaml",
            "name: Tx\nsource: tx/prof.py\nmatch: {scripts: [train_tx.py]}\nenabled_by: prof\noptions:\n"
            "  prof: {name: --prof, type: bool}\n  tx: {name: --tx, type: bool}\n"
            "settings:\n  with_flops: {fixed: true}\n  msprof_tx: {option: tx, remedy: pass --tx}\n");
  dir.Write(".opmfu.yaml", "launchers: [tx.yaml]\n");
  dir.Write("run.sh", "#!/bin/bash\npython train_tx.py --prof\npython train_tx.py --prof --tx\n");
  auto result = testing::RunOpmfu({"lint", "--output-format", "concise", (dir.path() / "run.sh").string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("run.sh:2:20: OPM102"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("run.sh:3:"), std::string::npos) << result.out;
}

// The bytes that spell a launch argument literally, carried through a default, a variable, word
// splitting, concatenation and run-time parts (what a fix rewrites in the launcher).
TEST(SpelledRuns, FollowALiteralThroughVariablesSplittingAndConcatenation) {
  const std::string source =
      "L=${L:-level0}\n"
      "A=\"--x $RANDOM --level ${L} --key=pre$L\"\n"
      "M=lev\"el0\"\n"
      "python t.py $A \"$M\" 'quoted'\n";
  auto facts = ReadLauncher("run.sh", source, DiskFiles());
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  ASSERT_EQ(facts->launches.size(), 1U);
  const std::vector<ShellWord>& words = facts->launches.front().arguments;
  ASSERT_EQ(words.size(), 7U);
  const auto spelled = [&](const ShellWord& word, std::size_t from, std::size_t size) -> std::string {
    const auto at = word.SpelledAt(from, size);
    if (!at) return "none";
    return std::to_string(at->range().start.line) + ":" + std::to_string(at->range().start.column) + " " +
           source.substr(at->start_byte, at->end_byte - at->start_byte);
  };
  EXPECT_EQ(words[0].text, "--x");
  EXPECT_EQ(spelled(words[0], 0, 3), "2:4 --x");
  EXPECT_FALSE(words[1].known);  // $RANDOM
  EXPECT_EQ(words[3].text, "level0");
  EXPECT_EQ(spelled(words[3], 0, 6), "1:8 level0");  // the default, through ${L} split out of $A
  EXPECT_EQ(words[4].text, "--key=prelevel0");
  EXPECT_EQ(spelled(words[4], 9, 6), "1:8 level0");  // after a literal prefix written elsewhere
  EXPECT_EQ(spelled(words[4], 6, 9), "none");        // `pre` and `level0` are two runs
  EXPECT_EQ(words[5].text, "level0");
  EXPECT_EQ(spelled(words[5], 0, 6), "none");  // `lev"el0"`: not spelled in one piece
  EXPECT_EQ(spelled(words[5], 3, 3), "3:7 el0");
  EXPECT_EQ(spelled(words[6], 0, 6), "4:22 quoted");
  // A word put together from more literals than a fix would rewrite keeps none (each append of
  // `a=$a$a` would otherwise copy them all: the doubling launcher of issue 27).
  {
    std::string doubling = "A=ab\n";
    for (int i = 0; i < 7; ++i) doubling += "A=$A$A\n";  // 128 runs of `ab`
    doubling += "python t.py \"$A\"\n";
    auto doubled = ReadLauncher("d.sh", doubling, DiskFiles());
    ASSERT_TRUE(doubled.ok());
    const ShellWord& word = doubled->launches.front().arguments.front();
    EXPECT_EQ(word.text.size(), 256U);
    EXPECT_FALSE(word.HasRuns());
    EXPECT_FALSE(word.SpelledAt(0, 2));
  }
  // A part of a word keeps what is spelled in it.
  const ShellWord part = words[4].Part(6);
  EXPECT_EQ(part.text, "prelevel0");
  EXPECT_EQ(spelled(part, 3, 6), "1:8 level0");
}

}  // namespace
}  // namespace opmfu::linter
