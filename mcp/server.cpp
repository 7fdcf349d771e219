#include "mcp/server.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "common/json_input.h"
#include "common/output_file.h"
#include "mcp/child_process.h"

namespace opmfu::mcp {
namespace {

using nlohmann::json;

// JSON-RPC 2.0's error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

// Newest first: what this server speaks (the MCP specification's revisions).
constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

// stderr passed on to the client: its head says what went wrong.
constexpr std::size_t kMaxStderrShown = 8192;

constexpr const char* kInstructions =
    "opmfu: operator-level MFU for PyTorch on Ascend. The workflow: lint the training scripts before "
    "collecting (lint), check the FLOPs formulas (registry_list, registry_check), after the run see whether "
    "FLOPs landed (check_db), compute OperatorMFU/ModuleMFU (analyze), then explain (report), check the "
    "recorded FLOPs (audit) and gate on thresholds (gate); flops computes one call's FLOPs by hand and demo "
    "writes data to rehearse on. Relative paths are resolved against the first root; nothing is written "
    "outside the roots. Every result is the command's JSON (docs/schema/).";

bool IsId(const json& id) { return id.is_string() || id.is_number_integer(); }

// file:///a%20b -> /a b; other schemes are not directories this server can use.
std::optional<std::filesystem::path> PathOfFileUri(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (!uri.starts_with(kScheme)) return std::nullopt;
  std::string_view rest = std::string_view(uri).substr(kScheme.size());
  if (!rest.starts_with('/')) {  // file://host/path: only the local host
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos || rest.substr(0, slash) != "localhost") return std::nullopt;
    rest.remove_prefix(slash);
  }
  std::string decoded;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size()) {
      const std::string hex(rest.substr(i + 1, 2));
      char* end = nullptr;
      const long value = std::strtol(hex.c_str(), &end, 16);
      if (end == hex.c_str() + 2) {
        decoded.push_back(static_cast<char>(value));
        i += 2;
        continue;
      }
    }
    decoded.push_back(rest[i]);
  }
  if (decoded.find('\0') != std::string::npos) return std::nullopt;
  return std::filesystem::path(decoded);
}

// The message of a failed command: its error object, else its first error line, else the code.
std::string FailureMessage(const json& document, const std::string& standard_error, int exit_code) {
  if (document.is_object() && document.contains("error") && document["error"].is_object()) {
    return document["error"].value("message", std::string("failed"));
  }
  const std::size_t at = standard_error.find("opmfu: error: ");
  if (at != std::string::npos) {
    const std::size_t end = standard_error.find('\n', at);
    return standard_error.substr(at + 14, end == std::string::npos ? std::string::npos : end - at - 14);
  }
  return "the command failed with exit code " + std::to_string(exit_code);
}

json TextContent(const std::string& text) { return {{"type", "text"}, {"text", text}}; }

json ToolError(const std::string& message) {
  return {{"content", json::array({TextContent(message)})}, {"isError", true}};
}

// What to do when a result is too large: the arguments that narrow each tool's output.
std::string NarrowingHint(const ToolDefinition& tool) {
  const std::string_view name = tool.name;
  if (name == "lint" || name == "registry_check") return "lint fewer paths per call, or pass select";
  if (name == "report" || name == "audit") return "pass rank_list or top to ask for less";
  return "ask for less in one call";
}

}  // namespace

Server::Server(ServerOptions options) : options_(std::move(options)) {
  if (!options_.roots.empty()) {
    roots_from_flag_ = true;
    for (const std::filesystem::path& root : options_.roots) {
      std::error_code error;
      const std::filesystem::path absolute = std::filesystem::absolute(root, error);
      roots_.directories.push_back(error ? root : absolute.lexically_normal());
    }
  }
}

bool Server::Saturated() const { return waiting_.size() >= kMaxWaitingCalls || waiting_bytes_ >= kMaxWaitingBytes; }

int Server::Run() {
  while (!output_broken_) {
    StartWaitingCalls();
    if (input_closed_ && running_.empty() && waiting_.empty() && blocked_.empty()) break;
    // One poll over the client's input (unless the waiting calls fill their bound) and every running
    // command's streams: each call goes on while the others run and the client is answered.
    std::vector<pollfd> fds;
    std::vector<RunningCall*> owners;
    const bool reading = !input_closed_ && !Saturated();
    if (reading) {
      fds.push_back({options_.input_fd, POLLIN, 0});
      owners.push_back(nullptr);
    }
    for (RunningCall& call : running_) {
      for (const int fd : call.child.OpenDescriptors()) {
        fds.push_back({fd, POLLIN, 0});
        owners.push_back(&call);
      }
    }
    if (fds.empty()) break;  // nothing can change any more (cannot happen: a waiting call starts above)
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) == 0) continue;
      if (owners[i] == nullptr) {
        ReadInput();
      } else if (!owners[i]->cancelled) {
        ReadChild(*owners[i], fds[i].fd);
      }
    }
    // Finished calls are answered (and cancelled ones dropped) after the poll round, so no pointer
    // above outlives its call.
    for (auto call = running_.begin(); call != running_.end();) {
      if (!call->cancelled && !call->child.Drained()) {
        ++call;
        continue;
      }
      if (!call->cancelled) FinishCall(*call);
      call = running_.erase(call);
    }
  }
  return output_broken_ ? 3 : 0;
}

