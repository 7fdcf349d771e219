#pragma once
// Running a helper program (only ever an interpreter asked for facts, never user code).

#include <chrono>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu {

struct ProcessOutput {
  int exit_code = 0;
  std::string standard_output;
};

/// Runs argv[0] (searched in PATH) with stdin and stderr on /dev/null, captures stdout, and kills
/// it when it outlives `timeout`. No shell is involved.
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace opmfu
