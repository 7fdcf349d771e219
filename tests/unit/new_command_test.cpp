// scripts/new-command, run on a scratch copy of the files it edits: every piece of a command is
// written where its neighbours are, the generated sources compile, and a second run with the same
// name changes nothing.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/process.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

Result<ProcessOutput> RunNewCommand(const fs::path& root, const std::vector<std::string>& args) {
  // Through sh only to have its stderr too (RunProcess captures stdout).
  std::vector<std::string> argv = {"/bin/sh", "-c",         "exec \"$@\" 2>&1",
                                   "sh",      "python3",    (root / "scripts" / "new-command").string(),
                                   "--root",  root.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 60s);
}

// The position of `needle` in `text`, failing the test when it is absent.
std::size_t PositionOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "missing: " << needle;
  return at;
}

// The files scripts/new-command edits, copied from the source tree.
void CopyTheEditedFiles(const fs::path& root) {
  for (const char* folder : {"cli", "report", "scripts", "docs/schema"}) {
    fs::create_directories(root / folder);
    fs::copy(testing::SourceDir() / folder, root / folder, fs::copy_options::recursive);
  }
  for (const char* file :
       {"README.md", "docs/cli.md", ".clang-format", "tests/CMakeLists.txt", "tests/schema/json_outputs_test.py"}) {
    fs::create_directories((root / file).parent_path());
    fs::copy_file(testing::SourceDir() / file, root / file);
  }
  fs::create_directories(root / "tests" / "golden");
  fs::create_directories(root / "tests" / "unit");
}