void Server::ReadInput() {
  char buffer[65536];
  ssize_t n = -1;
  do {
    n = ::read(options_.input_fd, buffer, sizeof buffer);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    input_closed_ = true;
    // The roots will never come: the calls waiting for them are answered, not run with roots the
    // client never gave.
    if (pending_roots_request_) {
      pending_roots_request_.reset();
      for (const WaitingCall& call : blocked_) {
        Send({{"jsonrpc", "2.0"},
              {"id", call.id},
              {"result", ToolError("the client closed its input before answering roots/list: nothing was run")}});
      }
      blocked_.clear();
      blocked_bytes_ = 0;
    }
    return;
  }
  std::string_view chunk(buffer, static_cast<std::size_t>(n));
  while (!chunk.empty()) {
    const std::size_t newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (!skipping_long_line_) input_.append(piece);
    if (input_.size() > kMaxLineBytes) {
      input_.clear();
      input_.shrink_to_fit();
      if (!skipping_long_line_) SendError(nullptr, kInvalidRequest, "a message longer than 4 MB");
      skipping_long_line_ = true;
    }
    if (newline == std::string_view::npos) break;
    chunk.remove_prefix(newline + 1);
    if (skipping_long_line_) {
      skipping_long_line_ = false;
      continue;
    }
    std::string line = std::move(input_);
    input_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // Checked before parsing: a copy or a dump of a value is recursive, so a line of 100,000
    // brackets must never become a value.
    if (!CheckJsonNesting(line, "the message", kMaxNesting).ok()) {
      SendError(nullptr, kInvalidRequest,
                "a message nested deeper than " + std::to_string(kMaxNesting) + " arrays or objects");
      continue;
    }
    // A line that is not JSON is a discarded value: Dispatch answers it with a parse error.
    const json message = json::parse(line, nullptr, /*allow_exceptions=*/false);
    Process(message, line.size());
  }
}

void Server::ReadChild(RunningCall& call, int fd) {
  if (call.child.ReadFrom(fd) == ChildStream::kStdout) {
    // Past the bound nothing more of it is used: stop the command now rather than read on.
    if (call.child.output_truncated()) call.child.Kill();
    return;
  }
  for (const std::string& line : call.child.TakeProgressLines()) {
    // "DONE TOTAL" after each rank.
    std::size_t done = 0;
    std::size_t total = 0;
    if (std::sscanf(line.c_str(), "%zu %zu", &done, &total) != 2 || static_cast<double>(done) <= call.progress) {
      continue;
    }
    call.progress = static_cast<double>(done);
    Notify(call, total, std::to_string(done) + " of " + std::to_string(total) + " ranks done");
  }
}

void Server::StartWaitingCalls() {
  while (!waiting_.empty() && running_.size() < kMaxRunningCalls && !output_broken_) {
    WaitingCall call = std::move(waiting_.front());
    waiting_.pop_front();
    waiting_bytes_ -= std::min(waiting_bytes_, call.bytes);
    StartCall(call.id, call.params);
  }
}

void Server::Process(const json& message, std::size_t bytes) {
  try {
    Dispatch(message, bytes);
  } catch (const json::exception& error) {
    // A field of the wrong type deep in params: the request is answered, the server goes on.
    const json id = message.is_object() && message.contains("id") && IsId(message["id"]) ? message["id"] : json();
    SendError(id, kInvalidParams, std::string("invalid params: ") + error.what());
  }
}

void Server::Dispatch(const json& message, std::size_t bytes) {
  if (message.is_discarded()) {
    SendError(nullptr, kParseError, "parse error: not valid JSON");
    return;
  }
  if (!message.is_object()) {
    SendError(nullptr, kInvalidRequest,
              message.is_array() ? "batches are not supported: send one message per line" : "a message is an object");
    return;
  }
  const json id = message.contains("id") ? message["id"] : json();
  if (!message.contains("jsonrpc") || message["jsonrpc"] != "2.0") {
    SendError(IsId(id) ? id : json(), kInvalidRequest, "jsonrpc must be \"2.0\"");
    return;
  }
  if (!message.contains("method")) {
    if (IsId(id) && (message.contains("result") || message.contains("error"))) {
      HandleResponse(message);
    } else {
      SendError(IsId(id) ? id : json(), kInvalidRequest, "neither a request, a notification nor a response");
    }
    return;
  }
  if (!message["method"].is_string()) {
    SendError(IsId(id) ? id : json(), kInvalidRequest, "method must be a string");
    return;
  }
  const std::string method = message["method"].get<std::string>();
  const json params = message.contains("params") ? message["params"] : json::object();
  if (!params.is_object()) {
    if (IsId(id)) SendError(id, kInvalidParams, "params must be an object");
    return;
  }
  if (!message.contains("id")) {
    HandleNotification(method, params);
    return;
  }
  if (!IsId(id)) {
    SendError(nullptr, kInvalidRequest, "id must be a string or an integer");
    return;
  }
  HandleRequest(id, method, params, bytes);
}

