#include "common/input_file.h"

#include "common/output_file.h"
#include "common/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "common/file_io.h"

namespace opmfu {

namespace fs = std::filesystem;

namespace {

std::string InputError(const std::string& name, std::string_view cause) { return name + ": " + std::string(cause); }

Result<std::uint64_t> ParseByteSize(std::string_view text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (value > (UINT64_MAX - 9) / 10) return Error::Usage("too large");
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return Error::Usage("not a number");
  std::string_view unit = text.substr(i);
  if (unit.ends_with("iB")) unit.remove_suffix(2);
  if (unit.ends_with("B") && unit.size() == 2) unit.remove_suffix(1);
  int shift = 0;
  if (unit == "K" || unit == "k") {
    shift = 10;
  } else if (unit == "M" || unit == "m") {
    shift = 20;
  } else if (unit == "G" || unit == "g") {
    shift = 30;
  } else if (!unit.empty()) {
    return Error::Usage("unknown unit");
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return Error::Usage("too large");
  value <<= shift;
  if (value == 0) return Error::Usage("zero");
  return value;
}

Error TooLarge(const std::string& name, std::uint64_t size, std::uint64_t limit, bool policy) {
  std::string cause = "file too large: " + DescribeBytes(size) + ", above the " +
                      std::string(policy ? "input size limit" : "limit for this kind of file") + " of " +
                      DescribeBytes(limit);
  if (policy) cause += std::string("; set ") + kMaxFileSizeVariable + " to raise it";
  return Error::Input(InputError(name, cause));
}

// The limit a read applies, and whether it is the policy's (the message then says how to raise it).
Result<std::pair<std::uint64_t, bool>> EffectiveLimit(const ReadLimits& limits) {
  OPMFU_ASSIGN_OR_RETURN(const std::uint64_t policy, InputSizeLimit());
  // Equal: the reader's own limit still holds when the policy is raised, so it is not the policy's.
  if (limits.max_bytes != 0 && limits.max_bytes <= policy) return std::make_pair(limits.max_bytes, false);
  return std::make_pair(policy, true);
}

// Reads `fd` to its end into `content` (already sized to what fstat said, for a regular file),
// refusing past `limit`. Past the expected size it reads into a small buffer: growing the string
// to find the end would double the memory every file keeps (sources stay alive for their findings).
Status ReadToEnd(int fd, const std::string& name, std::string& content, std::uint64_t limit, bool policy) {
  std::size_t filled = 0;
  std::array<char, 65536> beyond{};
  while (true) {
    const bool at_size = filled == content.size();
    char* into = at_size ? beyond.data() : content.data() + filled;
    const std::size_t room = at_size ? beyond.size() : content.size() - filled;
    const ssize_t n = ::read(fd, into, room);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Input(InputError(name, ErrnoMessage(errno)));
    }
    if (n == 0) break;
    if (at_size) {
      if (filled + static_cast<std::size_t>(n) > limit)
        return TooLarge(name, filled + static_cast<std::size_t>(n), limit, policy);
      content.append(beyond.data(), static_cast<std::size_t>(n));  // the file grew while we read, or a pipe
    }
    filled += static_cast<std::size_t>(n);
  }
  content.resize(filled);
  return Ok();
}

Status RejectNul(const std::string& name, const std::string& content, bool reject) {
  if (!reject) return Ok();
  const std::size_t nul = content.find('\0');
  if (nul == std::string::npos) return Ok();
  return Error::Input(InputError(name, "binary file (NUL byte at offset " + std::to_string(nul) + ")"));
}

}  // namespace

Result<std::uint64_t> InputSizeLimit() {
  const char* set = std::getenv(kMaxFileSizeVariable);
  if (set == nullptr || *set == '\0') return kDefaultMaxFileSize;
  auto parsed = ParseByteSize(set);
  if (!parsed.ok()) {
    return Error::Usage(std::string(kMaxFileSizeVariable) + "=" + set + ": not a size (" + parsed.error().message +
                        "); give bytes, or a number with K, M or G");
  }
  return *parsed;
}

std::string DescribeBytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  static constexpr std::array<const char*, 4> kUnits = {"KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (scaled >= 1024 && unit + 1 < kUnits.size()) {
    scaled /= 1024;
    ++unit;
  }
  std::array<char, 32> text{};
  const bool whole = bytes % (std::uint64_t{1} << (10 * (unit + 1))) == 0;
  // At most "16777216.0 TiB" (2^64 bytes): 32 bytes always hold it; a failed write falls back.
  const int written = std::snprintf(text.data(), text.size(), whole ? "%.0f %s" : "%.1f %s", scaled, kUnits[unit]);
  if (written <= 0) return std::to_string(bytes) + " bytes";
  return std::string(text.data()) + " (" + std::to_string(bytes) + " bytes)";
}

