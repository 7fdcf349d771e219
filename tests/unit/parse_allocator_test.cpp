#include "common/parse_allocator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace opmfu::parse_allocator {
namespace {

TEST(ParseAllocator, BlocksAreAlignedSizedAndIndependent) {
  std::vector<void*> blocks;
  for (std::size_t size : {0, 1, 15, 16, 17, 500, 513, 4000, 70000, 1 << 20, 3 << 20}) {
    void* block = Allocate(size);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % 16, 0U);
    EXPECT_GE(Capacity(block), size);
    std::memset(block, static_cast<int>(size & 0xFF), size);
    blocks.push_back(block);
  }
  for (void* block : blocks) Free(block);
}

TEST(ParseAllocator, ReallocateKeepsContentAndZeroedIsZero) {
  auto* text = static_cast<char*>(Allocate(8));
  std::memcpy(text, "abcdefg", 8);
  text = static_cast<char*>(Reallocate(text, 100000));
  EXPECT_STREQ(text, "abcdefg");
  Free(text);
  auto* dirty = static_cast<unsigned char*>(Allocate(64));
  std::memset(dirty, 0xAB, 64);
  Free(dirty);
  auto* zeroed = static_cast<unsigned char*>(AllocateZeroed(8, 8));  // likely reuses `dirty`
  for (int i = 0; i < 64; ++i) EXPECT_EQ(zeroed[i], 0);
  Free(zeroed);
  EXPECT_EQ(AllocateZeroed(SIZE_MAX / 2, 4), nullptr);  // overflow
}

TEST(ParseAllocator, BlocksMayBeFreedOnAnotherThread) {
  std::vector<void*> blocks(10000);
  std::thread producer([&] {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      blocks[i] = Allocate(i % 700);
      std::memset(blocks[i], 1, i % 700);
    }
  });
  producer.join();
  for (void* block : blocks) Free(block);
  // The freeing thread reuses what it freed.
  void* again = Allocate(100);
  EXPECT_NE(again, nullptr);
  Free(again);
}

}  // namespace
}  // namespace opmfu::parse_allocator
