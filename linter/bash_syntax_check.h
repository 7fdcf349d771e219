#pragma once
// A second opinion on launchers tree-sitter-bash cannot parse. The grammar rejects some valid
// bash (a command continued by `\` up to the end of the file, `${V:-['a','b']}`, arithmetic in a
// default, `<placeholder>` redirections, `${V:$N+1}`); bash itself is the authority on what is a
// syntax error, so `bash -n` (parse only: nothing runs, no startup file is read) decides before
// a definite OPM001 is reported.

#include <optional>
#include <string>

namespace opmfu::linter {

struct BashVerdict {
  enum class Kind {
    kAccepted,     ///< bash parses the file
    kRejected,     ///< bash reports a syntax error
    kUnavailable,  ///< no bash to ask, or it did not answer in time
  };
  Kind kind = Kind::kUnavailable;
  int line = 0;         ///< for kRejected: the 1-based line bash names (0: none named)
  std::string message;  ///< for kRejected: bash's words ("syntax error near unexpected token `>'");
                        ///< for kUnavailable: why
};

/// The bash to ask: an executable `bash` on PATH, else /bin/bash; nullopt when there is none.
std::optional<std::string> FindBash();

/// Runs `bash -n` on `path` (an empty environment, `-O extglob` so extended patterns parse,
/// stdin and stdout closed, a time limit); never runs the file's commands.
BashVerdict CheckWithBash(const std::string& bash, const std::string& path);

}  // namespace opmfu::linter
