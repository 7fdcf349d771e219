#include "engine/stage_clock.h"

#include <sys/resource.h>

#include <cstdio>
#include <ctime>

namespace opmfu::engine {

double ProcessCpuSeconds() {
  timespec now{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::size_t PeakRssBytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

StageClock::StageClock() : wall_(std::chrono::steady_clock::now()), cpu_(ProcessCpuSeconds()) {}

StageTime StageClock::Lap(std::string name) {
  const auto wall = std::chrono::steady_clock::now();
  const double cpu = ProcessCpuSeconds();
  StageTime stage{std::move(name), std::chrono::duration<double>(wall - wall_).count(), cpu - cpu_, PeakRssBytes()};
  wall_ = wall;
  cpu_ = cpu;
  return stage;
}

std::string DescribeStage(const StageTime& stage) {
  char text[160];
  (void)std::snprintf(text, sizeof text, "%s %.2f s (cpu %.2f s, peak %zu MB)", stage.name.c_str(), stage.wall_seconds,
                      stage.cpu_seconds, stage.peak_rss_bytes >> 20);
  return text;
}

}  // namespace opmfu::engine
