// The source-reading seam: the disk and an in-memory map read alike, and a stage or a whole lint
// driven from memory finds what it finds on disk.

#include "common/file_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "common/file_io.h"
#include "lint/dynamic_config_stage.h"
#include "lint/lint.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;

// A directory that does not exist: what is linted from memory must never be read from disk.
using FileMap = std::map<std::string, std::string>;

const fs::path kNowhere = "/nonexistent-opmfu-memory-test/project";

TEST(MemoryFileReader, ReadsByLexicallyNormalPathAndNothingElseExists) {
  MemoryFileReader files(FileMap{{"proj/./a/../train.py", "print(1)\n"}});
  EXPECT_TRUE(files.IsFile("proj/train.py"));
  auto text = files.ReadFile("proj/a/../train.py");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "print(1)\n");
  EXPECT_FALSE(files.IsFile("proj"));
  auto missing = files.ReadFile("proj/other.py");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "proj/other.py: No such file or directory");
}

TEST(MemoryFileReader, RejectsABinaryFileAsTheDiskReaderDoes) {
  testing::TempDir dir;
  const std::string binary("a = 1\n\0b\n", 9);
  const fs::path on_disk = dir.Write("b.py", binary);
  MemoryFileReader files(FileMap{{on_disk.string(), binary}});
  auto from_memory = files.ReadFile(on_disk.string());
  auto from_disk = DiskFiles().ReadFile(on_disk.string());
  ASSERT_FALSE(from_memory.ok());
  ASSERT_FALSE(from_disk.ok());
  EXPECT_EQ(from_memory.error().message, from_disk.error().message);
}

TEST(DiskFileReader, ReadsAsReadTextFile) {
  testing::TempDir dir;
  const fs::path file = dir.Write("x.py", "x = 1\n");
  EXPECT_TRUE(DiskFiles().IsFile(file.string()));
  EXPECT_FALSE(DiskFiles().IsFile(dir.path().string()));
  EXPECT_EQ(*DiskFiles().ReadFile(file.string()), *ReadTextFile(file));
  const std::string missing = (dir.path() / "none.py").string();
  EXPECT_EQ(DiskFiles().ReadFile(missing).error().message, ReadTextFile(missing).error().message);
}

TEST(DynamicConfigStage, FindsAndLintsAConfigHeldInMemory) {
  const std::string config = (kNowhere / "prof" / "profiler_config.json").string();
  MemoryFileReader files(
      FileMap{{config, R"({"with_flops": false, "experimental_config": {"profiler_level": "Level0"}})"}});
  const auto found = lint::FindDynamicConfig(files, "prof", (kNowhere / "train.py").string());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, config);
  lint::LintOptions options;
  options.files = &files;
  const lint::FileOutcome outcome = lint::LintDynamicConfig(config, options, {});
  ASSERT_FALSE(outcome.error.has_value()) << outcome.error->message;
  ASSERT_TRUE(outcome.linted.has_value());
  std::set<std::string> rules;
  for (const Diagnostic& d : outcome.linted->diagnostics) rules.insert(d.rule_id);
  EXPECT_TRUE(rules.contains("OPM101")) << "with_flops false";
  EXPECT_FALSE(fs::exists(kNowhere));
}

using Finding = std::tuple<std::string, int, int, std::string, std::string>;

// Findings with the directory they were linted in taken out of file names and messages.
std::set<Finding> Findings(const lint::LintReport& report, const std::string& directory) {
  const auto strip = [&](std::string text) {
    for (std::size_t at = text.find(directory); at != std::string::npos; at = text.find(directory)) {
      text.erase(at, directory.size());
    }
    return text;
  };
  std::set<Finding> findings;
  for (const lint::LintedFile& file : report.files) {
    for (const Diagnostic& d : file.diagnostics) {
      findings.emplace(strip(d.file), d.range.start.line, d.range.start.column, d.rule_id, strip(d.message));
    }
  }
  return findings;
}

TEST(LintFromMemory, ALauncherAndItsScriptLintAsOnDisk) {
  const fs::path examples = testing::SourceDir() / "examples";
  const std::string launcher = testing::ReadFile(examples / "broken_train.sh");
  const std::string script = testing::ReadFile(examples / "broken_train.py");
  lint::LintOptions options;
  options.use_config = false;
  options.bash = "";  // bash -n reads the disk

  testing::TempDir dir;
  dir.Write("broken_train.sh", launcher);
  dir.Write("broken_train.py", script);
  auto on_disk = lint::LintPaths({(dir.path() / "broken_train.sh").string()}, options);
  ASSERT_TRUE(on_disk.ok()) << on_disk.error().message;

  MemoryFileReader files(
      FileMap{{(kNowhere / "broken_train.sh").string(), launcher}, {(kNowhere / "broken_train.py").string(), script}});
  options.files = &files;
  auto in_memory = lint::LintPaths({(kNowhere / "broken_train.sh").string()}, options);
  ASSERT_TRUE(in_memory.ok()) << in_memory.error().message;
  EXPECT_TRUE(in_memory->errors.empty()) << in_memory->errors.front().message;
  EXPECT_FALSE(fs::exists(kNowhere));

  ASSERT_EQ(in_memory->files.size(), 2U) << "the launcher and the script it runs";
  const std::set<Finding> expected = Findings(*on_disk, dir.path().string());
  EXPECT_GE(expected.size(), 3U);
  EXPECT_EQ(Findings(*in_memory, kNowhere.string()), expected);
}

TEST(LintFromMemory, AMissingFileIsAnErrorNamingIt) {
  MemoryFileReader files;
  lint::LintOptions options;
  options.use_config = false;
  options.files = &files;
  const std::string path = (kNowhere / "train.py").string();
  auto report = lint::LintPaths({path}, options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->errors.size(), 1U);
  EXPECT_EQ(report->errors.front().message, path + ": no such file or directory");
}

}  // namespace
}  // namespace opmfu
