// Following Python imports: the text scan, where names lead, and the bounded closure.

#include "python/project.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/file_reader.h"
#include "tests/test_support.h"

namespace opmfu::python {
namespace {

namespace fs = std::filesystem;

TEST(ScanImports, ReadsEveryImportFormWithoutParsing) {
  const std::vector<std::string> names = ScanImports(
      "import os, pkg.mod as m\n"
      "from pkg.args import get_args as ga, LEVEL  # why\n"
      "from . import sibling\n"
      "from ..up import (a,\n    b)\n"
      "    from .inner import f\n"
      "x = 'import not_a_module'\n");
  const std::vector<std::string> expected = {
      "os",     "pkg.mod", "pkg.args", "pkg.args.get_args", "pkg.args.LEVEL", ".", ".sibling", "..up",
      "..up.a", "..up.b",  ".inner",   ".inner.f"};
  EXPECT_EQ(names, expected);
}

// A one-line file: the import statement ends at `;`, and numbers are never module names (each
// would be a file-system lookup; 27 MB of them took minutes).
TEST(ScanImports, StopsAtTheEndOfTheStatement) {
  EXPECT_EQ(ScanImports("import torch_npu; data = [0, 1, 2, a.b]  # import x\nfrom m import f; g = [3, 4]\n"),
            (std::vector<std::string>{"torch_npu", "m", "m.f"}));
  EXPECT_EQ(ScanImports("import 3, a.1, _x\n"), std::vector<std::string>{"_x"});
}

TEST(ModuleLocator, FindsModulesAndPackagesBelowTheRootOnly) {
  testing::TempDir dir;
  const fs::path root = dir.path() / "proj";
  dir.Write("proj/train.py", "");
  dir.Write("proj/pkg/__init__.py", "");
  dir.Write("proj/pkg/args.py", "");
  dir.Write("proj/pkg/sub/deep.py", "");
  dir.Write("elsewhere/pkg2.py", "");
  const ModuleLocator locator({root, dir.path() / "elsewhere"}, root);
  EXPECT_EQ(locator.Locate("pkg", root / "train.py"), root / "pkg" / "__init__.py");
  EXPECT_EQ(locator.Locate("pkg.args", root / "train.py"), root / "pkg" / "args.py");
  EXPECT_EQ(locator.Locate(".args", root / "pkg" / "sub" / "deep.py"), std::nullopt);
  EXPECT_EQ(locator.Locate("..args", root / "pkg" / "sub" / "deep.py"), root / "pkg" / "args.py");
  EXPECT_EQ(locator.Locate("pkg2", root / "train.py"), std::nullopt);  // outside the root
  EXPECT_EQ(locator.Locate("torch", root / "train.py"), std::nullopt);
}

TEST(ImportClosure, CutsCyclesAndStopsAtItsBounds) {
  testing::TempDir dir;
  const fs::path& root = dir.path();
  dir.Write("a.py", "import b\n");
  dir.Write("b.py", "import a\nimport c\n");
  dir.Write("c.py", "import d\n");
  dir.Write("d.py", "");
  const ModuleLocator locator({root}, root);
  EXPECT_EQ(ImportClosure(locator, root / "a.py").size(), 3U);  // b, c, d; a once
  EXPECT_EQ(ImportClosure(locator, root / "a.py", 2).size(), 2U);
  EXPECT_EQ(ImportClosure(locator, root / "a.py", 64, 1).size(), 1U);
}

// Files in memory that count what is asked of them.
class CountedFiles final : public testing::WatchedFiles {
 public:
  using WatchedFiles::WatchedFiles;
  Result<std::string> ReadFile(const std::string& path) const override {
    ++reads[fs::path(path).lexically_normal().string()];
    return WatchedFiles::ReadFile(path);
  }
  FileKind Stat(const std::string& path, std::string* cause) const override {
    ++stats;
    return WatchedFiles::Stat(path, cause);
  }
  mutable std::map<std::string, int> reads;
  mutable int stats = 0;
};

TEST(ReadProgram, ReadsTheClosureOfTheFileAndOfItsEntryOnceEach) {
  const fs::path root = "/nonexistent-opmfu-memory-test/project";
  const CountedFiles files({{(root / "train.py").string(), "import helper\nimport args\n"},
                            {(root / "helper.py").string(), "import args\n"},
                            {(root / "args.py").string(), "LEVEL = 1\n"}});
  const ModuleLocator locator({root}, root, files);
  const std::vector<SourceFile> program = ReadProgram(locator, root / "helper.py", "import args\n", root / "train.py");
  std::vector<std::string> names;
  for (const SourceFile& file : program) names.push_back(file.path.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"args.py", "train.py"}));  // helper.py itself left out
  ASSERT_EQ(program.size(), 2U);
  EXPECT_EQ(program[0].text, "LEVEL = 1\n");
  EXPECT_EQ(program[1].text, "import helper\nimport args\n");
  // Each file once, though both closures reach args.py; the linted file's text was given.
  EXPECT_EQ(files.reads,
            (std::map<std::string, int>{{(root / "args.py").string(), 1}, {(root / "train.py").string(), 1}}));
  EXPECT_FALSE(fs::exists(root));
}

