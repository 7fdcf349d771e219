#pragma once
// The tools `opmfu mcp` offers: docs/agent.md's workflow, one opmfu command each. A tool's
// input schema, its command line and its path checks all come from one table, so they cannot
// drift apart.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::mcp {

enum class ArgumentType {
  kString,
  kStringList,
  kInteger,
  kNumber,
  kBoolean,
  kStringMap,  ///< {"name": "value"}: flops' keyword arguments
  kThreshold,  ///< 0.4 or "40%": gate's thresholds
};

/// What a path argument is for: read anywhere, or written (then it must lie inside a root).
enum class PathUse { kNotAPath, kRead, kWrite };

struct ToolArgument {
  std::string_view name;
  ArgumentType type = ArgumentType::kString;
  std::string_view description;
  /// The option it becomes ("--run"); empty for a positional value (after `--`).
  std::string_view flag;
  bool required = false;
  PathUse path = PathUse::kNotAPath;
  std::vector<std::string_view> choices;
};

struct ToolDefinition {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::vector<std::string_view> command;     ///< {"registry", "list"}
  std::vector<std::string_view> json_flags;  ///< what makes it print JSON
  std::string_view schema_file;              ///< docs/schema/<file>
  /// For a command whose JSON is not an object (lint's array): the key it is put under, since
  /// MCP's structuredContent is an object.
  std::string_view wrap_key;
  std::vector<ToolArgument> arguments;
  /// analyze writes into its profiling directory unless given an output path.
  std::string_view written_into_unless_output;
  bool reports_progress = false;
};

const std::vector<ToolDefinition>& Tools();
const ToolDefinition* FindTool(std::string_view name);

/// The tool's entry in tools/list: name, title, description, inputSchema, outputSchema.
nlohmann::json ToolListing(const ToolDefinition& tool);
/// The output schema (the docs/schema/ file, made an object schema when the JSON is not one).
nlohmann::json OutputSchema(const ToolDefinition& tool);

/// The command's JSON as structuredContent: itself when it is an object (lint with run), else under
/// wrap_key (lint's findings array).
nlohmann::json StructuredContent(const ToolDefinition& tool, nlohmann::json document);

/// Roots the client gave (or --root): relative paths are resolved against the first; written
/// paths must lie inside one.
struct Roots {
  std::vector<std::filesystem::path> directories;
};

/// The command line (after the executable) for a call, with every path made absolute and every
/// written path checked against the roots. An error names the argument and what is wrong.
Result<std::vector<std::string>> BuildCommandLine(const ToolDefinition& tool, const nlohmann::json& arguments,
                                                  const Roots& roots);

/// A one-line summary of a result for the text content ("144 OperatorMFU rows, ...").
std::string SummarizeResult(const ToolDefinition& tool, const nlohmann::json& result, int exit_code);

}  // namespace opmfu::mcp
