// Edits that cannot lose or corrupt (issue 47): `registry check --fix`, `registry add --write` and
// `lint --fix` leave a file that compiles, insert at a top-level statement, call a rewrite that
// changes other code unsafe, and never both succeed when two edit one file at once.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "lint/fix.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::RunOpmfu;
using testing::TempDir;

// The rest of a profiler call that records everything MFU needs but the settings before it.
constexpr const char* kProfilerCallRest =
    "    on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(\"./prof\"),\n"
    "    experimental_config=torch_npu.profiler._ExperimentalConfig(\n"
    "        profiler_level=torch_npu.profiler.ProfilerLevel.Level1,\n"
    "        export_type=[torch_npu.profiler.ExportType.Db],\n"
    "        mstx=True,\n"
    "        msprof_tx=True,\n"
    "    ),\n"
    ")\n";

constexpr const char* kImport = "from torch_npu.profiler._flops_registry import register_npu_flop\n\n\n";

TEST(EditSafety, RegistryCheckFixNeverAddsASecondParameterOfOneName) {
  TempDir dir;
  const fs::path formulas =
      dir.Write("_flops_formulas.py", std::string(kImport) +
                                          "@register_npu_flop(target=\"torch:mm\", is_default=True)\n"
                                          "def mm_flop(a, kwargs):\n"
                                          "    return 2 * int(a.shape[0])\n");
  const auto fixed = RunOpmfu({"registry", "check", formulas.string(), "--fix", "--select", "OPM506"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  const std::string after = ReadFile(formulas);
  EXPECT_EQ(after.find("kwargs, **kwargs)"), std::string::npos) << after;
  EXPECT_NE(after.find("def mm_flop(a, kwargs, **kwargs_):"), std::string::npos) << after;
}

TEST(EditSafety, RegistryAddInsertsAfterTheTopLevelStatementHoldingTheLastRegistration) {
  TempDir dir;
  const fs::path formulas =
      dir.Write("_flops_formulas.py", std::string(kImport) +
                                          "def install():\n"
                                          "    @register_npu_flop(target=\"torch:mm\", is_default=True)\n"
                                          "    def mm_flop(a, b, **kwargs):\n"
                                          "        return 2\n"
                                          "\n"
                                          "    print(\"the rest of install\")\n"
                                          "\n"
                                          "\n"
                                          "install()\n");
  const fs::path from = dir.Write("new.py", "def addmm_flop(input, m1, m2, **kwargs):\n    return 2\n");
  const auto added = RunOpmfu({"registry", "add", "--formulas", formulas.string(), "--target", "torch:addmm", "--from",
                               from.string(), "--write"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const std::string after = ReadFile(formulas);
  // The body of install() is whole, and the new registration is a top-level statement after it.
  EXPECT_NE(after.find("        return 2\n\n    print(\"the rest of install\")\n"), std::string::npos) << after;
  const std::size_t inserted = after.find("\n@register_npu_flop(target=\"torch:addmm\"");
  ASSERT_NE(inserted, std::string::npos) << after;
  EXPECT_GT(inserted, after.find("print(\"the rest of install\")")) << after;
}

TEST(EditSafety, LintFixOfAConstantOtherCodeReadsIsNotSafe) {
  TempDir dir;
  const std::string source = std::string(
                                 "import torch_npu\n"
                                 "\n"
                                 "DEBUG = False\n"
                                 "\n"
                                 "prof = torch_npu.profiler.profile(\n"
                                 "    with_flops=DEBUG,\n"
                                 "    record_shapes=True,\n") +
                             kProfilerCallRest +
                             "if DEBUG:\n"
                             "    print(\"debug output\")\n";
  const fs::path script = dir.Write("train.py", source);
  const auto fixed = RunOpmfu({"lint", "--no-config", "--fix", script.string()});
  EXPECT_EQ(ReadFile(script), source) << fixed.out << fixed.err;
  // Offered, but only as an unsafe fix.
  const auto as_json = RunOpmfu({"lint", "--no-config", "--output-format", "json", script.string()});
  const std::size_t finding = as_json.out.find("\"OPM101\"");
  ASSERT_NE(finding, std::string::npos) << as_json.out;
  EXPECT_NE(as_json.out.find("\"applicability\": \"unsafe\"", finding), std::string::npos) << as_json.out;
}

TEST(EditSafety, TwoConcurrentRegistryAddsNeverBothSucceedWithOneLost) {
  TempDir dir;
  const std::string base = std::string(kImport) +
                           "@register_npu_flop(target=\"torch:mm\", is_default=True)\n"
                           "def mm_flop(a, b, **kwargs):\n"
                           "    return 2\n";
  const fs::path formulas = dir.Write("_flops_formulas.py", base);
  int reported = 0;
  for (int round = 0; round < 6; ++round) {
    std::vector<testing::RunResult> results(2);
    std::vector<std::thread> runs;
    for (int i = 0; i < 2; ++i) {
      const std::string name = "f" + std::to_string(round) + "_" + std::to_string(i);
      const fs::path from = dir.Write(name + ".py", "def " + name + "(a, **kwargs):\n    return 2\n");
      runs.emplace_back([&, i, name, from] {
        results[i] = RunOpmfu({"registry", "add", "--formulas", formulas.string(), "--target", "torch:" + name,
                               "--from", from.string(), "--write"});
      });
    }
    for (std::thread& run : runs) run.join();
    for (const testing::RunResult& result : results) {
      if (result.exit_code == 0) {
        ++reported;
      } else {
        EXPECT_EQ(result.exit_code, 2) << result.err;
        EXPECT_NE(result.err.find("changed since opmfu read it"), std::string::npos) << result.err;
      }
    }
  }
  const std::string after = ReadFile(formulas);
  int registrations = 0;
  for (std::size_t at = after.find("@register_npu_flop("); at != std::string::npos;
       at = after.find("@register_npu_flop(", at + 1)) {
    ++registrations;
  }
  EXPECT_EQ(registrations, 1 + reported) << "an addition reported as written is missing";
}

TEST(EditSafety, TwoConcurrentLintFixesOfOneScriptNeverLoseAReportedEdit) {
  TempDir dir;
  // Two runs fix different settings of one script: each either writes its fix on top of the
  // text it read or refuses; a run that says "Fixed" must find its edit in the file at the end.
  const std::string source = std::string(
                                 "import torch_npu\n"
                                 "\n"
                                 "prof = torch_npu.profiler.profile(\n"
                                 "    with_flops=False,\n") +
                             kProfilerCallRest;
  const fs::path script = dir.Write("train.py", source);
  const std::vector<std::pair<std::string, std::string>> fixes = {{"OPM101", "with_flops=True"},
                                                                  {"OPM107", "record_shapes=True"}};
  int refused = 0;
  for (int round = 0; round < 6; ++round) {
    dir.Write("train.py", source);
    std::vector<testing::RunResult> results(fixes.size());
    std::vector<std::thread> runs;
    for (std::size_t i = 0; i < fixes.size(); ++i) {
      runs.emplace_back([&, i] {
        results[i] = RunOpmfu({"lint", "--no-config", "--fix", "--select", fixes[i].first, script.string()});
      });
    }
    for (std::thread& run : runs) run.join();
    const std::string after = ReadFile(script);
    for (std::size_t i = 0; i < fixes.size(); ++i) {
      if (results[i].err.find("Fixed 1 finding") != std::string::npos) {
        EXPECT_NE(after.find(fixes[i].second), std::string::npos)
            << fixes[i].first << " reported its fix written, but the file lost it:\n"
            << after;
      } else {
        ++refused;
        EXPECT_EQ(results[i].exit_code, 2) << results[i].err;
        EXPECT_NE(results[i].err.find("changed since opmfu read it"), std::string::npos) << results[i].err;
      }
    }
  }
  RecordProperty("refused", refused);
}

TEST(EditSafety, AFixedPythonTextThatWouldNotCompileIsNamedAndWithheld) {
  const auto duplicate = lint::FixedTextProblem("f.py", "def f(a, kwargs, **kwargs):\n    return a\n");
  ASSERT_TRUE(duplicate.has_value());
  EXPECT_NE(duplicate->find("f.py: its fixes were not applied"), std::string::npos) << *duplicate;
  EXPECT_NE(duplicate->find("two parameters named 'kwargs' (line 1)"), std::string::npos) << *duplicate;
  const auto lambda = lint::FixedTextProblem("f.py", "x = 1\ng = lambda a, *a: a\n");
  ASSERT_TRUE(lambda.has_value());
  EXPECT_NE(lambda->find("named 'a' (line 2)"), std::string::npos) << *lambda;
  const auto broken = lint::FixedTextProblem("f.py", "prof = profile(\n    with_flops=True,,\n)\n");
  ASSERT_TRUE(broken.has_value());
  EXPECT_NE(broken->find("a syntax error at line"), std::string::npos) << *broken;
  EXPECT_FALSE(lint::FixedTextProblem("f.py", "def f(a, b=1, *args, c: int = 2, **kwargs):\n    pass\n"));
  EXPECT_FALSE(lint::FixedTextProblem("run.sh", "def f(a, a):\n"));  // not Python: left to its own checks
}

}  // namespace
}  // namespace opmfu
