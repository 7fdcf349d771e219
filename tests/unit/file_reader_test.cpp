// The source-reading seam: the disk and an in-memory map read alike, and a stage or a whole lint
// driven from memory finds what it finds on disk.

#include "common/file_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "lint/dynamic_config_stage.h"
#include "lint/lint.h"
#include "linter/profiler_config.h"
#include "linter/torch_npu.h"
#include "python/project.h"
#include "rules/known_launcher_set.h"
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

// Lints `entry` of `files` (names relative to the project) once from a scratch directory holding
// them and once from memory below kNowhere: the findings must be the same, and the memory lint
// must read no disk and report no error. Returns the rules found.
std::set<std::string> ExpectTheSameOnDiskAndInMemory(const std::map<std::string, std::string>& files,
                                                     const std::string& entry, lint::LintOptions options) {
  testing::TempDir dir;
  for (const auto& [name, text] : files) dir.Write(name, text);
  if (options.root) options.root = dir.path().string();
  auto on_disk = lint::LintPaths({(dir.path() / entry).string()}, options);
  EXPECT_TRUE(on_disk.ok()) << on_disk.error().message;
  if (!on_disk.ok()) return {};

  FileMap in_memory_files;
  for (const auto& [name, text] : files) in_memory_files.emplace((kNowhere / name).string(), text);
  MemoryFileReader memory(in_memory_files);
  options.files = &memory;
  if (options.root) options.root = kNowhere.string();
  auto in_memory = lint::LintPaths({(kNowhere / entry).string()}, options);
  EXPECT_TRUE(in_memory.ok()) << in_memory.error().message;
  if (!in_memory.ok()) return {};
  EXPECT_TRUE(in_memory->errors.empty()) << in_memory->errors.front().message;
  EXPECT_FALSE(fs::exists(kNowhere));

  const std::set<Finding> expected = Findings(*on_disk, dir.path().string());
  EXPECT_EQ(Findings(*in_memory, kNowhere.string()), expected);
  std::set<std::string> rules;
  for (const Finding& finding : expected) rules.insert(std::get<3>(finding));
  return rules;
}

TEST(LintFromMemory, ALauncherAndItsScriptLintAsOnDisk) {
  const fs::path examples = testing::SourceDir() / "examples";
  lint::LintOptions options;
  options.use_config = false;
  options.bash = "";  // bash -n reads the disk
  const std::set<std::string> rules =
      ExpectTheSameOnDiskAndInMemory({{"broken_train.sh", testing::ReadFile(examples / "broken_train.sh")},
                                      {"broken_train.py", testing::ReadFile(examples / "broken_train.py")}},
                                     "broken_train.sh", options);
  EXPECT_GE(rules.size(), 3U) << "the launcher and the script it runs";
}

// Issue 28: one disk seam. A launcher that sources a file, which names the YAML config a known
// launcher reads, lints from memory exactly as from disk, and nothing is read from the disk.
TEST(LintFromMemory, ASourcedFileAndTheYamlConfigItNamesLintAsOnDisk) {
  const std::string yaml = testing::ReadFile(testing::SourceDir() / "tests" / "fixtures" / "launch" /
                                             "known_mindspeed_llm_fsdp2" / "configs" / "tune_qwen3_fsdp2.yaml");
  lint::LintOptions options;
  options.use_config = false;
  options.bash = "";  // bash -n reads the disk
  const std::set<std::string> rules = ExpectTheSameOnDiskAndInMemory(
      {{"run.sh", "#!/bin/bash\nsource ./settings.sh\ntorchrun --nproc_per_node 8 train_fsdp2.py $CONFIG\n"},
       {"settings.sh", "CONFIG=configs/tune_qwen3_fsdp2.yaml\n"},
       {"configs/tune_qwen3_fsdp2.yaml", yaml}},
      "run.sh", options);
  // The config's profile settings were read (OPM101: no with_flops there) through the sourced file.
  EXPECT_TRUE(rules.contains("OPM101")) << "the YAML config was not read";
}

