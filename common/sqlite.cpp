#include "common/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "common/file_io.h"
#include "common/output_file.h"
#include "common/text.h"

namespace opmfu {

namespace {

// The work an input's queries may do: a VIEW named TASK whose recursive CTE never ends (or one
// that computes for hours) is stopped instead of hanging the run. Two bounds, whichever comes
// first: SQLite virtual-machine steps, 100 per byte of the file (at least kInputQueryStepsFloor:
// every query opmfu runs is about linear in the file), which stops a small file's runaway within
// a second; and InputQueryTimeLimit of wall time per statement, from its first step, which bounds
// a large one (the steps alone let a 20 MB file compute for a minute). Calibrated in
// docs/reliability.md ("Limits").
constexpr std::uint64_t kInputQueryStepsPerByte = 100;
constexpr std::uint64_t kInputQueryStepsFloor = std::uint64_t{1} << 24;
constexpr int kStepsPerProgressCall = 4096;
constexpr auto kInputQuerySecondsFloor = std::chrono::seconds(10);
constexpr std::uintmax_t kInputQueryBytesPerExtraSecond = std::uintmax_t{100} << 20;
constexpr std::int64_t kMaxInputQuerySeconds = 1'000'000;

std::string DescribeBounds(const DatabaseQueryBudget& budget) {
  return std::to_string(kInputQueryStepsPerByte) + " SQLite steps per byte of file and " +
         std::to_string(budget.per_statement.count()) + " s per query; " + kQuerySecondsVariable + " sets the time";
}

// SQLite's message plus the system error behind an I/O failure ("disk I/O error (File too
// large)"): a full disk and a permission problem read the same otherwise.
std::string SqliteMessage(sqlite3* db, const DatabaseQueryBudget* budget) {
  if (db == nullptr) return "out of memory";
  std::string message = sqlite3_errmsg(db);
  const int system_error = sqlite3_system_errno(db);
  const int primary = sqlite3_errcode(db) & 0xff;  // extended codes are on
  if (primary == SQLITE_INTERRUPT && budget != nullptr) {
    // Only the progress handler interrupts (OpenReadOnly): say what the bound is.
    return "query stopped: it did more work than a database of this size can need (the bounds are " +
           DescribeBounds(*budget) + "); a VIEW or TRIGGER that computes without end?";
  }
  if (system_error != 0 && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
    message += " (" + std::string(std::strerror(system_error)) + ")";
  }
  return message;
}

Error SqliteError(const std::string& path, sqlite3* db, std::string_view what,
                  const DatabaseQueryBudget* budget = nullptr) {
  return Error::Input(path + ": " + std::string(what) + ": " + SqliteMessage(db, budget));
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

namespace {

// `file:` URI of a path: SQLite gives `?`, `#` and `%` a meaning there.
std::string FileUri(const std::filesystem::path& path, std::string_view query) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::string uri = "file:";
  for (const unsigned char c : (ec ? path : absolute).string()) {
    if (c == '?' || c == '#' || c == '%' || c < 0x20 || c >= 0x7f) {
      static constexpr std::string_view kHex = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 0xf];
    } else {
      uri += static_cast<char>(c);
    }
  }
  uri += query;
  return uri;
}

// The inputs of this process whose query was stopped. The readers open a file several times (a
// connection per table, then the SQL reader, then check-db's counts): once one query ran past the
// bounds, the next would too, so the file is not queried again, and a rank fails within one bound,
// not one per connection.
class StoppedInputs {
 public:
  static StoppedInputs& Get() {
    static StoppedInputs stopped;
    return stopped;
  }
  void Add(const std::string& path) {
    const std::lock_guard lock(mutex_);
    paths_.insert(path);
  }
  bool Contains(const std::string& path) {
    const std::lock_guard lock(mutex_);
    return paths_.contains(path);
  }

