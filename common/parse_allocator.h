#pragma once
// tree-sitter's allocations, served from huge-page-backed slabs.
//
// Why: a parse makes ~40 bytes of tree per source byte in many small blocks; with glibc malloc on
// fresh memory, page faults cost more than the parse itself, and two parsing threads fault
// slower than one. Slabs of 2 MiB with MADV_HUGEPAGE cut the faults ~50x, which is what makes
// parsing a large file on both cores pay off.

#include <csetjmp>
#include <cstddef>

namespace opmfu {

/// Routes tree-sitter's malloc/calloc/realloc/free here. Call once, before tree-sitter allocates
/// anything (first thing in main). Freed blocks are reused by the freeing thread; memory goes
/// back to the system only at exit, which suits a command-line run.
void InstallParseAllocator();

/// Counts the fresh memory tree-sitter takes on this thread (blocks not reused from its free
/// lists) until EndParseBudget; past `budget` bytes, the allocation jumps to `escape`
/// (std::longjmp) instead of returning. Error recovery on some unterminated input grows without
/// bound inside one step of the parser, where neither its timeout nor a cancellation flag is
/// checked (40,000 `a | ` at the end of a launcher: 6 GB in ts_subtree_summarize_children). The
/// parser jumped out of is in no state to be used or freed again: the caller abandons it (and the
/// memory it holds, at most the budget). Plain calls, not an RAII guard: a jump skips destructors.
/// Only counts when the parse allocator is installed.
/// The jump's value says why (ParseEscape). A free of a pointer the allocator never handed out
/// (a fault of the tree-sitter runtime, see Free) also jumps, with kRuntimeFault.
enum class ParseEscape : int { kOutOfMemory = 1, kRuntimeFault = 2 };
void BeginParseBudget(std::size_t budget, std::jmp_buf* escape);
void EndParseBudget();

namespace parse_allocator {
// Exposed for tests.
void* Allocate(std::size_t size);
void* AllocateZeroed(std::size_t count, std::size_t size);
void* Reallocate(void* block, std::size_t size);
void Free(void* block);
/// Usable bytes of a block (at least what was asked for).
std::size_t Capacity(const void* block);
}  // namespace parse_allocator

}  // namespace opmfu