// Issue 28: OPM112 counts the runs already in a fixed trace directory through the seam, so a
// lint from memory says what a lint on disk says, and reads nothing from the disk.
TEST(LintFromMemory, OPM112CountsTheRunsAlreadyInAFixedDirectoryAsOnDisk) {
  lint::LintOptions options;
  options.use_config = false;
  const std::string script =
      testing::ReadFile(testing::SourceDir() / "tests" / "fixtures" / "lint" / "opm112_fixed_directory.py");
  const std::map<std::string, std::string> files = {{"train.py", script},
                                                    {"result/worker_0_20260101_ascend_pt/profiler_info_0.json", "{}"},
                                                    {"result/worker_1_20260101_ascend_pt/profiler_info_1.json", "{}"},
                                                    {"result/notes.txt", "not a run"}};
  EXPECT_TRUE(ExpectTheSameOnDiskAndInMemory(files, "train.py", options).contains("OPM112"));
  FileMap in_memory_files;
  for (const auto& [name, text] : files) in_memory_files.emplace((kNowhere / name).string(), text);
  MemoryFileReader memory(in_memory_files);
  options.files = &memory;
  auto report = lint::LintPaths({(kNowhere / "train.py").string()}, options);
  ASSERT_TRUE(report.ok());
  bool counted = false;
  for (const lint::LintedFile& file : report->files) {
    for (const Diagnostic& d : file.diagnostics) {
      counted = counted || (d.rule_id == "OPM112" && d.message.ends_with("it already holds 2 *_ascend_pt directories"));
    }
  }
  EXPECT_TRUE(counted) << "the two *_ascend_pt directories in memory were not counted";
}

// Issue 28: a launcher description a config adds (`launchers:`) is read through the seam too.
TEST(KnownLauncherSet, ReadsAnAddedDescriptionThroughTheReader) {
  const std::string path = (kNowhere / "launchers" / "mine.yaml").string();
  MemoryFileReader memory(
      FileMap{{path, testing::ReadFile(testing::SourceDir() / "rules" / "launchers" / "mindspeed.yaml")}});
  rules::KnownLauncherSet launchers(memory);
  auto known = launchers.For({path});
  ASSERT_TRUE(known.ok()) << known.error().message;
  ASSERT_FALSE(known->empty());
  auto missing = rules::KnownLauncherSet(memory).For({(kNowhere / "none.yaml").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("none.yaml: No such file or directory"), std::string::npos)
      << missing.error().message;
  EXPECT_FALSE(fs::exists(kNowhere));
}

TEST(MemoryFileReader, StatsListsAndResolvesTheDirectoriesItsPathsImply) {
  MemoryFileReader files(
      FileMap{{"/m/a/b.py", "1\n"}, {"/m/a/c/d.py", "2\n"}, {"/m/a/c/e.sh", "3\n"}, {"/m/ab.py", ""}});
  EXPECT_EQ(files.Stat("/m/a/b.py"), FileKind::kFile);
  EXPECT_EQ(files.Stat("/m/a"), FileKind::kDirectory);
  EXPECT_EQ(files.Stat("/m/a/"), FileKind::kDirectory);
  EXPECT_EQ(files.Stat("/m/a/c/../c"), FileKind::kDirectory);
  EXPECT_EQ(files.Stat("/m/a/b"), FileKind::kMissing);
  EXPECT_EQ(files.Stat("/m/a/c/d"), FileKind::kMissing);
  auto listed = files.ListDirectory("/m/a");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  std::set<std::pair<std::string, FileKind>> entries;
  for (const DirectoryEntry& entry : *listed) entries.emplace(entry.name, entry.kind);
  EXPECT_EQ(entries,
            (std::set<std::pair<std::string, FileKind>>{{"b.py", FileKind::kFile}, {"c", FileKind::kDirectory}}));
  EXPECT_EQ(listed->size(), 2U);
  auto missing = files.ListDirectory("/m/zz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/m/zz: cannot list"), std::string::npos);
  EXPECT_EQ(*files.Canonical("/m/a/./c/../b.py"), "/m/a/b.py");
}

