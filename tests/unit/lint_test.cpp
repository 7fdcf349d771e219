// `opmfu lint` on inputs written by the tests: bad inputs, directories, launchers, real-code
// defects that need more than one file. The annotated fixtures are checked in fixture_test.cpp.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/file_io.h"
#include "common/text.h"
#include "lint/fix.h"
#include "lint/lint.h"
#include "linter/bash_syntax_check.h"
#include "tests/fixture_run.h"
#include "tests/test_support.h"

namespace opmfu::rules {
namespace {

using lint::LintedFile;
using lint::LintOptions;
using lint::LintPaths;
using lint::LintReport;

namespace fs = std::filesystem;

TEST(Lint, UnreadableAndMissingInputsAreReportedAndTheRestLinted) {
  testing::TempDir dir;
  const fs::path good = dir.path() / "train.py";
  ASSERT_TRUE(WriteFileAtomically(good, "import torch_npu\np = torch_npu.profiler.profile()\n").ok());
  const fs::path binary = dir.path() / "blob.py";
  ASSERT_TRUE(WriteFileAtomically(binary, std::string("torch_npu\0\x01", 11)).ok());
  const fs::path latin1 = dir.path() / "latin1.py";
  ASSERT_TRUE(WriteFileAtomically(latin1, "# torch_npu caf\xe9\n").ok());
  LintOptions options;
  options.use_config = false;
  auto report =
      LintPaths({good.string(), binary.string(), latin1.string(), (dir.path() / "missing.py").string()}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->errors.size(), 3U);
  for (const Error& error : report->errors) EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  ASSERT_EQ(report->files.size(), 1U);
  EXPECT_FALSE(report->files.front().diagnostics.empty());
}

TEST(Lint, DirectoriesSkipFilesThatCannotMatterAndSurviveSymlinkLoops) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "pkg");
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "pkg" / "util.py", "def f():\n    return 1\n").ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir.path() / "pkg" / "train.py", "import torch_npu\np = torch_npu.profiler.profile()\n")
          .ok());
  fs::create_directory_symlink(dir.path(), dir.path() / "pkg" / "loop");
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({dir.path().string()}, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->skipped_without_profiler, 1U);
  ASSERT_EQ(report->files.size(), 1U);
  EXPECT_EQ(fs::path(report->files.front().path).filename(), "train.py");
}

TEST(LintFix, AnEditAimedAtTheStandardInputFromAnotherFilesFindingIsNotApplied) {
  // The piped text is named after a file on disk; a fix another file's finding aims at that name
  // must not turn into a write of the piped text over the file.
  testing::TempDir dir;
  const std::string script = dir.Write("train.py", "LEVEL = 'level0'\n").string();
  LintOptions options;
  options.use_config = false;
  options.keep_sources = true;
  options.stdin_source = "LEVEL = 'level0'\n";
  options.stdin_filename = script;
  LintReport first;
  LintedFile piped;
  piped.path = script;
  piped.source = *options.stdin_source;
  LintedFile launcher;
  launcher.path = (dir.path() / "run.sh").string();
  launcher.source = "python train.py\n";
  Diagnostic finding;
  finding.rule_id = "OPM104";
  finding.file = launcher.path;
  finding.fix = Fix{"use level1", {TextEdit{9, 15, "level1", script}}, true};
  launcher.diagnostics.push_back(finding);
  first.files = {piped, launcher};
  auto fixed = lint::FixInMemory({"-"}, options, first);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  EXPECT_TRUE(fixed->files.empty());
  EXPECT_EQ(fixed->passes, 0);
  EXPECT_EQ(testing::ReadFile(script), "LEVEL = 'level0'\n");
}

TEST(Lint, DeeplyNestedExpressionsDoNotOverflowTheStack) {
  // As deep as CPython takes (200 brackets); deeper is refused before parsing (ParseBounds.*).
  std::string nested = "import torch_npu\nx = " + std::string(200, '(') + "1" + std::string(200, ')') +
                       "\np = torch_npu.profiler.profile(with_flops=x)\n";
  LintOptions options;
  options.use_config = false;
  options.stdin_source = nested;
  options.stdin_filename = "nested.py";
  auto report = LintPaths({"-"}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->files.size(), 1U);
}

}  // namespace
}  // namespace opmfu::rules

