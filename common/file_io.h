#pragma once
// Reading inputs defensively and writing outputs atomically. Every error message names the path.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/result.h"

namespace opmfu {

struct ReadLimits {
  /// tree-sitter addresses bytes with 32-bit offsets; stay well below that.
  std::uint64_t max_bytes = std::uint64_t{512} << 20;
  /// Source files with a NUL byte are binary files by another name.
  bool reject_nul = true;
};

/// Reads a whole file. Fails with a one-line reason: missing, a directory, unreadable, too large,
/// or (with reject_nul) binary.
Result<std::string> ReadTextFile(const std::filesystem::path& path, const ReadLimits& limits = {});

/// Writes `content` to a temporary file in the destination's directory, flushes it and renames it
/// over `path`, so readers see the old file or the new one, never a part. Keeps the permissions of
/// an existing file.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

/// Copies `from` to `to` atomically (used for `.bak` copies before an in-place edit).
Status CopyFileAtomically(const std::filesystem::path& from, const std::filesystem::path& to);

/// strerror(errnum) as a std::string, thread-safe.
std::string ErrnoMessage(int errnum);

}  // namespace opmfu
