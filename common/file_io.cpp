#include "common/file_io.h"

#include "common/output_file.h"
#include "common/unique_fd.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace opmfu {

namespace fs = std::filesystem;

std::string ErrnoMessage(int errnum) {
  char buffer[256];
  // GNU strerror_r returns the message pointer (which may or may not be `buffer`).
  return std::string(strerror_r(errnum, buffer, sizeof buffer));
}

namespace {

std::string PathError(const fs::path& path, std::string_view cause) {
  return path.string() + ": " + std::string(cause);
}

}  // namespace

namespace {

// Live temporary files, for the interrupt handler: fixed storage, so the handler only reads
// memory and calls unlink (both async-signal-safe).
constexpr int kTemporarySlots = 32;
struct TemporarySlot {
  std::atomic<bool> taken{false};
  std::atomic<bool> ready{false};
  std::array<char, PATH_MAX> path{};
};
std::array<TemporarySlot, kTemporarySlots> temporary_slots;

extern "C" void RemoveTemporariesAndReraise(int signal_number) {
  for (TemporarySlot& slot : temporary_slots) {
    if (slot.ready.load(std::memory_order_acquire)) ::unlink(slot.path.data());
  }
  (void)std::signal(signal_number, SIG_DFL);
  (void)std::raise(signal_number);
}

}  // namespace

TemporaryFile::TemporaryFile(const fs::path& target) {
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // getrandom(2), not std::random_device: the static libstdc++ of the release build implements
  // that with arc4random, which would raise the glibc the binary needs from 2.34 to 2.36.
  std::uint32_t entropy = 0;
  if (::getrandom(&entropy, sizeof entropy, 0) != static_cast<ssize_t>(sizeof entropy)) {
    entropy = static_cast<std::uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
              static_cast<std::uint32_t>(::getpid());
  }
  path_ = directory / ("." + target.filename().string() + ".opmfu-" + std::to_string(entropy % 1000000000U) + ".tmp");
  const std::string text = path_.string();
  if (text.size() >= PATH_MAX) return;
  for (int i = 0; i < kTemporarySlots; ++i) {
    bool expected = false;
    if (!temporary_slots[i].taken.compare_exchange_strong(expected, true)) continue;
    std::copy(text.begin(), text.end(), temporary_slots[i].path.begin());
    temporary_slots[i].path[text.size()] = '\0';
    temporary_slots[i].ready.store(true, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TemporaryFile::~TemporaryFile() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (slot_ < 0) return;
  temporary_slots[slot_].ready.store(false, std::memory_order_release);
  temporary_slots[slot_].taken.store(false, std::memory_order_release);
}

Status TemporaryFile::CreateLocked() {
  if (lock_fd_ >= 0) return Ok();
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error::Input(PathError(path_, "cannot create: " + ErrnoMessage(errno)));
  lock_fd_ = fd;
  // flock, not fcntl: SQLite's own fcntl locks on the file neither see nor drop it.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return Error::Input(PathError(path_, "cannot lock: " + ErrnoMessage(errno)));
  return Ok();
}

namespace {
// When this process started, as the file clock tells it (set while the program loads).
const fs::file_time_type kProcessStart = fs::file_time_type::clock::now();
}  // namespace

std::size_t RemoveStaleTemporaries(const fs::path& target) {
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = "." + target.filename().string() + ".opmfu-";
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.rfind(prefix, 0) != 0 || !name.ends_with(".tmp")) continue;
    const std::string_view digits = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 4);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec) || it->is_symlink(file_ec)) continue;
    UniqueFd fd(::open(it->path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) continue;
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;  // a live run is writing it
    const fs::file_time_type written = fs::last_write_time(it->path(), file_ec);
    if (file_ec || written >= kProcessStart) continue;  // not older than this run
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

void InstallInterruptCleanup() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    (void)std::signal(signal_number, RemoveTemporariesAndReraise);
  }
}

namespace {

Status WriteAll(int fd, std::string_view content, const std::function<Error(int)>& fail) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno);
    }
    written += static_cast<std::size_t>(n);
  }
  return Ok();
}

// A device or a FIFO (`-o /dev/null`, `-o /dev/stdout`, `-o >(gzip)`): there is nothing to
// rename over, so it is written in place, every write checked (`-o /dev/full` fails).
// Hands `produce` a writer of pieces to `fd`; the first failed write is the result, and the
// pieces after it are dropped.
Status WritePieces(int fd, const std::function<void(const PieceWriter&)>& produce,
                   const std::function<Error(int)>& fail) {
  Status status = Ok();
  produce([&](std::string_view piece) {
    if (status.ok()) status = WriteAll(fd, piece, fail);
  });
  return status;
}

Status WriteToSpecialFile(const fs::path& path, const std::function<void(const PieceWriter&)>& produce) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  if (fd.get() < 0) return fail(errno);
  OPMFU_RETURN_IF_ERROR(WritePieces(fd.get(), produce, fail));
  if (fd.Close() != 0) return fail(errno);
  return Ok();
}

