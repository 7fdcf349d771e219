#pragma once
// Shared by the libFuzzer harnesses: inputs as text, and a private scratch directory for the
// harnesses that must hand opmfu a file (launchers, JSON configs, profiling databases).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <fstream>

namespace opmfu::fuzz {

inline std::string AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A directory of this process's own under /dev/shm (memory, fast) or the temp directory,
/// removed at exit; created on first use.
inline const std::filesystem::path& ScratchDirectory() {
  static const std::filesystem::path directory = [] {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                                               : std::filesystem::temp_directory_path();
    std::filesystem::path made = base / ("opmfu-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(made, ec);
    return made;
  }();
  static const struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(directory, ec);
    }
  } cleanup;
  return directory;
}

/// Writes `text` to `name` in the scratch directory and returns its path.
inline std::filesystem::path WriteScratchFile(const std::string& name, std::string_view text) {
  std::filesystem::path path = ScratchDirectory() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

}  // namespace opmfu::fuzz
