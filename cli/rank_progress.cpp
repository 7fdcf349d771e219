#include "cli/rank_progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "cli/cli_support.h"
#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::cli {

RankProgress::RankProgress(bool agent) : agent_(agent) {}

Result<std::function<void(std::size_t, std::size_t)>> RankProgress::Callback() {
  const std::optional<std::string> progress_fd = GetEnv("OPMFU_PROGRESS_FD");
  if (progress_fd && !progress_fd->empty()) {
    const std::optional<std::int64_t> parsed = DecimalInt64(*progress_fd);
    if (!parsed || *parsed > std::numeric_limits<int>::max()) {
      return Error::Usage("OPMFU_PROGRESS_FD=" + QuoteForMessage(*progress_fd) +
                          ": not a file descriptor (a whole number from 0 to 2147483647); unset it or give the "
                          "descriptor progress lines go to");
    }
    const int fd = static_cast<int>(*parsed);
    if (::fcntl(fd, F_GETFD) == -1) {
      return Error::Usage("OPMFU_PROGRESS_FD=" + std::to_string(fd) + ": not an open file descriptor (" +
                          ErrnoMessage(errno) + "); unset it or give the descriptor progress lines go to");
    }
    return std::function<void(std::size_t, std::size_t)>([this, fd](std::size_t done, std::size_t total) {
      const std::lock_guard<std::mutex> lock(mutex_);
      const std::string line = std::to_string(done) + " " + std::to_string(total) + "\n";
      (void)!::write(fd, line.data(), line.size());  // a closed reader loses progress, not the run
    });
  }
  if (::isatty(STDERR_FILENO) != 1 || agent_) return std::function<void(std::size_t, std::size_t)>();
  return std::function<void(std::size_t, std::size_t)>([this](std::size_t done, std::size_t total) {
    if (std::chrono::steady_clock::now() - started_ < std::chrono::seconds(1)) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t width = 30;
    const std::size_t filled = total == 0 ? width : done * width / total;
    std::cerr << "\ranalyzing ranks [" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << done
              << "/" << total << std::flush;
    shown_ = true;
  });
}

void RankProgress::Finish() {
  if (shown_) std::cerr << "\n";
  shown_ = false;
}

}  // namespace opmfu::cli
