#pragma once
// Reading inputs defensively and writing outputs atomically. Every error message names the path.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "common/input_file.h"  // ReadTextFile, ReadLimits: reading lives there
#include "common/result.h"

namespace opmfu {

/// Writes `content` to a temporary file in the destination's directory, flushes it and renames it
/// over `path`, so readers see the old file or the new one, never a part (OutputFile, in
/// common/output_file.h, says what it refuses: a symbolic link at `path`, an input of the run, a
/// path outside the write roots). Keeps the mode and owner of an existing file (and refuses,
/// writing nothing, when the owner cannot be kept). A device or FIFO (`/dev/null`, `/dev/full`,
/// `/dev/stdout` and a link to one) is written in place, every write checked.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

/// Hands the text of a file piece by piece (TextSink's flushes): WriteFileAtomically of what
/// `produce` writes, without it standing whole in memory.
using PieceWriter = std::function<void(std::string_view)>;
Status WriteFileAtomicallyInPieces(const std::filesystem::path& path,
                                   const std::function<void(const PieceWriter&)>& produce);
/// The same for a file of a tree opmfu writes (`cluster_analysis_output/...`): `tree` is the
/// directory the user named above it; the directories below it are created as needed and never
/// entered through a symbolic link.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           const std::filesystem::path& tree);

/// An edit in place (`lint --fix`, `registry add --write`): replaces the file `path` names (a
/// symlink is followed: the file it names is edited) with `edited`, only if it still holds
/// `original`, the text the edit was made from. Holds an flock on the file from the check to the
/// rename, so two edits of one file take turns and the second refuses; refuses with one line
/// naming the file when it changed, writing nothing.
Status ReplaceFileIfUnchanged(const std::filesystem::path& path, std::string_view original, std::string_view edited);

/// Appends `content` to `path` (created 0644 when missing), as a log file is written: several runs
/// may share one file, so it is never replaced. Opened by OpenLogForAppend (no link followed, never
/// an input of the run; `own_only`: an existing file must be this user's). Fails with a one-line
/// reason, the file named.
Status AppendToFile(const std::filesystem::path& path, std::string_view content, bool own_only = false);

/// Copies `from` to `to` atomically with `from`'s mode and owner (used for `.bak` copies before an
/// in-place edit).
Status CopyFileAtomically(const std::filesystem::path& from, const std::filesystem::path& to);

/// A temporary file opmfu is writing. While the object lives, an interrupt (SIGINT, SIGTERM,
/// SIGHUP; see InstallInterruptCleanup) removes the file before the process ends, so Ctrl-C never
/// leaves a half-written file beside the user's. SIGKILL cannot be caught: then the hidden
/// `.NAME.opmfu-N.tmp` stays, and the file it was meant to replace is still the old one.
class TemporaryFile {
 public:
  /// A fresh hidden name beside `target`: `.NAME.opmfu-<random>.tmp`.
  explicit TemporaryFile(const std::filesystem::path& target);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Creates the (empty) file and holds an advisory lock (flock) on it while this object lives, so
  /// that RemoveStaleTemporaries in another process leaves it alone.
  Status CreateLocked();

 private:
  std::filesystem::path path_;
  int slot_ = -1;     ///< where the interrupt handler finds it; -1 when all slots are taken
  int lock_fd_ = -1;  ///< the descriptor holding the lock (CreateLocked)
};

/// Removes what a killed opmfu left beside `target`: `.NAME.opmfu-<digits>.tmp` files that no live
/// process holds locked (CreateLocked) and that were last written before this process started.
/// Other files, and a concurrent run's temporary, are left alone. Returns how many it removed.
std::size_t RemoveStaleTemporaries(const std::filesystem::path& target);

/// Installs the handlers that remove live TemporaryFiles on SIGINT, SIGTERM and SIGHUP, then end
/// the process as the signal would have.
void InstallInterruptCleanup();

/// strerror(errnum) as a std::string, thread-safe.
std::string ErrnoMessage(int errnum);

}  // namespace opmfu
