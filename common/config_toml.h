#pragma once
// `[tool.opmfu]` in pyproject.toml (and `--config FILE.toml`): the same keys as `.opmfu.yaml`, read
// with toml++ and handed to the YAML config reader as the tree it reads, so both spellings of a
// config mean the same and are checked the same (docs/configuration.md).

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/result.h"

namespace opmfu {

/// The opmfu table of a TOML file as a YAML tree: `[tool.opmfu]`, else (when `top_level_allowed`,
/// a file made for opmfu alone) the whole document. nullopt when the file has no `[tool.opmfu]`
/// and `top_level_allowed` is false. A TOML syntax error is a usage error naming file, line, column.
Result<std::optional<YAML::Node>> TomlConfigTree(const std::filesystem::path& path, const std::string& text,
                                                 bool top_level_allowed);

}  // namespace opmfu
