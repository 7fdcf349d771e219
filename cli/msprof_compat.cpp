#include "cli/msprof_compat.h"

#include <algorithm>

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

std::string UpstreamPath(std::string path) {
  path.erase(0, path.find_first_not_of('='));
  if (path == "~" || path.starts_with("~/")) {
    if (const auto home = GetEnv("HOME"); home && !home->empty()) path = *home + path.substr(1);
  }
  return path;
}

}  // namespace opmfu::cli
