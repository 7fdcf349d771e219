#include "common/sqlite.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_io.h"

namespace opmfu {

namespace {

// SQLite's message plus the system error behind an I/O failure ("disk I/O error (File too
// large)"): a full disk and a permission problem read the same otherwise.
std::string SqliteMessage(sqlite3* db) {
  if (db == nullptr) return "out of memory";
  std::string message = sqlite3_errmsg(db);
  const int system_error = sqlite3_system_errno(db);
  const int primary = sqlite3_errcode(db) & 0xff;  // extended codes are on
  if (system_error != 0 && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
    message += " (" + std::string(std::strerror(system_error)) + ")";
  }
  return message;
}

Error SqliteError(const std::string& path, sqlite3* db, std::string_view what) {
  return Error::Input(path + ": " + std::string(what) + ": " + SqliteMessage(db));
}

// Memory statistics put a global mutex around every SQLite allocation (a few percent of an
// analysis); nothing here reads them. sqlite3_config only works before the library initialises.
void ConfigureSqliteOnce() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return sqlite3_initialize() == SQLITE_OK;
  }();
  (void)configured;
}

}  // namespace

Result<Database> Database::Open(const std::filesystem::path& path, int flags, std::string_view purpose) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, SqliteCloser> db(raw);
  if (rc != SQLITE_OK) return SqliteError(path.string(), db.get(), "cannot open for " + std::string(purpose));
  sqlite3_extended_result_codes(db.get(), 1);
  // A database another process holds locked must fail in bounded time, never hang.
  sqlite3_busy_timeout(db.get(), 2000);
  // Reading the schema makes SQLite check the header: a text file named .db fails here, not later.
  char* message = nullptr;
  if (sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : "unreadable";
    sqlite3_free(message);
    return Error::Input(path.string() + ": " + text);
  }
  return Database(db.release(), path.string());
}

Result<Database> Database::OpenReadOnly(const std::filesystem::path& path) {
  // SQLite takes an empty file for an empty database; as an input that is never what the user
  // meant (an interrupted copy, a collection that never started writing).
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec) {
    return Error::Input(path.string() + ": empty file (0 bytes), not a SQLite database");
  }
  return Open(path, SQLITE_OPEN_READONLY, "reading");
}

Result<Database> Database::OpenForWrite(const std::filesystem::path& path) {
  return Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "writing");
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(handle_.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(raw);
    return SqliteError(path_, handle_.get(), "query failed");
  }
  return Statement(raw, path_);
}

Status Database::Execute(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(handle_.get(), text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    sqlite3_free(message);
    return Error::Input(path_ + ": " + SqliteMessage(handle_.get()));
  }
  return Ok();
}

Result<bool> Database::HasTable(std::string_view table) {
  OPMFU_ASSIGN_OR_RETURN(Statement statement,
                         Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1"));
  OPMFU_RETURN_IF_ERROR(statement.Bind(1, table));
  return statement.Step();
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(handle_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(context_, sqlite3_db_handle(handle_.get()), "query failed");
}

Status Statement::Reset() {
  if (sqlite3_reset(handle_.get()) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "query failed");
  }
  return Ok();
}

Status Statement::Bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(handle_.get(), index, value) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed");
  }
  return Ok();
}

Status Statement::Bind(int index, std::string_view value) {
  if (sqlite3_bind_text(handle_.get(), index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed");
  }
  return Ok();
}

Status Statement::BindUncopied(int index, std::string_view value) {
  if (sqlite3_bind_text(handle_.get(), index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC) !=
      SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed");
  }
  return Ok();
}

Status Statement::Bind(int index, double value) {
  if (sqlite3_bind_double(handle_.get(), index, value) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed");
  }
  return Ok();
}

Status Statement::BindNull(int index) {
  if (sqlite3_bind_null(handle_.get(), index) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed");
  }
  return Ok();
}

std::string_view Statement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(handle_.get(), column));
  if (text == nullptr) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(handle_.get(), column))};
}

