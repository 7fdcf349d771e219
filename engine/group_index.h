#pragma once
// The build side of the scan reader's hash joins (engine/scan_reader.cpp).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace opmfu::engine {

// Row indices grouped by an integer key, each group in a given order: a hash join's build side.
class GroupIndex {
 public:
  template <typename Rows, typename KeyOf, typename Less>
  GroupIndex(const Rows& rows, KeyOf key_of, Less less) {
    const std::size_t n = rows.size();
    if (n == 0) return;
    std::int64_t low = key_of(rows[0]);
    std::int64_t high = low;
    for (const auto& row : rows) {
      low = std::min(low, key_of(row));
      high = std::max(high, key_of(row));
    }
    const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    order_.resize(n);
    const auto group_less = [&](std::uint32_t a, std::uint32_t b) { return less(rows[a], rows[b]); };
    if (span <= 4 * static_cast<std::uint64_t>(n) + 64) {  // dense keys (the usual case): counting sort
      low_ = low;
      offsets_.assign(span + 2, 0);
      for (const auto& row : rows) ++offsets_[static_cast<std::uint64_t>(key_of(row) - low) + 1];
      std::partial_sum(offsets_.begin(), offsets_.end(), offsets_.begin());
      std::vector<std::uint32_t> next(offsets_.begin(), offsets_.end() - 1);
      for (std::uint32_t i = 0; i < n; ++i) order_[next[static_cast<std::uint64_t>(key_of(rows[i]) - low)]++] = i;
      for (std::size_t g = 0; g + 1 < offsets_.size(); ++g) {
        if (offsets_[g + 1] - offsets_[g] > 1)
          std::sort(order_.begin() + offsets_[g], order_.begin() + offsets_[g + 1], group_less);
      }
      dense_ = true;
      return;
    }
    std::iota(order_.begin(), order_.end(), 0U);
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const std::int64_t ka = key_of(rows[a]);
      const std::int64_t kb = key_of(rows[b]);
      return ka != kb ? ka < kb : less(rows[a], rows[b]);
    });
    for (std::uint32_t i = 0; i < n;) {
      std::uint32_t j = i + 1;
      while (j < n && key_of(rows[order_[j]]) == key_of(rows[order_[i]])) ++j;
      sparse_.emplace(key_of(rows[order_[i]]), std::pair(i, j));
      i = j;
    }
  }

  std::span<const std::uint32_t> Find(std::int64_t key) const {
    if (dense_) {
      if (key < low_) return {};
      const std::uint64_t slot = static_cast<std::uint64_t>(key) - static_cast<std::uint64_t>(low_);
      if (slot + 1 >= offsets_.size()) return {};
      return std::span(order_).subspan(offsets_[slot], offsets_[slot + 1] - offsets_[slot]);
    }
    auto found = sparse_.find(key);
    if (found == sparse_.end()) return {};
    return std::span(order_).subspan(found->second.first, found->second.second - found->second.first);
  }

 private:
  std::vector<std::uint32_t> order_;
  bool dense_ = false;
  std::int64_t low_ = 0;
  std::vector<std::uint32_t> offsets_;
  std::unordered_map<std::int64_t, std::pair<std::uint32_t, std::uint32_t>> sparse_;
};

}  // namespace opmfu::engine