 private:
  std::mutex mutex_;
  std::set<std::string> paths_;
};

int StopRunawayQuery(void* budget) {
  auto* spent = static_cast<Database::QueryBudget*>(budget);
  spent->used += kStepsPerProgressCall;
  // Called every 4096 steps (tens of microseconds): a clock read there costs nothing measurable.
  if (spent->used <= spent->limit && std::chrono::steady_clock::now() <= spent->deadline) return 0;
  StoppedInputs::Get().Add(spent->path);
  return 1;
}

// What an input left beside it says about its state. A write-ahead log with frames beside a WAL
// database, or a hot rollback journal, means a writer is running or stopped mid-way: reading the
// main file alone would see an old or half-written state, and recovering it would write beside the
// input. A log beside a database that is not in WAL mode is stray, and ignored.
Status CheckNoUnfinishedWrite(const std::filesystem::path& path, const std::string& header) {
  std::error_code ec;
  const bool wal_mode = header.size() >= 20 && header[18] == 2 && header[19] == 2;
  const std::filesystem::path wal = path.string() + "-wal";
  constexpr std::uintmax_t kWalHeader = 32;
  if (wal_mode && std::filesystem::is_regular_file(wal, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(wal, ec);
    if (!ec && size > kWalHeader) {
      return Error::Input(path.string() + ": its write-ahead log " + wal.filename().string() + ", " +
                          DescribeBytes(size) +
                          ", holds changes not yet in the database: the writer is still running or did not "
                          "close it; opmfu never writes beside an input, so merge it first (open the file once "
                          "with sqlite3, or copy both files somewhere writable)");
    }
  }
  const std::filesystem::path journal = path.string() + "-journal";
  if (std::filesystem::is_regular_file(journal, ec)) {
    static constexpr std::string_view kJournalMagic = "\xd9\xd5\x05\xf9\x20\xa1\x63\xd7";
    auto head = ReadFileHead(journal, kJournalMagic.size());
    if (head.ok() && *head == kJournalMagic) {
      return Error::Input(path.string() + ": a rollback journal beside it (" + journal.filename().string() +
                          ") means a write is in progress or was interrupted: let the writer finish, or open "
                          "the file once with sqlite3 to recover it (opmfu never writes beside an input)");
    }
  }
  return Ok();
}

}  // namespace

Result<std::chrono::seconds> InputQueryTimeLimit(std::uintmax_t file_bytes) {
  const char* set = std::getenv(kQuerySecondsVariable);
  if (set == nullptr || *set == '\0') {
    const auto extra = static_cast<std::int64_t>(file_bytes / kInputQueryBytesPerExtraSecond);
    return kInputQuerySecondsFloor + std::chrono::seconds(std::min(extra, kMaxInputQuerySeconds));
  }
  const std::string_view text(set);
  std::int64_t seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > kMaxInputQuerySeconds) {
    return Error::Usage(std::string(kQuerySecondsVariable) + "=" + QuoteForMessage(text) +
                        ": not a whole number of seconds from 1 to " + std::to_string(kMaxInputQuerySeconds));
  }
  return std::chrono::seconds(seconds);
}

Result<Database> Database::Open(const std::filesystem::path& path, int flags, std::string_view purpose) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  const bool input = (flags & SQLITE_OPEN_READONLY) != 0;
  // An input is opened immutable: no lock, no -shm or -journal created beside it, whatever lies
  // there (CheckNoUnfinishedWrite has looked first).
  const std::string name = input ? FileUri(path, "?immutable=1") : path.string();
  const int rc =
      sqlite3_open_v2(name.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX | (input ? SQLITE_OPEN_URI : 0), nullptr);
  std::unique_ptr<sqlite3, SqliteCloser> db(raw);
  if (rc != SQLITE_OK) return SqliteError(path.string(), db.get(), "cannot open for " + std::string(purpose));
  sqlite3_extended_result_codes(db.get(), 1);
  // A database another process holds locked must fail in bounded time, never hang.
  sqlite3_busy_timeout(db.get(), 2000);
  std::unique_ptr<QueryBudget> budget;
  if (input) {
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    budget = std::make_unique<QueryBudget>();
    budget->limit = std::max(kInputQueryStepsFloor, (ec ? 0 : bytes) * kInputQueryStepsPerByte);
    OPMFU_ASSIGN_OR_RETURN(budget->per_statement, InputQueryTimeLimit(ec ? 0 : bytes));
    budget->path = path.string();
    sqlite3_progress_handler(db.get(), kStepsPerProgressCall, StopRunawayQuery, budget.get());
    budget->deadline = std::chrono::steady_clock::now() + budget->per_statement;
  }
  // Reading the schema makes SQLite check the header: a text file named .db fails here, not later.
  char* message = nullptr;
  if (sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : "unreadable";
    sqlite3_free(message);
    return Error::Input(path.string() + ": " + text);
  }
  return Database(db.release(), path.string(), std::move(budget));
}

