#include "mcp/tools.h"

#include <cmath>
#include <sstream>

#include "mcp/embedded_schemas.h"

namespace opmfu::mcp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ArgumentSchema(const ToolArgument& argument) {
  json schema;
  switch (argument.type) {
    case ArgumentType::kString:
      schema = {{"type", "string"}};
      break;
    case ArgumentType::kStringList:
      schema = {{"type", "array"}, {"items", {{"type", "string"}}}};
      if (argument.required) schema["minItems"] = 1;
      break;
    case ArgumentType::kInteger:
      schema = {{"type", "integer"}};
      break;
    case ArgumentType::kNumber:
      schema = {{"type", "number"}};
      break;
    case ArgumentType::kBoolean:
      schema = {{"type", "boolean"}};
      break;
    case ArgumentType::kStringMap:
      schema = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
      break;
    case ArgumentType::kThreshold:
      schema = {{"type", json::array({"number", "string"})}};
      break;
  }
  if (!argument.choices.empty()) {
    json choices = json::array();
    for (std::string_view choice : argument.choices) choices.push_back(choice);
    schema["enum"] = choices;
  }
  schema["description"] = argument.description;
  return schema;
}

json InputSchema(const ToolDefinition& tool) {
  json properties = json::object();
  json required = json::array();
  for (const ToolArgument& argument : tool.arguments) {
    properties[std::string(argument.name)] = ArgumentSchema(argument);
    if (argument.required) required.push_back(argument.name);
  }
  json schema = {{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = required;
  return schema;
}

bool IsObjectSchema(const json& schema) {
  if (schema.value("type", "") == "object") return true;
  if (!schema.contains("anyOf")) return false;
  for (const json& branch : schema["anyOf"]) {
    if (branch.value("type", "") != "object") return false;
  }
  return true;
}

// "a/../b" -> "b"; symbolic links in the part that exists are followed, so a link cannot carry a
// write out of the root.
fs::path Resolved(const fs::path& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(path, error);
  return error ? path.lexically_normal() : resolved;
}

bool Inside(const fs::path& path, const fs::path& root) {
  const fs::path relative = Resolved(path).lexically_relative(Resolved(root));
  return !relative.empty() && *relative.begin() != "..";
}

Result<std::string> ResolvePath(const ToolArgument& argument, const std::string& value, const Roots& roots) {
  if (value.empty()) return Error::Usage(std::string(argument.name) + ": an empty path");
  if (value.find('\0') != std::string::npos) return Error::Usage(std::string(argument.name) + ": a NUL in the path");
  fs::path path(value);
  if (path.is_relative()) {
    if (roots.directories.empty()) return Error::Usage(std::string(argument.name) + ": no root to resolve it against");
    path = roots.directories.front() / path;
  }
  // A path that is only read goes to the command as the client spelled it (made absolute): a venv's
  // bin/python is a link to the base interpreter, and run through the link it is the venv (its
  // sys.path, and the name an error gives). Written paths are resolved for the roots check.
  if (argument.path == PathUse::kRead) return path.string();
  return Resolved(path).string();
}

Status CheckWritable(std::string_view name, const fs::path& path, const Roots& roots) {
  for (const fs::path& root : roots.directories) {
    if (Inside(path, root)) return Ok();
  }
  std::string listed;
  for (const fs::path& root : roots.directories) listed += (listed.empty() ? "" : ", ") + root.string();
  return Error::Usage(std::string(name) + ": " + path.string() + " is outside the roots this server may write to (" +
                      (listed.empty() ? "none" : listed) + ")");
}

Result<std::string> ScalarText(const ToolArgument& argument, const json& value) {
  const std::string name(argument.name);
  switch (argument.type) {
    case ArgumentType::kString:
      if (!value.is_string()) return Error::Usage(name + ": expected a string");
      return value.get<std::string>();
    case ArgumentType::kInteger:
      if (!value.is_number_integer()) return Error::Usage(name + ": expected an integer");
      return value.dump();
    case ArgumentType::kNumber:
      if (!value.is_number()) return Error::Usage(name + ": expected a number");
      return value.dump();
    case ArgumentType::kThreshold:
      if (value.is_string()) return value.get<std::string>();
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        return Error::Usage(name + ": expected a number or a percentage such as \"40%\"");
      }
      return value.dump();
    default:
      return Error::Internal(name + ": not a scalar argument");
  }
}

json DocumentedSchema(const ToolDefinition& tool) {
  for (const EmbeddedFile& file : EmbeddedSchemas()) {
    if (file.name == tool.schema_file) return json::parse(file.content);
  }
  return json::object();
}

std::string WrapKey(const ToolDefinition& tool, const json& schema) {
  if (tool.wrap_key.empty() && IsObjectSchema(schema)) return "";
  return std::string(tool.wrap_key.empty() ? "result" : tool.wrap_key);
}

}  // namespace

