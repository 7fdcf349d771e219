#include "common/file_reader.h"

#include <filesystem>
#include <system_error>

#include "common/file_io.h"

namespace opmfu {

namespace fs = std::filesystem;

namespace {

std::string Normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

}  // namespace

Result<std::string> DiskFileReader::ReadFile(const std::string& path) const { return ReadTextFile(path); }

Result<FileScan> DiskFileReader::Scan(const std::string& path, std::span<const std::string_view> words) const {
  return ScanFile(path, words);
}

Result<FileScan> FileReader::Scan(const std::string& path, std::span<const std::string_view> words) const {
  OPMFU_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  FileScan scan{text.size(), false};
  for (std::string_view word : words) scan.mentions = scan.mentions || text.find(word) != std::string::npos;
  return scan;
}

namespace {

FileKind KindOf(const fs::file_status& status) {
  if (fs::is_regular_file(status)) return FileKind::kFile;
  if (fs::is_directory(status)) return FileKind::kDirectory;
  if (!fs::exists(status)) return FileKind::kMissing;
  return FileKind::kOther;
}

}  // namespace

FileKind DiskFileReader::Stat(const std::string& path, std::string* cause) const {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && cause != nullptr && ec != std::errc::no_such_file_or_directory) *cause = ec.message();
  return ec ? FileKind::kMissing : KindOf(status);
}

Result<std::vector<DirectoryEntry>> DiskFileReader::ListDirectory(const std::string& path) const {
  std::vector<DirectoryEntry> entries;
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_error;
    DirectoryEntry& entry = entries.emplace_back();
    entry.name = it->path().filename().string();
    entry.symlink = it->is_symlink(entry_error);
    entry.kind = KindOf(it->status(entry_error));
  }
  if (ec) return Error::Input(path + ": cannot list: " + ec.message());
  return entries;
}

Result<std::string> DiskFileReader::Canonical(const std::string& path) const {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) return Error::Input(path + ": cannot resolve the path: " + ec.message());
  return canonical.lexically_normal().string();
}

const FileReader& DiskFiles() {
  static const DiskFileReader kDisk;
  return kDisk;
}

MemoryFileReader::MemoryFileReader(const std::map<std::string, std::string>& files) {
  for (const auto& [path, text] : files) Add(path, text);
}

void MemoryFileReader::Add(const std::string& path, std::string text) { files_[Normal(path)] = std::move(text); }

Result<std::string> MemoryFileReader::ReadFile(const std::string& path) const {
  const auto found = files_.find(Normal(path));
  if (found == files_.end()) return Error::Input(path + ": No such file or directory");
  // As ReadTextFile: a source with a NUL byte is a binary file by another name.
  if (const std::size_t nul = found->second.find('\0'); nul != std::string::npos) {
    return Error::Input(path + ": binary file (NUL byte at offset " + std::to_string(nul) + ")");
  }
  return found->second;
}

FileKind MemoryFileReader::Stat(const std::string& path, std::string* /*cause*/) const {
  const std::string normal = Normal(path);
  if (files_.contains(normal)) return FileKind::kFile;
  // A directory is a proper prefix of some path, ending at a separator.
  const std::string prefix = normal.ends_with('/') ? normal : normal + "/";
  const auto next = files_.lower_bound(prefix);
  return next != files_.end() && next->first.starts_with(prefix) ? FileKind::kDirectory : FileKind::kMissing;
}

Result<std::vector<DirectoryEntry>> MemoryFileReader::ListDirectory(const std::string& path) const {
  if (Stat(path) != FileKind::kDirectory) return Error::Input(path + ": cannot list: No such file or directory");
  const std::string normal = Normal(path);
  const std::string prefix = normal.ends_with('/') ? normal : normal + "/";
  std::vector<DirectoryEntry> entries;
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.starts_with(prefix); ++it) {
    const std::string rest = it->first.substr(prefix.size());
    const std::size_t slash = rest.find('/');
    DirectoryEntry entry{rest.substr(0, slash), slash == std::string::npos ? FileKind::kFile : FileKind::kDirectory};
    if (entries.empty() || entries.back().name != entry.name) entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::string> MemoryFileReader::Canonical(const std::string& path) const {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);  // only the working directory is read
  if (ec) return Error::Input(path + ": cannot resolve the path: " + ec.message());
  return absolute.lexically_normal().string();
}

Result<std::string> CachingFileReader::ReadFile(const std::string& path) const {
  std::shared_ptr<const Result<std::string>> text;
  {
    const std::lock_guard lock(mutex_);
    if (auto known = texts_.find(path); known != texts_.end()) text = known->second;
  }
  if (text) return *text;
  // Read outside the lock: two threads may both read a file first asked at once; one is kept.
  auto read = std::make_shared<const Result<std::string>>(base_.ReadFile(path));
  const std::size_t size = read->ok() ? read->value().size() : 0;
  const std::lock_guard lock(mutex_);
  if (cached_bytes_ + size > max_bytes_) return *read;  // full: passed through, not kept
  const auto [kept, added] = texts_.try_emplace(path, std::move(read));
  if (added) cached_bytes_ += size;
  return *kept->second;
}

FileKind CachingFileReader::Stat(const std::string& path, std::string* cause) const {
  {
    const std::lock_guard lock(mutex_);
    if (auto known = stats_.find(path); known != stats_.end()) {
      if (cause != nullptr) *cause = known->second.cause;
      return known->second.kind;
    }
  }
  Stated stated;
  stated.kind = base_.Stat(path, &stated.cause);
  if (cause != nullptr) *cause = stated.cause;
  const std::lock_guard lock(mutex_);
  return stats_.try_emplace(path, std::move(stated)).first->second.kind;
}

Result<std::vector<DirectoryEntry>> CachingFileReader::ListDirectory(const std::string& path) const {
  return base_.ListDirectory(path);  // each directory is listed once by the walk
}

Result<std::string> CachingFileReader::Canonical(const std::string& path) const {
  {
    const std::lock_guard lock(mutex_);
    if (auto known = canonical_.find(path); known != canonical_.end()) return known->second;
  }
  Result<std::string> resolved = base_.Canonical(path);
  const std::lock_guard lock(mutex_);
  return canonical_.try_emplace(path, std::move(resolved)).first->second;
}

}  // namespace opmfu
