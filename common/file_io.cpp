#include "common/file_io.h"

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

// Where a write to `path` really lands: an existing symlink is followed to its target, so that an
// edit in place changes the file the link names and leaves the link a link.
fs::path WriteTarget(const fs::path& path) {
  std::error_code error;
  if (!fs::is_symlink(fs::symlink_status(path, error))) return path;
  const fs::path resolved = fs::canonical(path, error);
  if (!error) return resolved;
  // A dangling link: write the file it names, relative to the link's own directory.
  const fs::path target = fs::read_symlink(path, error);
  if (error) return path;
  return target.is_absolute() ? target : path.parent_path() / target;
}

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
Status WriteToSpecialFile(const fs::path& path, std::string_view content) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  if (fd.get() < 0) return fail(errno);
  OPMFU_RETURN_IF_ERROR(WriteAll(fd.get(), content, fail));
  if (fd.Close() != 0) return fail(errno);
  return Ok();
}

Status WriteAtomically(const fs::path& requested, std::string_view content, const struct stat* keep_from) {
  const fs::path path = WriteTarget(requested);
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) return Error::Input(PathError(requested, "is a directory, not a file"));
  if (exists && !S_ISREG(existing.st_mode)) return WriteToSpecialFile(path, content);
  // What the new file keeps: the mode and owner of the file it replaces (or of `keep_from`).
  const struct stat* model = keep_from != nullptr ? keep_from : (exists ? &existing : nullptr);
  const mode_t mode = model != nullptr ? (model->st_mode & 07777) : 0644;

  const TemporaryFile temporary(path);
  const fs::path& temp = temporary.path();
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd.get() < 0) return Error::Input(PathError(requested, "cannot write: " + ErrnoMessage(errno)));
  auto fail = [&](int errnum) {
    ::unlink(temp.c_str());
    return Error::Input(PathError(requested, "cannot write: " + ErrnoMessage(errnum)));
  };
  OPMFU_RETURN_IF_ERROR(WriteAll(fd.get(), content, fail));
  if (model != nullptr && (model->st_uid != ::geteuid() || model->st_gid != ::getegid())) {
    // Replacing a file must not hand it to whoever ran opmfu. Without the right to keep the
    // owner, nothing is written rather than a file that changed hands.
    if (::fchown(fd.get(), model->st_uid, model->st_gid) != 0) {
      const int errnum = errno;
      ::unlink(temp.c_str());
      return Error::Input(PathError(requested, "cannot keep its owner (uid " + std::to_string(model->st_uid) +
                                                   ", gid " + std::to_string(model->st_gid) +
                                                   "): " + ErrnoMessage(errnum) + "; nothing was written"));
    }
  }
  if (::fchmod(fd.get(), mode) != 0) return fail(errno);
  if (::fsync(fd.get()) != 0) return fail(errno);
  if (fd.Close() != 0) return fail(errno);
  if (::rename(temp.c_str(), path.c_str()) != 0) return fail(errno);
  return Ok();
}

}  // namespace

Status WriteFileAtomically(const fs::path& path, std::string_view content) {
  return WriteAtomically(path, content, nullptr);
}

Status AppendToFile(const fs::path& path, std::string_view content) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  auto fail = [&](int errnum) { return Error::Input(PathError(path, "cannot write: " + ErrnoMessage(errnum))); };
  if (fd.get() < 0) return fail(errno);
  OPMFU_RETURN_IF_ERROR(WriteAll(fd.get(), content, fail));
  if (fd.Close() != 0) return fail(errno);
  return Ok();
}

Status CopyFileAtomically(const fs::path& from, const fs::path& to) {
  auto content = ReadTextFile(from, ReadLimits{.max_bytes = ReadLimits{}.max_bytes, .reject_nul = false});
  if (!content.ok()) return content.take_error();
  struct stat source {};
  if (::stat(from.c_str(), &source) != 0) return Error::Input(PathError(from, ErrnoMessage(errno)));
  // A backup is as private as the file it saves.
  return WriteAtomically(to, *content, &source);
}

}  // namespace opmfu
