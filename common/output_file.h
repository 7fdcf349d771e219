#pragma once
// The one way opmfu creates or replaces a file (docs/reliability.md, "How outputs are written").
// WriteFileAtomically (common/file_io.h) is built on it; SQLite and libxlsxwriter, which write by
// name, use it directly.

#include <sys/types.h>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "common/result.h"
#include "common/unique_fd.h"

namespace opmfu {

class TemporaryFile;

/// The variable `opmfu mcp` sets for the commands it runs: the directories (one per line) every
/// file they write must be beneath, each component below it opened without following a link.
inline constexpr const char* kWriteRootsVariable = "OPMFU_WRITE_ROOTS";

/// Remembers the file `path` names (symlinks followed) as an input of this run: no output may
/// replace it. Thread-safe; a path that cannot be stat'ed is left out.
void NoteRunInput(const std::filesystem::path& path);

/// From now on, every file read through common/input_file.h is noted as an input (NoteRunInput),
/// not only the ones a command names: a module lint followed, a sourced env.sh, a config, a
/// device's info.json. The command-line program turns it on; a library caller (a test process
/// that writes and reads back many files) keeps to the files it notes itself.
void NoteEveryFileReadAsRunInput();
/// NoteRunInput of a file just read, when NoteEveryFileReadAsRunInput is on.
void NoteFileRead(const std::filesystem::path& path);

struct OutputOptions {
  /// A directory above the file, named by the user: the components of the path below it are opened
  /// without following a symbolic link (and created when missing). Empty: the file's own directory,
  /// opened as spelled. Under kWriteRootsVariable the matching root is used instead.
  std::filesystem::path tree;
  /// A SQLite database: a stale `-wal`, `-shm` or `-journal` of the file it replaces is removed.
  bool database = false;
  /// An edit of a file this run read: being an input is expected (ReplaceFileIfUnchanged checks).
  bool edit = false;
};

/// A log opmfu appends to (several runs may share it, so it is never replaced), opened as Begin
/// opens an output's directory (write roots, no link below the tree) and without following a link
/// at the file itself; refused when it is not a regular file or is an input of the run. With
/// `own_only` (a name opmfu chose in a shared directory such as /tmp) a file that is there already
/// must belong to this user: nobody else can plant it.
Result<UniqueFd> OpenLogForAppend(const std::filesystem::path& path, bool own_only);

/// A file being written at `path`: a hidden temporary file created in the directory, opened beneath
/// it without following a link, and renamed over `path` by Commit. Until then `path` is untouched;
/// the destructor removes the temporary file. Begin refuses, writing nothing, a `path` that is a
/// symbolic link, a directory or not a regular file, one with a link among its components below the
/// tree, one outside the write roots, and (unless `edit`) a file noted as an input of the run.
class OutputFile {
 public:
  static Result<std::unique_ptr<OutputFile>> Begin(const std::filesystem::path& path,
                                                   const OutputOptions& options = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Another file in the same directory (held open, so many outputs share one descriptor), with
  /// the same options: what Begin of `path().parent_path() / leaf` would be.
  Result<std::unique_ptr<OutputFile>> Sibling(const std::string& leaf) const;

  /// The temporary file, open for reading and writing (until Seal).
  int fd() const { return temporary_fd_.get(); }
  /// A name of the temporary file for a library that opens by name: it reaches the file through the
  /// directory held open (/proc/self/fd), not through the spelled path.
  std::string temporary_name() const;
  /// The file being replaced, opened read-only without following a link; -1 when there is none.
  int existing_fd() const { return existing_fd_.get(); }
  /// The directory, held open: for a sidecar file of the temporary (`temporary_leaf() + "-wal"`).
  int directory_fd() const { return directory_->get(); }
  const std::string& temporary_leaf() const { return temporary_leaf_; }
  const std::filesystem::path& path() const { return path_; }
  /// Checks the temporary file is still the one created, syncs and closes it (what Commit starts
  /// with: a writer of many files seals each as it is done, so that only the directory stays open).
  Status Seal();
  /// Seals it and renames it over `path`. On failure the temporary file is removed and the error
  /// names `path`.
  Status Commit();

 private:
  OutputFile() = default;
  static Result<std::unique_ptr<OutputFile>> BeginIn(std::shared_ptr<const UniqueFd> directory,
                                                     const std::filesystem::path& spelled_directory,
                                                     const std::filesystem::path& path, const std::string& leaf,
                                                     const OutputOptions& options);
  void Remove();
  std::filesystem::path path_;
  std::filesystem::path spelled_directory_;
  OutputOptions options_;
  std::shared_ptr<const UniqueFd> directory_;
  UniqueFd existing_fd_;
  UniqueFd temporary_fd_;
  std::string leaf_;
  std::string temporary_leaf_;
  std::unique_ptr<TemporaryFile> temporary_;  ///< the interrupt handler's record of it
  std::pair<dev_t, ino_t> created_{};
  bool sealed_ = false;
  bool done_ = false;
};

}  // namespace opmfu
