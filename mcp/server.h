#pragma once
// `opmfu mcp`: a Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0).
// Each tool call runs one opmfu command as a child process of this binary, so a command's
// stdout can never mix with the protocol and a crash or runaway run ends with that call.

#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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

class Server {
 public:
  explicit Server(ServerOptions options);
  /// Serves until the client closes stdin; the exit code (0, or 3 when the client's end broke).
  int Run();

 private:
  bool ReadInput(int timeout_ms);
  void ProcessQueued();
  void Process(const nlohmann::json& message);
  void Dispatch(const nlohmann::json& message);
  void HandleRequest(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
  void HandleNotification(const std::string& method, const nlohmann::json& params);
  void HandleResponse(const nlohmann::json& message);
  void Initialize(const nlohmann::json& id, const nlohmann::json& params);
  void CallTool(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json RunTool(const ToolDefinition& tool, const nlohmann::json& arguments, const nlohmann::json& id,
                         const nlohmann::json& progress_token, bool& cancelled);
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
  std::deque<nlohmann::json> queue_;    ///< parsed messages waiting their turn
  std::deque<nlohmann::json> blocked_;  ///< tool calls waiting for the client's roots
  /// Set while a tool runs: its request id, and whether the client cancelled it.
  std::optional<nlohmann::json> running_id_;
  bool running_cancelled_ = false;
};

}  // namespace opmfu::mcp
