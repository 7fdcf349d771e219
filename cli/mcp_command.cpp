// `opmfu mcp`: serve the agent workflow (docs/agent.md) as MCP tools over stdio.

#include <csignal>
#include <memory>

#include "cli/cli_support.h"
#include "mcp/server.h"

namespace opmfu::cli {
namespace {

struct McpFlags {
  std::vector<std::string> roots;
};

int RunMcp(const McpFlags& flags) {
  mcp::ServerOptions options;
  // The tools run this very binary, so the server and its commands are always the same version.
  options.executable = "/proc/self/exe";
  options.version = OPMFU_VERSION;
  for (const std::string& root : flags.roots) {
    std::error_code error;
    if (!std::filesystem::is_directory(root, error)) {
      return ReportError(Error::Input(root + ": --root is not a directory"));
    }
    options.roots.emplace_back(root);
  }
  // A client that goes away mid-answer is the end of the session, not a signal.
  (void)std::signal(SIGPIPE, SIG_IGN);
  mcp::Server server(std::move(options));
  return server.Run();
}

}  // namespace

void AddMcpCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<McpFlags>();
  CLI::App* command = app.add_subcommand("mcp", "serve the agent workflow as MCP tools (stdio; docs/agent.md)");
  command->add_option("--root", flags->roots,
                      "the directory relative paths resolve against and writes stay inside (repeatable; default: "
                      "the client's MCP roots, else the working directory)");
  command->footer(
      "Speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (the MCP stdio transport). Tools: lint, "
      "registry_list, registry_check, check_db, analyze, report, flops, audit, gate, demo.");
  command->callback([flags, &action] { action = [flags] { return RunMcp(*flags); }; });
}

}  // namespace opmfu::cli
