#pragma once
// `opmfu mcp`: a Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0).
// Each tool call runs one opmfu command as a child process of this binary, so a command's
// stdout can never mix with the protocol and a crash or runaway run ends with that call.

#include <cstddef>
#include <deque>
#include <filesystem>
#include <list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/child_process.h"
#include "mcp/tools.h"

namespace opmfu::mcp {

struct ServerOptions {
  /// The opmfu binary the tools run (this one: /proc/self/exe).
  std::filesystem::path executable;
  std::string version;
  /// --root: the roots, never asked of the client. Empty: the client's roots (MCP roots/list),
  /// else the working directory.
  std::vector<std::filesystem::path> roots;
  int input_fd = 0;
  int output_fd = 1;
};

/// How many tool calls run at once; later calls wait their turn (in arrival order).
inline constexpr std::size_t kMaxRunningCalls = 4;
/// Tool calls read and waiting for a slot past which the server stops reading its input until one
/// starts: the client's writes then block (back-pressure), the server's memory does not grow with
/// what it was sent. Calls waiting for the client's roots have the same bounds; past them a call
/// is answered with an error at once (the server must go on reading to get the roots).
inline constexpr std::size_t kMaxWaitingCalls = 32;
/// ... or past this many bytes of their request lines.
inline constexpr std::size_t kMaxWaitingBytes = std::size_t{16} << 20;
/// A request is a few KB; a line longer than this is refused unparsed (a broken client).
inline constexpr std::size_t kMaxLineBytes = std::size_t{4} << 20;
/// Arrays and objects nested deeper than this in one message are refused before it is parsed
/// (every request this server knows is under 10 deep).
inline constexpr std::size_t kMaxNesting = 64;

class Server {
 public:
  explicit Server(ServerOptions options);
  /// Serves until the client closes stdin and every call read before that is answered; the exit
  /// code (0, or 3 when the client's end broke).
  int Run();

 private:
  /// One tools/call whose command runs.
  struct RunningCall {
    nlohmann::json id;
    const ToolDefinition* tool = nullptr;
    nlohmann::json progress_token;
    ChildProcess child;
    double progress = 0;
    bool cancelled = false;  ///< stopped at the client's request: dropped unanswered
  };
  /// A tools/call read, not started yet, with the size of its line (for back-pressure).
  struct WaitingCall {
    nlohmann::json id;
    nlohmann::json params;
    std::size_t bytes = 0;
  };

  bool Saturated() const;
  void ReadInput();
  void ReadChild(RunningCall& call, int fd);
  void StartWaitingCalls();
  void FinishCall(RunningCall& call);
  void Process(const nlohmann::json& message, std::size_t bytes);
  void Dispatch(const nlohmann::json& message, std::size_t bytes);
  void HandleRequest(const nlohmann::json& id, const std::string& method, const nlohmann::json& params,
                     std::size_t bytes);
  void HandleNotification(const std::string& method, const nlohmann::json& params);
  void HandleResponse(const nlohmann::json& message);
  void Initialize(const nlohmann::json& id, const nlohmann::json& params);
  void Cancel(const nlohmann::json& request_id);
  /// Starts a call's command, or answers it at once when its arguments or the start fail.
  void StartCall(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json ToolResult(const ToolDefinition& tool, RunningCall& call);
  void Notify(RunningCall& call, const nlohmann::json& total, const std::string& message);
  void AskForRoots();
  const Roots& CurrentRoots();
  void Send(const nlohmann::json& message);
  void SendError(const nlohmann::json& id, int code, const std::string& message);

  ServerOptions options_;
  Roots roots_;
  bool roots_from_flag_ = false;
  bool client_has_roots_ = false;
  std::optional<std::string> pending_roots_request_;
  int next_request_ = 1;
  std::string input_;  ///< bytes read, not yet a whole line
  bool skipping_long_line_ = false;
  bool input_closed_ = false;
  bool output_broken_ = false;
  std::deque<WaitingCall> waiting_;  ///< tool calls waiting for a slot
  std::deque<WaitingCall> blocked_;  ///< tool calls waiting for the client's roots
  std::size_t waiting_bytes_ = 0;    ///< of waiting_'s lines
  std::size_t blocked_bytes_ = 0;    ///< of blocked_'s lines
  std::list<RunningCall> running_;
};

}  // namespace opmfu::mcp