Result<Database> Database::OpenReadOnly(const std::filesystem::path& path) {
  // SQLite takes an empty file for an empty database; as an input that is never what the user
  // meant (an interrupted copy, a collection that never started writing).
  // A FIFO or a device is refused before SQLite opens it (a FIFO would block the open).
  OPMFU_RETURN_IF_ERROR(CheckRegularFile(path));
  OPMFU_ASSIGN_OR_RETURN(const std::string header, ReadFileHead(path, 100));
  if (header.empty()) return Error::Input(path.string() + ": empty file (0 bytes), not a SQLite database");
  OPMFU_RETURN_IF_ERROR(CheckNoUnfinishedWrite(path, header));
  if (StoppedInputs::Get().Contains(path.string())) {
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    DatabaseQueryBudget bounds;
    OPMFU_ASSIGN_OR_RETURN(bounds.per_statement, InputQueryTimeLimit(ec ? 0 : bytes));
    return Error::Input(path.string() + ": query stopped: an earlier query on this file ran past the bounds (" +
                        DescribeBounds(bounds) +
                        "), so it is not read again; a VIEW or TRIGGER that computes without end?");
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
    return SqliteError(path_, handle_.get(), "query failed", budget_.get());
  }
  return Statement(raw, path_, budget_.get());
}

Status Database::Execute(std::string_view sql) {
  const std::string text(sql);
  if (budget_) budget_->deadline = std::chrono::steady_clock::now() + budget_->per_statement;
  char* message = nullptr;
  if (sqlite3_exec(handle_.get(), text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    sqlite3_free(message);
    return Error::Input(path_ + ": " + SqliteMessage(handle_.get(), budget_.get()));
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
  if (budget_ != nullptr) {
    // The progress handler reads the deadline of the statement being stepped: this one's, fixed at
    // its first step (a statement stepped in the loop of another does not extend the outer one).
    if (sqlite3_stmt_busy(handle_.get()) == 0) {
      deadline_ = std::chrono::steady_clock::now() + budget_->per_statement;
    }
    budget_->deadline = deadline_;
  }
  const int rc = sqlite3_step(handle_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(context_, sqlite3_db_handle(handle_.get()), "query failed", budget_);
}

Status Statement::Reset() {
  if (sqlite3_reset(handle_.get()) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "query failed", budget_);
  }
  return Ok();
}

Status Statement::Bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(handle_.get(), index, value) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed", budget_);
  }
  return Ok();
}

Status Statement::Bind(int index, std::string_view value) {
  if (sqlite3_bind_text(handle_.get(), index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed", budget_);
  }
  return Ok();
}

Status Statement::BindUncopied(int index, std::string_view value) {
  if (sqlite3_bind_text(handle_.get(), index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC) !=
      SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed", budget_);
  }
  return Ok();
}

Status Statement::Bind(int index, double value) {
  if (sqlite3_bind_double(handle_.get(), index, value) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed", budget_);
  }
  return Ok();
}

Status Statement::BindNull(int index) {
  if (sqlite3_bind_null(handle_.get(), index) != SQLITE_OK) {
    return SqliteError(context_, sqlite3_db_handle(handle_.get()), "bind failed", budget_);
  }
  return Ok();
}

std::string_view Statement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(handle_.get(), column));
  if (text == nullptr) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(handle_.get(), column))};
}