bool IsSpecial(mode_t mode) { return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

// Whether `path` is (or, outside the write roots, links to) a device or FIFO, written in place.
bool WrittenInPlace(const fs::path& path) {
  struct stat own {};
  if (::lstat(path.c_str(), &own) != 0) return false;
  if (IsSpecial(own.st_mode)) return true;
  struct stat target {};
  return S_ISLNK(own.st_mode) && std::getenv(kWriteRootsVariable) == nullptr && ::stat(path.c_str(), &target) == 0 &&
         IsSpecial(target.st_mode);
}

Status WriteAtomically(const fs::path& path, const std::function<void(const PieceWriter&)>& produce,
                       const OutputOptions& options, const struct stat* keep_from) {
  if (WrittenInPlace(path)) return WriteToSpecialFile(path, produce);
  OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file, OutputFile::Begin(path, options));
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  if (keep_from != nullptr) {
    // A backup is as private as the file it saves, and keeps its owner (or is not written).
    if ((keep_from->st_uid != ::geteuid() || keep_from->st_gid != ::getegid()) &&
        ::fchown(file->fd(), keep_from->st_uid, keep_from->st_gid) != 0) {
      return Error::Input(PathError(path, "cannot keep the owner (uid " + std::to_string(keep_from->st_uid) + ", gid " +
                                              std::to_string(keep_from->st_gid) + "): " + ErrnoMessage(errno) +
                                              "; nothing was written"));
    }
    if (::fchmod(file->fd(), keep_from->st_mode & 07777) != 0) return fail(errno);
  }
  OPMFU_RETURN_IF_ERROR(WritePieces(file->fd(), produce, fail));
  return file->Commit();
}

Status WriteAtomically(const fs::path& path, std::string_view content, const OutputOptions& options,
                       const struct stat* keep_from) {
  return WriteAtomically(
      path, [&](const PieceWriter& write) { write(content); }, options, keep_from);
}

}  // namespace

Status WriteFileAtomicallyInPieces(const fs::path& path, const std::function<void(const PieceWriter&)>& produce) {
  return WriteAtomically(path, produce, {}, nullptr);
}

Status WriteFileAtomically(const fs::path& path, std::string_view content) {
  return WriteAtomically(path, content, {}, nullptr);
}

Status WriteFileAtomically(const fs::path& path, std::string_view content, const fs::path& tree) {
  return WriteAtomically(path, content, {.tree = tree, .database = false, .edit = false}, nullptr);
}

Status ReplaceFileIfUnchanged(const fs::path& path, std::string_view original, std::string_view edited) {
  const auto changed = [&] {
    return Error::Input(PathError(path,
                                  "changed since opmfu read it (an editor or another opmfu run wrote it); nothing was "
                                  "written to it, run again"));
  };
  std::error_code ec;
  // An edit changes the file a link names; the link stays a link.
  const fs::path real = fs::canonical(path, ec);
  if (ec)
    return fs::exists(fs::symlink_status(path, ec)) ? Error::Input(PathError(path, "cannot edit: " + ec.message()))
                                                    : changed();
  OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file,
                         OutputFile::Begin(real, {.tree = {}, .database = false, .edit = true}));
  const int existing = file->existing_fd();
  if (existing < 0) return changed();
  // The edited text is written and synced first, so that the check below is the last thing before
  // the rename: an editor saving while opmfu wrote (an fsync takes milliseconds) is seen, not lost.
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  OPMFU_RETURN_IF_ERROR(WriteAll(file->fd(), edited, fail));
  OPMFU_RETURN_IF_ERROR(file->Seal());
  // Two edits of one file take turns; the later sees the earlier's change below and refuses. The
  // lock is held until the file closes, after the rename.
  while (::flock(existing, LOCK_EX) != 0) {
    if (errno != EINTR) return Error::Input(PathError(path, "cannot lock: " + ErrnoMessage(errno)));
  }
  struct stat locked {};
  struct stat named {};
  if (::fstat(existing, &locked) != 0 || ::lstat(real.c_str(), &named) != 0 || locked.st_dev != named.st_dev ||
      locked.st_ino != named.st_ino || static_cast<std::uint64_t>(locked.st_size) != original.size()) {
    return changed();
  }
  std::string current(original.size(), '\0');
  std::size_t read = 0;
  while (read < current.size()) {
    const ssize_t n = ::pread(existing, current.data() + read, current.size() - read, static_cast<off_t>(read));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return changed();
    read += static_cast<std::size_t>(n);
  }
  // One byte more than the original: an editor that appended in place since the size check.
  char beyond = 0;
  if (::pread(existing, &beyond, 1, static_cast<off_t>(original.size())) > 0) return changed();
  if (current != original) return changed();
  return file->Commit();
}

Status AppendToFile(const fs::path& path, std::string_view content, bool own_only) {
  OPMFU_ASSIGN_OR_RETURN(UniqueFd fd, OpenLogForAppend(path, own_only));
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  OPMFU_RETURN_IF_ERROR(WriteAll(fd.get(), content, fail));
  if (fd.Close() != 0) return fail(errno);
  return Ok();
}

Status CopyFileAtomically(const fs::path& from, const fs::path& to) {
  auto content = ReadTextFile(from, ReadLimits{.max_bytes = ReadLimits{}.max_bytes, .reject_nul = false});
  if (!content.ok()) return content.take_error();
  struct stat source {};
  if (::stat(from.c_str(), &source) != 0) return Error::Input(PathError(from, ErrnoMessage(errno)));
  return WriteAtomically(to, *content, {}, &source);
}

}  // namespace opmfu