namespace opmfu::rules {
namespace {

using lint::LintedFile;
using lint::LintOptions;
using lint::LintPaths;
using lint::LintReport;

TEST(LintLaunchers, AGeneratedTenThousandLineLauncherIsReadAndItsLaunchFollowed) {
  testing::TempDir dir;
  std::string launcher = "#!/bin/bash\n";
  for (int i = 0; i < 2500; ++i) {
    const std::string n = std::to_string(i);
    launcher += "V" + n + "=${V" + n + ":-" + n + "}\nif [ \"$V" + n + "\" = 3 ]; then L=level0; else L=level1; fi\n" +
                "A+=(--x" + n + ")\n# comment " + n + "\n";
  }
  launcher += "torchrun train.py --prof-level $L --with-flops\n";
  dir.Write("run.sh", launcher);
  dir.Write("train.py",
            "import argparse\nimport torch_npu\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('--prof-level', default='level0')\nparser.add_argument('--with-flops', "
            "action='store_true')\nargs = parser.parse_args()\n"
            "cfg = torch_npu.profiler._ExperimentalConfig(profiler_level=args.prof_level)\n"
            "p = torch_npu.profiler.profile(with_flops=args.with_flops, experimental_config=cfg)\n");
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({(dir.path() / "run.sh").string()}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_TRUE(report->errors.empty());
  bool level_warning = false;
  for (const LintedFile& file : report->files) {
    for (const Diagnostic& d : file.diagnostics) {
      // --prof-level arrives as 'level1' or 'level0' (both branches), neither a ProfilerLevel.
      level_warning = level_warning || d.rule_id == "OPM109";
      EXPECT_NE(d.rule_id, "OPM101") << d.message;  // --with-flops is passed
    }
  }
  EXPECT_TRUE(level_warning);
}

TEST(LintLaunchers, BadLauncherInputsGiveOneLineErrorsAndTheRestIsLinted) {
  testing::TempDir dir;
  dir.Write("binary.sh", std::string("torchrun\0train.py\n", 18));
  dir.Write("latin1.sh", "echo caf\xe9\n");
  dir.Write("broken.sh", "if then fi ((( \"unterminated\ntorchrun missing.py\n");
  dir.Write("loop.sh", "source ./loop.sh\nsource ./missing_env.sh\n");
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({dir.path().string()}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->errors.size(), 2U);  // binary and latin1
  for (const Error& error : report->errors) EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  ASSERT_EQ(report->warnings.size(), 1U);  // the missing sourced file; the loop is cut silently
  EXPECT_NE(report->warnings.front().find("missing_env.sh"), std::string::npos) << report->warnings.front();
  bool syntax_error = false;
  for (const LintedFile& file : report->files) {
    for (const Diagnostic& d : file.diagnostics) syntax_error = syntax_error || d.rule_id == "OPM001";
  }
  EXPECT_TRUE(syntax_error);
}

}  // namespace
}  // namespace opmfu::rules

namespace opmfu::rules {
namespace {

using lint::LintedFile;
using lint::LintOptions;
using lint::LintPaths;
using lint::LintReport;

namespace fs = std::filesystem;

// Real-code defects (issues 14 and 20) that need more than one file or a look at paths.
class LintRealCode : public ::testing::Test {
 protected:
  static LintReport Lint(const std::vector<std::string>& paths) {
    LintOptions options;
    options.use_config = false;
    auto report = LintPaths(paths, options);
    EXPECT_TRUE(report.ok());
    return report.ok() ? std::move(*report) : LintReport{};
  }
  testing::TempDir dir_;
};

TEST_F(LintRealCode, ALibraryModuleIsLintedAloneNotTheModulesItImports) {
  dir_.Write(".git/HEAD", "ref: refs/heads/main\n");
  dir_.Write("lib/__init__.py", "");
  dir_.Write("lib/a.py", "import torch_npu\n\ndef load():\n    from lib import b\n    return b.make()\n");
  dir_.Write("lib/b.py", "import torch_npu\n\ndef make():\n    return torch_npu.profiler.profile()\n");
  const LintReport report = Lint({(dir_.path() / "lib" / "a.py").string()});
  ASSERT_EQ(report.files.size(), 1U);
  EXPECT_EQ(fs::path(report.files.front().path).filename(), "a.py");
  for (const Diagnostic& d : report.files.front().diagnostics) {
    EXPECT_EQ(fs::path(d.file).filename(), "a.py") << d.rule_id << " " << d.message;
  }
}

TEST_F(LintRealCode, OPM010LandsOnTheNamedScriptNotOnAModuleItImports) {
  dir_.Write(".git/HEAD", "ref: refs/heads/main\n");
  dir_.Write("aaa_helpers/__init__.py", "import os\nimport torch_npu\n");
  dir_.Write("train.py",
             "import torch_npu\nimport aaa_helpers\n\nif __name__ == \"__main__\":\n    print(aaa_helpers.os.sep)\n");
  const LintReport report = Lint({(dir_.path() / "train.py").string()});
  int opm010 = 0;
  for (const LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (d.rule_id != "OPM010") continue;
      ++opm010;
      EXPECT_EQ(fs::path(d.file).filename(), "train.py");
    }
  }
  EXPECT_EQ(opm010, 1);
}

// The same for a script a named launcher runs: OPM010 goes on the launcher, where the user looks
// (and a suppression in it can reach it), even when the script's path sorts first.
TEST_F(LintRealCode, OPM010LandsOnTheNamedLauncherNotOnTheScriptItRuns) {
  dir_.Write(".git/HEAD", "ref: refs/heads/main\n");
  dir_.Write("aaa_train.py", "import torch_npu\nprint(torch_npu.__name__)\n");
  dir_.Write("run.sh", "#!/bin/bash\npython aaa_train.py --lr 1\n");
  const LintReport report = Lint({(dir_.path() / "run.sh").string()});
  int opm010 = 0;
  for (const LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (d.rule_id != "OPM010") continue;
      ++opm010;
      EXPECT_EQ(fs::path(d.file).filename(), "run.sh");
    }
  }
  EXPECT_EQ(opm010, 1);
}

TEST_F(LintRealCode, FollowedModulesAreReportedRelativeToTheWorkingDirectory) {
  dir_.Write("pkg/__init__.py", "");
  dir_.Write("pkg/prof.py",
             "import torch_npu\n\ndef make(d):\n    return torch_npu.profiler.profile(on_trace_ready="
             "torch_npu.profiler.tensorboard_trace_handler(d))\n");
  dir_.Write("train.py",
             "import sys\nimport torch_npu\nfrom pkg import prof\n\nif __name__ == \"__main__\":\n"
             "    prof.make(sys.argv[1])\n");
  const fs::path before = fs::current_path();
  fs::current_path(dir_.path());
  const LintReport report = Lint({"train.py"});
  fs::current_path(before);
  bool followed = false;
  for (const LintedFile& file : report.files) {
    EXPECT_FALSE(fs::path(file.path).is_absolute()) << file.path;
    for (const Diagnostic& d : file.diagnostics) {
      EXPECT_FALSE(fs::path(d.file).is_absolute()) << d.file;
      followed = followed || d.file == "pkg/prof.py";
    }
  }
  EXPECT_TRUE(followed);
}

TEST_F(LintRealCode, ValuesWithExponentiallyManyPathsEndAsUnknownNotAHang) {
  // Each function passes its argument on twenty ways: 20^5 paths from with_flops to the literal,
  // and as many back through the callers (a recursive profiling wrapper in real code ran for
  // minutes and took gigabytes). Bounded, it ends as "cannot tell", never as a definite finding.
  std::string source = "import torch_npu\n";
  for (int i = 0; i < 5; ++i) {
    std::string body;
    for (int way = 0; way < 20; ++way) body += (way ? " or f" : "f") + std::to_string(i + 1) + "(v)";
    source += "def f" + std::to_string(i) + "(v):\n    return " + body + "\n";
  }
  source += "def f5(v):\n    return v\n";
  source += "p = torch_npu.profiler.profile(with_flops=f0(True))\n";
  const fs::path file = dir_.Write("wrapper.py", source);
  const LintReport report = Lint({file.string()});
  ASSERT_EQ(report.files.size(), 1U);
  bool unknown = false;
  for (const Diagnostic& d : report.files.front().diagnostics) {
    unknown = unknown || (d.rule_id == "OPM004" && d.message.find("`with_flops`") != std::string::npos);
    EXPECT_NE(d.rule_id, "OPM101") << d.message;
  }
  EXPECT_TRUE(unknown);
}

TEST_F(LintRealCode, AFileNamedTwiceIsLintedOnce) {
  dir_.Write("src/train.py", "import torch_npu\np = torch_npu.profiler.profile()\n");
  dir_.Write("src/run.sh", "#!/bin/bash\npython train.py\n");
  const LintReport report = Lint({(dir_.path() / "src").string(), (dir_.path() / "src" / "train.py").string(),
                                  (dir_.path() / "src" / "run.sh").string()});
  std::map<std::string, int> seen;
  for (const LintedFile& file : report.files) ++seen[fs::weakly_canonical(file.path).string()];
  EXPECT_EQ(seen.size(), 2U);
  for (const auto& [path, count] : seen) EXPECT_EQ(count, 1) << path;
}

TEST_F(LintRealCode, AnExportedTreeWithoutGitTakesTheWorkingDirectoryAsItsRoot) {
  // `examples.demo.base` is importable from the top of the tree only; no .git anywhere.
  dir_.Write("examples/demo/base.py",
             "import argparse\n\ndef get_parser():\n    parser = argparse.ArgumentParser()\n"
             "    parser.add_argument('--seed', type=int, default=1)\n    return parser\n");
  dir_.Write("examples/demo/train.py",
             "from examples.demo.base import get_parser\n\nif __name__ == \"__main__\":\n"
             "    args = get_parser().parse_args()\n");
  dir_.Write("examples/demo/run.sh", "#!/bin/bash\npython train.py --seed 3\n");
  const fs::path before = fs::current_path();
  fs::current_path(dir_.path());
  const LintReport report = Lint({"examples/demo/run.sh"});
  fs::current_path(before);
  bool script_linted = false;
  for (const LintedFile& file : report.files) {
    script_linted = script_linted || fs::path(file.path).filename() == "train.py";
    for (const Diagnostic& d : file.diagnostics) EXPECT_NE(d.rule_id, "OPM201") << d.message;
  }
  EXPECT_TRUE(script_linted);
}

std::set<std::string> Opm001Files(const LintReport& report) {
  std::set<std::string> files;
  for (const LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (d.rule_id == "OPM001") files.insert(fs::weakly_canonical(d.file).string());
    }
  }
  return files;
}

