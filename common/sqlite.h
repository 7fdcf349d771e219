#pragma once
// Owning wrappers around sqlite3 and sqlite3_stmt. Profiling databases are user data: they are
// only ever opened read-only.

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace opmfu {

class OutputFile;

inline constexpr const char* kQuerySecondsVariable = "OPMFU_QUERY_SECONDS";

/// The wall time one statement over an input database may take: $OPMFU_QUERY_SECONDS (whole
/// seconds, 1 to 1000000) when set, else 10 s plus 1 s per 100 MiB of the file (a legitimate
/// query over a multi-GB rank takes longer than one over a small file; an endless VIEW in a small
/// file still stops in 10 s). A usage error naming the variable when it is not a number of seconds.
Result<std::chrono::seconds> InputQueryTimeLimit(std::uintmax_t file_bytes);

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};

/// The SQLite steps an input's queries have done against their bound, and the deadline of the
/// statement being stepped (see sqlite.cpp).
struct DatabaseQueryBudget {
  std::uint64_t used = 0;
  std::uint64_t limit = 0;
  std::chrono::seconds per_statement{0};  ///< InputQueryTimeLimit for this file
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string path;  ///< the file, remembered when its query is stopped
};

class Statement {
 public:
  /// Advances to the next row: true on a row, false when done, Error on failure.
  Result<bool> Step();
  Status Reset();
  Status Bind(int index, std::int64_t value);
  Status Bind(int index, std::string_view value);
  /// Binds text without copying it: `value` must stay alive until the statement is stepped
  /// and reset (what a bulk insert of strings held elsewhere needs).
  Status BindUncopied(int index, std::string_view value);
  Status Bind(int index, double value);
  Status BindNull(int index);

  bool IsNull(int column) const { return sqlite3_column_type(handle_.get(), column) == SQLITE_NULL; }
  std::int64_t Int64(int column) const { return sqlite3_column_int64(handle_.get(), column); }
  double Double(int column) const { return sqlite3_column_double(handle_.get(), column); }
  std::string_view Text(int column) const;
  int ColumnCount() const { return sqlite3_column_count(handle_.get()); }
  /// For what the accessors above do not cover (column types).
  sqlite3_stmt* handle() const { return handle_.get(); }

 private:
  friend class Database;
  Statement(sqlite3_stmt* statement, std::string context, DatabaseQueryBudget* budget)
      : handle_(statement), context_(std::move(context)), budget_(budget) {}
  std::unique_ptr<sqlite3_stmt, StatementFinalizer> handle_;
  std::string context_;                    ///< the database path, for messages
  DatabaseQueryBudget* budget_ = nullptr;  ///< the connection's, for an input (see sqlite.cpp)
  std::chrono::steady_clock::time_point deadline_;
};

class Database {
 public:
  /// Opens an existing database strictly read-only and immutable (nothing is ever created beside
  /// it, nothing locked). It must be a regular file holding a SQLite database, with no unfinished
  /// write beside it (a WAL with changes, a hot journal); its queries are bounded in work by its
  /// size, so a VIEW computing without end fails instead of hanging.
  static Result<Database> OpenReadOnly(const std::filesystem::path& path);
  /// Opens (creating if needed) a database opmfu owns, for writing results.
  static Result<Database> OpenForWrite(const std::filesystem::path& path);

  using QueryBudget = DatabaseQueryBudget;

  Result<Statement> Prepare(std::string_view sql);
  Status Execute(std::string_view sql);
  Result<bool> HasTable(std::string_view table);
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path, std::unique_ptr<QueryBudget> budget = {})
      : budget_(std::move(budget)), handle_(db), path_(std::move(path)) {}
  static Result<Database> Open(const std::filesystem::path& path, int flags, std::string_view purpose);
  /// Read by the progress handler: heap-held so a move keeps it, declared first so it outlives the
  /// connection.
  std::unique_ptr<QueryBudget> budget_;
  std::unique_ptr<sqlite3, SqliteCloser> handle_;
  std::string path_;
};

/// How WriteDatabaseAtomically starts its private copy.
enum class AtomicDatabaseStart {
  kEmpty,           ///< a new database (an existing file at the path is replaced)
  kCopyOfExisting,  ///< a copy of the existing file, when there is one, to which tables are added
};

/// An atomic write of the database at `path` held open across calls, for a writer that fills it
/// bit by bit (WriteDatabaseAtomically below fills it in one call). Begin creates the private
/// temporary file beside `path` (see `start`) and opens one transaction, without journal or syncs
/// since nobody else can see it; Commit commits, fsyncs once and renames it over `path`. Until
/// Commit succeeds `path` is untouched, and the temporary file is removed on destruction.
class AtomicDatabaseWrite {
 public:
  /// `tree`: as OutputOptions::tree (the directories below it are created, never entered through a
  /// link); empty: the file's directory, created when missing. A stale -wal, -shm or -journal of
  /// the replaced file is removed at Commit; a -wal's changes are kept in the copy.
  static Result<std::unique_ptr<AtomicDatabaseWrite>> Begin(const std::filesystem::path& path,
                                                            AtomicDatabaseStart start,
                                                            const std::filesystem::path& tree = {});
  ~AtomicDatabaseWrite();
  AtomicDatabaseWrite(const AtomicDatabaseWrite&) = delete;
  AtomicDatabaseWrite& operator=(const AtomicDatabaseWrite&) = delete;

  Database& db() { return *db_; }
  /// `error` of filling the database, named after `path` as every error of this write is.
  Error Failed(Error error) const;
  /// On failure the temporary file is removed, `path` is untouched and the error names `path`.
  Status Commit();

 private:
  explicit AtomicDatabaseWrite(const std::filesystem::path& path);
  void RemoveTemporary();
  std::filesystem::path path_;
  std::unique_ptr<OutputFile> file_;
  std::optional<Database> db_;
  bool done_ = false;  ///< committed, or the temporary file already removed
};

/// Writes the database at `path` so that readers only ever see the old file or the new one: a
/// private temporary file beside it (see `start`) is filled by `fill` in one transaction, without
/// journal or syncs since nobody else can see it, fsynced once, then renamed over `path`. On any
/// failure `path` is untouched, the temporary file removed, and the error names `path`. `tree`: as
/// AtomicDatabaseWrite::Begin's (the folders below it are never entered through a link).
Status WriteDatabaseAtomically(const std::filesystem::path& path, AtomicDatabaseStart start,
                               const std::function<Status(Database&)>& fill, const std::filesystem::path& tree = {});

}  // namespace opmfu
