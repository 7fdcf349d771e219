#pragma once
// Running a helper program (only ever an interpreter asked for facts, never user code).

#include <spawn.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu {

/// posix_spawn_file_actions_t, destroyed with its owner. ok() is false when it could not be set up.
class SpawnFileActions {
 public:
  SpawnFileActions() { ok_ = posix_spawn_file_actions_init(&actions_) == 0; }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;
  ~SpawnFileActions() {
    if (ok_) posix_spawn_file_actions_destroy(&actions_);
  }
  bool ok() const { return ok_; }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_{};
  bool ok_ = false;
};

struct ProcessOutput {
  int exit_code = 0;
  std::string standard_output;
};

/// How RunChild runs a program. stdin is /dev/null; the stream not captured goes to /dev/null.
struct ChildOptions {
  enum class Capture { kStdout, kStderr };
  Capture capture = Capture::kStdout;
  std::chrono::milliseconds timeout{10000};        ///< killed (SIGKILL) when it runs longer
  std::size_t max_output = std::size_t{64} << 20;  ///< bytes kept; the rest is read and dropped
  /// The child's whole environment ("NAME=value"); without it, this process's.
  std::optional<std::vector<std::string>> environment;
};

struct ChildOutcome {
  enum class End { kExited, kSignalled, kTimedOut };
  End end = End::kExited;
  int exit_code = 0;   ///< kExited: its status
  std::string output;  ///< the captured stream, at most max_output bytes
};

/// Runs argv[0] (searched in PATH unless it names a path) and waits for it. An error only when it
/// cannot be started at all ("<argv[0]>: cannot run: <cause>"). No shell is involved.
Result<ChildOutcome> RunChild(const std::vector<std::string>& argv, const ChildOptions& options);

/// RunChild capturing stdout, with a timeout that is an error ("did not answer within N s") and
/// a signal reported as exit code 128 + N.
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace opmfu
