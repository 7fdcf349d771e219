// The layers of docs/CONTRIBUTING.md, checked on the sources: a library includes only the
// libraries below it. A new folder must be added here, with the layers it may use, before
// its first include passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Folder -> the folders its sources may include (itself always allowed).
const std::map<std::string, std::set<std::string>>& AllowedIncludes() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"common", {}},
      {"python", {"common"}},
      {"linter", {"common", "python"}},
      {"registry", {"common", "python"}},
      {"rules", {"common", "python", "linter", "registry"}},
      {"lint", {"common", "python", "linter", "registry", "rules"}},
      // engine is the parity-critical analysis: nothing built on its rows may reach into it.
      {"engine", {"common"}},
      {"report", {"common", "engine", "registry"}},
      // mcp runs opmfu's commands as child processes: it needs nothing of what they are built on.
      {"mcp", {"common"}},
      {"cli", {"common", "python", "linter", "registry", "rules", "lint", "engine", "report", "mcp"}},
  };
  return allowed;
}

struct LayerViolation {
  std::string file;
  std::string included;
};

std::vector<LayerViolation> FindViolations(const fs::path& root, std::vector<std::string>& unknown_folders) {
  static const std::regex kProjectInclude(R"(^\s*#\s*include\s+"([a-z_]+)/[^"]+")");
  std::vector<LayerViolation> violations;
  for (const auto& [folder, allowed] : AllowedIncludes()) {
    const fs::path dir = root / folder;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const auto extension = entry.path().extension();
      if (extension != ".cpp" && extension != ".h") continue;
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        std::smatch match;
        if (!std::regex_search(line, match, kProjectInclude)) continue;
        const std::string included = match[1];
        if (included == folder || allowed.contains(included)) continue;
        if (!AllowedIncludes().contains(included)) {
          // Not one of ours (a generated header's folder, say) unless it is a source folder.
          if (fs::is_directory(root / included) && fs::exists(root / included / "CMakeLists.txt")) {
            unknown_folders.push_back(included);
          }
          continue;
        }
        violations.push_back({fs::relative(entry.path(), root).string(), included});
      }
    }
  }
  return violations;
}

TEST(Layering, EveryLibraryIncludesOnlyTheLayersBelowIt) {
  std::vector<std::string> unknown_folders;
  const auto violations = FindViolations(OPMFU_SOURCE_DIR, unknown_folders);
  for (const auto& violation : violations) {
    ADD_FAILURE() << violation.file << " includes " << violation.included << "/, which is not below it";
  }
  for (const auto& folder : unknown_folders) {
    ADD_FAILURE() << folder << "/ is included but has no row in AllowedIncludes()";
  }
}

// linter/shell/ reads a launcher as a one-way pipeline: each file is one stage and includes only
// the stages before it (so no cycle, no back-arrow inside the folder); nothing in it includes the
// rest of linter/; outside it only the driver (linter/bash_launcher.cpp) reaches past the public
// types of facts.h. A new file takes its place in this list.
const std::vector<std::string>& ShellStages() {
  static const std::vector<std::string> stages = {"facts",    "syntax",    "words",      "environment", "budget",
                                                  "frame",    "expansion", "assignment", "invocation",  "programs",
                                                  "commands", "dispatch",  "interpreter"};
  return stages;
}

std::vector<std::string> ProjectIncludes(const fs::path& file) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (std::regex_search(line, match, kInclude)) out.push_back(match[1]);
  }
  return out;
}

TEST(Layering, ShellStagesIncludeOnlyTheStagesBeforeThem) {
  const fs::path root = OPMFU_SOURCE_DIR;
  const auto& stages = ShellStages();
  const auto stage_of = [&](const std::string& stem) {
    return static_cast<int>(std::find(stages.begin(), stages.end(), stem) - stages.begin());
  };
  const int unplaced = static_cast<int>(stages.size());
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(root / "linter" / "shell")) {
    const std::string name = entry.path().filename().string();
    const int stage = stage_of(entry.path().stem().string());
    ++files;
    if (stage == unplaced) {
      ADD_FAILURE() << "linter/shell/" << name << " has no place in ShellStages()";
      continue;
    }
    for (const std::string& included : ProjectIncludes(entry.path())) {
      if (!included.starts_with("linter/")) continue;
      if (!included.starts_with("linter/shell/")) {
        ADD_FAILURE() << "linter/shell/" << name << " includes " << included << ", which is above the shell front end";
        continue;
      }
      const int target = stage_of(fs::path(included).stem().string());
      if (target > stage) {
        ADD_FAILURE() << "linter/shell/" << name << " includes " << included << ", a later stage";
      }
    }
  }
  EXPECT_GT(files, 0U);
  // Outside the folder only the driver reads the stages; everyone else sees the facts.
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const auto extension = entry.path().extension();
    if (extension != ".cpp" && extension != ".h") continue;
    const std::string relative = fs::relative(entry.path(), root).string();
    if (relative.starts_with("linter/shell/") || relative.starts_with("build") || relative.starts_with("third_party") ||
        relative.starts_with("tests/") || relative == "linter/bash_launcher.cpp") {
      continue;
    }
    for (const std::string& included : ProjectIncludes(entry.path())) {
      if (included.starts_with("linter/shell/") && included != "linter/shell/facts.h") {
        ADD_FAILURE() << relative << " includes " << included
                      << ": only linter/bash_launcher.cpp drives the shell stages";
      }
    }
  }
}

