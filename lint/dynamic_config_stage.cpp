#include "lint/dynamic_config_stage.h"

#include <filesystem>
#include <memory>
#include <vector>

#include "common/text.h"
#include "lint/inputs.h"
#include "linter/dynamic_config.h"
#include "rules/lint_checks.h"
#include "rules/meta_checks.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

std::optional<std::string> FindDynamicConfig(const FileReader& files, const std::string& directory,
                                             const std::string& named_in) {
  const fs::path dir = directory;
  std::vector<fs::path> candidates;
  if (dir.is_absolute()) {
    candidates.push_back(dir / kDynamicConfigName);
  } else {
    candidates.push_back(fs::path(named_in).parent_path() / dir / kDynamicConfigName);
    candidates.push_back(dir / kDynamicConfigName);
  }
  for (const fs::path& candidate : candidates) {
    if (files.IsFile(candidate.string())) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

FileOutcome LintDynamicConfig(const std::string& path, const LintOptions& options, const Effective& effective) {
  FileOutcome outcome;
  auto read = FilesOf(options).ReadFile(path);
  if (!read.ok()) {
    outcome.error = read.take_error();
    return outcome;
  }
  if (!IsValidUtf8(*read)) {
    outcome.error = Error::Input(path + ": not valid UTF-8 (JSON must be)");
    return outcome;
  }
  auto parsed = linter::ReadDynamicConfig(path, std::move(*read));
  if (!parsed.ok()) {
    outcome.error = parsed.take_error();
    return outcome;
  }
  auto config = std::make_shared<const linter::DynamicConfig>(std::move(*parsed));
  LintedFile linted;
  linted.path = path;
  linted.parsed_cleanly = !config->invalid;
  linted.diagnostics = rules::CheckMeta(rules::JsonParse{path, *config}, effective);
  outcome.has_profiler_call = true;
  const linter::ProfilerFacts facts = linter::DynamicConfigFacts(config);
  for (Diagnostic& d : rules::CheckProfilerFacts(facts, effective)) linted.diagnostics.push_back(std::move(d));
  rules::SortAndDeduplicate(linted.diagnostics);
  if (options.keep_sources) linted.source = *config->source->text;
  outcome.linted = std::move(linted);
  return outcome;
}

}  // namespace opmfu::lint
