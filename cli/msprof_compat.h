#pragma once
// msprof-analyze's `cluster` command line on `opmfu analyze` (docs/cli.md, "msprof-analyze command
// lines"): what upstream accepts and opmfu has no use for is accepted here with upstream's meaning,
// so a job script switches by replacing one word.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu::cli {

/// The upstream options that change nothing in opmfu, and the words upstream ignores.
struct UpstreamFlags {
  /// --force: upstream skips its owner, permission and size checks; opmfu makes none of them.
  bool force = false;
  /// --parallel_mode: upstream knows only "concurrent" (its default).
  std::string parallel_mode = "concurrent";
  /// What the parser left over: the optional word `cluster`, unknown options and their values.
  std::vector<std::string> extras;
};

/// Adds --force and --parallel_mode and lets unknown words through (click's ignore_unknown_options).
void AddUpstreamOptions(CLI::App& command, UpstreamFlags& flags);
/// After parsing: keeps what the parser did not take (call from the command's callback).
void CollectUpstreamExtras(const CLI::App& command, UpstreamFlags& flags);

/// Usage errors for what upstream accepts but cannot do for operator_mfu either (a --parallel_mode
/// other than concurrent, --export_type notebook), and the warning naming the ignored words
/// (empty when there are none). `option_names` are the command's own, for a did-you-mean.
Result<std::string> CheckUpstreamFlags(const UpstreamFlags& flags, const std::string& export_type,
                                       const std::vector<std::string>& option_names);

/// What a command line in msprof-analyze's shape asks of opmfu: `msprof-analyze [cluster] -m operator_mfu
/// -d DIR ...` spelled `opmfu [cluster] -m operator_mfu ...` or run through a link named `msprof-analyze`.
struct UpstreamCommandLine {
  enum class Ask {
    kNotUpstream,  ///< opmfu's own command line: parse it as it is
    kAnalyze,      ///< run `opmfu analyze <analyze_args>`
    kVersion,      ///< upstream's eager -V/-v/--version
  };
  Ask ask = Ask::kNotUpstream;
  std::vector<std::string> analyze_args;
};

/// Reads `args` (argv without the program) in msprof-analyze's shape, as its click group does: no known
/// subcommand means `cluster`; `-V`/`-v`/`--version` anywhere print the version (in `opmfu analyze`
/// itself `-v` stays --verbose); `-H` is help. A usage error for what opmfu does not implement:
/// another `-m` (upstream's default `all` included, when `-m` is given) or upstream's `advisor`,
/// `compare` and `auto-completion`, naming the msprof-analyze command to run instead.
Result<UpstreamCommandLine> ReadUpstreamCommandLine(std::string_view program, const std::vector<std::string>& args);

/// The usage error for `-m MODE` other than operator_mfu in `words` (the words after `analyze`, or an
/// upstream-shaped command line), naming the msprof-analyze command to run; Ok when -m is operator_mfu
/// or absent.
Status CheckUpstreamMode(const std::vector<std::string>& words);

/// A path as upstream reads it: a leading `=` dropped (`-d=dir`), `~` expanded from $HOME.
std::string UpstreamPath(std::string path);

}  // namespace opmfu::cli
