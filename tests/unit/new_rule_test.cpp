// scripts/new-rule, run on a scratch copy of the files it edits: every piece of a rule is written,
// in id order, consistent with the others, and the table and the new rule file compile.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/process.h"
#include "tests/fixture_annotations.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct NewRuleCase {
  std::string kind;
  std::string id;
  std::string applies_to;
  std::string header;   ///< where the check is declared
  std::string context;  ///< its parameter type
  std::string fixture;  ///< the fixture file it writes
};

void PrintTo(const NewRuleCase& c, std::ostream* out) { *out << c.kind; }

class NewRule : public ::testing::TestWithParam<NewRuleCase> {};

Result<ProcessOutput> RunNewRule(const fs::path& root, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"python3", (root / "scripts" / "new-rule").string(), "--root", root.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 60s);
}

// The position of `needle` in `text`, failing the test when it is absent.
std::size_t At(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "missing: " << needle;
  return at;
}

TEST_P(NewRule, WritesEveryPieceInOrderAndTheyCompile) {
  const NewRuleCase& c = GetParam();
  testing::TempDir scratch;
  const fs::path& root = scratch.path();
  for (const char* part : {"rules", "docs/rules", "scripts"}) {
    fs::create_directories(root / part);
    fs::copy(testing::SourceDir() / part, root / part, fs::copy_options::recursive);
  }
  auto run = RunNewRule(root, {c.id, "example-thing-wrong", "--kind", c.kind, "--severity", "error", "--applies-to",
                               c.applies_to, "--summary", "An example \"rule\"."});
  if (!run.ok() && run.error().message.find("python3") != std::string::npos) GTEST_SKIP() << run.error().message;
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->exit_code, 0) << run->standard_output;

  const std::string stem = "opm" + c.id.substr(3) + "_example_thing_wrong";
  const std::string function = "CheckExampleThingWrong";
  // The row, between its neighbours.
  const std::string table = testing::ReadFile(root / "rules" / "rule_table.cpp");
  const std::size_t row = At(table, ".id = \"" + c.id + "\"");
  EXPECT_NE(table.find(".check = " +
                       std::string(c.kind == "registry"   ? "RegistryCheck"
                                   : c.kind == "launcher" ? "LauncherCheck"
                                                          : "SettingsCheck") +
                       "{" + function + "}"),
            std::string::npos);
  EXPECT_NE(table.find(R"(.summary = "An example \"rule\".")"), std::string::npos);
  const std::string before = c.kind == "registry" ? "OPM509" : c.kind == "launcher" ? "OPM208" : "OPM115";
  EXPECT_LT(At(table, ".id = \"" + before + "\""), row);
  // The declaration, among the others of its header.
  const std::string header = testing::ReadFile(root / c.header);
  EXPECT_NE(header.find("void " + function + "(" + c.context + "& context);  // " + c.id), std::string::npos) << header;
  EXPECT_LT(At(header, "// " + before), At(header, "// " + c.id));
  // The source file, defining the function, and listed (in order) in CMake.
  const std::string source = testing::ReadFile(root / "rules" / (stem + ".cpp"));
  EXPECT_NE(source.find("void " + function + "(" + c.context + "& context) {"), std::string::npos) << source;
  const std::string cmake = testing::ReadFile(root / "rules" / "CMakeLists.txt");
  EXPECT_LT(At(cmake, "opm" + before.substr(3) + "_"), At(cmake, "  " + stem + ".cpp\n"));
  // The page: title, a facts line the docs test can replace, the sections.
  const std::string page = testing::ReadFile(root / "docs" / "rules" / (c.id + ".md"));
  EXPECT_EQ(page.rfind("# " + c.id + " example-thing-wrong\n\n**Severity:** ", 0), 0U) << page;
  for (const char* section : {"## Why", "## Example", "## Fix"}) EXPECT_NE(page.find(section), std::string::npos);
  // The fixture expects the rule.
  const testing::FixtureMarkers markers = testing::ReadMarkers(root / c.fixture);
  EXPECT_TRUE(markers.malformed.empty());
  ASSERT_EQ(markers.markers.size(), 1U) << c.fixture;
  EXPECT_EQ(markers.markers.front().rule_id, c.id);
  EXPECT_EQ(markers.markers.front().kind, testing::MarkerKind::kExpect);

  // The table with the new row, and the new rule file, compile against the scratch headers.
  for (const fs::path& file : {root / "rules" / "rule_table.cpp", root / "rules" / (stem + ".cpp")}) {
    auto compiled = RunProcess({OPMFU_CXX_COMPILER, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                                "-I" + root.string(), "-I" + testing::SourceDir().string(), file.string()},
                               120s);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    EXPECT_EQ(compiled->exit_code, 0) << file << " does not compile";
  }

  // A second run with the same id changes nothing.
  auto again = RunNewRule(root, {c.id, "other-name", "--kind", c.kind, "--applies-to", c.applies_to});
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->exit_code, 0);
  EXPECT_EQ(testing::ReadFile(root / "rules" / "rule_table.cpp"), table);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, NewRule,
    ::testing::Values(NewRuleCase{"settings", "OPM116", "python,json", "rules/lint_checks.h", "LintCheckContext",
                                  "tests/fixtures/lint/opm116_example_thing_wrong.py"},
                      NewRuleCase{"launcher", "OPM209", "launcher", "rules/lint_checks.h", "LauncherCheckContext",
                                  "tests/fixtures/launch/opm209_example_thing_wrong"},
                      NewRuleCase{"registry", "OPM510", "registry", "rules/registry_checks.h", "RuleCheckContext",
                                  "tests/fixtures/registry/opm510_example_thing_wrong.py"}),
    [](const auto& param_info) { return param_info.param.kind; });

}  // namespace
}  // namespace opmfu
