#pragma once
// The one way the lint front ends read source files: from disk, or from a map of paths to texts
// held in memory (tests drive a stage, or a whole lint, without touching the disk). Readers are
// shared by worker threads: every method is const and safe to call concurrently.

#include <map>
#include <string>

#include "common/result.h"

namespace opmfu {

class FileReader {
 public:
  FileReader() = default;
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  virtual ~FileReader() = default;

  /// The text of the file at `path`, as ReadTextFile reads it (a binary file, with a NUL byte, is
  /// an error). Fails with one line naming the path and the cause.
  virtual Result<std::string> ReadFile(const std::string& path) const = 0;
  /// Whether `path` names a regular file; false when that cannot be told (never throws).
  virtual bool IsFile(const std::string& path) const = 0;
};

/// The files on disk (ReadTextFile with the default limits).
class DiskFileReader final : public FileReader {
 public:
  Result<std::string> ReadFile(const std::string& path) const override;
  bool IsFile(const std::string& path) const override;
};

/// The reader of the files on disk every stage uses unless told otherwise.
const FileReader& DiskFiles();

/// Files held in memory, by path (compared in lexically normal form: `a/./b.py` is `a/b.py`).
/// Nothing else exists: no directories, no disk.
class MemoryFileReader final : public FileReader {
 public:
  MemoryFileReader() = default;
  explicit MemoryFileReader(const std::map<std::string, std::string>& files);
  void Add(const std::string& path, std::string text);

  Result<std::string> ReadFile(const std::string& path) const override;
  bool IsFile(const std::string& path) const override;

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace opmfu