void Server::HandleRequest(const json& id, const std::string& method, const json& params, std::size_t bytes) {
  if (method == "initialize") {
    Initialize(id, params);
  } else if (method == "ping") {
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", json::object()}});
  } else if (method == "tools/list") {
    json tools = json::array();
    for (const ToolDefinition& tool : Tools()) tools.push_back(ToolListing(tool));
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"tools", tools}}}});
  } else if (method == "tools/call") {
    // A call that names no tool is answered at once; the others take their turn.
    if (!params.contains("name") || !params["name"].is_string()) {
      SendError(id, kInvalidParams, "tools/call needs the tool's name");
    } else if (FindTool(params["name"].get<std::string>()) == nullptr) {
      SendError(id, kInvalidParams, "unknown tool: " + params["name"].get<std::string>());
    } else if (!pending_roots_request_) {
      waiting_.push_back({id, params, bytes});
      waiting_bytes_ += bytes;
    } else if (blocked_.size() < kMaxWaitingCalls && blocked_bytes_ + bytes <= kMaxWaitingBytes) {
      // Paths cannot be resolved before the client said its roots: the call waits for them.
      blocked_.push_back({id, params, bytes});
      blocked_bytes_ += bytes;
    } else {
      Send({{"jsonrpc", "2.0"},
            {"id", id},
            {"result", ToolError("too many calls wait for the client's answer to roots/list: answer it first")}});
    }
  } else {
    SendError(id, kMethodNotFound, "method not found: " + method);
  }
}

void Server::HandleNotification(const std::string& method, const json& params) {
  if (method == "notifications/initialized" || method == "notifications/roots/list_changed") {
    if (!roots_from_flag_ && client_has_roots_) AskForRoots();
  } else if (method == "notifications/cancelled") {
    if (params.contains("requestId")) Cancel(params["requestId"]);
  }
  // Other notifications need no answer and change nothing here.
}

void Server::HandleResponse(const json& message) {
  if (!pending_roots_request_ || message["id"] != *pending_roots_request_) return;
  pending_roots_request_.reset();
  Roots roots;
  if (message.contains("result") && message["result"].is_object() && message["result"].contains("roots") &&
      message["result"]["roots"].is_array()) {
    for (const json& root : message["result"]["roots"]) {
      if (!root.is_object() || !root.contains("uri") || !root["uri"].is_string()) continue;
      if (auto path = PathOfFileUri(root["uri"].get<std::string>())) roots.directories.push_back(*path);
    }
  }
  roots_ = std::move(roots);
  // The calls that waited run now, before anything read later.
  while (!blocked_.empty()) {
    waiting_bytes_ += blocked_.back().bytes;
    waiting_.push_front(std::move(blocked_.back()));
    blocked_.pop_back();
  }
  blocked_bytes_ = 0;
}

void Server::Cancel(const json& request_id) {
  // A cancelled request gets no answer (the MCP specification's cancellation rule).
  for (auto [calls, bytes] : {std::pair{&waiting_, &waiting_bytes_}, std::pair{&blocked_, &blocked_bytes_}}) {
    for (auto call = calls->begin(); call != calls->end(); ++call) {
      if (call->id != request_id) continue;
      *bytes -= std::min(*bytes, call->bytes);
      calls->erase(call);
      return;
    }
  }
  // Dropped after the poll round that read this (Run): its descriptors may still be in that round.
  for (RunningCall& call : running_) {
    if (call.id != request_id || call.cancelled) continue;
    (void)call.child.Terminate();
    call.cancelled = true;
    return;
  }
}

void Server::Initialize(const json& id, const json& params) {
  std::string version = kProtocolVersions[0];
  if (params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
    for (const char* known : kProtocolVersions) {
      if (params["protocolVersion"] == known) version = known;
    }
  }
  client_has_roots_ =
      params.contains("capabilities") && params["capabilities"].is_object() && params["capabilities"].contains("roots");
  Send({{"jsonrpc", "2.0"},
        {"id", id},
        {"result",
         {{"protocolVersion", version},
          {"capabilities", {{"tools", {{"listChanged", false}}}}},
          {"serverInfo", {{"name", "opmfu"}, {"title", "opmfu: operator-level MFU"}, {"version", options_.version}}},
          {"instructions", kInstructions}}}});
}

