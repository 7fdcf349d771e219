#pragma once
// Helpers shared by the tests: scratch directories, files, and running the opmfu binary.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace opmfu::testing {

/// The repository root (tests read fixtures and goldens from it).
std::filesystem::path SourceDir();

/// A fresh directory removed with everything in it when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `content` to `relative` below the directory, creating parents; returns the path.
  std::filesystem::path Write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::filesystem::path& path);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the built opmfu with `args` in `cwd` (default: the repository root), with OPMFU_* and
/// NO_COLOR cleared from the environment and `env` added; stdin is `stdin_path` (default /dev/null).
RunResult RunOpmfu(const std::vector<std::string>& args, const std::filesystem::path& cwd = {},
                   const std::map<std::string, std::string>& env = {}, const std::filesystem::path& stdin_path = {});

}  // namespace opmfu::testing
