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

bool DiskFileReader::IsFile(const std::string& path) const {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
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

bool MemoryFileReader::IsFile(const std::string& path) const { return files_.contains(Normal(path)); }

}  // namespace opmfu