// tree-sitter-bash is not the judge of valid bash: every launcher fixture gets OPM001 exactly
// when `bash -n` rejects it.
TEST(LintLaunchers, Opm001OnALauncherExactlyWhenBashRejectsIt) {
  const std::optional<std::string> bash = linter::FindBash();
  if (!bash) GTEST_SKIP() << "no bash on this machine";
  int rejected = 0;
  int launchers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() / "tests" / "fixtures")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".sh") continue;
    ++launchers;
    const linter::BashVerdict verdict = linter::CheckWithBash(*bash, entry.path().string());
    ASSERT_NE(verdict.kind, linter::BashVerdict::Kind::kUnavailable) << entry.path() << ": " << verdict.message;
    const bool bash_rejects = verdict.kind == linter::BashVerdict::Kind::kRejected;
    rejected += bash_rejects ? 1 : 0;
    LintOptions options;
    options.use_config = false;
    auto report = LintPaths({entry.path().string()}, options);
    ASSERT_TRUE(report.ok()) << report.error().message;
    const bool reported = Opm001Files(*report).contains(fs::weakly_canonical(entry.path()).string());
    EXPECT_EQ(reported, bash_rejects) << entry.path() << (bash_rejects ? ": bash says " + verdict.message : "");
  }
  EXPECT_GT(launchers, 40);
  EXPECT_GE(rejected, 1);  // the fixtures include invalid bash, so the test can fail both ways
}