std::string DescribeFileType(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

namespace {

Status CheckMode(const std::string& name, mode_t mode) {
  if (S_ISREG(mode)) return Ok();
  // "is a directory, not a file" is the wording users (and golden tests) already know.
  if (S_ISDIR(mode)) return Error::Input(InputError(name, "is a directory, not a file"));
  return Error::Input(InputError(name, "is " + DescribeFileType(mode) + ", not a regular file"));
}

}  // namespace

Status CheckRegularFile(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return Error::Input(InputError(path.string(), ErrnoMessage(errno)));
  return CheckMode(path.string(), info.st_mode);
}

namespace {

// Opens `path` for reading without blocking, checked to be a regular file; returns its size.
Result<std::uint64_t> OpenRegular(const fs::path& path, UniqueFd& fd, bool own_output = false) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; fstat below refuses it.
  // O_NOCTTY: a terminal named as input must not become our controlling terminal.
  fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    const int open_error = errno;
    // A socket cannot be opened at all (ENXIO): say what it is rather than "No such device".
    struct stat info {};
    if (open_error == ENXIO && ::stat(path.c_str(), &info) == 0) OPMFU_RETURN_IF_ERROR(CheckMode(name, info.st_mode));
    return Error::Input(InputError(name, ErrnoMessage(open_error)));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return Error::Input(InputError(name, ErrnoMessage(errno)));
  OPMFU_RETURN_IF_ERROR(CheckMode(name, info.st_mode));
  // Every file read is an input of the run, not only the ones named on the command line: `-o`
  // must not replace a module lint followed, a sourced env.sh, a config, a device's info.json.
  if (!own_output) NoteFileRead(path);
  // A regular file never blocks; clear the flag anyway so a read can never return EAGAIN.
  (void)::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return static_cast<std::uint64_t>(info.st_size);
}

}  // namespace

Result<std::string> ReadFileHead(const fs::path& path, std::size_t bytes) {
  UniqueFd fd;
  OPMFU_ASSIGN_OR_RETURN(const std::uint64_t size, OpenRegular(path, fd));
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, bytes)), '\0');
  std::size_t filled = 0;
  while (filled < head.size()) {
    const ssize_t n = ::read(fd.get(), head.data() + filled, head.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::Input(InputError(path.string(), ErrnoMessage(errno)));
    if (n == 0) break;
    filled += static_cast<std::size_t>(n);
  }
  head.resize(filled);
  return head;
}

Result<FileScan> ScanFile(const fs::path& path, std::span<const std::string_view> words) {
  UniqueFd fd;
  OPMFU_ASSIGN_OR_RETURN(const std::uint64_t size, OpenRegular(path, fd));
  std::size_t longest = 0;
  for (std::string_view word : words) longest = std::max(longest, word.size());
  // Each piece keeps the last longest-1 bytes of the one before, so a word across two is found.
  const std::size_t keep = longest > 0 ? longest - 1 : 0;
  std::string window;
  std::vector<char> piece(std::size_t{1} << 20);  // on the heap: worker threads have small stacks
  FileScan scan;
  while (true) {
    const ssize_t n = ::read(fd.get(), piece.data(), piece.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::Input(InputError(path.string(), ErrnoMessage(errno)));
    if (n == 0) break;
    scan.size += static_cast<std::uint64_t>(n);
    window.append(piece.data(), static_cast<std::size_t>(n));
    for (std::string_view word : words) {
      if (!word.empty() && window.find(word) != std::string::npos) scan.mentions = true;
    }
    if (scan.mentions) break;
    if (window.size() > keep) window.erase(0, window.size() - keep);
  }
  scan.size = std::max(scan.size, size);
  return scan;
}

Result<std::string> ReadTextFile(const fs::path& path, const ReadLimits& limits) {
  const std::string name = path.string();
  OPMFU_ASSIGN_OR_RETURN(const auto limit, EffectiveLimit(limits));
  UniqueFd fd;
  OPMFU_ASSIGN_OR_RETURN(const std::uint64_t size, OpenRegular(path, fd, limits.own_output));
  if (size > limit.first) return TooLarge(name, size, limit.first, limit.second);
  std::string content;
  content.resize(static_cast<std::size_t>(size));
  OPMFU_RETURN_IF_ERROR(ReadToEnd(fd.get(), name, content, limit.first, limit.second));
  OPMFU_RETURN_IF_ERROR(RejectNul(name, content, limits.reject_nul));
  return content;
}

Result<std::string> ReadStandardInput(const std::string& name, const ReadLimits& limits) {
  OPMFU_ASSIGN_OR_RETURN(const auto limit, EffectiveLimit(limits));
  struct stat info {};
  if (::fstat(STDIN_FILENO, &info) != 0) return Error::Input(InputError(name, ErrnoMessage(errno)));
  if (S_ISDIR(info.st_mode)) return Error::Input(InputError(name, "standard input is a directory"));
  std::string content;
  if (S_ISREG(info.st_mode)) {
    const auto offset = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    const auto remaining = static_cast<std::uint64_t>(info.st_size - std::max<off_t>(offset, 0));
    if (remaining > limit.first) return TooLarge(name, remaining, limit.first, limit.second);
    content.resize(static_cast<std::size_t>(remaining));
  }
  OPMFU_RETURN_IF_ERROR(ReadToEnd(STDIN_FILENO, name, content, limit.first, limit.second));
  OPMFU_RETURN_IF_ERROR(RejectNul(name, content, limits.reject_nul));
  return content;
}

}  // namespace opmfu
