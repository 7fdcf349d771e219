#pragma once
// `[tool.opmfu]` in pyproject.toml (and `--config FILE.toml`): the same keys as `.opmfu.yaml`, read
// with toml++ and handed to the YAML config reader as the tree it reads, so both spellings of a
// config mean the same and are checked the same (docs/configuration.md).

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace opmfu {

/// Nesting a TOML config may have: dotted key parts, table header parts, inline tables and arrays
/// each count a level. toml++ builds (and destroys) one table per level recursively, as does the
/// conversion below, so a 60 KB key of 30,000 parts overflows the stack.
inline constexpr std::size_t kMaxTomlDepth = 128;
/// Keys (and table headers) a TOML config may hold: a pyproject.toml holds hundreds; tens of
/// thousands cost toml++ and the conversion quadratic time.
inline constexpr std::size_t kMaxTomlKeys = 10000;

/// Checks, in one pass that builds nothing, that `text` stays within kMaxTomlDepth and
/// kMaxTomlKeys. The error is one line naming `path`, the limit and the line where it was passed.
Status CheckTomlLimits(const std::filesystem::path& path, std::string_view text);

/// The opmfu table of a TOML file as a YAML tree: `[tool.opmfu]`, else (when `top_level_allowed`,
/// a file made for opmfu alone) the whole document. nullopt when the file has no `[tool.opmfu]`
/// and `top_level_allowed` is false. A TOML syntax error is a usage error naming file, line, column;
/// so is a file past CheckTomlLimits (checked before toml++ sees it).
Result<std::optional<YAML::Node>> TomlConfigTree(const std::filesystem::path& path, const std::string& text,
                                                 bool top_level_allowed);

}  // namespace opmfu