TEST(LintLaunchers, WithoutBashToConfirmAParseErrorIsOnlyAWarning) {
  testing::TempDir dir;
  const fs::path launcher = dir.Write("run.sh", "X=${X:-$(((1 + 2) * 2))}\ntorchrun train.py --x \"$X\"\n");
  LintOptions options;
  options.use_config = false;
  options.bash = "";  // none
  auto report = LintPaths({launcher.string()}, options);
  ASSERT_TRUE(report.ok());
  int found = 0;
  for (const LintedFile& file : report->files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (d.rule_id != "OPM001") continue;
      ++found;
      EXPECT_EQ(d.severity, Severity::kWarning);
      EXPECT_NE(d.message.find("could not confirm"), std::string::npos) << d.message;
    }
  }
  EXPECT_EQ(found, 1);
  // With bash, the same file is valid: no finding.
  options.bash.reset();
  if (!linter::FindBash()) GTEST_SKIP() << "no bash on this machine";
  report = LintPaths({launcher.string()}, options);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(Opm001Files(*report).empty());
}

TEST(LintLaunchers, BashIsAskedNothingButToParse) {
  const std::optional<std::string> bash = linter::FindBash();
  if (!bash) GTEST_SKIP() << "no bash on this machine";
  testing::TempDir dir;
  const fs::path marker = dir.path() / "ran";
  const fs::path launcher = dir.Write("run.sh", "touch '" + marker.string() + "'\n");
  EXPECT_EQ(linter::CheckWithBash(*bash, launcher.string()).kind, linter::BashVerdict::Kind::kAccepted);
  EXPECT_FALSE(fs::exists(marker));
  const fs::path broken = dir.Write("broken.sh", "echo ok\nif then\n");
  const linter::BashVerdict verdict = linter::CheckWithBash(*bash, broken.string());
  EXPECT_EQ(verdict.kind, linter::BashVerdict::Kind::kRejected);
  EXPECT_EQ(verdict.line, 2);
  EXPECT_NE(verdict.message.find("syntax error"), std::string::npos) << verdict.message;
  EXPECT_EQ(linter::CheckWithBash((dir.path() / "no-such-bash").string(), broken.string()).kind,
            linter::BashVerdict::Kind::kUnavailable);
}

