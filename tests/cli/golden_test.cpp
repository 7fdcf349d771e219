// Golden tests: each tests/golden/*.test file holds the arguments of one opmfu run (first line,
// `args: ...`, run from the repository root) and its exact exit code, stdout and stderr.
// UPDATE_GOLDEN=1 rewrites the expectations from the current binary; review the diff.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/text.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> GoldenFiles() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() / "tests" / "golden")) {
    if (entry.path().extension() == ".test") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Splits on spaces; single quotes group words.
std::vector<std::string> SplitArguments(std::string_view line) {
  std::vector<std::string> args;
  std::string current;
  bool quoted = false;
  bool have = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      have = true;
    } else if (c == ' ' && !quoted) {
      if (have) args.push_back(current);
      current.clear();
      have = false;
    } else {
      current += c;
      have = true;
    }
  }
  if (have) args.push_back(current);
  return args;
}

std::string Render(const std::string& args_line, const testing::RunResult& result) {
  return args_line + "\nexit: " + std::to_string(result.exit_code) + "\n--- stdout\n" + result.out + "--- stderr\n" +
         result.err;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, OutputMatches) {
  const std::string expected = testing::ReadFile(GetParam());
  const std::string args_line(LineAt(expected, 0));
  ASSERT_TRUE(StartsWith(args_line, "args: ")) << GetParam() << " must start with `args: `";
  const testing::RunResult result = testing::RunOpmfu(SplitArguments(args_line.substr(6)));
  const std::string actual = Render(args_line, result);
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(GetParam(), std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, expected) << "rerun with UPDATE_GOLDEN=1 to accept, then review the diff";
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(GoldenFiles()), [](const auto& param_info) {
  std::string name = param_info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

}  // namespace
}  // namespace opmfu
