#include "common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace opmfu {
namespace {

TEST(WorkerCount, IsTheJobsButNeverMoreThanTheItemsAndAtLeastOne) {
  EXPECT_EQ(WorkerCount(0, 0), 1U);
  EXPECT_EQ(WorkerCount(0, 8), 1U);
  EXPECT_EQ(WorkerCount(3, 8), 3U);
  EXPECT_EQ(WorkerCount(100, 2), 2U);
  EXPECT_EQ(WorkerCount(100000, 0), HardwareCores());
  EXPECT_GE(HardwareCores(), 1U);
}

TEST(ForEachInParallel, RunsEveryItemOnceOnAtMostTheWorkerCount) {
  constexpr std::size_t kItems = 1000;
  std::vector<std::atomic<int>> runs(kItems);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  ForEachInParallel(kItems, 3, [&](std::size_t i) {
    ++runs[i];
    const std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (std::size_t i = 0; i < kItems; ++i) EXPECT_EQ(runs[i].load(), 1) << "item " << i;
  EXPECT_LE(threads.size(), 3U);

  bool ran = false;
  ForEachInParallel(0, 4, [&](std::size_t) { ran = true; });
  EXPECT_FALSE(ran);
}

// The first items finish last; the results are still in index order.
TEST(MapInParallel, GivesTheResultsInIndexOrder) {
  const std::vector<std::string> results = MapInParallel(8, 4, [](std::size_t i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(8 - i));
    return std::to_string(i * i);
  });
  EXPECT_EQ(results, (std::vector<std::string>{"0", "1", "4", "9", "16", "25", "36", "49"}));
}

// An exception on a worker thread would end the process (std::terminate); it reaches the caller.
TEST(ForEachInParallel, AnExceptionOnAWorkerReachesTheCaller) {
  std::atomic<std::size_t> ran{0};
  const auto throwing = [&](std::size_t i) {
    ++ran;
    if (i == 3) throw std::runtime_error("item 3 failed");
  };
  try {
    ForEachInParallel(64, 4, throwing);
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "item 3 failed");
  }
  EXPECT_GE(ran.load(), 4U);
  // On one thread the items run in order: none starts after the failure.
  ran = 0;
  EXPECT_THROW(ForEachInParallel(64, 1, throwing), std::runtime_error);
  EXPECT_EQ(ran.load(), 4U);
  // Every thread throws at once: one exception comes out, nothing terminates.
  EXPECT_THROW(ForEachInParallel(64, 8, [](std::size_t) { throw std::logic_error("all"); }), std::logic_error);
  EXPECT_THROW(MapInParallel(16, 4, [](std::size_t i) { return i == 15 ? throw std::out_of_range("last") : i; }),
               std::out_of_range);
}

}  // namespace
}  // namespace opmfu
