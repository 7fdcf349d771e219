#pragma once
// Helpers shared by the tests: scratch directories, files, and running the opmfu binary.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/file_reader.h"

namespace opmfu::testing {

/// A training script with safe fixes (with_flops=False) and findings that stay (OPM109: a fixed
/// trace directory), shared by the lint command-line cases.
inline constexpr const char* kScriptWithSafeFixesAndFindingsThatStay =
    "import torch_npu\n"
    "from torch_npu.profiler import ProfilerActivity, ProfilerLevel\n"
    "run_id = 1\n"
    "cfg = torch_npu.profiler._ExperimentalConfig(profiler_level='level1', mstx=True, msprof_tx=True,\n"
    "                                             export_type=('text', 'db'))\n"
    "prof = torch_npu.profiler.profile(\n"
    "    activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],\n"
    "    on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(f'./p/{run_id}'),\n"
    "    with_flops=False,\n"
    "    experimental_config=cfg,\n"
    ")\n";

/// Files in memory behind a reader a test can watch: every method answers from the map, and a
/// test overrides the one it counts or refuses.
class WatchedFiles : public FileReader {
 public:
  explicit WatchedFiles(const std::map<std::string, std::string>& files) : files_(files) {}
  Result<std::string> ReadFile(const std::string& path) const override { return files_.ReadFile(path); }
  FileKind Stat(const std::string& path, std::string* cause) const override { return files_.Stat(path, cause); }
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const override {
    return files_.ListDirectory(path);
  }
  Result<std::string> Canonical(const std::string& path) const override { return files_.Canonical(path); }

 private:
  MemoryFileReader files_;
};

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

/// chattr +i on a directory for as long as the object lives: as root, who ignores permission
/// bits, the only way to get a directory nothing can be written to. set() is false where the
/// file system or the container refuses it (tests then skip).
class ImmutableDirectory {
 public:
  explicit ImmutableDirectory(const std::filesystem::path& path);
  ~ImmutableDirectory();
  ImmutableDirectory(const ImmutableDirectory&) = delete;
  ImmutableDirectory& operator=(const ImmutableDirectory&) = delete;
  bool set() const { return set_; }

 private:
  int fd_;
  bool set_ = false;
};

struct RunResult {
  int exit_code = -1;  ///< 128 + signal when killed
  std::string out;
  std::string err;
  double seconds = 0;      ///< wall time
  bool timed_out = false;  ///< killed at RunOptions::timeout
};

struct RunOptions {
  std::filesystem::path cwd;  ///< default: the repository root
  std::map<std::string, std::string> env;
  std::filesystem::path stdin_path;  ///< default: /dev/null
  /// Sent `stop_signal` after this long (a hang fails the test instead of stalling the suite;
  /// the nothing-lost tests interrupt runs on purpose).
  std::chrono::milliseconds timeout{120000};
  int stop_signal = 9;  ///< SIGKILL; SIGINT (2) to interrupt as Ctrl-C does
  /// RLIMIT_FSIZE for the child, to simulate a full disk (writes past it fail with EFBIG).
  std::optional<std::uint64_t> file_size_limit;
  /// Where stdout goes instead of being captured (e.g. /dev/full, to test that writes are checked).
  std::filesystem::path stdout_path;
  /// Run as `nobody` (uid and gid 65534, no groups) through setpriv when the tests run as root,
  /// who reads everything: so that permission-denied cases really are denied. As another user
  /// the run is made as that user.
  bool unprivileged = false;
  /// RLIMIT_AS for the child (`ulimit -v`): what hostile input may cost. Ignored in sanitizer
  /// builds, whose shadow memory alone is terabytes of address space.
  std::optional<std::uint64_t> address_space_limit;
  /// What is run instead of the built opmfu's own path: a link to it (the name it is called by matters).
  std::filesystem::path program;
};

/// Whether RunOptions::unprivileged can drop root here (setpriv exists); false as non-root, who
/// needs no dropping.
bool CanDropRoot();

/// Runs the built opmfu with `args`, with OPMFU_* and NO_COLOR cleared from the environment and
/// `options.env` added.
RunResult RunOpmfuWith(const std::vector<std::string>& args, const RunOptions& options);

/// The same with the common options spelled out.
RunResult RunOpmfu(const std::vector<std::string>& args, const std::filesystem::path& cwd = {},
                   const std::map<std::string, std::string>& env = {}, const std::filesystem::path& stdin_path = {});

/// Every row of `table` in the SQLite database at `db_path`, each value as SQL's quote() gives it
/// (type and value: 1 and 1.0 differ), in rowid order, after the table's declared schema.
std::vector<std::string> TableRows(const std::filesystem::path& db_path, const std::string& table);

}  // namespace opmfu::testing
