#include "engine/demo_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMarkerHeading = "written by opmfu demo; every file it wrote (hash, bytes, path):";
// What `opmfu analyze -d DEMO` writes into the demo: the user's result, never the demo's to judge.
constexpr std::string_view kAnalysisFolder = "cluster_analysis_output";

struct Fingerprint {
  std::uint64_t hash = 0;
  std::uintmax_t size = 0;
  bool operator==(const Fingerprint&) const = default;
};

// A 64-bit hash of a file's bytes, 8 at a time (demo databases reach gigabytes): not for
// security, for telling "as the demo wrote it" from "changed since".
Result<Fingerprint> FingerprintOf(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Error::Input(path.string() + ": cannot read: " + ErrnoMessage(errno));
  Fingerprint print{0x9E3779B97F4A7C15ULL, 0};
  std::array<char, std::size_t{1} << 20> buffer{};
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int errnum = errno;
      ::close(fd);
      return Error::Input(path.string() + ": cannot read: " + ErrnoMessage(errnum));
    }
    if (n == 0) break;
    const auto count = static_cast<std::size_t>(n);
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, buffer.data() + i, 8);
      print.hash = ((print.hash ^ word) * 0xFF51AFD7ED558CCDULL);
      print.hash ^= print.hash >> 29;
    }
    for (; i < count; ++i) print.hash = (print.hash ^ static_cast<unsigned char>(buffer[i])) * 0x100000001B3ULL;
    print.size += count;
  }
  ::close(fd);
  return print;
}

// Every entry below `directory` but the marker and an analysis folder at the top, relative.
struct DemoEntry {
  fs::path relative;
  fs::file_type type;
};
Result<std::vector<DemoEntry>> EntriesBelow(const fs::path& directory) {
  std::vector<DemoEntry> entries;
  std::error_code ec;
  fs::recursive_directory_iterator it(directory, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(directory);
    if (relative == kDemoMarker) continue;
    if (it.depth() == 0 && relative == kAnalysisFolder) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code type_error;
    entries.push_back({relative, it->symlink_status(type_error).type()});
  }
  if (ec) return Error::Input(directory.string() + ": cannot list: " + ec.message());
  return entries;
}

std::string Refusal(const fs::path& directory, const std::string& why) {
  return directory.string() + ": exists and is not exactly an earlier opmfu demo (" + why +
         "); give a new or empty directory";
}

// The marker's list; nullopt when there is no readable list (no marker, or an old one).
std::optional<std::map<fs::path, Fingerprint>> ReadManifest(const fs::path& directory) {
  auto text =
      ReadTextFile(directory / kDemoMarker, ReadLimits{.max_bytes = 64U << 20, .reject_nul = true, .own_output = true});
  if (!text.ok()) return std::nullopt;
  std::istringstream lines(*text);
  std::string line;
  if (!std::getline(lines, line) || line != kMarkerHeading) return std::nullopt;
  std::map<fs::path, Fingerprint> files;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Fingerprint print;
    std::string path;
    fields >> std::hex >> print.hash >> std::dec >> print.size;
    if (!fields || fields.get() != ' ' || !std::getline(fields, path) || path.empty()) return std::nullopt;
    files[fs::path(path)] = print;
  }
  return files;
}

}  // namespace

Status PrepareDemoDirectory(const fs::path& directory) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(directory, ec);
  if (status.type() == fs::file_type::not_found) {
    fs::create_directories(directory, ec);
    if (ec) return Error::Input(directory.string() + ": cannot create: " + ec.message());
    return Ok();
  }
  if (!fs::is_directory(directory, ec)) return Error::Input(directory.string() + ": exists and is not a directory");
  OPMFU_ASSIGN_OR_RETURN(const std::vector<DemoEntry> entries, EntriesBelow(directory));
  const bool has_marker = fs::exists(fs::symlink_status(directory / kDemoMarker, ec));
  if (entries.empty() && !has_marker) return Ok();
  const auto manifest = ReadManifest(directory);
  if (!manifest) {
    return Error::Input(Refusal(directory, has_marker ? "its " + std::string(kDemoMarker) + " lists no files"
                                                      : "no " + std::string(kDemoMarker) + " marker"));
  }
  // The folders the demo made: those holding the files it lists.
  std::set<fs::path> its_folders;
  for (const auto& [file, print] : *manifest) {
    for (fs::path folder = file.parent_path(); !folder.empty(); folder = folder.parent_path())
      its_folders.insert(folder);
  }
  // Every check first: nothing is removed unless all of it is the demo's own.
  std::vector<fs::path> files;
  std::set<fs::path> folders;
  for (const DemoEntry& entry : entries) {
    const fs::path path = directory / entry.relative;
    if (entry.type == fs::file_type::directory) {
      if (!its_folders.contains(entry.relative)) {
        return Error::Input(Refusal(directory, path.string() + " is not a folder it made"));
      }
      folders.insert(path);
      continue;
    }
    const auto listed = manifest->find(entry.relative);
    if (entry.type != fs::file_type::regular || listed == manifest->end()) {
      return Error::Input(Refusal(directory, path.string() + " is not a file it wrote"));
    }
    OPMFU_ASSIGN_OR_RETURN(const Fingerprint print, FingerprintOf(path));
    if (!(print == listed->second)) {
      return Error::Input(Refusal(directory, path.string() + " was changed after the demo wrote it"));
    }
    files.push_back(path);
  }
  for (const fs::path& file : files) {
    if (!fs::remove(file, ec) && ec) return Error::Input(file.string() + ": cannot remove: " + ec.message());
  }
  // Deepest first; a folder that still holds something (an analysis) stays.
  for (auto folder = folders.rbegin(); folder != folders.rend(); ++folder) fs::remove(*folder, ec);
  return Ok();
}

Status RecordDemoDirectory(const fs::path& directory) {
  OPMFU_ASSIGN_OR_RETURN(const std::vector<DemoEntry> entries, EntriesBelow(directory));
  std::string text = std::string(kMarkerHeading) + "\n";
  for (const DemoEntry& entry : entries) {
    if (entry.type != fs::file_type::regular) continue;
    OPMFU_ASSIGN_OR_RETURN(const Fingerprint print, FingerprintOf(directory / entry.relative));
    std::ostringstream line;
    line << std::hex << print.hash << std::dec << ' ' << print.size << ' ' << entry.relative.string() << '\n';
    text += line.str();
  }
  return WriteFileAtomically(directory / kDemoMarker, text);
}

}  // namespace opmfu::engine