json StructuredContent(const ToolDefinition& tool, json document) {
  // An object is structuredContent as it is: lint with run prints {findings, run}, which the skill
  // tells agents to read as structuredContent.run.
  if (document.is_object()) return document;
  const std::string key = WrapKey(tool, DocumentedSchema(tool));
  return {{key.empty() ? std::string("result") : key, std::move(document)}};
}

json OutputSchema(const ToolDefinition& tool) {
  json schema = DocumentedSchema(tool);
  // Clients compile each tool's schema on its own: an $id shared between compilations (a second
  // tools/list) would clash, and the dialect is MCP's default, 2020-12.
  schema.erase("$id");
  schema.erase("$schema");
  const std::string key = WrapKey(tool, schema);
  if (key.empty()) {
    schema["type"] = "object";
    return schema;
  }
  // The document's `$ref`s ("#/$defs/findings") are relative to the schema's root: its $defs move
  // to the wrapper's root, which the wrapped schema becomes a property of.
  json definitions = json::object();
  if (const auto defs = schema.find("$defs"); defs != schema.end()) {
    definitions = std::move(*defs);
    schema.erase("$defs");
  }
  json properties = {{key, schema}};
  // A document that is an array or an object (lint: its findings, or {findings, run} with run): the
  // object's own properties, the array under the key, as StructuredContent puts them.
  if (const auto choices = schema.find("oneOf"); choices != schema.end() && choices->is_array()) {
    json array_form;
    for (const json& choice : *choices) {
      if (choice.value("type", "") == "object" && choice.contains("properties")) {
        properties = choice["properties"];
      } else {
        array_form = choice;
      }
    }
    if (!properties.contains(key) && !array_form.is_null()) properties[key] = array_form;
  }
  json wrapped = {{"type", "object"},
                  {"description", schema.value("description", "")},
                  {"properties", std::move(properties)},
                  {"required", json::array({key})}};
  if (!definitions.empty()) wrapped["$defs"] = std::move(definitions);
  return wrapped;
}

json ToolListing(const ToolDefinition& tool) {
  return {{"name", tool.name},
          {"title", tool.title},
          {"description", tool.description},
          {"inputSchema", InputSchema(tool)},
          {"outputSchema", OutputSchema(tool)},
          {"annotations",
           {{"title", tool.title},
            {"readOnlyHint", tool.name != "analyze" && tool.name != "demo"},
            {"destructiveHint", false},
            {"openWorldHint", false}}}};
}

