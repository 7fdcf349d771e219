#pragma once
// Writing OperatorMFU and ModuleMFU: into cluster_analysis.db (as upstream), or as CSV or JSON.

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "common/result.h"
#include "common/sqlite.h"
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

/// Writes the OperatorMFU and ModuleMFU tables of cluster_analysis.db rank by rank, so that a rank's
/// rows can be freed once written (what lets `analyze` write while it still analyses, in memory
/// that does not grow with the rank count). The tables are what WriteClusterDb writes:
/// - both are created at Start with the types every rank allows (`kernel_duration(ns)` and `flops`
///   INTEGER, an avg_mfu column), and rows are bound as integers;
/// - Finish settles what depends on every rank: a table without rows is dropped; the two columns'
///   declared type becomes REAL, as upstream's concatenation of the ranks makes it, when a rank with
///   rows did not match every kernel or parse every message (NoteTypes); avg_mfu is dropped when
///   empty in every row. SQLite reads an integer stored in a REAL column as a REAL, so every value
///   reads back (typeof, quote) as if it had been bound as a double to a REAL column.
/// Nothing is visible at `db_path` before Finish (AtomicDatabaseWrite); a writer destroyed before
/// Finish leaves the file as it was. Not thread-safe: one thread at a time.
class ClusterDbWriter {
 public:
  /// `stale_tables`: tables of the caller's made from OperatorMFU and ModuleMFU (e.g. cli's
  /// DerivedMFU), dropped in the same write, since the rows they were made from are replaced.
  /// `tree`: the directory the user named above `db_path` (OutputOptions::tree); the folders below
  /// it are created and never entered through a link.
  explicit ClusterDbWriter(std::filesystem::path db_path, std::vector<std::string> stale_tables = {},
                           std::filesystem::path tree = {});
  ~ClusterDbWriter();
  ClusterDbWriter(const ClusterDbWriter&) = delete;
  ClusterDbWriter& operator=(const ClusterDbWriter&) = delete;

  /// Begins the atomic write (a copy of the existing file with the two tables replaced). Append
  /// calls it when needed, so a writer that is never given a row never touches the file.
  Status Start();
  bool started() const;
  /// One rank's rows, after the ranks before it. The strings stay borrowed only during the call.
  Status Append(const std::vector<OperatorMfuRow>& operator_rows, const std::vector<ModuleMfuRow>& module_rows);
  Status Append(const OperatorMfuRow& row);
  Status Append(const ModuleMfuRow& row);
  /// What a rank with OperatorMFU rows allows (AnalysisTables::duration_integer, flops_integer);
  /// ranks without rows are left out of upstream's concatenation and change nothing.
  void NoteTypes(bool duration_integer, bool flops_integer);
  /// Settles the declared types and commits (see above). Needs Start.
  Status Finish();
  /// Drops what was started: the file stays as it was, the temporary copy is removed.
  void Abandon();

 private:
  struct Open;
  std::filesystem::path db_path_;
  std::vector<std::string> stale_tables_;
  std::filesystem::path tree_;
  std::unique_ptr<Open> open_;
  bool duration_integer_ = true;
  bool flops_integer_ = true;
  bool any_avg_mfu_ = false;
  std::size_t operator_rows_ = 0;
  std::size_t module_rows_ = 0;
};

/// Hands items finished in any order to `write` in index order, on the thread of a worker that
/// finished one (there is no writer thread): the worker that finishes the next item to write writes
/// it, then every following item already finished, while the other workers go on. A worker waits
/// before starting an item more than `window` items ahead of the next to write, so at most that
/// many finished items wait, each holding its rows. `write` must not throw.
class RankOrderedWrites {
 public:
  RankOrderedWrites(std::size_t count, std::size_t window, std::function<void(std::size_t)> write);
  /// Blocks until `item` may start. False once Abort was called: do not start it.
  bool WaitToStart(std::size_t item);
  /// `item` is finished: written now if it is the next one and no other thread is writing, else
  /// by the thread that writes the item before it.
  void Finished(std::size_t item);
  /// Releases every waiting worker (an item will never finish, e.g. after an exception).
  void Abort();
  std::size_t written() const;

 private:
  std::size_t count_;
  std::size_t window_;
  std::function<void(std::size_t)> write_;
  mutable std::mutex mutex_;
  std::condition_variable advanced_;
  std::vector<bool> finished_;
  std::size_t next_ = 0;
  bool writing_ = false;
  bool aborted_ = false;
};

/// Replaces the OperatorMFU and ModuleMFU tables of `db_path` (creating the file if needed) and
/// keeps every other table. The change is made on a copy that is renamed into place, so a crash
/// leaves the old file or the new one. Unlike upstream, a table with no rows is dropped rather
/// than left stale from an earlier run.
Status WriteClusterDb(const std::filesystem::path& db_path, const AnalysisTables& tables,
                      const std::vector<std::string>& stale_tables = {}, const std::filesystem::path& tree = {});

/// operator_mfu.csv and module_mfu.csv (header row, upstream's db column names) in `directory`,
/// created when missing. `tree`: as ClusterDbWriter's (empty: `directory` itself).
Result<std::vector<std::filesystem::path>> WriteCsv(const std::filesystem::path& directory,
                                                    const AnalysisTables& tables,
                                                    const std::filesystem::path& tree = {});
/// operator_mfu.json and module_mfu.json (arrays of objects keyed by column name).
Result<std::vector<std::filesystem::path>> WriteJson(const std::filesystem::path& directory,
                                                     const AnalysisTables& tables,
                                                     const std::filesystem::path& tree = {});

}  // namespace opmfu::engine
