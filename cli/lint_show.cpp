// `opmfu lint --show-files` and `--show-settings`: lint/show.h's answers on stdout.

#include <iostream>

#include "cli/lint_flags.h"
#include "common/text.h"
#include "lint/show.h"

namespace opmfu::cli {

std::optional<int> RunLintShow(const LintFlags& flags, const std::vector<std::string>& paths,
                               const lint::LintOptions& options) {
  if (flags.show_settings) {
    auto settings = lint::ShowSettings(paths.front(), options);
    if (!settings.ok()) return ReportError(settings.error());
    std::cout << *settings;
    return kExitOk;
  }
  if (!flags.show_files) return std::nullopt;
  auto shown = lint::FilesToLint(paths, options);
  if (!shown.ok()) return ReportError(shown.error());
  int code = kExitOk;
  for (const Error& error : shown->errors) code = ReportError(error);
  for (const std::string& file : shown->files) std::cout << EscapeControlCharacters(file) << "\n";
  return code;
}

}  // namespace opmfu::cli