Result<std::vector<std::string>> BuildCommandLine(const ToolDefinition& tool, const json& arguments,
                                                  const Roots& roots) {
  if (!arguments.is_object()) return Error::Usage("arguments must be an object");
  for (const auto& [key, value] : arguments.items()) {
    bool known = false;
    for (const ToolArgument& argument : tool.arguments) known = known || argument.name == key;
    if (!known) {
      std::string names;
      for (const ToolArgument& argument : tool.arguments)
        names += (names.empty() ? "" : ", ") + std::string(argument.name);
      return Error::Usage("unknown argument '" + key + "' for " + std::string(tool.name) + " (it takes " + names + ")");
    }
  }
  std::vector<std::string> line(tool.command.begin(), tool.command.end());
  line.insert(line.end(), tool.json_flags.begin(), tool.json_flags.end());
  std::vector<std::string> positional;
  bool output_given = false;
  for (const ToolArgument& argument : tool.arguments) {
    const std::string name(argument.name);
    if (!arguments.contains(name) || arguments[name].is_null()) {
      if (argument.required) return Error::Usage("missing required argument '" + name + "'");
      continue;
    }
    const json& value = arguments[name];
    // Every value goes as --flag=VALUE or after `--`, so no value can be read as an option.
    const auto add = [&](const std::string& text) {
      if (argument.flag.empty()) {
        positional.push_back(text);
      } else {
        line.push_back(std::string(argument.flag) + "=" + text);
      }
    };
    const auto add_path_or_text = [&](const std::string& text) -> Status {
      if (argument.path == PathUse::kNotAPath) {
        add(text);
        return Ok();
      }
      OPMFU_ASSIGN_OR_RETURN(const std::string path, ResolvePath(argument, text, roots));
      if (argument.path == PathUse::kWrite) {
        OPMFU_RETURN_IF_ERROR(CheckWritable(argument.name, path, roots));
        output_given = true;
      }
      add(path);
      return Ok();
    };
    switch (argument.type) {
      case ArgumentType::kBoolean:
        if (!value.is_boolean()) return Error::Usage(name + ": expected true or false");
        if (value.get<bool>()) line.emplace_back(argument.flag);
        break;
      case ArgumentType::kStringList:
        if (!value.is_array()) return Error::Usage(name + ": expected a list of strings");
        if (argument.required && value.empty()) return Error::Usage(name + ": expected at least one value");
        for (const json& item : value) {
          if (!item.is_string()) return Error::Usage(name + ": expected a list of strings");
          OPMFU_RETURN_IF_ERROR(add_path_or_text(item.get<std::string>()));
        }
        break;
      case ArgumentType::kStringMap:
        if (!value.is_object()) return Error::Usage(name + ": expected an object of name: value strings");
        for (const auto& [key, item] : value.items()) {
          if (!item.is_string()) return Error::Usage(name + "." + key + ": expected a string, e.g. \"[4096,4096]\"");
          add(key + "=" + item.get<std::string>());
        }
        break;
      default: {
        OPMFU_ASSIGN_OR_RETURN(const std::string text, ScalarText(argument, value));
        if (!argument.choices.empty()) {
          bool allowed = false;
          for (std::string_view choice : argument.choices) allowed = allowed || choice == text;
          if (!allowed) return Error::Usage(name + ": '" + text + "' is not one of the allowed values");
        }
        OPMFU_RETURN_IF_ERROR(add_path_or_text(text));
      }
    }
  }
  if (!tool.written_into_unless_output.empty() && !output_given) {
    // analyze without an output path writes cluster_analysis_output/ inside its input.
    const std::string name(tool.written_into_unless_output);
    for (const ToolArgument& argument : tool.arguments) {
      if (argument.name != name || !arguments.contains(name)) continue;
      OPMFU_ASSIGN_OR_RETURN(const std::string path, ResolvePath(argument, arguments[name].get<std::string>(), roots));
      OPMFU_RETURN_IF_ERROR(CheckWritable(name, fs::path(path) / "cluster_analysis_output", roots));
    }
  } else if (!tool.written_into_unless_output.empty()) {
    for (const std::string& word : line) {
      if (word.starts_with("--output-path=")) {
        OPMFU_RETURN_IF_ERROR(
            CheckWritable("output_path", fs::path(word.substr(14)) / "cluster_analysis_output", roots));
      }
    }
  }
  if (!positional.empty()) {
    line.emplace_back("--");
    line.insert(line.end(), positional.begin(), positional.end());
  }
  return line;
}