namespace {

Status SyncFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::Input(path.string() + ": " + ErrnoMessage(errno));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) return Error::Input(path.string() + ": " + ErrnoMessage(saved));
  return Ok();
}

}  // namespace

Result<std::unique_ptr<AtomicDatabaseWrite>> AtomicDatabaseWrite::Begin(const std::filesystem::path& path,
                                                                        AtomicDatabaseStart start) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return Error::Input(path.parent_path().string() + ": cannot create: " + ec.message());
  std::unique_ptr<AtomicDatabaseWrite> write(new AtomicDatabaseWrite(path));
  const fs::path& temp = write->temporary_->path();
  fs::remove(temp, ec);
  // Our file exists, locked, before anything stale is looked for: a concurrent run skips it as
  // this one skips theirs.
  if (Status created = write->temporary_->CreateLocked(); !created.ok()) return created.take_error();
  RemoveStaleTemporaries(path);
  if (start == AtomicDatabaseStart::kCopyOfExisting && fs::exists(path, ec)) {
    fs::copy_file(path, temp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      write->RemoveTemporary();
      return Error::Input(path.string() + ": cannot copy for an atomic update: " + ec.message());
    }
  }
  auto db = Database::OpenForWrite(temp);
  if (!db.ok()) {
    const Error error = write->Failed(db.take_error());
    write->RemoveTemporary();
    return error;
  }
  write->db_.emplace(std::move(*db));
  if (Status begun = write->db_->Execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN"); !begun.ok()) {
    const Error error = write->Failed(begun.take_error());
    write->RemoveTemporary();
    return error;
  }
  return write;
}

AtomicDatabaseWrite::AtomicDatabaseWrite(const std::filesystem::path& path)
    : path_(path), temporary_(std::make_unique<TemporaryFile>(path)) {}

AtomicDatabaseWrite::~AtomicDatabaseWrite() { RemoveTemporary(); }

void AtomicDatabaseWrite::RemoveTemporary() {
  if (done_) return;
  done_ = true;
  db_.reset();  // closed before its file goes
  std::error_code ec;
  std::filesystem::remove(temporary_->path(), ec);
  std::filesystem::remove(temporary_->path().string() + "-journal", ec);
}

Error AtomicDatabaseWrite::Failed(Error error) const {
  // SQLite names the file it has open, the hidden temporary copy; the user knows only `path`.
  const std::string temp = temporary_->path().string();
  const std::string user = path_.string();
  for (std::size_t at = error.message.find(temp); at != std::string::npos; at = error.message.find(temp, at)) {
    error.message.replace(at, temp.size(), user);
    at += user.size();
  }
  if (!error.message.starts_with(user)) error.message = user + ": " + error.message;
  return error;
}

Status AtomicDatabaseWrite::Commit() {
  if (done_ || !db_) return Error::Input(path_.string() + ": the write was already finished");
  if (Status committed = db_->Execute("COMMIT"); !committed.ok()) {
    const Error error = Failed(committed.take_error());
    RemoveTemporary();
    return error;
  }
  db_.reset();
  const std::filesystem::path& temp = temporary_->path();
  if (Status synced = SyncFile(temp); !synced.ok()) {
    const Error error = Failed(synced.take_error());
    RemoveTemporary();
    return error;
  }
  std::error_code ec;
  std::filesystem::rename(temp, path_, ec);
  if (ec) {
    RemoveTemporary();
    return Error::Input(path_.string() + ": cannot replace: " + ec.message());
  }
  done_ = true;
  return Ok();
}

Status WriteDatabaseAtomically(const std::filesystem::path& path, AtomicDatabaseStart start,
                               const std::function<Status(Database&)>& fill) {
  OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<AtomicDatabaseWrite> write, AtomicDatabaseWrite::Begin(path, start));
  if (Status filled = fill(write->db()); !filled.ok()) return write->Failed(filled.take_error());
  return write->Commit();
}

}  // namespace opmfu