// python/ is one-way too: the syntax helpers, a value, the node shapes the index and the
// evaluator share, one file's index (module.h, built in module_index.cpp), the program's modules
// (project), the tracer's interface, and last the tracer's implementation, python/evaluator/
// (one file per kind of expression and per question, sharing evaluator/internal.h). Each file
// includes only python/ headers of its own stage or an earlier one; nothing outside
// python/evaluator/ includes its files; and the index has no friend: the tracer reads it through
// its public accessors. A new file takes its place in this list.
const std::vector<std::string>& PythonStages() {
  static const std::vector<std::string> stages = {"syntax",  "value",  "node_shapes", "module",
                                                  "project", "tracer", "evaluator"};
  return stages;
}

// The stage of a file below python/: its folder for python/evaluator/, else its stem
// (module_index.cpp builds module.h's index, so it is that stage).
std::string PythonStageOf(const fs::path& relative) {
  if (relative.begin() != relative.end() && *relative.begin() == "evaluator") return "evaluator";
  const std::string stem = relative.stem().string();
  return stem == "module_index" ? "module" : stem;
}

TEST(Layering, PythonFilesIncludeOnlyTheStagesBeforeThem) {
  const fs::path root = OPMFU_SOURCE_DIR;
  const fs::path python = root / "python";
  const auto& stages = PythonStages();
  const auto stage_index = [&](const std::string& stage) {
    return static_cast<int>(std::find(stages.begin(), stages.end(), stage) - stages.begin());
  };
  const int unplaced = static_cast<int>(stages.size());
  std::size_t evaluator_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(python)) {
    const auto extension = entry.path().extension();
    if (extension != ".cpp" && extension != ".h") continue;
    const fs::path relative = fs::relative(entry.path(), python);
    const std::string stage = PythonStageOf(relative);
    if (stage == "evaluator") ++evaluator_files;
    if (stage_index(stage) == unplaced) {
      ADD_FAILURE() << "python/" << relative.string() << " has no place in PythonStages()";
      continue;
    }
    for (const std::string& included : ProjectIncludes(entry.path())) {
      if (!included.starts_with("python/")) continue;
      const fs::path target = fs::path(included).lexically_relative("python");
      const std::string target_stage = PythonStageOf(target);
      if (stage_index(target_stage) > stage_index(stage)) {
        ADD_FAILURE() << "python/" << relative.string() << " (" << stage << ") includes " << included
                      << ", of the later " << target_stage << " stage";
      }
    }
  }
  // The evaluator is split by kind of expression, not one file again.
  EXPECT_GT(evaluator_files, 8U);
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string relative = fs::relative(it->path(), root).string();
    // Build trees, bundled libraries and the grammars' node_modules hold no source of ours.
    if (it->is_directory() && (relative.starts_with("build") || relative.starts_with("third_party") ||
                               relative.starts_with("grammars") || relative.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    const auto extension = it->path().extension();
    if ((extension != ".cpp" && extension != ".h") || relative.starts_with("python/evaluator/")) continue;
    const fs::path& path = it->path();
    for (const std::string& included : ProjectIncludes(path)) {
      if (included.starts_with("python/evaluator/")) {
        ADD_FAILURE() << relative << " includes " << included << ": only python/evaluator/ implements the tracer";
      }
    }
  }
  std::ifstream module(python / "module.h");
  const std::string header((std::istreambuf_iterator<char>(module)), std::istreambuf_iterator<char>());
  EXPECT_EQ(header.find("friend "), std::string::npos)
      << "python/module.h declares a friend: the tracer reads the index through its public accessors";
}

TEST(Layering, EverySourceFolderHasARow) {
  for (const auto& entry : fs::directory_iterator(OPMFU_SOURCE_DIR)) {
    const std::string name = entry.path().filename().string();
    const bool is_library = entry.is_directory() && fs::exists(entry.path() / "CMakeLists.txt");
    // packaging/ holds install rules and the wheel's Python, no C++.
    if (!is_library || name == "tests" || name == "bench" || name == "grammars" || name == "packaging" ||
        name.starts_with("build")) {
      continue;
    }
    EXPECT_TRUE(AllowedIncludes().contains(name)) << name << "/ has no row in AllowedIncludes()";
  }
}

}  // namespace