TEST(LintLaunchers, SourcedFilesAndScriptsAreFoundFromTheCurrentDirectoryFirst) {
  testing::TempDir dir;
  // Run from the project root, as the launcher is: `source scripts/env.sh` is the root's file,
  // and the launcher's own directory holds a decoy of the same relative name.
  dir.Write("scripts/env.sh", "LEVEL=level1\n");
  dir.Write("scripts/scripts/env.sh", "LEVEL=level0\n");
  dir.Write("scripts/run.sh", "source scripts/env.sh\ntorchrun train.py --prof-level $LEVEL --with-flops\n");
  dir.Write("train.py",
            "import argparse\nimport torch_npu\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('--prof-level', default='level0')\nparser.add_argument('--with-flops', "
            "action='store_true')\nargs = parser.parse_args()\n"
            "LEVELS = {'level0': torch_npu.profiler.ProfilerLevel.Level0, 'level1': "
            "torch_npu.profiler.ProfilerLevel.Level1}\n"
            "cfg = torch_npu.profiler._ExperimentalConfig(profiler_level=LEVELS[args.prof_level])\n"
            "p = torch_npu.profiler.profile(with_flops=args.with_flops, experimental_config=cfg)\n");
  testing::WorkingDirectory in_root(dir.path());
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({"scripts/run.sh"}, options);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->warnings.empty()) << report->warnings.front();
  bool script_linted = false;
  for (const LintedFile& file : report->files) {
    script_linted = script_linted || fs::path(file.path).filename() == "train.py";
    for (const Diagnostic& d : file.diagnostics) {
      EXPECT_NE(d.rule_id, "OPM104") << d.message;  // level1 from the root's env.sh, not the decoy's level0
      EXPECT_NE(d.rule_id, "OPM205") << d.message;
    }
  }
  EXPECT_TRUE(script_linted);
}

}  // namespace
}  // namespace opmfu::rules
