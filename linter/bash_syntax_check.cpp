#include "linter/bash_syntax_check.h"

#include <unistd.h>

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
  ChildOptions options;
  options.capture = ChildOptions::Capture::kStderr;
  options.timeout = kTimeLimit;
  options.max_output = kMaxErrorOutput;
  // An empty environment: no BASH_ENV or ENV file is read, and messages are in English.
  options.environment = std::vector<std::string>{"LC_ALL=C"};
  auto ran = RunChild({bash, "--norc", "--noprofile", "-O", "extglob", "-n", path}, options);
  if (!ran.ok()) return Unavailable("cannot run " + bash);
  switch (ran->end) {
    case ChildOutcome::End::kTimedOut:
      return Unavailable("bash -n did not finish within " + std::to_string(kTimeLimit.count()) + " s");
    case ChildOutcome::End::kSignalled:
      return Unavailable("bash -n was stopped by a signal");
    case ChildOutcome::End::kExited:
      break;
  }
  if (ran->exit_code == 0) return {BashVerdict::Kind::kAccepted, 0, {}};
  if (ran->exit_code == 126 || ran->exit_code == 127) return Unavailable("cannot run " + bash);
  BashVerdict verdict{BashVerdict::Kind::kRejected, 0, {}};
  ReadBashMessage(ran->output, path, verdict);
  if (verdict.message.empty()) verdict.message = "syntax error";
  return verdict;
}

}  // namespace opmfu::linter
