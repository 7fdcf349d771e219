#pragma once
// Groups of row indices by key without a container per key: a map from key to its first and
// last index, and one `next` array. Appending keeps each group in insertion order, which is the
// order pandas' merge and groupby yield.

#include <cstdint>
#include <unordered_map>
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
  std::size_t operator()(const NamedSpan& key) const {
    std::size_t h = static_cast<std::size_t>(key.name) * 0x9e3779b97f4a7c15ULL;
    h ^= static_cast<std::size_t>(key.start) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= static_cast<std::size_t>(key.end) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
};

template <typename Key, typename Hash>
class IndexChains {
 public:
  static constexpr std::uint32_t kEnd = UINT32_MAX;

  explicit IndexChains(std::size_t expected) {
    ends_.reserve(expected);
    next_.reserve(expected);
  }

  /// Appends `index` (which must be next_.size(): indices are added in increasing order).
  void Append(const Key& key, std::uint32_t index) {
    next_.resize(static_cast<std::size_t>(index) + 1, kEnd);
    auto [it, inserted] = ends_.try_emplace(key, Ends{index, index});
    if (!inserted) {
      next_[it->second.last] = index;
      it->second.last = index;
    }
  }

  /// The first index of the key's group, or kEnd.
  std::uint32_t First(const Key& key) const {
    auto found = ends_.find(key);
    return found == ends_.end() ? kEnd : found->second.first;
  }
  std::uint32_t Next(std::uint32_t index) const { return next_[index]; }

 private:
  struct Ends {
    std::uint32_t first;
    std::uint32_t last;
  };
  std::unordered_map<Key, Ends, Hash> ends_;
  std::vector<std::uint32_t> next_;
};

}  // namespace opmfu::engine
