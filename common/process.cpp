#include "common/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <utility>

#include "common/file_io.h"
#include "common/unique_fd.h"

extern char** environ;

namespace opmfu {

Result<ChildOutcome> RunChild(const std::vector<std::string>& argv, const ChildOptions& options) {
  if (argv.empty()) return Error::Internal("RunChild: empty command");
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0) return Error::Internal("pipe: " + ErrnoMessage(errno));
  UniqueFd read_end(ends[0]);
  UniqueFd write_end(ends[1]);
  const bool stdout_captured = options.capture == ChildOptions::Capture::kStdout;
  SpawnFileActions actions;
  if (!actions.ok() || posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0) != 0 ||
      posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), stdout_captured ? 1 : 2) != 0 ||
      posix_spawn_file_actions_addopen(actions.get(), stdout_captured ? 2 : 1, "/dev/null", O_WRONLY, 0) != 0) {
    return Error::Internal(argv[0] + ": cannot prepare to run it");
  }
  std::vector<std::string> arguments = argv;
  std::vector<char*> args;
  for (std::string& argument : arguments) args.push_back(argument.data());
  args.push_back(nullptr);
  std::vector<std::string> environment = options.environment.value_or(std::vector<std::string>{});
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_rc =
      posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), options.environment ? envp.data() : environ);
  write_end.Reset();  // the child holds the only write end: EOF when it exits
  if (spawn_rc != 0) return Error::Input(argv[0] + ": cannot run: " + ErrnoMessage(spawn_rc));

  ChildOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool timed_out = false;
  std::array<char, 65536> buffer{};
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd waiting{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&waiting, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    const ssize_t n = ::read(read_end.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const std::size_t room = options.max_output - std::min(options.max_output, outcome.output.size());
    outcome.output.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
  }
  read_end.Reset();
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    outcome.end = ChildOutcome::End::kTimedOut;
  } else if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else {
    outcome.end = ChildOutcome::End::kSignalled;
    outcome.exit_code = 128 + WTERMSIG(status);
  }
  return outcome;
}

Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ChildOptions options;
  options.timeout = timeout;
  OPMFU_ASSIGN_OR_RETURN(ChildOutcome outcome, RunChild(argv, options));
  if (outcome.end == ChildOutcome::End::kTimedOut) {
    return Error::Input(argv[0] + ": did not answer within " + std::to_string(timeout.count() / 1000) + " s");
  }
  return ProcessOutput{outcome.exit_code, std::move(outcome.output)};
}

}  // namespace opmfu
