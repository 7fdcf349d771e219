#pragma once
// Running a helper program (only ever an interpreter asked for facts, never user code).

#include <spawn.h>

#include <chrono>
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

/// Runs argv[0] (searched in PATH) with stdin and stderr on /dev/null, captures stdout, and kills
/// it when it outlives `timeout`. No shell is involved.
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace opmfu