TEST(DiskFileReader, StatsListsAndResolvesAsTheFilesystemSays) {
  testing::TempDir dir;
  dir.Write("a/b.py", "1\n");
  fs::create_directory_symlink("a", dir.path() / "link");
  EXPECT_EQ(DiskFiles().Stat((dir.path() / "a" / "b.py").string()), FileKind::kFile);
  EXPECT_EQ(DiskFiles().Stat((dir.path() / "a").string()), FileKind::kDirectory);
  std::string cause;
  EXPECT_EQ(DiskFiles().Stat((dir.path() / "none").string(), &cause), FileKind::kMissing);
  EXPECT_TRUE(cause.empty()) << "a missing file has no other cause: " << cause;
  auto listed = DiskFiles().ListDirectory(dir.path().string());
  ASSERT_TRUE(listed.ok());
  std::set<std::tuple<std::string, FileKind, bool>> entries;
  for (const DirectoryEntry& entry : *listed) entries.emplace(entry.name, entry.kind, entry.symlink);
  EXPECT_EQ(entries, (std::set<std::tuple<std::string, FileKind, bool>>{{"a", FileKind::kDirectory, false},
                                                                        {"link", FileKind::kDirectory, true}}));
  EXPECT_EQ(*DiskFiles().Canonical((dir.path() / "link" / "b.py").string()),
            fs::weakly_canonical(dir.path() / "a" / "b.py").string());
}

// A reader that counts what is asked of it, over files in memory.
class CountingReader final : public testing::WatchedFiles {
 public:
  using WatchedFiles::WatchedFiles;
  Result<std::string> ReadFile(const std::string& path) const override {
    ++reads;
    return WatchedFiles::ReadFile(path);
  }
  FileKind Stat(const std::string& path, std::string* cause) const override {
    ++stats;
    return WatchedFiles::Stat(path, cause);
  }
  mutable std::atomic<int> reads = 0;
  mutable std::atomic<int> stats = 0;
};

TEST(CachingFileReader, AsksItsBaseOnceAndAnswersTheSameFromEveryThread) {
  const CountingReader base(FileMap{{"/m/a.py", "x = 1\n"}});
  const CachingFileReader cached(base);
  std::vector<std::thread> threads;
  std::atomic<int> wrong = 0;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        auto text = cached.ReadFile("/m/a.py");
        if (!text.ok() || *text != "x = 1\n") ++wrong;
        if (cached.ReadFile("/m/none.py").ok()) ++wrong;
        if (cached.Stat("/m/a.py") != FileKind::kFile || cached.Stat("/m") != FileKind::kDirectory) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  // Two threads may both ask first; never more than one read per thread and path.
  EXPECT_GE(base.reads, 2);
  EXPECT_LE(base.reads, 8);
  EXPECT_LE(base.stats, 8);
  EXPECT_EQ(cached.ReadFile("/m/none.py").error().message, base.ReadFile("/m/none.py").error().message);
}

TEST(CachingFileReader, KeepsTextsOnlyUpToItsLimit) {
  const CountingReader base(FileMap{{"/m/small.py", "x = 1\n"}, {"/m/big.py", std::string(100, '#')}});
  const CachingFileReader cached(base, 50);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(cached.ReadFile("/m/small.py")->size(), 6U);
    EXPECT_EQ(cached.ReadFile("/m/big.py")->size(), 100U);
  }
  EXPECT_EQ(base.reads, 1 + 3) << "the small file once, the one past the limit every time";
}

// A program whose profiler settings come from two other modules: a constant and a function's return.
const FileMap kProgram = {
    {(kNowhere / "train.py").string(),
     "import torch_npu\n"
     "from config import FLOPS\n"
     "from helper import level\n"
     "\n"
     "def main():\n"
     "    experimental_config = torch_npu.profiler._ExperimentalConfig(profiler_level=level())\n"
     "    with torch_npu.profiler.profile(with_flops=FLOPS, experimental_config=experimental_config) as prof:\n"
     "        pass\n"
     "\n"
     "if __name__ == \"__main__\":\n"
     "    main()\n"},
    {(kNowhere / "config.py").string(), "FLOPS = False\n"},
    {(kNowhere / "helper.py").string(),
     "import torch_npu\n\ndef level():\n    return torch_npu.profiler.ProfilerLevel.Level0\n"},
};

// Files in memory that, once sealed, refuse every read and count what was still asked.
class SealedAfterReading final : public testing::WatchedFiles {
 public:
  using WatchedFiles::WatchedFiles;
  void Seal() { sealed_ = true; }
  Result<std::string> ReadFile(const std::string& path) const override {
    if (sealed_) {
      reads_after_seal.push_back(path);
      return Error::Internal(path + ": read while tracing");
    }
    ++reads_before_seal;
    return WatchedFiles::ReadFile(path);
  }
  mutable std::vector<std::string> reads_after_seal;
  mutable int reads_before_seal = 0;

