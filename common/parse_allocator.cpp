#include "common/parse_allocator.h"

#include <sys/mman.h>
#include <tree_sitter/api.h>

#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>

namespace opmfu {

namespace parse_allocator {

namespace {

constexpr std::size_t kHeader = 16;                  // keeps blocks 16-byte aligned
constexpr std::size_t kSlab = std::size_t{2} << 20;  // one huge page
constexpr std::size_t kRegion = std::size_t{64} << 20;
// Classes 0..31 step by 16 bytes up to 512; 32..42 double from 1 KiB to 1 MiB; larger blocks
// get their own mapping.
constexpr std::uint32_t kSmallClasses = 32;
constexpr std::uint32_t kClasses = 43;
constexpr std::uint32_t kLarge = 0xFFFFFFFF;
constexpr std::uint32_t kMagic = 0x6F706D66;  // "opmf"

struct Header {
  std::uint32_t size_class;
  std::uint32_t magic;
  std::uint64_t large_bytes;  ///< mapping size for large blocks
};
static_assert(sizeof(Header) == kHeader);

std::size_t ClassBytes(std::uint32_t size_class) {
  return size_class < kSmallClasses ? (std::size_t{size_class} + 1) * 16
                                    : std::size_t{512} << (size_class - kSmallClasses + 1);
}

std::uint32_t ClassFor(std::size_t bytes) {
  if (bytes <= 512) return static_cast<std::uint32_t>((bytes + 15) / 16) - 1;
  std::uint32_t size_class = kSmallClasses;
  while (size_class < kClasses && ClassBytes(size_class) < bytes) ++size_class;
  return size_class < kClasses ? size_class : kLarge;
}

struct FreeBlock {
  FreeBlock* next;
};

struct ThreadCache {
  FreeBlock* free[kClasses] = {};
  char* bump = nullptr;
  char* bump_end = nullptr;
};
thread_local ThreadCache cache;

// The thread's parse budget, between BeginParseBudget and EndParseBudget.
struct BudgetState {
  std::size_t fresh = 0;
  std::size_t budget = SIZE_MAX;
  std::jmp_buf* escape = nullptr;
};
thread_local BudgetState budget_state;

[[noreturn]] void Escape(ParseEscape reason) {
  std::jmp_buf* escape = std::exchange(budget_state.escape, nullptr);
  std::longjmp(*escape, static_cast<int>(reason));  // NOLINT(cert-err52-cpp): out of C code; no destructor is skipped
}

void CountFresh(std::size_t bytes) {
  BudgetState& state = budget_state;
  if (state.escape == nullptr) return;
  state.fresh += bytes;
  if (state.fresh <= state.budget) return;
  Escape(ParseEscape::kOutOfMemory);
}

std::mutex region_mutex;
char* region_next = nullptr;
char* region_end = nullptr;

void* MapHugePages(std::size_t bytes) {
  // Over-map by one huge page so the start can be aligned to it.
  void* raw =
      ::mmap(nullptr, bytes + kSlab, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto address = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (address + kSlab - 1) & ~(kSlab - 1);
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

// A fresh run of at least `bytes` for a thread to carve blocks from.
char* TakeSlab(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(region_mutex);
  if (static_cast<std::size_t>(region_end - region_next) < bytes) {
    const std::size_t size = bytes > kRegion ? (bytes + kSlab - 1) & ~(kSlab - 1) : kRegion;
    auto* region = static_cast<char*>(MapHugePages(size));
    if (region == nullptr) return nullptr;
    region_next = region;
    region_end = region + size;
  }
  char* slab = region_next;
  region_next += bytes;
  return slab;
}

Header* HeaderOf(const void* block) {
  return reinterpret_cast<Header*>(static_cast<char*>(const_cast<void*>(block)) - kHeader);
}

}  // namespace

void* Allocate(std::size_t size) {
  const std::size_t bytes = (size == 0 ? 1 : size) + kHeader;
  if (bytes < size) return nullptr;  // overflow
  const std::uint32_t size_class = ClassFor(bytes);
  Header* header = nullptr;
  if (size_class == kLarge) {
    const std::size_t mapped = (bytes + 4095) & ~std::size_t{4095};
    void* raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    header = static_cast<Header*>(raw);
    *header = {kLarge, kMagic, mapped};
    CountFresh(mapped);
    return reinterpret_cast<char*>(header) + kHeader;
  }
  if (FreeBlock* reused = cache.free[size_class]) {
    cache.free[size_class] = reused->next;
    header = reinterpret_cast<Header*>(reinterpret_cast<char*>(reused) - kHeader);
  } else {
    const std::size_t block = ClassBytes(size_class);
    if (static_cast<std::size_t>(cache.bump_end - cache.bump) < block) {
      const std::size_t slab = block > kSlab ? block : kSlab;
      char* fresh = TakeSlab(slab);
      if (fresh == nullptr) return nullptr;
      cache.bump = fresh;
      cache.bump_end = fresh + slab;
    }
    header = reinterpret_cast<Header*>(cache.bump);
    cache.bump += block;
    CountFresh(block);
  }
  *header = {size_class, kMagic, 0};
  return reinterpret_cast<char*>(header) + kHeader;
}

void Free(void* block) {
  if (block == nullptr) return;
  Header* header = HeaderOf(block);
  if (header->magic != kMagic) {
    // Not a block's start: continuing would corrupt memory. tree-sitter 0.20's runtime does this
    // when error recovery gathers about 65,536 children under one node (a construct left open
    // tens of thousands of times: `if a; then ` x 40,000, `1 if 1 else ` x 40,000). Inside a
    // parse, the parse is given up as with the memory budget; anywhere else it is fatal.
    if (budget_state.escape != nullptr) Escape(ParseEscape::kRuntimeFault);
    std::abort();
  }
  if (header->size_class == kLarge) {
    ::munmap(header, header->large_bytes);
    return;
  }
  auto* entry = static_cast<FreeBlock*>(block);
  entry->next = cache.free[header->size_class];
  cache.free[header->size_class] = entry;
}

std::size_t Capacity(const void* block) {
  const Header* header = HeaderOf(block);
  return (header->size_class == kLarge ? header->large_bytes : ClassBytes(header->size_class)) - kHeader;
}

void* Reallocate(void* block, std::size_t size) {
  if (block == nullptr) return Allocate(size);
  const std::size_t capacity = Capacity(block);
  if (size <= capacity) return block;
  void* grown = Allocate(size);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, block, capacity);
  Free(block);
  return grown;
}

void* AllocateZeroed(std::size_t count, std::size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* block = Allocate(count * size);
  if (block != nullptr) std::memset(block, 0, count * size);
  return block;
}

}  // namespace parse_allocator

void BeginParseBudget(std::size_t budget, std::jmp_buf* escape) { parse_allocator::budget_state = {0, budget, escape}; }
void EndParseBudget() { parse_allocator::budget_state = {}; }

namespace {

// tree-sitter treats a failed allocation as fatal too (its default allocator aborts).
void* CheckedAllocate(std::size_t size) {
  void* block = parse_allocator::Allocate(size);
  if (block == nullptr) std::abort();
  return block;
}
void* CheckedAllocateZeroed(std::size_t count, std::size_t size) {
  void* block = parse_allocator::AllocateZeroed(count, size);
  if (block == nullptr) std::abort();
  return block;
}
void* CheckedReallocate(void* old, std::size_t size) {
  void* block = parse_allocator::Reallocate(old, size);
  if (block == nullptr) std::abort();
  return block;
}

}  // namespace

void InstallParseAllocator() {
  ts_set_allocator(CheckedAllocate, CheckedAllocateZeroed, CheckedReallocate, parse_allocator::Free);
}

}  // namespace opmfu
