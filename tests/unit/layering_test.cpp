// The layers of docs/CONTRIBUTING.md, checked on the sources: a library includes only the
// libraries below it. A new folder must be added here, with the layers it may use, before
// its first include passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
