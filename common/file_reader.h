#pragma once
// The one way the lint front ends see files, like ninja's DiskInterface: read, stat, list and
// resolve, on disk or in a map of paths to texts held in memory (tests drive a stage, or a whole
// lint, without touching the disk). Readers are shared by worker threads: every method is const
// and safe to call concurrently.

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_file.h"
#include "common/result.h"

namespace opmfu {

/// What a path names, symlinks followed.
enum class FileKind { kMissing, kFile, kDirectory, kOther };

struct DirectoryEntry {
  std::string name;  ///< the entry's own name, no directory
  FileKind kind = FileKind::kMissing;
  bool symlink = false;  ///< the entry itself is a symbolic link (a walk does not follow it)
};

class FileReader {
 public:
  FileReader() = default;
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  virtual ~FileReader() = default;

  /// The text of the file at `path`, as ReadTextFile reads it (a binary file, with a NUL byte, is
  /// an error). Fails with one line naming the path and the cause.
  virtual Result<std::string> ReadFile(const std::string& path) const = 0;
  /// What `path` names; kMissing also when that cannot be told, with the cause (a symlink loop, a
  /// permission) in `cause` when given. Never throws.
  virtual FileKind Stat(const std::string& path, std::string* cause = nullptr) const = 0;
  /// The entries of the directory `path`, in no particular order. Fails with one line naming the
  /// directory and the cause ("cannot list: ...").
  virtual Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const = 0;
  /// `path` absolute, with symlinks resolved as far as it exists, in lexically normal form: two
  /// names of one file give one answer. Fails on a symlink loop or a name too long.
  virtual Result<std::string> Canonical(const std::string& path) const = 0;

  /// Reads the file at `path` in pieces, whatever its size, and says its size and whether it
  /// contains any of `words` (common/input_file.h): what lint asks of a file too large to read
  /// whole. This default reads it whole through ReadFile (readers that hold texts in memory).
  virtual Result<FileScan> Scan(const std::string& path, std::span<const std::string_view> words) const;

  /// Whether `path` names a regular file.
  bool IsFile(const std::string& path) const { return Stat(path) == FileKind::kFile; }
};

/// The files on disk (ReadTextFile with the default limits).
class DiskFileReader final : public FileReader {
 public:
  Result<std::string> ReadFile(const std::string& path) const override;
  Result<FileScan> Scan(const std::string& path, std::span<const std::string_view> words) const override;
  FileKind Stat(const std::string& path, std::string* cause = nullptr) const override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const override;
  Result<std::string> Canonical(const std::string& path) const override;
};

/// The reader of the files on disk every stage uses unless told otherwise.
const FileReader& DiskFiles();

/// Another reader's answers, each asked once: one lint run reads a program's files for every
/// launch of it and every file that imports them. Safe to share between worker threads. The
/// answers are those of the moment each was first asked (a run sees one state of the tree).
/// Texts are kept up to `max_bytes` in all; past that, reads go to the base reader (a tree of
/// 50,000 files must not be held in memory to save a second read of a few).
class CachingFileReader final : public FileReader {
 public:
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{256} << 20;
  explicit CachingFileReader(const FileReader& base, std::size_t max_bytes = kDefaultMaxBytes)
      : base_(base), max_bytes_(max_bytes) {}

  Result<std::string> ReadFile(const std::string& path) const override;
  FileKind Stat(const std::string& path, std::string* cause = nullptr) const override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const override;
  Result<std::string> Canonical(const std::string& path) const override;
  /// Not kept: a file is scanned only when it is too large to keep.
  Result<FileScan> Scan(const std::string& path, std::span<const std::string_view> words) const override {
    return base_.Scan(path, words);
  }

 private:
  struct Stated {
    FileKind kind = FileKind::kMissing;
    std::string cause;
  };
  const FileReader& base_;
  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  mutable std::size_t cached_bytes_ = 0;
  mutable std::map<std::string, std::shared_ptr<const Result<std::string>>, std::less<>> texts_;
  mutable std::map<std::string, Stated, std::less<>> stats_;
  mutable std::map<std::string, Result<std::string>, std::less<>> canonical_;
};

/// Files held in memory, by path (compared in lexically normal form: `a/./b.py` is `a/b.py`).
/// The directories are those the paths imply; nothing else exists, and nothing is a symlink.
class MemoryFileReader final : public FileReader {
 public:
  MemoryFileReader() = default;
  explicit MemoryFileReader(const std::map<std::string, std::string>& files);
  void Add(const std::string& path, std::string text);

  Result<std::string> ReadFile(const std::string& path) const override;
  FileKind Stat(const std::string& path, std::string* cause = nullptr) const override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const override;
  Result<std::string> Canonical(const std::string& path) const override;

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace opmfu
