// The MCP server's framing (issue 47): the input is what a client writes to `opmfu mcp`'s stdin,
// newline-delimited JSON-RPC. The server must end when the input does, answer only in whole lines
// that are JSON-RPC 2.0 objects, stay within its line and queue bounds, and never crash. Tool
// commands cannot start here (the executable does not exist), so what is fuzzed is the framing,
// the dispatch, the argument checks and the queues, not the commands. The first byte chooses
// between roots given by --root and roots asked of the client (a roots/list round trip).
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "mcp/server.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path& scratch = opmfu::fuzz::ScratchDirectory();
  const std::filesystem::path input = scratch / "mcp-input";
  const std::filesystem::path output = scratch / "mcp-output";
  {
    std::ofstream(input, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const int in = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
  const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (in < 0 || out < 0) std::abort();
  opmfu::mcp::ServerOptions options;
  options.executable = scratch / "no-such-opmfu";
  options.version = "0.0.0-fuzz";
  if (size > 0 && data[0] % 2 == 0) options.roots = {scratch};
  options.input_fd = in;
  options.output_fd = out;
  const int code = opmfu::mcp::Server(options).Run();
  ::close(in);
  ::close(out);
  if (code != 0) std::abort();  // only a broken output ends it otherwise, and a file does not break

  std::ifstream answers(output, std::ios::binary);
  std::string line;
  while (std::getline(answers, line)) {
    const nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (message.is_discarded() || !message.is_object() || message.value("jsonrpc", "") != "2.0") std::abort();
    // An answer carries either a result or an error; the server's own requests carry a method.
    const bool answer = message.contains("result") != message.contains("error");
    if (!answer && !message.contains("method")) std::abort();
  }
  return 0;
}
