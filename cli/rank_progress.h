#pragma once
// How `opmfu analyze` shows its progress through the ranks: to `opmfu mcp`'s pipe, or as a bar.

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>

#include "common/result.h"

namespace opmfu::cli {

/// engine::AnalyzeOptions::on_rank_done for a command line: "done total" lines to the pipe
/// $OPMFU_PROGRESS_FD names (`opmfu mcp` turns them into progress notifications), else a
/// progress bar on a terminal's stderr once the run has taken more than a second (not with
/// --agent, whose stderr is a log).
class RankProgress {
 public:
  explicit RankProgress(bool agent);
  RankProgress(const RankProgress&) = delete;
  RankProgress& operator=(const RankProgress&) = delete;
  /// Empty when there is nowhere to show progress. Valid while this object lives. A usage error
  /// naming $OPMFU_PROGRESS_FD when it is set to something else than an open file descriptor.
  Result<std::function<void(std::size_t, std::size_t)>> Callback();
  /// Ends the bar's line, if a bar was drawn.
  void Finish();

 private:
  bool agent_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  bool shown_ = false;
};

}  // namespace opmfu::cli
