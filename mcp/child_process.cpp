#include "mcp/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include "common/file_io.h"
#include "common/process.h"

extern char** environ;

namespace opmfu::mcp {
namespace {

// stderr is a message for people: its beginning says what went wrong.
constexpr std::size_t kMaxStderr = std::size_t{1} << 20;
// The descriptor the child sees its progress pipe as.
constexpr int kChildProgressFd = 3;

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::Internal("pipe: " + ErrnoMessage(errno));
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void AppendCapped(std::string& text, const char* data, std::size_t size, std::size_t limit, bool* truncated) {
  const std::size_t room = text.size() < limit ? limit - text.size() : 0;
  if (size > room && truncated != nullptr) *truncated = true;
  text.append(data, size < room ? size : room);
}

}  // namespace

Result<ChildProcess> ChildProcess::Start(const std::vector<std::string>& argv, const std::string& working_directory,
                                         const std::vector<std::string>& added) {
  if (argv.empty()) return Error::Internal("ChildProcess: empty command");
  auto out = MakePipe();
  if (!out.ok()) return out.take_error();
  auto err = MakePipe();
  if (!err.ok()) return err.take_error();
  auto progress = MakePipe();
  if (!progress.ok()) return progress.take_error();

  SpawnFileActions actions;
  if (!actions.ok() || posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0) != 0 ||
      posix_spawn_file_actions_adddup2(actions.get(), out->write.get(), 1) != 0 ||
      posix_spawn_file_actions_adddup2(actions.get(), err->write.get(), 2) != 0 ||
      posix_spawn_file_actions_adddup2(actions.get(), progress->write.get(), kChildProgressFd) != 0 ||
      posix_spawn_file_actions_addchdir_np(actions.get(), working_directory.c_str()) != 0) {
    return Error::Internal("posix_spawn_file_actions: " + ErrnoMessage(errno));
  }

  // The server's own environment, with the progress descriptor named.
  const std::string progress_setting = std::string(kProgressFdVariable) + "=" + std::to_string(kChildProgressFd);
  std::vector<char*> environment;
  const std::string own_prefix = std::string(kProgressFdVariable) + "=";
  const auto replaced = [&](std::string_view entry) {
    if (entry.starts_with(own_prefix)) return true;
    for (const std::string& setting : added) {
      const std::size_t equals = setting.find('=');
      if (entry.substr(0, entry.find('=') + 1) == std::string_view(setting).substr(0, equals + 1)) return true;
    }
    return false;
  };
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!replaced(*entry)) environment.push_back(*entry);
  }
  environment.push_back(const_cast<char*>(progress_setting.c_str()));
  for (const std::string& setting : added) environment.push_back(const_cast<char*>(setting.c_str()));
  environment.push_back(nullptr);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(), environment.data());
  if (rc != 0) return Error::Internal(argv[0] + ": cannot start: " + ErrnoMessage(rc));
  // Only the child writes: our copies of the write ends must go, or the reads never end.
  return ChildProcess(pid, std::move(out->read), std::move(err->read), std::move(progress->read));
}

ChildProcess::ChildProcess(pid_t pid, UniqueFd out, UniqueFd err, UniqueFd progress)
    : pid_(pid), out_(std::move(out)), err_(std::move(err)), progress_(std::move(progress)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)),
      progress_(std::move(other.progress_)),
      stdout_text_(std::move(other.stdout_text_)),
      stderr_text_(std::move(other.stderr_text_)),
      progress_text_(std::move(other.progress_text_)),
      truncated_(other.truncated_) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) (void)Terminate();
}

std::vector<int> ChildProcess::OpenDescriptors() const {
  std::vector<int> fds;
  for (const UniqueFd* fd : {&out_, &err_, &progress_}) {
    if (fd->valid()) fds.push_back(fd->get());
  }
  return fds;
}

ChildStream ChildProcess::ReadFrom(int fd) {
  const ChildStream stream = fd == out_.get()   ? ChildStream::kStdout
                             : fd == err_.get() ? ChildStream::kStderr
                                                : ChildStream::kProgress;
  UniqueFd& owned = stream == ChildStream::kStdout ? out_ : stream == ChildStream::kStderr ? err_ : progress_;
  char buffer[65536];
  ssize_t n = -1;
  do {
    n = ::read(owned.get(), buffer, sizeof buffer);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    owned.Reset();
    return stream;
  }
  const auto size = static_cast<std::size_t>(n);
  switch (stream) {
    case ChildStream::kStdout:
      AppendCapped(stdout_text_, buffer, size, kMaxResultBytes, &truncated_);
      break;
    case ChildStream::kStderr:
      AppendCapped(stderr_text_, buffer, size, kMaxStderr, nullptr);
      break;
    case ChildStream::kProgress:
      AppendCapped(progress_text_, buffer, size, kMaxStderr, nullptr);
      break;
  }
  return stream;
}

bool ChildProcess::Drained() const { return !out_.valid() && !err_.valid() && !progress_.valid(); }

void ChildProcess::Kill() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

int ChildProcess::Terminate() {
  if (pid_ <= 0) return 128 + SIGTERM;
  // SIGTERM first: opmfu then removes the temporary file of an output it was writing.
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (done < 0 && errno != EINTR) break;
    ::usleep(10000);
  }
  Kill();
  return Wait();
}

int ChildProcess::Wait() {
  if (pid_ <= 0) return 128 + SIGKILL;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<std::string> ChildProcess::TakeProgressLines() {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end = progress_text_.find('\n'); end != std::string::npos; end = progress_text_.find('\n', start)) {
    lines.push_back(progress_text_.substr(start, end - start));
    start = end + 1;
  }
  progress_text_.erase(0, start);
  return lines;
}

}  // namespace opmfu::mcp