TEST(NewCommand, WritesEveryPieceWhereItBelongsAndTheSourcesCompile) {
  testing::TempDir scratch;
  const fs::path& root = scratch.path();
  CopyTheEditedFiles(root);
  auto run = RunNewCommand(root, {"kernel-summary", "--library", "report", "--summary", "the \"kernels\" at a glance"});
  if (!run.ok() && run.error().message.find("python3") != std::string::npos) GTEST_SKIP() << run.error().message;
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->exit_code, 0) << run->standard_output;

  // The library: the function, its result and both renderers, listed in CMake in order.
  const std::string header = testing::ReadFile(root / "report" / "kernel_summary.h");
  for (const char* declared : {"Result<KernelSummaryResult> KernelSummary(const KernelSummaryOptions& options);",
                               "std::string RenderKernelSummaryText(const KernelSummaryResult& result);",
                               "std::string RenderKernelSummaryJson(const KernelSummaryResult& result);"}) {
    EXPECT_NE(header.find(declared), std::string::npos) << declared;
  }
  const std::string report_cmake = testing::ReadFile(root / "report" / "CMakeLists.txt");
  EXPECT_LT(PositionOf(report_cmake, "  gate.cpp\n"), PositionOf(report_cmake, "  kernel_summary.cpp\n"));
  EXPECT_LT(PositionOf(report_cmake, "  kernel_summary.cpp\n"), PositionOf(report_cmake, "  presentation.cpp\n"));

  // The command: declared beside the others, in the --help order before `demo`, in CMake in order.
  const std::string command = testing::ReadFile(root / "cli" / "kernel_summary_command.cpp");
  EXPECT_NE(command.find("report::KernelSummary(options)"), std::string::npos) << command;
  EXPECT_NE(command.find(R"(add_subcommand("kernel-summary", "the \"kernels\" at a glance"))"), std::string::npos);
  const std::string declarations = testing::ReadFile(root / "cli" / "cli_support.h");
  EXPECT_LT(PositionOf(declarations, "void AddMcpCommand(CLI::App& app, Action& action);"),
            PositionOf(declarations, "void AddKernelSummaryCommand(CLI::App& app, Action& action);"));
  const std::string main_cpp = testing::ReadFile(root / "cli" / "main.cpp");
  EXPECT_LT(PositionOf(main_cpp, "AddGateCommand"), PositionOf(main_cpp, "AddKernelSummaryCommand"));
  EXPECT_LT(PositionOf(main_cpp, "AddKernelSummaryCommand"), PositionOf(main_cpp, "AddDemoCommand"));
  const std::string cli_cmake = testing::ReadFile(root / "cli" / "CMakeLists.txt");
  EXPECT_LT(PositionOf(cli_cmake, "  gate_command.cpp\n"), PositionOf(cli_cmake, "  kernel_summary_command.cpp\n"));
  EXPECT_LT(PositionOf(cli_cmake, "  kernel_summary_command.cpp\n"), PositionOf(cli_cmake, "  lint_command.cpp\n"));

  // Its schema, its case in the schema test, its docs, its tests.
  EXPECT_NE(testing::ReadFile(root / "docs" / "schema" / "kernel-summary.schema.json")
                .find("\"title\": \"opmfu kernel-summary\""),
            std::string::npos);
  const std::string json_test = testing::ReadFile(root / "tests" / "schema" / "json_outputs_test.py");
  EXPECT_LT(PositionOf(json_test, "check(\"kernel-summary\", [\"kernel-summary\""),
            PositionOf(json_test, "missing = work / \"missing\""));
  const std::string cli_md = testing::ReadFile(root / "docs" / "cli.md");
  EXPECT_LT(PositionOf(cli_md, "## `opmfu gate`"), PositionOf(cli_md, "## `opmfu kernel-summary`"));
  EXPECT_LT(PositionOf(cli_md, "## `opmfu kernel-summary`"), PositionOf(cli_md, "## `opmfu completion`"));
  const std::string readme = testing::ReadFile(root / "README.md");
  EXPECT_LT(PositionOf(readme, "| `opmfu kernel-summary` | the \"kernels\" at a glance |"),
            PositionOf(readme, "| `opmfu mcp` |"));
  EXPECT_NE(testing::ReadFile(root / "tests" / "unit" / "kernel_summary_test.cpp").find("FAIL()"), std::string::npos)
      << "the generated test must fail until it is written";
  EXPECT_NE(testing::ReadFile(root / "tests" / "CMakeLists.txt").find("  unit/kernel_summary_test.cpp\n"),
            std::string::npos);
  EXPECT_EQ(testing::ReadFile(root / "tests" / "golden" / "kernel_summary_help.test")
                .rfind("args: kernel-summary --help\n", 0),
            0U);

  // The library and the command compile against the scratch headers (then the real tree's).
  for (const fs::path& file : {root / "report" / "kernel_summary.cpp", root / "cli" / "kernel_summary_command.cpp",
                               root / "cli" / "main.cpp"}) {
    auto compiled =
        RunProcess({"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", OPMFU_CXX_COMPILER, "-std=c++20", "-fsyntax-only",
                    "-Wall", "-Wextra", "-Werror", "-DOPMFU_VERSION=\"0\"", "-DOPMFU_GRAMMAR_VERSIONS=\"\"",
                    "-I" + root.string(), "-I" + testing::SourceDir().string(), file.string()},
                   180s);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    EXPECT_EQ(compiled->exit_code, 0) << file << " does not compile:\n" << compiled->standard_output;
  }

  // It lists what it wrote, and docs/CONTRIBUTING.md gives the real count of what a command takes.
  std::size_t listed = 0;
  std::istringstream lines(run->standard_output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.find(' ') == std::string::npos && fs::is_regular_file(root / line)) ++listed;
  }
  EXPECT_EQ(listed, 14U) << run->standard_output;
  EXPECT_NE(run->standard_output.find("added (" + std::to_string(listed) + " files)"), std::string::npos);
  EXPECT_NE(testing::ReadFile(testing::SourceDir() / "docs" / "CONTRIBUTING.md")
                .find("writes every piece (" + std::to_string(listed) + " files:"),
            std::string::npos)
      << "docs/CONTRIBUTING.md must say how many files a command takes: " << listed;

  // A second run with the same name is refused and changes nothing.
  auto again = RunNewCommand(root, {"kernel-summary", "--library", "engine"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->exit_code, 2);
  EXPECT_EQ(testing::ReadFile(root / "cli" / "cli_support.h"), declarations);
  EXPECT_EQ(testing::ReadFile(root / "README.md"), readme);
  EXPECT_FALSE(fs::exists(root / "engine" / "kernel_summary.h"));
}

TEST(NewCommand, RefusesANameThatIsNotKebabCase) {
  testing::TempDir scratch;
  CopyTheEditedFiles(scratch.path());
  auto run = RunNewCommand(scratch.path(), {"Kernel_Summary"});
  if (!run.ok() && run.error().message.find("python3") != std::string::npos) GTEST_SKIP() << run.error().message;
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit_code, 2);
  EXPECT_NE(run->standard_output.find("not a kebab-case command name"), std::string::npos) << run->standard_output;
  EXPECT_FALSE(fs::exists(scratch.path() / "report" / "kernel_summary.h"));
}

}  // namespace
}  // namespace opmfu
