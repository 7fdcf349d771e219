#include "cli/cli_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "common/file_io.h"

namespace opmfu::cli {

int ReportError(const Error& error) {
  std::cerr << "opmfu: error: " << error.message << "\n";
  switch (error.kind) {
    case Error::Kind::kInput:
    case Error::Kind::kUsage:
      return kExitUsage;
    case Error::Kind::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

void ReportWarning(std::string_view message) { std::cerr << "opmfu: warning: " << message << "\n"; }

Status EmitOutput(std::string_view content, const std::string& output_path) {
  if (output_path.empty() || output_path == "-") {
    std::cout << content;
    std::cout.flush();
    if (!std::cout) return Error::Input("stdout: write failed");
    return Ok();
  }
  return WriteFileAtomically(output_path, content);
}

void AddProfilingPathOption(CLI::App& command, std::string& path, const std::string& help) {
  command.add_option("-d,--profiling-path,--profiling_path", path, help)->required();
}

std::optional<std::string> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool UseColor(std::string_view mode, bool writing_to_file) {
  if (mode == "always") return true;
  if (mode == "never" || writing_to_file) return false;
  const auto no_color = GetEnv("NO_COLOR");
  return (!no_color || no_color->empty()) && ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace opmfu::cli
