// End-to-end behaviour of the opmfu binary that needs scratch files: writes, environment, bad input.

#include <gtest/gtest.h>

#include <regex>

#include "common/text.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

std::string Example(const char* name) { return (testing::SourceDir() / "examples" / name).string(); }

int CountLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(Cli, VersionNamesTheGrammarsAndRuntime) {
  const auto result = RunOpmfu({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(^opmfu \d+\.\d+\.\d+ \(tree-sitter-python 0\.23\.\d+, )"
                 R"(tree-sitter-bash 0\.23\.\d+, tree-sitter-json 0\.24\.\d+, tree-sitter ABI 14, SQLite 3\.)")))
      << result.out;
}

TEST(RegistryAdd, WriteKeepsABackupAndChangesOnlyTheInsertion) {
  TempDir dir;
  const fs::path formulas = dir.path() / "_flops_formulas.py";
  fs::copy_file(Example("_flops_formulas.py"), formulas);
  const std::string before = testing::ReadFile(formulas);

  const auto preview = RunOpmfu({"registry", "add", "--formulas", formulas.string(), "--target", "torch:baddbmm",
                                 "--from", Example("new_formula.py")});
  ASSERT_EQ(preview.exit_code, 0) << preview.err;
  EXPECT_EQ(testing::ReadFile(formulas), before);  // a preview writes nothing
  EXPECT_FALSE(fs::exists(formulas.string() + ".bak"));

  const auto write = RunOpmfu({"registry", "add", "--formulas", formulas.string(), "--target", "torch:baddbmm",
                               "--from", Example("new_formula.py"), "--write"});
  ASSERT_EQ(write.exit_code, 0) << write.err;
  EXPECT_EQ(write.out, "");
  EXPECT_EQ(testing::ReadFile(formulas.string() + ".bak"), before);
  const std::string after = testing::ReadFile(formulas);
  EXPECT_EQ(after.substr(0, before.size()), before);  // appended after the last registration (file end)
  EXPECT_NE(after.find("@register_npu_flop(target=\"torch:baddbmm\", is_default=True)\ndef baddbmm_flop("),
            std::string::npos);

  const auto listed = RunOpmfu({"registry", "list", "--formulas", formulas.string(), "--format", "csv"});
  EXPECT_EQ(listed.exit_code, 0);
  EXPECT_EQ(CountLines(listed.out), 1 + 8);
  const auto checked = RunOpmfu({"registry", "check", formulas.string()});
  EXPECT_EQ(checked.exit_code, 0) << checked.out;

  // A second add of the same target is refused and changes nothing.
  const auto again = RunOpmfu({"registry", "add", "--formulas", formulas.string(), "--target", "torch:baddbmm",
                               "--from", Example("new_formula.py"), "--write"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(testing::ReadFile(formulas), after);
}

TEST(RegistryCheck, FixAppliesSafeFixesInPlace) {
  TempDir dir;
  const fs::path file = dir.path() / "broken.py";
  fs::copy_file(Example("broken_formulas.py"), file);
  const auto fixed = RunOpmfu({"registry", "check", file.string(), "--fix", "--select", "OPM506"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.err.find("Fixed 1 finding in " + file.string()), std::string::npos);
  EXPECT_NE(testing::ReadFile(file).find("def rms_norm_flop(x, gamma, epsilon=1e-6, **kwargs):"), std::string::npos);
  EXPECT_EQ(RunOpmfu({"registry", "check", file.string(), "--select", "OPM506"}).exit_code, 0);
}

TEST(RegistryCheck, NeverFixesAFileThatDidNotParse) {
  TempDir dir;
  const fs::path file = dir.Write("f.py",
                                  "from torch_npu.profiler._flops_registry import register_npu_flop\n"
                                  "@register_npu_flop(target='torch:mm')\ndef mm(x):\n    return 1\ndef broken(:\n");
  const std::string before = testing::ReadFile(file);
  const auto result = RunOpmfu({"registry", "check", file.string(), "--fix"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(testing::ReadFile(file), before);
  EXPECT_NE(result.out.find("OPM001"), std::string::npos);
  EXPECT_NE(result.out.find("OPM506"), std::string::npos);
}

TEST(RegistryCheck, OutputFileIsWrittenAndStdoutStaysEmpty) {
  TempDir dir;
  const fs::path sarif = dir.path() / "out.sarif";
  const auto result =
      RunOpmfu({"registry", "check", Example("broken_formulas.py"), "--output-format", "sarif", "-o", sarif.string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(testing::ReadFile(sarif).find("\"version\": \"2.1.0\""), std::string::npos);
}

TEST(RegistryCheck, ConfigIsFoundUpwardAndApplied) {
  TempDir dir;
  dir.Write(".opmfu.yaml", "ignore: [OPM506]\nseverity:\n  OPM509: info\nfail-on: error\n");
  const fs::path file = dir.Write("pkg/f.py",
                                  "from torch_npu.profiler._flops_registry import register_npu_flop\n"
                                  "@register_npu_flop('legacy')\ndef f(x):\n    return 1\n");
  const auto result = RunOpmfu({"registry", "check", file.string(), "--output-format", "gcc"});
  EXPECT_EQ(result.exit_code, 0) << result.out;  // only an info finding remains
  EXPECT_EQ(result.out, file.string() +
                            ":2:20: info: `@register_npu_flop(\"legacy\")` is the pre-release op-name-only "
                            "form; torch_npu now reads the first argument as the target, and 'legacy' is "
                            "not a \"module:attr\" target [OPM509]\n");
  EXPECT_EQ(RunOpmfu({"registry", "check", file.string(), "--no-config"}).exit_code, 1);

  dir.Write(".opmfu.yaml", "ignore: [OPM506]\nfail_on: error\n");
  const auto bad = RunOpmfu({"registry", "check", file.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "opmfu: error: " + (dir.path() / ".opmfu.yaml").string() +
                ":2:1: unknown key 'fail_on' (did you mean 'fail-on'?); known keys: select, extend-select, ignore, "
                "extend-ignore, severity, per-file-ignores, extend-per-file-ignores, exclude, extend-exclude, "
                "fail-on, analyze, launchers, lint\n");
}

TEST(RegistryLocate, EnvironmentAndInterpreter) {
  TempDir dir;
  const fs::path site = dir.path() / "site";
  fs::create_directories(site / "torch_npu" / "profiler");
  fs::copy_file(Example("_flops_formulas.py"), site / "torch_npu" / "profiler" / "_flops_formulas.py");
  const fs::path python = dir.Write("bin/python", "#!/bin/sh\necho '[\"" + site.string() + "\"]'\n");
  fs::permissions(python, fs::perms::owner_all);

  const auto by_flag = RunOpmfu({"registry", "list", "--python", python.string(), "--format", "csv"});
  EXPECT_EQ(by_flag.exit_code, 0) << by_flag.err;
  EXPECT_EQ(CountLines(by_flag.out), 8);
  const auto by_env = RunOpmfu({"registry", "list", "--format", "csv"}, {}, {{"OPMFU_PYTHON", python.string()}});
  EXPECT_EQ(by_env.out, by_flag.out);
  const auto by_formulas_env =
      RunOpmfu({"registry", "list", "--format", "csv"}, {}, {{"OPMFU_FORMULAS", Example("_flops_formulas.py")}});
  EXPECT_EQ(by_formulas_env.out, by_flag.out);

  const fs::path old_site = dir.path() / "old";
  fs::create_directories(old_site / "torch_npu");
  dir.Write("old/torch_npu-2.1.0.dist-info/METADATA", "Name: torch_npu\nVersion: 2.1.0\n");
  const fs::path old_python = dir.Write("bin/old_python", "#!/bin/sh\necho '[\"" + old_site.string() + "\"]'\n");
  fs::permissions(old_python, fs::perms::owner_all);
  const auto old = RunOpmfu({"registry", "list", "--python", old_python.string()});
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_EQ(CountLines(old.err), 1);
  EXPECT_NE(
      old.err.find("torch_npu 2.1.0 at " + (old_site / "torch_npu").string() + " has no profiler/_flops_formulas.py"),
      std::string::npos);
}

struct BadFormulasFile {
  const char* name;
  std::string content;
  int list_exit;
  std::string list_err;  ///< expected stderr of `registry list`, with FILE for the path
};

class RegistryBadInput : public ::testing::TestWithParam<BadFormulasFile> {};

TEST_P(RegistryBadInput, OneLineAndADefinedExitCode) {
  TempDir dir;
  const fs::path file = dir.Write("input.py", GetParam().content);
  const auto result = RunOpmfu({"registry", "list", "--formulas", file.string()});
  EXPECT_EQ(result.exit_code, GetParam().list_exit);
  std::string expected = GetParam().list_err;
  for (std::size_t at; (at = expected.find("FILE")) != std::string::npos;) expected.replace(at, 4, file.string());
  EXPECT_EQ(result.err, expected);
  // check never crashes on it either
  const int check_exit = RunOpmfu({"registry", "check", file.string()}).exit_code;
  EXPECT_TRUE(check_exit == 0 || check_exit == 1 || check_exit == 2) << check_exit;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RegistryBadInput,
    ::testing::Values(
        BadFormulasFile{"empty", "", 0, "FILE: no @register_npu_flop registrations found\n"},
        BadFormulasFile{"no_registrations", "def f(x):\n    return 1\n", 0,
                        "FILE: no @register_npu_flop registrations found\n"},
        BadFormulasFile{"nul_bytes", std::string("x = 1\0\0", 7), 2,
                        "opmfu: error: FILE: binary file (NUL byte at offset 5)\n"},
        BadFormulasFile{"unclosed_decorator",
                        "from torch_npu.profiler._flops_registry import register_npu_flop\n@register_npu_flop(\n", 1,
                        "FILE: no @register_npu_flop registrations found\nopmfu: warning: FILE:2:1: syntax error; "
                        "the listing may be incomplete (run `opmfu registry check`)\n"},
        BadFormulasFile{"binary_garbage", std::string("\x89PNG\r\n\x1a\n\xff\xfe\xfd", 11), 1,
                        "FILE: no @register_npu_flop registrations found\nopmfu: warning: FILE:1:1: syntax "
                        "error; the listing may be incomplete (run `opmfu registry check`)\n"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(RegistryBadInput, NonUtf8IsReportedByCheck) {
  TempDir dir;
  const fs::path file = dir.Write("latin1.py",
                                  "from torch_npu.profiler._flops_registry import register_npu_flop\n"
                                  "@register_npu_flop(target='torch:mm')\ndef mm(x, **kwargs):\n"
                                  "    \"\"\"caf\xE9\"\"\"\n    return 1\n");
  const auto result = RunOpmfu({"registry", "check", file.string(), "--output-format", "concise"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, file.string() +
                            ":4:11: OPM001 the file is not valid UTF-8 (byte 0xe9); Python refuses to "
                            "import it without a matching coding declaration\n");
}

}  // namespace
}  // namespace opmfu