 private:
  bool sealed_ = false;
};

// Issue 16: the tracer reads no file. The program is read when the facts are about to be traced;
// from then on every read fails, and the values traced across modules are still all there.
TEST(TracerReadsNoFile, EveryModuleIsReadBeforeTracingStarts) {
  const fs::path train = kNowhere / "train.py";
  const auto facts_of = [&](const FileReader* files, SealedAfterReading* seal) {
    auto parsed = python::PythonModule::Parse(train.string(), kProgram.at(train.string()), linter::TorchNpuKnowledge());
    EXPECT_TRUE(parsed.ok());
    auto module = std::make_unique<python::PythonModule>(std::move(*parsed));
    std::unique_ptr<python::ModuleSet> program;
    if (files != nullptr) {
      python::ModuleLocator locator({kNowhere}, kNowhere, *files);
      auto sources = python::ReadProgram(locator, train, module->tree().source(), train);
      program = std::make_unique<python::ModuleSet>(std::move(locator), train, std::move(sources),
                                                    linter::TorchNpuKnowledge());
      if (seal != nullptr) seal->Seal();
    }
    return linter::ReadProfilerFacts(std::move(module), std::move(program));
  };
  const auto describe = [](const linter::Setting& setting) {
    std::string out;
    for (const python::Value& value : setting.values) {
      out += (out.empty() ? "" : " | ") + (value.kind == python::ValueKind::kUnknown ? "?" : value.Describe());
    }
    return out;
  };

  SealedAfterReading files(kProgram);
  const linter::ProfilerFacts facts = facts_of(&files, &files);
  ASSERT_EQ(facts.sites.size(), 1U);
  EXPECT_EQ(describe(facts.sites[0].with_flops), "False");
  EXPECT_EQ(describe(facts.sites[0].profiler_level), "ProfilerLevel.Level0");
  EXPECT_EQ(files.reads_before_seal, 2) << "config.py and helper.py, once each";
  EXPECT_EQ(files.reads_after_seal, std::vector<std::string>{});

  // Without the program the same settings cannot be told: the test above did follow the imports.
  const linter::ProfilerFacts alone = facts_of(nullptr, nullptr);
  ASSERT_EQ(alone.sites.size(), 1U);
  EXPECT_EQ(describe(alone.sites[0].with_flops), "config.FLOPS");
  EXPECT_EQ(describe(alone.sites[0].profiler_level), "the result of helper.level(...)");
}

// A whole lint of a program held in memory follows its imports in memory, as on disk.
TEST(LintFromMemory, AProgramsImportsAreFollowedInMemoryAsOnDisk) {
  lint::LintOptions options;
  options.use_config = false;
  options.root = "";  // set to each copy's root
  std::map<std::string, std::string> program;
  for (const auto& [path, text] : kProgram) program.emplace(fs::path(path).filename().string(), text);
  const std::set<std::string> rules = ExpectTheSameOnDiskAndInMemory(program, "train.py", options);
  EXPECT_TRUE(rules.contains("OPM101")) << "with_flops=False, read from config.py";
}

// Issue 16 point 7: a path the file system cannot resolve (a component too long, a symlink loop)
// made the workers' std::filesystem calls throw, and the process end. Now it is one error with
// its real cause, not "no such file". (In memory nothing resolves against the disk.)
TEST(LintOnDisk, APathThatCannotBeResolvedIsAnErrorWithItsCause) {
  testing::TempDir dir;
  fs::create_directory_symlink("loop", dir.path() / "loop");
  for (const fs::path& bad : {dir.path() / std::string(300, 'a') / "train.py", dir.path() / "loop" / "train.py"}) {
    SCOPED_TRACE(bad.string());
    lint::LintOptions options;
    options.use_config = false;
    auto report = lint::LintPaths({bad.string()}, options);
    ASSERT_TRUE(report.ok()) << report.error().message;
    ASSERT_EQ(report->errors.size(), 1U);
    const std::string& message = report->errors.front().message;
    EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
    EXPECT_EQ(message.find("no such file"), std::string::npos) << message;
    EXPECT_TRUE(message.find("too long") != std::string::npos || message.find("symbolic links") != std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
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
