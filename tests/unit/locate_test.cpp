#include "registry/locate.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/process.h"
#include "tests/test_support.h"

namespace opmfu::registry {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(FindFormulasInSearchPath, FindsTheFileInSitePackages) {
  TempDir dir;
  dir.Write("site/torch_npu/profiler/_flops_formulas.py", "");
  auto found =
      FindFormulasInSearchPath({"", (dir.path() / "missing").string(), (dir.path() / "site").string()}, "python3");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(*found, dir.path() / "site" / kFormulasRelativePath);
}

TEST(FindFormulasInSearchPath, ExplainsATorchNpuThatPredatesFlops) {
  TempDir dir;
  dir.Write("site/torch_npu/profiler/profiler.py", "");
  dir.Write("site/torch_npu-2.1.0.post3.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.1.0.post3\n");
  auto found = FindFormulasInSearchPath({(dir.path() / "site").string()}, "python3");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().message,
            "torch_npu 2.1.0.post3 at " + (dir.path() / "site" / "torch_npu").string() +
                " has no profiler/_flops_formulas.py: this torch_npu predates FLOPs collection (added in "
                "v26.1.0-beta.2); upgrade torch_npu or pass --formulas FILE");
}

TEST(FindFormulasInSearchPath, ExplainsAMissingTorchNpu) {
  TempDir dir;
  fs::create_directories(dir.path() / "site");
  auto found = FindFormulasInSearchPath({(dir.path() / "site").string()}, "/usr/bin/python3");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().message,
            "no torch_npu found on the sys.path of /usr/bin/python3 (1 directories searched); pass --formulas FILE, "
            "set OPMFU_FORMULAS, or point --python / OPMFU_PYTHON at the interpreter that has torch_npu");
}

// A stand-in interpreter: a shell script that prints a sys.path list, as `python -c` would.
fs::path FakePython(const TempDir& dir, const std::string& site) {
  const fs::path script = dir.Write("bin/python", "#!/bin/sh\necho '[\"\", \"" + site + "\"]'\n");
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST(LocateFormulas, PrecedenceIsFlagThenEnvironmentThenInterpreter) {
  TempDir dir;
  dir.Write("site/torch_npu/profiler/_flops_formulas.py", "");
  const fs::path python = FakePython(dir, (dir.path() / "site").string());

  LocateOptions options;
  options.formulas_flag = "explicit.py";
  options.formulas_env = "from_env.py";
  EXPECT_EQ(LocateFormulas(options)->path, "explicit.py");
  options.formulas_flag.reset();
  EXPECT_EQ(LocateFormulas(options)->found_by, "$OPMFU_FORMULAS");
  options.formulas_env.reset();
  options.python_env = python.string();
  auto located = LocateFormulas(options);
  ASSERT_TRUE(located.ok()) << located.error().message;
  EXPECT_EQ(located->path, dir.path() / "site" / kFormulasRelativePath);
  EXPECT_EQ(located->found_by, "sys.path of $OPMFU_PYTHON (" + python.string() + ")");
}

// The interpreter asked for sys.path runs no user code: a sitecustomize.py on PYTHONPATH (or a
// .pth line) would run at start-up; isolated (-I -S) it does not, while PYTHONPATH's directories,
// read by opmfu itself, are still searched.
TEST(LocateFormulas, TheInterpreterRunsIsolatedAndPythonPathIsStillSearched) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir dir;
  const fs::path marker = dir.path() / "user-code-ran";
  dir.Write("path/sitecustomize.py", "open(" + nlohmann::json(marker.string()).dump() + ", 'w').write('ran')\n");
  dir.Write("path/usercustomize.py", "open(" + nlohmann::json(marker.string()).dump() + ", 'w').write('ran')\n");
  dir.Write("path/torch_npu/profiler/_flops_formulas.py", "");
  const char* saved = std::getenv("PYTHONPATH");
  const std::optional<std::string> previous = saved ? std::optional<std::string>(saved) : std::nullopt;
  ::setenv("PYTHONPATH", (dir.path() / "path").c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  LocateOptions options;
  options.python_flag = "/usr/bin/python3";
  auto located = LocateFormulas(options);
  if (previous) {
    ::setenv("PYTHONPATH", previous->c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  } else {
    ::unsetenv("PYTHONPATH");  // NOLINT(concurrency-mt-unsafe)
  }
  ASSERT_TRUE(located.ok()) << located.error().message;
  EXPECT_EQ(located->path, dir.path() / "path" / kFormulasRelativePath);
  EXPECT_FALSE(fs::exists(marker)) << "the interpreter ran a sitecustomize.py";
}

TEST(LocateFormulas, ReportsAnInterpreterThatCannotRunOrAnswersNonsense) {
  TempDir dir;
  LocateOptions options;
  options.python_flag = (dir.path() / "no-such-python").string();
  auto missing = LocateFormulas(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot run"), std::string::npos);

  const fs::path liar = dir.Write("liar", "#!/bin/sh\necho hello\n");
  fs::permissions(liar, fs::perms::owner_all);
  options.python_flag = liar.string();
  auto nonsense = LocateFormulas(options);
  ASSERT_FALSE(nonsense.ok());
  EXPECT_NE(nonsense.error().message.find("did not print a sys.path list"), std::string::npos);
}

TEST(RunProcess, KillsAHangingProgramAfterTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  auto result = RunProcess({"sleep", "30"}, std::chrono::milliseconds(300));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("did not answer"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunProcess, CapturesOutputAndExitCode) {
  auto result = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(5));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->standard_output, "out\n");
  EXPECT_EQ(result->exit_code, 3);
}

}  // namespace
}  // namespace opmfu::registry
