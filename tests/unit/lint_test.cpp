// Lint rules against annotated fixtures (tests/fixtures/lint): `# expect: OPMnnn` marks a line a
// finding must land on, `# ok: OPMnnn` a line it must not. Every finding must be expected.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <tuple>

#include "common/file_io.h"
#include "common/text.h"
#include "rules/lint_files.h"
#include "tests/test_support.h"

namespace opmfu::rules {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Fixtures() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() / "tests" / "fixtures" / "lint")) {
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

using Expectations = std::set<std::pair<int, std::string>>;

class LintFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(LintFixture, FindingsMatchTheAnnotations) {
  auto source = ReadTextFile(GetParam());
  ASSERT_TRUE(source.ok()) << source.error().message;
  Expectations expected;
  Expectations forbidden;
  static const std::regex annotation(R"(#\s*(expect|ok):\s*(OPM\d{3}(?:\s*,\s*OPM\d{3})*))");
  const std::vector<std::string> lines = SplitString(*source, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    if (!std::regex_search(lines[i], match, annotation)) continue;
    for (const std::string& id : SplitString(match[2].str(), ',')) {
      (match[1] == "expect" ? expected : forbidden).insert({static_cast<int>(i) + 1, std::string(TrimWhitespace(id))});
    }
  }
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({GetParam().string()}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->errors.empty()) << report->errors.front().message;
  ASSERT_EQ(report->files.size(), 1U);
  Expectations actual;
  for (const Diagnostic& d : report->files.front().diagnostics) actual.insert({d.range.start.line, d.rule_id});
  for (const auto& [line, id] : expected) {
    EXPECT_TRUE(actual.count({line, id})) << GetParam().filename() << ":" << line << ": expected " << id;
  }
  for (const auto& [line, id] : actual) {
    EXPECT_TRUE(expected.count({line, id})) << GetParam().filename() << ":" << line << ": unexpected " << id;
    EXPECT_FALSE(forbidden.count({line, id})) << GetParam().filename() << ":" << line << ": forbidden " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LintFixture, ::testing::ValuesIn(Fixtures()),
                         [](const auto& param_info) { return param_info.param.stem().string(); });

TEST(Lint, EveryRuleHasAFixture) {
  std::set<std::string> covered;
  std::vector<fs::path> files = Fixtures();
  for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() / "tests" / "fixtures" / "launch")) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  for (const fs::path& fixture : files) {
    auto source = ReadTextFile(fixture);
    ASSERT_TRUE(source.ok());
    static const std::regex expect(R"(expect:\s*(OPM\d{3}(?:\s*,\s*OPM\d{3})*))");
    for (auto it = std::sregex_iterator(source->begin(), source->end(), expect); it != std::sregex_iterator(); ++it) {
      for (const std::string& id : SplitString((*it)[1].str(), ',')) covered.insert(std::string(TrimWhitespace(id)));
    }
  }
  for (const RuleDescriptor& rule : LintRuleDescriptors()) {
    EXPECT_TRUE(covered.count(rule.id)) << rule.id << " has no fixture that expects it";
  }
}

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

TEST(Lint, DeeplyNestedExpressionsDoNotOverflowTheStack) {
  std::string nested = "import torch_npu\nx = " + std::string(20000, '(') + "1" + std::string(20000, ')') +
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

namespace fs = std::filesystem;

// Launcher projects (tests/fixtures/launch/<project>/): a launcher and the scripts it runs,
// annotated in place in every file; the whole project directory is linted.
std::vector<fs::path> LaunchProjects() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() / "tests" / "fixtures" / "launch")) {
    if (entry.is_directory()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

using FileExpectations = std::set<std::tuple<std::string, int, std::string>>;

// Annotations are comments on the line they are about; JSON has no comments, so `X.json.expect`
// holds `LINE expect: OPMnnn` lines about X.json.
void ReadProjectAnnotations(const fs::path& project, FileExpectations& expected, FileExpectations& forbidden) {
  static const std::regex annotation(R"(#\s*(expect|ok):\s*(OPM\d{3}(?:\s*,\s*OPM\d{3})*))");
  static const std::regex sidecar(R"(^(\d+)\s+(expect|ok):\s*(OPM\d{3}(?:\s*,\s*OPM\d{3})*))");
  for (const auto& entry : fs::recursive_directory_iterator(project)) {
    if (!entry.is_regular_file()) continue;
    const bool is_sidecar = entry.path().extension() == ".expect";
    const fs::path about = is_sidecar ? fs::path(entry.path()).replace_extension() : entry.path();
    const std::vector<std::string> lines = SplitString(testing::ReadFile(entry.path()), '\n');
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::smatch match;
      if (!std::regex_search(lines[i], match, is_sidecar ? sidecar : annotation)) continue;
      const int line = is_sidecar ? std::stoi(match[1].str()) : static_cast<int>(i) + 1;
      const std::string kind = match[is_sidecar ? 2 : 1].str();
      for (const std::string& id : SplitString(match[is_sidecar ? 3 : 2].str(), ',')) {
        (kind == "expect" ? expected : forbidden)
            .insert({fs::weakly_canonical(about).string(), line, std::string(TrimWhitespace(id))});
      }
    }
  }
}

class LaunchProject : public ::testing::TestWithParam<fs::path> {};

TEST_P(LaunchProject, FindingsMatchTheAnnotations) {
  FileExpectations expected;
  FileExpectations forbidden;
  ReadProjectAnnotations(GetParam(), expected, forbidden);
  LintOptions options;
  options.use_config = false;
  auto report = LintPaths({GetParam().string()}, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->errors.empty()) << report->errors.front().message;
  FileExpectations actual;
  for (const LintedFile& file : report->files) {
    for (const Diagnostic& d : file.diagnostics) {
      actual.insert({fs::weakly_canonical(d.file).string(), d.range.start.line, d.rule_id});
    }
  }
  const std::string name = GetParam().filename().string();
  for (const auto& [file, line, id] : expected) {
    EXPECT_TRUE(actual.count({file, line, id})) << name << ": " << file << ":" << line << ": expected " << id;
  }
  for (const auto& [file, line, id] : actual) {
    EXPECT_TRUE(expected.count({file, line, id})) << name << ": " << file << ":" << line << ": unexpected " << id;
    EXPECT_FALSE(forbidden.count({file, line, id})) << name << ": " << file << ":" << line << ": forbidden " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Projects, LaunchProject, ::testing::ValuesIn(LaunchProjects()),
                         [](const auto& param_info) { return param_info.param.filename().string(); });

}  // namespace
}  // namespace opmfu::rules

namespace opmfu::rules {
namespace {

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
