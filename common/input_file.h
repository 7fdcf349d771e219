#pragma once
// The one way opmfu reads an input: a regular file, opened without blocking and checked with
// fstat before a byte is read, no larger than the input size policy allows; standard input read
// under the same cap. A FIFO, a device or a socket is refused at once instead of blocking or
// reading forever, and every refusal is one line naming the path and the cause.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace opmfu {

/// The environment variable that sets the input size policy (bytes, or a number with K, M or G).
inline constexpr const char* kMaxFileSizeVariable = "OPMFU_MAX_FILE_SIZE";
/// The default policy: tree-sitter builds about 190 bytes of tree per byte of Python or bash
/// (docs/reliability.md, "Limits"), so a 4 MiB source stays under about 1 GB while being parsed.
inline constexpr std::uint64_t kDefaultMaxFileSize = std::uint64_t{4} << 20;

/// The input size policy: OPMFU_MAX_FILE_SIZE when set, else kDefaultMaxFileSize. Fails with one
/// line when the variable is not a size.
Result<std::uint64_t> InputSizeLimit();

/// "12 bytes", "4 MiB", "3.2 GB": for messages.
std::string DescribeBytes(std::uint64_t bytes);

struct ReadLimits {
  /// 0: the input size policy (InputSizeLimit). A reader that needs far less (a chip description,
  /// a config) states its own, smaller limit; the policy still applies when it is smaller.
  std::uint64_t max_bytes = 0;
  /// Source files with a NUL byte are binary files by another name.
  bool reject_nul = true;
  /// The command's own earlier output, read to be replaced (the demo's marker): not noted as an
  /// input of the run (NoteEveryFileReadAsRunInput).
  bool own_output = false;
};

/// What a file system object is, for messages: "a directory", "a FIFO (named pipe)", ...
std::string DescribeFileType(mode_t mode);

/// Reads a whole regular file. Fails with a one-line reason: missing, not a regular file (said
/// which kind), unreadable, above the size limit (said with both sizes), or (with reject_nul)
/// binary. Never blocks on a FIFO or device, never reads more than the limit.
Result<std::string> ReadTextFile(const std::filesystem::path& path, const ReadLimits& limits = {});

/// Reads standard input to its end under the same limit; `name` is how messages call it ("-" or
/// the --stdin-filename).
Result<std::string> ReadStandardInput(const std::string& name, const ReadLimits& limits = {});

/// The first `bytes` bytes of a regular file (fewer when it is shorter), read as ReadTextFile
/// reads: for the readers that only look at a header.
Result<std::string> ReadFileHead(const std::filesystem::path& path, std::size_t bytes);

/// What ScanFile found in a file: its size, and whether it contains one of the words asked for.
struct FileScan {
  std::uint64_t size = 0;
  bool mentions = false;
};

/// Reads a regular file in pieces (a 1 MiB buffer, whatever its size: no size limit applies) and
/// says whether it contains any of `words`; for the reader that asks whether a file too large to
/// read whole could matter. Fails as ReadTextFile does on a file that cannot be read.
Result<FileScan> ScanFile(const std::filesystem::path& path, std::span<const std::string_view> words);

/// Checks, without opening it, that `path` (after symlinks) is an existing regular file; for the
/// readers that hand the path to a library (SQLite) which would otherwise block on a FIFO.
Status CheckRegularFile(const std::filesystem::path& path);

}  // namespace opmfu
