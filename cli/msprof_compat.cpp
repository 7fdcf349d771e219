#include "cli/msprof_compat.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>

#include "cli/cli_support.h"
#include "common/text.h"

namespace opmfu::cli {

void AddUpstreamOptions(CLI::App& command, UpstreamFlags& flags) {
  command.add_flag("--force", flags.force,
                   "accepted for msprof-analyze compatibility: upstream skips its owner, size and permission "
                   "checks; opmfu makes none of them (docs/cli.md)");
  command
      .add_option("--parallel_mode,--parallel-mode", flags.parallel_mode,
                  "accepted for msprof-analyze compatibility: concurrent (ranks run on --jobs threads)")
      ->capture_default_str()
      ->check(Choices({"concurrent"}));
  // click's ignore_unknown_options with upstream's `args` (nargs=-1): an unknown option and the
  // words after it are swallowed, not refused; the word `cluster` (upstream's default command) too.
  command.allow_extras();
}

void CollectUpstreamExtras(const CLI::App& command, UpstreamFlags& flags) {
  flags.extras = command.remaining();
  // `msprof-analyze cluster -d ...` -> `opmfu analyze cluster -d ...`: the command's name, not an extra.
  if (!flags.extras.empty() && flags.extras.front() == "cluster") flags.extras.erase(flags.extras.begin());
}

Result<std::string> CheckUpstreamFlags(const UpstreamFlags& flags, const std::string& export_type,
                                       const std::vector<std::string>& option_names) {
  if (flags.parallel_mode != "concurrent") {
    return Error::Usage("--parallel_mode " + flags.parallel_mode +
                        ": msprof-analyze knows only concurrent (other modes fail with \"mode must be in "
                        "['concurrent']\"); opmfu analyses ranks on --jobs threads");
  }
  if (export_type == "notebook") {
    return Error::Usage(
        "--export_type notebook is not supported for operator_mfu, by msprof-analyze either (it logs \"Invalid "
        "export type: notebook for operator mfu analysis\" and writes nothing): use db or text");
  }
  if (flags.extras.empty()) return std::string();
  std::string words;
  std::string hint;
  for (const std::string& word : flags.extras) {
    words += (words.empty() ? "" : " ") + word;
    if (hint.empty() && word.starts_with("-")) hint = DidYouMean(word.substr(0, word.find('=')), option_names);
  }
  // Upstream's own wording (base_recipe_analysis.get_extra_argument), then what opmfu did.
  return "Invalid parameters: " + words + ". It will not have any effect (ignored, as msprof-analyze ignores them)" +
         hint;
}

namespace {

// Upstream's `cluster` options (msprof_analyze/cli/cluster_cli.py): one of them in a command line that
// starts with an option is what makes `opmfu -m operator_mfu -d DIR` msprof-analyze's shape.
constexpr std::array<std::string_view, 12> kClusterOptions = {
    "-d",          "--profiling_path", "-m",      "--mode",          "-o",     "--output_path", "--export_type",
    "--rank_list", "--step_id",        "--force", "--parallel_mode", "--agent"};
// Upstream's other commands: opmfu implements none of them.
constexpr std::array<std::string_view, 3> kOtherUpstreamCommands = {"advisor", "compare", "auto-completion"};

bool IsClusterOption(std::string_view word) {
  for (const std::string_view option : kClusterOptions) {
    if (word == option) return true;
    // `--profiling_path=DIR`, `-d=DIR`, `-dDIR` (click takes a short option's value attached).
    if (word.starts_with(option) && (option.size() == 2 || word[option.size()] == '=')) return true;
  }
  return false;
}

bool IsVersionFlag(std::string_view word) { return word == "-V" || word == "-v" || word == "--version"; }
bool IsHelpFlag(std::string_view word) { return word == "-H" || word == "-h" || word == "--help"; }

// A word as a shell reads it back: quoted when it holds anything beyond the plain characters.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./=:,@%+-~").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string UpstreamCommand(const std::vector<std::string>& words) {
  std::string command = "msprof-analyze";
  for (const std::string& word : words) command += " " + ShellWord(word);
  return command;
}

}  // namespace

Status CheckUpstreamMode(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i < words.size() && words[i] != "--"; ++i) {
    const std::string& word = words[i];
    std::optional<std::string> mode;
    if ((word == "-m" || word == "--mode") && i + 1 < words.size()) {
      mode = words[i + 1];
    } else if (word.starts_with("--mode=")) {
      mode = word.substr(7);
    } else if (word.starts_with("-m") && word.size() > 2 && !word.starts_with("--")) {
      mode = UpstreamPath(word.substr(2));  // `-m=all` as click reads it, `-mall`
    }
    if (!mode || *mode == "operator_mfu") continue;
    return Error::Usage("-m " + *mode + ": opmfu implements only msprof-analyze's operator_mfu; for " + *mode +
                        " run msprof-analyze itself (pip install msprof-analyze): " + UpstreamCommand(words));
  }
  return Ok();
}

Result<UpstreamCommandLine> ReadUpstreamCommandLine(std::string_view program, const std::vector<std::string>& args) {
  UpstreamCommandLine line;
  const bool through_link = std::filesystem::path(program).filename() == "msprof-analyze";
  std::vector<std::string> words = args;
  if (!through_link) {
    if (words.empty()) return line;
    if (words.front() == "analyze") {
      OPMFU_RETURN_IF_ERROR(CheckUpstreamMode({words.begin() + 1, words.end()}));
      return line;
    }
    const bool shaped =
        words.front() == "cluster" ||
        (words.front().starts_with("-") && !IsHelpFlag(words.front()) &&
         std::any_of(words.begin(), words.end(), [](const std::string& w) { return IsClusterOption(w); }));
    if (!shaped) return line;
  } else {
    // The group's own options come first: `msprof-analyze -V`, `msprof-analyze --help`.
    if (words.empty()) words = {"--help"};  // upstream prints its help
    const auto command =
        std::find_if(words.begin(), words.end(), [](const std::string& w) { return !w.starts_with("-"); });
    if (command != words.end() &&
        std::find(kOtherUpstreamCommands.begin(), kOtherUpstreamCommands.end(), *command) !=
            kOtherUpstreamCommands.end() &&
        std::all_of(words.begin(), command, [](const std::string& w) { return IsVersionFlag(w) || IsHelpFlag(w); })) {
      return Error::Usage("msprof-analyze " + *command + ": opmfu implements only msprof-analyze's cluster -m " +
                          "operator_mfu; run msprof-analyze itself for " + *command +
                          " (pip install msprof-analyze): " + UpstreamCommand(words));
    }
  }
  if (!words.empty() && words.front() == "cluster") words.erase(words.begin());
  for (std::string& word : words) {
    if (word == "--") break;
    // click's eager --version: whatever else the line holds, it prints the version and exits 0.
    if (IsVersionFlag(word)) {
      line.ask = UpstreamCommandLine::Ask::kVersion;
      return line;
    }
    if (word == "-H") word = "--help";
  }
  OPMFU_RETURN_IF_ERROR(CheckUpstreamMode(words));
  line.ask = UpstreamCommandLine::Ask::kAnalyze;
  line.analyze_args = std::move(words);
  return line;
}

std::string UpstreamPath(std::string path) {
  path.erase(0, path.find_first_not_of('='));
  if (path == "~" || path.starts_with("~/")) {
    if (const auto home = GetEnv("HOME"); home && !home->empty()) path = *home + path.substr(1);
  }
  return path;
}

}  // namespace opmfu::cli