// Tracing answers from the texts read beforehand: a file changed on disk afterwards is not read.
TEST(ModuleSet, TracesFromTheTextsItWasGivenNotFromTheDisk) {
  testing::TempDir dir;
  const fs::path& root = dir.path();
  dir.Write("args.py", "LEVEL = 'on disk'\n");
  const ModuleLocator locator({root}, root);
  const ModuleSet program(locator, root / "train.py", {SourceFile{root / "args.py", "LEVEL = 'read before'\n"}});
  const PythonModule* args = program.Find("args", root / "train.py");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->tree().source(), "LEVEL = 'read before'\n");
  EXPECT_EQ(program.Containing("read before", nullptr).size(), 1U);
  EXPECT_TRUE(program.Containing("on disk", nullptr).empty());
  EXPECT_TRUE(program.IsFileOf(root / "args.py", *args));
  EXPECT_FALSE(program.IsFileOf(root / "train.py", *args));
}

// Issue 30: a module two programs import is parsed once per run, and found once: the second
// program's locator (the same search directories) asks the files nothing new.
TEST(ModuleCache, TwoProgramsShareOneParseAndOneLookupOfAModule) {
  const fs::path root = "/nonexistent-opmfu-memory-test/shared";
  const CountedFiles files({{(root / "a.py").string(), "import common\n"},
                            {(root / "b.py").string(), "import common\n"},
                            {(root / "common.py").string(), "LEVEL = 'level1'\n"}});
  ModuleCache cache;
  const auto program_of = [&](const char* script) {
    ModuleLocator locator({root}, root, files, &cache);
    std::vector<SourceFile> sources = ReadProgram(locator, root / script, "import common\n", root / script);
    return std::make_unique<ModuleSet>(std::move(locator), root / script, std::move(sources));
  };
  const auto a = program_of("a.py");
  const PythonModule* common_in_a = a->Find("common", root / "a.py");
  const int stats_after_a = files.stats;
  const auto b = program_of("b.py");
  const PythonModule* common_in_b = b->Find("common", root / "b.py");
  ASSERT_NE(common_in_a, nullptr);
  EXPECT_EQ(common_in_a, common_in_b) << "one parse serves both programs";
  EXPECT_EQ(files.stats, stats_after_a) << "the second program located nothing again";

  // Without a cache each program parses its own.
  ModuleLocator alone({root}, root, files);
  const ModuleSet c(alone, root / "a.py", ReadProgram(alone, root / "a.py", "import common\n", root / "a.py"));
  EXPECT_NE(c.Find("common", root / "a.py"), common_in_a);
}

// A path asked with another text than the one parsed (a file fixed between two lints) is parsed
// from the text the asker has.
TEST(ModuleCache, AnotherTextOfTheSamePathIsParsedFromThatText) {
  ModuleCache cache;
  const auto first = cache.Parsed("/p/m.py", "X = 1\n", LibraryKnowledge::None());
  const auto again = cache.Parsed("/p/m.py", "X = 1\n", LibraryKnowledge::None());
  const auto changed = cache.Parsed("/p/m.py", "X = 2\n", LibraryKnowledge::None());
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first, again);
  ASSERT_NE(changed, nullptr);
  EXPECT_EQ(changed->tree().source(), "X = 2\n");
  EXPECT_EQ(cache.Scanned("/p/m.py", "import a.b\n")->imports, (std::vector<std::string>{"a.b"}));
  EXPECT_EQ(cache.Scanned("/p/m.py", "import c\n")->imports, std::vector<std::string>{"c"});
  EXPECT_FALSE(cache.Scanned("/p/bad.py", std::string("x = '\xff'\n"))->valid_utf8);
}

// A full store parses for its asker alone and keeps nothing more.
TEST(ModuleCache, BeyondItsCapacityAModuleIsParsedButNotKept) {
  ModuleCache cache(8);
  const auto small = cache.Parsed("/p/s.py", "X = 1\n", LibraryKnowledge::None());
  const auto big = cache.Parsed("/p/big.py", "LONG_NAME = 12345\n", LibraryKnowledge::None());
  ASSERT_NE(big, nullptr);
  EXPECT_NE(cache.Parsed("/p/big.py", "LONG_NAME = 12345\n", LibraryKnowledge::None()), big);
  EXPECT_EQ(cache.Parsed("/p/s.py", "X = 1\n", LibraryKnowledge::None()), small);
}

}  // namespace
}  // namespace opmfu::python
