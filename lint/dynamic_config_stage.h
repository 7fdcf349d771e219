#pragma once
// profiler_config.json, the dynamic profiler's config: where a program finds it, and its lint.

#include <optional>
#include <string>
#include <string_view>

#include "lint/stage.h"

namespace opmfu::lint {

/// The profiler_config.json of a dynamic-profiler directory as the program would see it: relative
/// to the file that names it (launcher or script), else to the current directory.
std::optional<std::string> FindDynamicConfig(const FileReader& files, const std::string& directory,
                                             const std::string& named_in);

/// A dynamic-profiler config: what torch_npu's json.load would reject, then the same rules as a
/// profile(...) call plus the JSON-only ones.
FileOutcome LintDynamicConfig(const std::string& path, const LintOptions& options, const Effective& effective);

}  // namespace opmfu::lint
