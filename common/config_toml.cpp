#include "common/config_toml.h"

#include <toml++/toml.h>

#include <sstream>
#include <vector>

namespace opmfu {

namespace {

YAML::Node TomlToYaml(const toml::node& node) {
  if (const toml::table* table = node.as_table()) {
    YAML::Node map(YAML::NodeType::Map);
    // TOML keys are unique in a table, so no lookup: `map[key]` searches the map, quadratic in its size.
    for (const auto& [key, value] : *table) map.force_insert(std::string(key.str()), TomlToYaml(value));
    return map;
  }
  if (const toml::array* array = node.as_array()) {
    YAML::Node sequence(YAML::NodeType::Sequence);
    for (const toml::node& item : *array) sequence.push_back(TomlToYaml(item));
    return sequence;
  }
  if (const auto* text = node.as_string()) return YAML::Node(text->get());
  if (const auto* whole = node.as_integer()) return YAML::Node(std::to_string(whole->get()));
  if (const auto* flag = node.as_boolean()) return YAML::Node(flag->get() ? "true" : "false");
  if (const auto* number = node.as_floating_point()) return YAML::Node(std::to_string(number->get()));
  // Dates and times: no opmfu key takes one; the reader refuses the value by its key.
  std::ostringstream spelled;
  node.visit([&](const auto& value) { spelled << value; });
  return YAML::Node(spelled.str());
}

// The position after the string that starts at `i` (a quote), counting the newlines it holds.
std::size_t SkipTomlString(std::string_view text, std::size_t i, std::size_t& line) {
  const char quote = text[i];
  const bool basic = quote == '"';
  const bool multiline = text.substr(i, 3) == std::string_view(basic ? "\"\"\"" : "'''");
  const std::string_view close = multiline ? text.substr(i, 3) : text.substr(i, 1);
  for (i += close.size(); i < text.size(); ++i) {
    if (text[i] == '\n') {
      if (!multiline) return i;  // an unterminated one-line string: toml++ reports it
      ++line;
    } else if (basic && text[i] == '\\') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
      ++i;
    } else if (text.substr(i, close.size()) == close) {
      return i + close.size();
    }
  }
  return i;
}

}  // namespace

Status CheckTomlLimits(const std::filesystem::path& path, std::string_view text) {
  // A shallow reading of TOML's structure: which bytes are keys (each dot one level), table
  // headers, and inline tables and arrays (each a level), skipping strings and comments. Only the
  // depth and the count matter, so what toml++ would refuse as a syntax error is not judged here.
  struct Open {
    bool table;         // an inline table (keys inside), else an array (values inside)
    std::size_t depth;  // the depth of what it holds
  };
  std::vector<Open> open;
  std::size_t line = 1;
  std::size_t keys = 0;
  std::size_t header_depth = 0;
  std::size_t key_parts = 1;
  std::size_t value_depth = 0;
  bool in_key = true;
  const auto too_deep = [&](std::size_t depth) -> Status {
    if (depth <= kMaxTomlDepth) return Ok();
    return Error::Usage(path.string() + ":" + std::to_string(line) + ": TOML nested deeper than " +
                        std::to_string(kMaxTomlDepth) +
                        " levels (dotted key parts, tables and arrays; a limit of opmfu)");
  };
  const auto count_key = [&]() -> Status {
    if (++keys <= kMaxTomlKeys) return Ok();
    return Error::Usage(path.string() + ":" + std::to_string(line) + ": more than " + std::to_string(kMaxTomlKeys) +
                        " TOML keys (a limit of opmfu)");
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = SkipTomlString(text, i, line);
      continue;
    }
    if (c == '#') {
      const std::size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end;
      continue;
    }
    if (c == '\n') {
      ++line;
      if (open.empty()) {
        in_key = true;
        key_parts = 1;
      }
    } else if (in_key && open.empty() && c == '[') {
      // A table header, `[a.b]` or `[[a.b]]`: what follows it is that deep.
      std::size_t parts = 1;
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '[') ++parts, ++j;
      while (j < text.size() && text[j] != ']' && text[j] != '\n') {
        if (text[j] == '"' || text[j] == '\'') {
          j = SkipTomlString(text, j, line);
          continue;
        }
        if (text[j] == '.') ++parts;
        ++j;
      }
      OPMFU_RETURN_IF_ERROR(count_key());
      OPMFU_RETURN_IF_ERROR(too_deep(parts));
      header_depth = parts;
      i = j;
      continue;
    } else if (in_key) {
      if (c == '.') {
        ++key_parts;
      } else if (c == '=') {
        OPMFU_RETURN_IF_ERROR(count_key());
        value_depth = (open.empty() ? header_depth : open.back().depth) + key_parts;
        OPMFU_RETURN_IF_ERROR(too_deep(value_depth));
        in_key = false;
        key_parts = 1;
      } else if (c == '}' && !open.empty()) {
        open.pop_back();  // `{}`
        in_key = false;
      }
    } else if (c == '[' || c == '{') {
      const bool table = c == '{';
      const std::size_t depth = table ? value_depth : value_depth + 1;
      OPMFU_RETURN_IF_ERROR(too_deep(depth));
      open.push_back({table, depth});
      value_depth = depth;
      in_key = table;
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    } else if (c == ',' && !open.empty()) {
      in_key = open.back().table;
      value_depth = open.back().depth;
    }
    ++i;
  }
  return Ok();
}

Result<std::optional<YAML::Node>> TomlConfigTree(const std::filesystem::path& path, const std::string& text,
                                                 bool top_level_allowed) {
  OPMFU_RETURN_IF_ERROR(CheckTomlLimits(path, text));
  toml::table document;
  try {
    document = toml::parse(text, path.string());
  } catch (const toml::parse_error& error) {
    const toml::source_position at = error.source().begin;
    return Error::Usage(path.string() + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                        ": invalid TOML: " + std::string(error.description()));
  }
  if (const toml::node* section = document.at_path("tool.opmfu").node()) {
    if (!section->is_table()) return Error::Usage(path.string() + ": [tool.opmfu] must be a table");
    return std::optional<YAML::Node>(TomlToYaml(*section));
  }
  if (!top_level_allowed) return std::optional<YAML::Node>();
  return std::optional<YAML::Node>(TomlToYaml(document));
}

}  // namespace opmfu
