#pragma once
// Groups of row indices by key without a container per key: an open-addressing table from key
// to the group's first and last index, and one `next` array. Appending keeps each group in
// insertion order, which is the order pandas' merge and groupby yield. Keys are not stored: the
// table asks `key_of(index)` for the key of a group's first index, so a slot is 12 bytes.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/string_pool.h"

namespace opmfu::engine {

/// (name, start, end): how kernels are matched in the merges and ops are grouped. Names are pool
/// ids, so equal ids mean equal strings, and two missing names are equal, as in pandas.
struct NamedSpan {
  StringId name = kNoString;
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool operator==(const NamedSpan&) const = default;
};

struct NamedSpanHash {
  std::uint64_t operator()(const NamedSpan& key) const {
    std::uint64_t h = static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.name)) * 0x9e3779b97f4a7c15ULL;
    h ^= static_cast<std::uint64_t>(key.start) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= static_cast<std::uint64_t>(key.end) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    // The table uses the low bits: mix the high ones in (murmur3's finaliser).
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
  }
};

/// How many iterations ahead the loops over a table prefetch its slots (measured on the
/// million-kernel rank: 4 to 16 give the same times, none is 20-40% slower per loop).
inline constexpr std::size_t kPrefetchDistance = 8;

/// `KeyOf` maps an appended index to its key: `Key key_of(std::uint32_t index)`.
template <typename Key, typename Hash, typename KeyOf>
class IndexChains {
 public:
  static constexpr std::uint32_t kEnd = UINT32_MAX;

  IndexChains(std::size_t expected, KeyOf key_of) : key_of_(std::move(key_of)) {
    next_.reserve(expected);
    Rehash(std::bit_ceil(std::max<std::size_t>(16, expected + expected / 2)));
  }

  /// Appends `index` (indices are added in increasing order) under key_of(index). Returns true
  /// when it starts a new group.
  bool Append(std::uint32_t index) {
    next_.resize(static_cast<std::size_t>(index) + 1, kEnd);
    if ((groups_ + 1) * 4 > slots_.size() * 3) Rehash(slots_.size() * 2);
    const Key key = key_of_(index);
    const std::uint64_t hash = Hash{}(key);
    Slot& slot = slots_[Find(key, hash)];
    if (slot.first != kEnd) {
      next_[slot.last] = index;
      slot.last = index;
      return false;
    }
    slot = {index, index, Tag(hash)};
    ++groups_;
    return true;
  }

  /// Frees the table and the chains once they are no longer needed; nothing may be asked after.
  void Release() {
    std::vector<Slot>().swap(slots_);
    std::vector<std::uint32_t>().swap(next_);
    groups_ = 0;
  }

  /// Starts loading the slot where `key` is or would go. A rank's table is far larger than the
  /// caches, so each probe is otherwise a miss: loops ask a few keys ahead (kPrefetchDistance).
  void Prefetch(const Key& key) const { __builtin_prefetch(&slots_[Hash{}(key) & (slots_.size() - 1)]); }
  /// Prefetch of the key of an index not yet appended.
  void PrefetchIndex(std::uint32_t index) const { Prefetch(key_of_(index)); }

  /// The first index of the key's group, or kEnd.
  std::uint32_t First(const Key& key) const { return slots_[Find(key, Hash{}(key))].first; }
  std::uint32_t Next(std::uint32_t index) const { return next_[index]; }

 private:
  struct Slot {
    std::uint32_t first = kEnd;  // kEnd: an empty slot
    std::uint32_t last = kEnd;
    std::uint32_t tag = 0;  // high hash bits, so most mismatches never look at a key
  };

  static std::uint32_t Tag(std::uint64_t hash) { return static_cast<std::uint32_t>(hash >> 32); }

  // The slot holding `key`, or the empty slot where it would go (linear probing).
  std::size_t Find(const Key& key, std::uint64_t hash) const {
    const std::size_t mask = slots_.size() - 1;
    const std::uint32_t tag = Tag(hash);
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.first == kEnd || (slot.tag == tag && key_of_(slot.first) == key)) return i;
    }
  }

  void Rehash(std::size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    const std::size_t mask = capacity - 1;
    for (const Slot& slot : old) {
      if (slot.first == kEnd) continue;
      const std::uint64_t hash = Hash{}(key_of_(slot.first));
      std::size_t i = hash & mask;
      while (slots_[i].first != kEnd) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  KeyOf key_of_;
  std::vector<Slot> slots_;
  std::size_t groups_ = 0;
  std::vector<std::uint32_t> next_;
};

/// Chains keyed by NamedSpan; `key_of(index)` gives an appended index's key.
template <typename KeyOf>
IndexChains<NamedSpan, NamedSpanHash, KeyOf> ChainsByNamedSpan(std::size_t expected, KeyOf key_of) {
  return IndexChains<NamedSpan, NamedSpanHash, KeyOf>(expected, std::move(key_of));
}

}  // namespace opmfu::engine
