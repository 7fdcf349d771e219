#pragma once
// Wall and CPU seconds per stage, and the peak RSS when a stage ended: what `analyze -v` prints
// and the bench records. CPU seconds are the process's (every thread), so with several ranks in
// parallel they include the other ranks' work; the peak is the process's so far.

#include <chrono>
#include <string>
#include <vector>

namespace opmfu::engine {

struct StageTime {
  std::string name;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  std::size_t peak_rss_bytes = 0;  ///< the process's peak so far, when the stage ended
};

/// "read 1.20 s (cpu 2.10 s, peak 210 MB)"
std::string DescribeStage(const StageTime& stage);

class StageClock {
 public:
  StageClock();
  /// Ends the current stage (it began at construction or at the previous Lap) under `name`.
  StageTime Lap(std::string name);

 private:
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

/// CPU seconds of the whole process so far, and its peak RSS so far.
double ProcessCpuSeconds();
std::size_t PeakRssBytes();

}  // namespace opmfu::engine