void Server::AskForRoots() {
  const std::string request_id = "opmfu-roots-" + std::to_string(next_request_++);
  pending_roots_request_ = request_id;
  Send({{"jsonrpc", "2.0"}, {"id", request_id}, {"method", "roots/list"}, {"params", json::object()}});
}

const Roots& Server::CurrentRoots() {
  if (roots_.directories.empty()) {
    // No root given and none from the client: the directory the client started us in.
    std::error_code error;
    const std::filesystem::path here = std::filesystem::current_path(error);
    if (!error) roots_.directories.push_back(here);
  }
  return roots_;
}

void Server::StartCall(const json& id, const json& params) {
  const std::string name = params["name"].get<std::string>();
  const ToolDefinition* tool = FindTool(name);  // known: HandleRequest checked it
  const json arguments = params.contains("arguments") ? params["arguments"] : json::object();
  json progress_token;
  if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains("progressToken")) {
    progress_token = params["_meta"]["progressToken"];
  }
  const auto answer = [&](json result) { Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}); };
  const Roots& roots = CurrentRoots();
  auto command_line = BuildCommandLine(*tool, arguments, roots);
  // Arguments that do not fit are a result the model can read and correct, not a protocol error.
  if (!command_line.ok()) return answer(ToolError(name + ": " + command_line.error().message));
  std::vector<std::string> argv = {options_.executable.string()};
  argv.insert(argv.end(), command_line->begin(), command_line->end());
  // The child's writer holds every file it writes beneath these, on the file it finally opens
  // (a link inside a root cannot carry a write out of it: docs/reliability.md).
  std::string write_roots = std::string(kWriteRootsVariable) + "=";
  for (const std::filesystem::path& root : roots.directories) {
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(root, ec);
    write_roots += (ec ? root.lexically_normal() : resolved).string() + "\n";
  }
  auto child =
      ChildProcess::Start(argv, roots.directories.empty() ? "/" : roots.directories.front().string(), {write_roots});
  if (!child.ok()) return answer(ToolError(child.error().message));
  running_.push_back(RunningCall{id, tool, progress_token, std::move(*child), 0});
  Notify(running_.back(), json(), "opmfu " + name + " started");
}

void Server::Notify(RunningCall& call, const json& total, const std::string& message) {
  if (call.progress_token.is_null()) return;
  json params = {{"progressToken", call.progress_token}, {"progress", call.progress}, {"message", message}};
  if (!total.is_null()) params["total"] = total;
  Send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}});
}

void Server::FinishCall(RunningCall& call) {
  json result = ToolResult(*call.tool, call);
  Send({{"jsonrpc", "2.0"}, {"id", call.id}, {"result", std::move(result)}});
}

json Server::ToolResult(const ToolDefinition& tool, RunningCall& call) {
  ChildProcess& child = call.child;
  const int exit_code = child.Wait();
  if (child.output_truncated()) {
    return ToolError(std::string(tool.name) + ": the result passed " + std::to_string(kMaxResultBytes >> 20) +
                     " MB of JSON, more than one answer may carry; nothing was returned: " + NarrowingHint(tool));
  }
  const std::string& out = child.standard_output();
  json document = json::parse(out, nullptr, /*allow_exceptions=*/false);
  const bool is_error_object = document.is_object() && document.contains("error") && document.size() == 1;
  std::string standard_error = child.standard_error();
  if (standard_error.size() > kMaxStderrShown) standard_error.resize(kMaxStderrShown);
  if ((exit_code != 0 && exit_code != 1) || document.is_discarded() || is_error_object) {
    json failure = ToolError(FailureMessage(document, standard_error, exit_code));
    if (!standard_error.empty()) failure["content"].push_back(TextContent("stderr:\n" + standard_error));
    return failure;
  }
  json content = json::array({TextContent(SummarizeResult(tool, document, exit_code)),
                              TextContent(document.dump(-1, ' ', false, json::error_handler_t::replace))});
  if (!standard_error.empty()) content.push_back(TextContent("stderr:\n" + standard_error));
  return {{"content", std::move(content)},
          {"structuredContent", StructuredContent(tool, std::move(document))},
          {"isError", false}};
}

void Server::Send(const json& message) {
  if (output_broken_) return;
  // dump() escapes every newline inside strings: one message, one line.
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(options_.output_fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      output_broken_ = true;
      return;
    }
    written += static_cast<std::size_t>(n);
  }
}

void Server::SendError(const json& id, int code, const std::string& message) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

}  // namespace opmfu::mcp
