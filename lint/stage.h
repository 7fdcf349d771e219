#pragma once
// What the lint stages share: the rules in force for a file, and one file's outcome.

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/diagnostic.h"
#include "lint/lint.h"
#include "rules/rule_table.h"

namespace opmfu::lint {

/// Rule id -> severity (nullopt: off); a rule absent from the map keeps its default.
using Effective = std::map<std::string, std::optional<Severity>>;
using SharedEffective = std::shared_ptr<const Effective>;

/// The reader of a run's files (LintOptions::files, else the disk).
inline const FileReader& FilesOf(const LintOptions& options) {
  return options.files != nullptr ? *options.files : DiskFiles();
}

// The rules in force for each file. Files under one config without per-file ignores share one
// map: a thousand launchers would otherwise each build and keep their own.
class EffectiveRulesCache {
 public:
  EffectiveRulesCache(const RuleOverrides& overrides, std::span<const RuleDescriptor> rules)
      : overrides_(overrides), rules_(rules) {}

  SharedEffective For(const Config& config, const std::string& path);

 private:
  const RuleOverrides& overrides_;
  std::span<const RuleDescriptor> rules_;
  std::map<std::string, SharedEffective> by_config_;
};

struct FileOutcome {
  std::optional<LintedFile> linted;
  std::vector<Diagnostic> elsewhere;  ///< findings located in a launcher
  std::optional<Error> error;
  bool skipped = false;
  /// Why, when it was skipped for a reason the user may want to know (said under --verbose).
  std::string skipped_because;
  bool has_profiler_call = false;
  std::vector<std::string> dynamic_configs;  ///< profiler_config.json files its dp.init calls read
  std::vector<TracedSite> sites;             ///< with LintOptions::keep_settings
};

}  // namespace opmfu::lint