namespace {

// Copies what `from` holds from its start into `to` (both open descriptors).
Status CopyDescriptor(int from, int to, const std::filesystem::path& named) {
  std::vector<char> buffer(std::size_t{1} << 20);
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(from, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::Input(named.string() + ": cannot copy for an atomic update: " + ErrnoMessage(errno));
    if (n == 0) return Ok();
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(to, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Error::Input(named.string() + ": cannot copy for an atomic update: " + ErrnoMessage(errno));
      done += w;
    }
    offset += n;
  }
}

}  // namespace

Result<std::unique_ptr<AtomicDatabaseWrite>> AtomicDatabaseWrite::Begin(const std::filesystem::path& path,
                                                                        AtomicDatabaseStart start,
                                                                        const std::filesystem::path& tree) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (tree.empty()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) return Error::Input(path.parent_path().string() + ": cannot create: " + ec.message());
  }
  std::unique_ptr<AtomicDatabaseWrite> write(new AtomicDatabaseWrite(path));
  OPMFU_ASSIGN_OR_RETURN(write->file_, OutputFile::Begin(path, {.tree = tree, .database = true, .edit = false}));
  RemoveStaleTemporaries(path);
  OutputFile& file = *write->file_;
  if (start == AtomicDatabaseStart::kCopyOfExisting && file.existing_fd() >= 0) {
    if (Status copied = CopyDescriptor(file.existing_fd(), file.fd(), path); !copied.ok()) {
      write->RemoveTemporary();
      return copied.take_error();
    }
    // Changes still in the old file's write-ahead log are part of it: the copy's log, replayed
    // when the copy opens, keeps them (and the old log is removed at Commit).
    const std::string wal = path.filename().string() + "-wal";
    UniqueFd old_wal(::openat(file.directory_fd(), wal.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat wal_info {};
    if (old_wal.valid() && ::fstat(old_wal.get(), &wal_info) == 0 && S_ISREG(wal_info.st_mode) &&
        wal_info.st_size > 0) {
      UniqueFd copy(::openat(file.directory_fd(), (file.temporary_leaf() + "-wal").c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      Status copied = copy.valid() ? CopyDescriptor(old_wal.get(), copy.get(), path)
                                   : Error::Input(path.string() + ": cannot copy its -wal: " + ErrnoMessage(errno));
      if (!copied.ok()) {
        write->RemoveTemporary();
        return copied.take_error();
      }
    }
  }
  auto db = Database::OpenForWrite(file.temporary_name());
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

AtomicDatabaseWrite::AtomicDatabaseWrite(const std::filesystem::path& path) : path_(path) {}

AtomicDatabaseWrite::~AtomicDatabaseWrite() { RemoveTemporary(); }

void AtomicDatabaseWrite::RemoveTemporary() {
  if (done_) return;
  done_ = true;
  db_.reset();  // closed before its file goes
  file_.reset();
}

Error AtomicDatabaseWrite::Failed(Error error) const {
  // SQLite names the file it has open, the hidden temporary copy; the user knows only `path`.
  const std::string user = path_.string();
  if (file_) {
    for (const std::string& temp : {file_->temporary_name()}) {
      for (std::size_t at = error.message.find(temp); at != std::string::npos; at = error.message.find(temp, at)) {
        error.message.replace(at, temp.size(), user);
        at += user.size();
      }
    }
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
  Status renamed = file_->Commit();
  done_ = true;
  file_.reset();
  return renamed;
}

Status WriteDatabaseAtomically(const std::filesystem::path& path, AtomicDatabaseStart start,
                               const std::function<Status(Database&)>& fill, const std::filesystem::path& tree) {
  OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<AtomicDatabaseWrite> write, AtomicDatabaseWrite::Begin(path, start, tree));
  if (Status filled = fill(write->db()); !filled.ok()) return write->Failed(filled.take_error());
  return write->Commit();
}

}  // namespace opmfu
