#include "linter/bash_syntax_check.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

#include "common/process.h"

namespace opmfu::linter {

namespace fs = std::filesystem;

namespace {

// A launcher of any realistic size parses in milliseconds; this only bounds a pathological one.
constexpr std::chrono::seconds kTimeLimit{10};
constexpr std::size_t kMaxErrorOutput = std::size_t{64} * 1024;

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

BashVerdict Unavailable(std::string why) { return {BashVerdict::Kind::kUnavailable, 0, std::move(why)}; }

// bash writes "FILE: line N: syntax error ...", then the offending line; the first such line is
// the verdict. The file name is the path we passed, so the line is found after it.
void ReadBashMessage(std::string_view output, const std::string& path, BashVerdict& verdict) {
  const std::string prefix = path + ": line ";
  std::size_t at = output.find(prefix);
  if (at == std::string_view::npos) {
    const std::size_t end = output.find('\n');
    verdict.message = std::string(output.substr(0, end));
    return;
  }
  std::string_view rest = output.substr(at + prefix.size());
  int line = 0;
  std::size_t i = 0;
  while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && line < 100'000'000)
    line = line * 10 + (rest[i++] - '0');
  verdict.line = line;
  rest = rest.substr(i);
  if (rest.starts_with(": ")) rest = rest.substr(2);
  verdict.message = std::string(rest.substr(0, rest.find('\n')));
}

}  // namespace

std::optional<std::string> FindBash() {
  const auto executable = [](const fs::path& candidate) {
    std::error_code ec;
    return fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0;
  };
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string_view directories = path;
    while (!directories.empty()) {
      const std::size_t colon = directories.find(':');
      const std::string_view directory = directories.substr(0, colon);
      if (!directory.empty() && executable(fs::path(directory) / "bash")) {
        return (fs::path(directory) / "bash").string();
      }
      if (colon == std::string_view::npos) break;
      directories.remove_prefix(colon + 1);
    }
  }
  if (executable("/bin/bash")) return std::string("/bin/bash");
  return std::nullopt;
}

BashVerdict CheckWithBash(const std::string& bash, const std::string& path) {
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0) return Unavailable("cannot create a pipe");
  UniqueFd read_end(ends[0]);
  UniqueFd write_end(ends[1]);
  SpawnFileActions actions;
  if (!actions.ok() || posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0) != 0 ||
      posix_spawn_file_actions_addopen(actions.get(), 1, "/dev/null", O_WRONLY, 0) != 0 ||
      posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), 2) != 0) {
    return Unavailable("cannot prepare to run bash");
  }
  // An empty environment: no BASH_ENV or ENV file is read, and messages are in English.
  std::string locale = "LC_ALL=C";
  std::vector<std::string> arguments = {bash, "--norc", "--noprofile", "-O", "extglob", "-n", path};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::array<char*, 2> envp = {locale.data(), nullptr};
  pid_t child = -1;
  if (posix_spawn(&child, bash.c_str(), actions.get(), nullptr, argv.data(), envp.data()) != 0) {
    return Unavailable("cannot run " + bash);
  }
  write_end.Reset();

  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + kTimeLimit;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd waiting{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&waiting, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    std::array<char, 4096> buffer{};
    const ssize_t got = ::read(read_end.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (output.size() < kMaxErrorOutput) output.append(buffer.data(), static_cast<std::size_t>(got));
  }
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return Unavailable("bash -n did not finish within " + std::to_string(kTimeLimit.count()) + " s");
  if (!WIFEXITED(status)) return Unavailable("bash -n was stopped by a signal");
  if (WEXITSTATUS(status) == 0) return {BashVerdict::Kind::kAccepted, 0, {}};
  if (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127) return Unavailable("cannot run " + bash);
  BashVerdict verdict{BashVerdict::Kind::kRejected, 0, {}};
  ReadBashMessage(output, path, verdict);
  if (verdict.message.empty()) verdict.message = "syntax error";
  return verdict;
}

}  // namespace opmfu::linter
