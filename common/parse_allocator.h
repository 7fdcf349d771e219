#pragma once
// tree-sitter's allocations, served from huge-page-backed slabs.
//
// Why: a parse makes ~40 bytes of tree per source byte in many small blocks; with glibc malloc on
// fresh memory, page faults cost more than the parse itself, and two parsing threads fault
// slower than one. Slabs of 2 MiB with MADV_HUGEPAGE cut the faults ~50x, which is what makes
// parsing a large file on both cores pay off.

#include <cstddef>

namespace opmfu {

/// Routes tree-sitter's malloc/calloc/realloc/free here. Call once, before tree-sitter allocates
/// anything (first thing in main). Freed blocks are reused by the freeing thread; memory goes
/// back to the system only at exit, which suits a command-line run.
void InstallParseAllocator();

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
