#include "lint/dynamic_config_stage.h"

#include <filesystem>
#include <memory>
#include <vector>

#include "common/file_io.h"
#include "common/text.h"
#include "lint/inputs.h"
#include "linter/dynamic_config.h"
#include "rules/lint_checks.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

std::optional<std::string> FindDynamicConfig(const std::string& directory, const std::string& named_in) {
  const fs::path dir = directory;
  std::error_code ec;
  std::vector<fs::path> candidates;
  if (dir.is_absolute()) {
    candidates.push_back(dir / kDynamicConfigName);
  } else {
    candidates.push_back(fs::path(named_in).parent_path() / dir / kDynamicConfigName);
    candidates.push_back(dir / kDynamicConfigName);
  }
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

std::string MissingConfigMessage(const std::string& directory) {
  return "the dynamic profiler reads `" + (fs::path(directory) / kDynamicConfigName).string() +
         "`, which was not found, so its settings are not checked (torch_npu writes a template there that collects "
         "no FLOPs)";
}

FileOutcome LintDynamicConfig(const std::string& path, const LintOptions& options, const Effective& effective) {
  FileOutcome outcome;
  auto read = ReadTextFile(path);
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
  const auto severity = Enabled(effective, "OPM001");
  if (config->invalid && severity) {
    const auto& [where, cause] = *config->invalid;
    linted.diagnostics.push_back(MetaDiagnostic(
        *rules::FindRule("OPM001"), *severity, path, where.range(),
        "not valid JSON (" + cause + "): json.load fails, so torch_npu ignores the whole config", where.snippet()));
  } else if (!config->top_is_object && severity) {
    linted.diagnostics.push_back(MetaDiagnostic(*rules::FindRule("OPM001"), *severity, path, config->document.range(),
                                                "the config is not a JSON object, so torch_npu ignores it",
                                                config->document.snippet()));
  }
  outcome.has_profiler_call = true;
  const linter::ProfilerFacts facts = linter::DynamicConfigFacts(config);
  for (Diagnostic& d : rules::CheckProfilerFacts(facts, effective)) linted.diagnostics.push_back(std::move(d));
  rules::SortAndDeduplicate(linted.diagnostics);
  if (options.keep_sources) linted.source = *config->source->text;
  outcome.linted = std::move(linted);
  return outcome;
}

}  // namespace opmfu::lint
