#pragma once
// Writing OperatorMFU and ModuleMFU: into cluster_analysis.db (as upstream), or as CSV or JSON.

#include <cstddef>
#include <filesystem>
#include <iterator>
#include <memory>
#include <vector>

#include "common/result.h"
#include "engine/mfu_rows.h"

namespace opmfu::engine {

/// OperatorMFU rows in rank order, kept as each rank produced them: merging them into one vector
/// while every rank still held its own copy doubled the peak memory of a many-rank analysis.
class OperatorRows {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = OperatorMfuRow;
    using difference_type = std::ptrdiff_t;
    using pointer = const OperatorMfuRow*;
    using reference = const OperatorMfuRow&;

    Iterator() = default;
    Iterator(const std::vector<std::vector<OperatorMfuRow>>* chunks, std::size_t chunk)
        : chunks_(chunks), chunk_(chunk) {
      SkipEmpty();
    }
    reference operator*() const { return (*chunks_)[chunk_][row_]; }
    pointer operator->() const { return &**this; }
    Iterator& operator++() {
      if (++row_ == (*chunks_)[chunk_].size()) {
        ++chunk_;
        row_ = 0;
        SkipEmpty();
      }
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const { return chunk_ == other.chunk_ && row_ == other.row_; }

   private:
    void SkipEmpty() {
      while (chunks_ != nullptr && chunk_ < chunks_->size() && (*chunks_)[chunk_].empty()) ++chunk_;
    }
    const std::vector<std::vector<OperatorMfuRow>>* chunks_ = nullptr;
    std::size_t chunk_ = 0;
    std::size_t row_ = 0;
  };

  /// Takes one rank's rows (appended after the ranks before it).
  void Append(std::vector<OperatorMfuRow> rows) {
    size_ += rows.size();
    chunks_.push_back(std::move(rows));
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Iterator begin() const { return {&chunks_, 0}; }
  Iterator end() const { return {&chunks_, chunks_.size()}; }

 private:
  std::vector<std::vector<OperatorMfuRow>> chunks_;
  std::size_t size_ = 0;
};

struct AnalysisTables {
  OperatorRows operator_rows;
  std::vector<std::shared_ptr<const StringPool>> string_pools;  ///< what operator_rows point into
  std::vector<ModuleMfuRow> module_rows;
  bool duration_integer = true;  ///< upstream's declared type for kernel_duration(ns) (spec 4.5)
  bool flops_integer = true;     ///< ...and for flops
  /// avg_mfu is dropped when empty in every row (spec 5.8).
  bool with_avg_mfu() const;
};

/// Replaces the OperatorMFU and ModuleMFU tables of `db_path` (creating the file if needed) and
/// keeps every other table. The change is made on a copy that is renamed into place, so a crash
/// leaves the old file or the new one. Unlike upstream, a table with no rows is dropped rather
/// than left stale from an earlier run.
Status WriteClusterDb(const std::filesystem::path& db_path, const AnalysisTables& tables);

/// operator_mfu.csv and module_mfu.csv (header row, upstream's db column names) in `directory`.
Result<std::vector<std::filesystem::path>> WriteCsv(const std::filesystem::path& directory,
                                                    const AnalysisTables& tables);
/// operator_mfu.json and module_mfu.json (arrays of objects keyed by column name).
Result<std::vector<std::filesystem::path>> WriteJson(const std::filesystem::path& directory,
                                                     const AnalysisTables& tables);

}  // namespace opmfu::engine
