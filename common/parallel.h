#pragma once
// Data parallelism for independent items: the one thread pool of the tree (lint's stages, the
// parts of a large Python file, the ranks of an analysis).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace opmfu {

/// The cores of this machine, at least 1. Read once: hardware_concurrency reads sysfs on every
/// call, and small files are parsed by the thousand.
inline unsigned HardwareCores() {
  static const unsigned kCores = std::max(1U, std::thread::hardware_concurrency());
  return kCores;
}

/// The threads ForEachInParallel(count, jobs, ...) runs on: `jobs` (0: one per core), never more
/// than there are items, at least 1 (the calling thread).
inline unsigned WorkerCount(std::size_t count, unsigned jobs) {
  return static_cast<unsigned>(
      std::min<std::size_t>(jobs == 0 ? HardwareCores() : jobs, std::max<std::size_t>(1, count)));
}

/// Runs work(i) for every i in [0, count) on WorkerCount(count, jobs) threads, the calling thread
/// one of them; items are handed out in index order, one at a time, to whichever thread is free.
/// No exception escapes a worker thread (that would end the process): the first one thrown is
/// kept, no further item starts, and it is rethrown here once every thread has stopped. When the
/// system refuses another thread, the threads already started (at least the calling one) do all
/// the items.
template <typename Work>
void ForEachInParallel(std::size_t count, unsigned jobs, Work&& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto loop = [&]() noexcept {
    for (std::size_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
      }
    }
  };
  const unsigned threads = WorkerCount(count, jobs);
  {
    std::vector<std::jthread> workers;
    workers.reserve(threads - 1);
    for (unsigned i = 1; i < threads; ++i) {
      try {
        workers.emplace_back(loop);
      } catch (const std::system_error&) {
        break;
      }
    }
    loop();
  }  // joins the workers
  if (failure) std::rethrow_exception(failure);
}

/// work(i) for every i in [0, count), in parallel as ForEachInParallel runs them (and with its
/// exception handling); the results in index order, whichever thread computed them.
template <typename Work>
auto MapInParallel(std::size_t count, unsigned jobs, Work&& work) {
  using Output = std::invoke_result_t<Work&, std::size_t>;
  std::vector<std::optional<Output>> computed(count);
  ForEachInParallel(count, jobs, [&](std::size_t i) { computed[i].emplace(work(i)); });
  std::vector<Output> results;
  results.reserve(count);
  for (std::optional<Output>& result : computed) results.push_back(std::move(*result));
  return results;
}

/// produce(begin, end, out) appends to `out` what [begin, end) yields; this runs it over `slices`
/// contiguous slices of [0, count) in parallel and returns their outputs concatenated in slice
/// order: the vector one call over [0, count) would give. With one slice there is no copy.
template <typename T, typename Produce>
std::vector<T> ConcatenateSlices(std::size_t count, unsigned slices, Produce&& produce) {
  slices = WorkerCount(count, slices);
  if (slices == 1) {
    std::vector<T> out;
    out.reserve(count);
    produce(std::size_t{0}, count, out);
    return out;
  }
  std::vector<std::vector<T>> parts(slices);
  ForEachInParallel(slices, slices, [&](std::size_t part) {
    const std::size_t begin = count * part / slices;
    const std::size_t end = count * (part + 1) / slices;
    parts[part].reserve(end - begin);
    produce(begin, end, parts[part]);
  });
  std::size_t total = 0;
  for (const std::vector<T>& part : parts) total += part.size();
  std::vector<T> out;
  out.reserve(total);
  for (std::vector<T>& part : parts) {
    out.insert(out.end(), part.begin(), part.end());
    std::vector<T>().swap(part);
  }
  return out;
}

}  // namespace opmfu