std::string SummarizeResult(const ToolDefinition& tool, const json& result, int exit_code) {
  std::ostringstream text;
  const std::string name(tool.name);
  const auto percent = [](const json& ratio) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << ratio.get<double>() * 100 << "%";
    return out.str();
  };
  const json* findings = &result;
  if (result.is_object() && result.contains("findings") && result["findings"].is_array()) {
    findings = &result["findings"];  // lint with run: {findings, run}
  }
  if (findings->is_array()) {
    const json& list = *findings;
    std::size_t errors = 0;
    for (const json& finding : list) errors += finding.value("severity", "") == "error" ? 1 : 0;
    text << list.size() << (list.size() == 1 ? " finding" : " findings") << " (" << errors << " errors)";
    if (!list.empty()) text << "; first: " << list[0].value("code", "") << " " << list[0].value("message", "");
    if (findings != &result) text << "; the run's comparison in structuredContent.run";
  } else if (name == "analyze" && result.is_object()) {
    text << result.value("operator_mfu_rows", 0) << " OperatorMFU rows, " << result.value("module_mfu_rows", 0)
         << " ModuleMFU rows";
    // The headline is report's: the compute kernels' MFU. The every-row figure (auxiliary kernels
    // inherit their range's FLOPs, often at thousands of percent) is named as what it is.
    if (result.contains("compute_time_weighted_mfu") && result["compute_time_weighted_mfu"].is_number()) {
      text << ", compute-kernel MFU " << percent(result["compute_time_weighted_mfu"]);
    }
    if (result.contains("time_weighted_mfu") && result["time_weighted_mfu"].is_number()) {
      text << " (every row, as msprof-analyze weighs them: " << percent(result["time_weighted_mfu"]) << ")";
    }
    text << ", " << result.value("failed_ranks", 0) << " failed ranks; written to "
         << result.value("output_directory", std::string("?"));
  } else if (name == "check_db" && result.is_object()) {
    text << (result.value("all_can_produce_mfu", false) ? "every rank can produce MFU"
                                                        : "not every rank can produce MFU");
    for (const json& rank : result.value("ranks", json::array())) {
      text << "; rank " << rank.value("rank", -1) << ": " << rank.value("verdict", std::string());
    }
  } else if (name == "report" && result.is_object() && result.contains("summary")) {
    const json& summary = result["summary"];
    if (summary.contains("weighted_mfu") && summary["weighted_mfu"].is_number()) {
      text << "compute-kernel MFU " << percent(summary["weighted_mfu"]);
    } else {
      text << "no MFU";
    }
    if (const auto by_op = result.find("by_op"); by_op != result.end() && by_op->is_array() && !by_op->empty()) {
      text << "; biggest opportunity: " << (*by_op)[0].value("op_name", (*by_op)[0].value("name", std::string("?")));
    }
  } else if (name == "flops" && result.is_object() && result.contains("flops")) {
    text << result.value("op_name", std::string()) << ": " << result["flops"].dump() << " FLOPs (range message "
         << result.value("message", std::string()) << ")";
  } else if (name == "flops" && result.is_object() && result.contains("targets")) {
    text << result["targets"].size() << " built-in targets";
  } else if (name == "gate" && result.is_object()) {
    text << (result.value("passed", false) ? "gate passed" : "gate failed");
    for (const json& check : result.value("checks", json::array())) {
      if (!check.value("passed", true)) text << "; " << check.value("message", std::string());
    }
  } else if (name == "audit" && result.is_object()) {
    text << result.value("disagreements", json::array()).size() << " records disagree with the built-in formulas";
  } else if (name == "registry_list" && result.is_object()) {
    text << result.value("registrations", json::array()).size() << " registrations, formulas "
         << result.value("formulas_version", json()).dump();
  } else if (name == "demo" && result.is_object()) {
    text << "wrote " << result.value("ranks", 0) << " ranks to " << result.value("directory", std::string());
  }
  if (text.tellp() == 0) text << "opmfu " << name << " finished";
  text << " (exit " << exit_code << ")";
  return text.str();
}

}  // namespace opmfu::mcp
