#pragma once
// One run of an opmfu command for the MCP server: a child process whose stdout (the JSON),
// stderr (the message for people) and progress pipe are read while the server keeps answering
// its client.

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace opmfu::mcp {

/// The environment variable naming the descriptor `opmfu analyze` writes "DONE TOTAL\n" to after
/// each rank (the MCP server turns those lines into notifications/progress).
inline constexpr const char* kProgressFdVariable = "OPMFU_PROGRESS_FD";

/// A command's JSON past this is not passed on (the call fails, naming the limit): a tool result is
/// sent as one JSON-RPC line holding the JSON twice (text and structuredContent), and a client has to
/// hold that line whole.
inline constexpr std::size_t kMaxResultBytes = std::size_t{8} << 20;

/// Which of a child's streams a read came from.
enum class ChildStream { kStdout, kStderr, kProgress };

/// A started child. Its streams are drained with ReadAvailable; Wait reaps it. The destructor
/// terminates and reaps a child still running, so no run outlives the server.
class ChildProcess {
 public:
  /// Starts `argv` (argv[0] an absolute path; no PATH search, no shell) in `working_directory`,
  /// with stdin on /dev/null; `environment` ("NAME=value") is added to the server's own.
  static Result<ChildProcess> Start(const std::vector<std::string>& argv, const std::string& working_directory,
                                    const std::vector<std::string>& environment = {});

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  /// The descriptors still open, for poll().
  std::vector<int> OpenDescriptors() const;
  /// Reads what `fd` has (one read) into the matching buffer; closes it at end of stream.
  /// Returns which stream it was.
  ChildStream ReadFrom(int fd);
  /// Every stream reached its end.
  bool Drained() const;
  /// Ends the child now (SIGKILL).
  void Kill();
  /// Asks the child to stop (SIGTERM, so it cleans up what it was writing), kills it when it has
  /// not stopped within 2 s, and reaps it; its exit code.
  int Terminate();
  /// Reaps the child; its exit code (128 + signal when a signal ended it).
  int Wait();

  const std::string& standard_output() const { return stdout_text_; }
  const std::string& standard_error() const { return stderr_text_; }
  /// Complete progress lines not yet taken.
  std::vector<std::string> TakeProgressLines();
  /// stdout grew past kMaxResultBytes and was cut.
  bool output_truncated() const { return truncated_; }

 private:
  ChildProcess(pid_t pid, UniqueFd out, UniqueFd err, UniqueFd progress);

  pid_t pid_ = -1;
  UniqueFd out_;
  UniqueFd err_;
  UniqueFd progress_;
  std::string stdout_text_;
  std::string stderr_text_;
  std::string progress_text_;
  bool truncated_ = false;
};

}  // namespace opmfu::mcp
