#include "common/output_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "common/file_io.h"

namespace opmfu {

namespace fs = std::filesystem;

namespace {

struct InputSet {
  std::mutex mutex;
  std::map<std::pair<dev_t, ino_t>, fs::path> files;
};

InputSet& RunInputs() {
  static InputSet inputs;
  return inputs;
}

// Whether `info` is a noted input: the path it was noted under must still name it, so an inode
// number freed by a deleted input and given to a new file is not taken for the input.
bool IsRunInput(const struct stat& info) {
  fs::path noted;
  {
    InputSet& inputs = RunInputs();
    const std::lock_guard lock(inputs.mutex);
    const auto found = inputs.files.find({info.st_dev, info.st_ino});
    if (found == inputs.files.end()) return false;
    noted = found->second;
  }
  struct stat now {};
  return ::stat(noted.c_str(), &now) == 0 && now.st_dev == info.st_dev && now.st_ino == info.st_ino;
}

// kWriteRootsVariable, read once: one directory per line, absolute and lexically normal. Set but
// empty: nothing may be written.
const std::optional<std::vector<fs::path>>& WriteRoots() {
  static const std::optional<std::vector<fs::path>> roots = []() -> std::optional<std::vector<fs::path>> {
    const char* value = std::getenv(kWriteRootsVariable);
    if (value == nullptr) return std::nullopt;
    std::vector<fs::path> parsed;
    std::string_view rest(value);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      const std::string_view line = rest.substr(0, end);
      fs::path root = fs::path(std::string(line)).lexically_normal();
      if (!root.has_filename() && root.has_relative_path()) root = root.parent_path();  // "/a/b/" is "/a/b"
      if (!line.empty()) parsed.push_back(std::move(root));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
    return parsed;
  }();
  return roots;
}

// `path` below `top`, lexically: nullopt when it is not below it.
std::optional<fs::path> Below(const fs::path& path, const fs::path& top) {
  const fs::path relative = path.lexically_relative(top);
  if (relative.empty() || *relative.begin() == ".." || relative == ".") return std::nullopt;
  return relative;
}

std::string OutputPathError(const fs::path& path, std::string_view cause) {
  return path.string() + ": " + std::string(cause);
}

Error LinkRefused(const fs::path& link) {
  return Error::Input(OutputPathError(link,
                                      "is a symbolic link; opmfu writes no output through a link (remove it or choose "
                                      "another output path; nothing was written)"));
}

// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) of `relative` below `top`, where the kernel has
// it: -1 with errno set otherwise (ENOSYS on old kernels, EPERM under some seccomp filters).
int OpenBeneath(int top, const fs::path& relative) {
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  struct open_how how {};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return static_cast<int>(::syscall(SYS_openat2, top, relative.c_str(), &how, sizeof how));
#else
  (void)top;
  (void)relative;
  errno = ENOSYS;
  return -1;
#endif
}

// The directory `relative` below the open directory `top` (spelled `top_path`), each component
// opened without following a link (and, with `create`, created when missing).
Result<UniqueFd> OpenDirectoryBeneath(UniqueFd top, const fs::path& top_path, const fs::path& relative, bool create) {
  if (relative.empty()) return top;
  const int fast = OpenBeneath(top.get(), relative);
  if (fast >= 0) return UniqueFd(fast);
  if (errno == ELOOP || errno == EXDEV) {
    // Which component is the link: the walk below finds it and says so.
  } else if (errno != ENOENT && errno != ENOSYS && errno != EPERM && errno != EINVAL && errno != E2BIG) {
    return Error::Input(OutputPathError(top_path / relative, "cannot open the directory: " + ErrnoMessage(errno)));
  }
  UniqueFd directory = std::move(top);
  fs::path spelled = top_path;
  for (const fs::path& component : relative) {
    spelled /= component;
    if (component == "." || component == ".." || component.empty()) {
      return Error::Input(OutputPathError(spelled, "a '..' or '.' inside the output path; nothing was written"));
    }
    if (create && ::mkdirat(directory.get(), component.c_str(), 0777) != 0 && errno != EEXIST) {
      return Error::Input(OutputPathError(spelled, "cannot create: " + ErrnoMessage(errno)));
    }
    UniqueFd next(::openat(directory.get(), component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      struct stat info {};
      if (::fstatat(directory.get(), component.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode)) {
        return LinkRefused(spelled);
      }
      return Error::Input(OutputPathError(spelled, "cannot open the directory: " + ErrnoMessage(errno)));
    }
    directory = std::move(next);
  }
  return directory;
}

bool HaveProcFd() {
  static const bool have = ::access("/proc/self/fd", X_OK) == 0;
  return have;
}

}  // namespace

namespace {
std::atomic<bool> note_every_file_read{false};
}  // namespace

void NoteEveryFileReadAsRunInput() { note_every_file_read.store(true, std::memory_order_relaxed); }

void NoteFileRead(const fs::path& path) {
  if (note_every_file_read.load(std::memory_order_relaxed)) NoteRunInput(path);
}

void NoteRunInput(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return;
  InputSet& inputs = RunInputs();
  const std::lock_guard lock(inputs.mutex);
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  inputs.files.insert_or_assign({info.st_dev, info.st_ino}, ec ? path : absolute);
}

namespace {

// The directory an output goes into, opened: the top of its tree (opened as spelled) and the
// directories below it (never through a link); `spelled` is its name, `leaf` the file's.
struct OutputDirectory {
  UniqueFd fd;
  fs::path spelled;
  std::string leaf;
};

Result<OutputDirectory> OpenOutputDirectory(const fs::path& path, const OutputOptions& options) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec || !absolute.has_filename()) return Error::Input(OutputPathError(path, "not a file name to write"));
  fs::path top = absolute.parent_path();
  fs::path below;
  if (WriteRoots()) {
    bool inside = false;
    for (const fs::path& root : *WriteRoots()) {
      if (const auto relative = Below(absolute, root)) {
        top = root;
        below = relative->parent_path();
        inside = true;
        break;
      }
    }
    if (!inside) {
      return Error::Usage(
          OutputPathError(path, "is outside the directories this run may write to; nothing was written"));
    }
  } else if (!options.tree.empty()) {
    const fs::path tree = fs::absolute(options.tree, ec).lexically_normal();
    if (const auto relative = ec ? std::nullopt : Below(absolute, tree)) {
      top = tree;
      below = relative->parent_path();
    }
  }
  // The caller's own tree is created as needed; a file named by the user goes into a directory that exists.
  const bool create = !options.tree.empty();
  if (create) fs::create_directories(top, ec);
  UniqueFd top_fd(::open(top.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top_fd.valid()) return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  OPMFU_ASSIGN_OR_RETURN(UniqueFd directory, OpenDirectoryBeneath(std::move(top_fd), top, below, create));
  return OutputDirectory{std::move(directory), top / below, absolute.filename().string()};
}

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Begin(const fs::path& path, const OutputOptions& options) {
  OPMFU_ASSIGN_OR_RETURN(OutputDirectory directory, OpenOutputDirectory(path, options));
  return BeginIn(std::make_shared<const UniqueFd>(std::move(directory.fd)), directory.spelled, path, directory.leaf,
                 options);
}

Result<UniqueFd> OpenLogForAppend(const fs::path& path, bool own_only) {
  OPMFU_ASSIGN_OR_RETURN(OutputDirectory directory, OpenOutputDirectory(path, {}));
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  UniqueFd fd(::openat(directory.fd.get(), directory.leaf.c_str(), flags, 0644));
  if (!fd.valid()) {
    struct stat info {};
    if (::fstatat(directory.fd.get(), directory.leaf.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(info.st_mode)) {
      return LinkRefused(path);
    }
    return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  }
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0)
    return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  if (!S_ISREG(opened.st_mode)) {
    return Error::Input(OutputPathError(path, "is " + DescribeFileType(opened.st_mode) + ", not a regular file"));
  }
  if (own_only && opened.st_uid != ::geteuid()) {
    return Error::Input(OutputPathError(path, "belongs to another user; opmfu appends only to its own log there"));
  }
  if (IsRunInput(opened)) {
    return Error::Usage(OutputPathError(
        path,
        "is an input of this run, and appending there would change it; choose another log file (nothing was "
        "written)"));
  }
  return fd;
}

Result<std::unique_ptr<OutputFile>> OutputFile::Sibling(const std::string& leaf) const {
  if (leaf.empty() || leaf.find('/') != std::string::npos || leaf == "." || leaf == "..") {
    return Error::Internal(leaf + ": not a file name");
  }
  return BeginIn(directory_, spelled_directory_, path_.parent_path() / leaf, leaf, options_);
}

Result<std::unique_ptr<OutputFile>> OutputFile::BeginIn(std::shared_ptr<const UniqueFd> directory_fd,
                                                        const fs::path& spelled_directory, const fs::path& path,
                                                        const std::string& leaf, const OutputOptions& options) {
  const int directory = directory_fd->get();
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path_ = path;
  file->options_ = options;
  file->leaf_ = leaf;
  file->spelled_directory_ = spelled_directory;
  file->directory_ = std::move(directory_fd);
  struct stat existing {};
  mode_t mode = 0644;
  const struct stat* owner = nullptr;
  if (::fstatat(directory, file->leaf_.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(existing.st_mode)) return LinkRefused(path);
    if (S_ISDIR(existing.st_mode)) return Error::Input(OutputPathError(path, "is a directory, not a file"));
    if (!S_ISREG(existing.st_mode)) {
      return Error::Input(OutputPathError(path, "is " + DescribeFileType(existing.st_mode) + ", not a regular file"));
    }
    if (!options.edit && IsRunInput(existing)) {
      return Error::Usage(OutputPathError(path,
                                          "is an input of this run, and writing there would replace it; choose another "
                                          "output path (nothing was written)"));
    }
    file->existing_fd_ =
        UniqueFd(::openat(directory, file->leaf_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    mode = existing.st_mode & 07777;
    owner = &existing;
  } else if (errno != ENOENT) {
    return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  }

  file->temporary_ = std::make_unique<TemporaryFile>(spelled_directory / file->leaf_);
  file->temporary_leaf_ = file->temporary_->path().filename().string();
  file->temporary_fd_ = UniqueFd(
      ::openat(directory, file->temporary_leaf_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!file->temporary_fd_.valid()) return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  struct stat created {};
  if (::fstat(file->temporary_fd_.get(), &created) != 0) {
    return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errno)));
  }
  file->created_ = {created.st_dev, created.st_ino};
  // The lock tells RemoveStaleTemporaries in another run that this file is live.
  (void)::flock(file->temporary_fd_.get(), LOCK_EX | LOCK_NB);
  if (owner != nullptr && (owner->st_uid != ::geteuid() || owner->st_gid != ::getegid())) {
    // Replacing a file must not hand it to whoever ran opmfu. Without the right to keep the
    // owner, nothing is written rather than a file that changed hands.
    if (::fchown(file->temporary_fd_.get(), owner->st_uid, owner->st_gid) != 0) {
      const int errnum = errno;
      file->Remove();
      return Error::Input(OutputPathError(path, "cannot keep its owner (uid " + std::to_string(owner->st_uid) +
                                                    ", gid " + std::to_string(owner->st_gid) +
                                                    "): " + ErrnoMessage(errnum) + "; nothing was written"));
    }
  }
  if (::fchmod(file->temporary_fd_.get(), mode) != 0) {
    const int errnum = errno;
    file->Remove();
    return Error::Input(OutputPathError(path, "cannot write: " + ErrnoMessage(errnum)));
  }
  return file;
}

OutputFile::~OutputFile() { Remove(); }

std::string OutputFile::temporary_name() const {
  if (HaveProcFd()) return "/proc/self/fd/" + std::to_string(directory_->get()) + "/" + temporary_leaf_;
  return temporary_->path().string();
}

void OutputFile::Remove() {
  if (done_) return;
  done_ = true;
  if (!directory_ || temporary_leaf_.empty()) return;
  (void)::unlinkat(directory_->get(), temporary_leaf_.c_str(), 0);
  if (options_.database) {
    for (const char* suffix : {"-journal", "-wal", "-shm"}) {
      (void)::unlinkat(directory_->get(), (temporary_leaf_ + suffix).c_str(), 0);
    }
  }
}

Status OutputFile::Seal() {
  if (done_) return Error::Input(OutputPathError(path_, "the write was already finished"));
  if (sealed_) return Ok();
  const auto fail = [&](std::string_view cause) {
    Remove();
    return Error::Input(OutputPathError(path_, cause));
  };
  // A library that wrote by name must have written the file created here, not one put in its place.
  struct stat named {};
  if (::fstatat(directory_->get(), temporary_leaf_.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
      std::pair(named.st_dev, named.st_ino) != created_) {
    return fail("its temporary file " + temporary_leaf_ + " was replaced while opmfu wrote it; nothing was written");
  }
  if (::fsync(temporary_fd_.get()) != 0) return fail("cannot write: " + ErrnoMessage(errno));
  if (temporary_fd_.Close() != 0) return fail("cannot write: " + ErrnoMessage(errno));
  // An edit's lock on the file it replaces is held until the rename (Commit).
  if (!options_.edit) existing_fd_.Reset();
  sealed_ = true;
  return Ok();
}

Status OutputFile::Commit() {
  OPMFU_RETURN_IF_ERROR(Seal());
  const auto fail = [&](std::string_view cause) {
    Remove();
    return Error::Input(OutputPathError(path_, cause));
  };
  if (options_.database) {
    // A log left by another writer of the old file would be replayed over the new one at its next
    // open (SQLite takes a -wal beside a database for that database's).
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      const std::string sidecar = leaf_ + suffix;
      if (::unlinkat(directory_->get(), sidecar.c_str(), 0) != 0 && errno != ENOENT) {
        return fail("cannot remove the stale " + sidecar + " beside it: " + ErrnoMessage(errno) +
                    " (nothing was written)");
      }
    }
  }
  if (::renameat(directory_->get(), temporary_leaf_.c_str(), directory_->get(), leaf_.c_str()) != 0) {
    return fail("cannot replace: " + ErrnoMessage(errno));
  }
  done_ = true;
  return Ok();
}

}  // namespace opmfu
