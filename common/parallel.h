#pragma once
// Data parallelism for independent items: the one thread pool of the tree.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace opmfu {

/// Runs work(0..count-1) on `jobs` threads (0: one per core).
template <typename Work>
void ForEachInParallel(std::size_t count, unsigned jobs, Work&& work) {
  std::atomic<std::size_t> next{0};
  const auto loop = [&] {
    for (std::size_t i = next++; i < count; i = next++) work(i);
  };
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const auto threads =
      static_cast<unsigned>(std::min<std::size_t>(jobs == 0 ? cores : jobs, std::max<std::size_t>(1, count)));
  std::vector<std::jthread> workers;
  for (unsigned i = 1; i < threads; ++i) workers.emplace_back(loop);
  loop();
}

}  // namespace opmfu
