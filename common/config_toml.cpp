#include "common/config_toml.h"

#include <toml++/toml.h>

#include <sstream>

namespace opmfu {

namespace {

YAML::Node TomlToYaml(const toml::node& node) {
  if (const toml::table* table = node.as_table()) {
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& [key, value] : *table) map[std::string(key.str())] = TomlToYaml(value);
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

}  // namespace

Result<std::optional<YAML::Node>> TomlConfigTree(const std::filesystem::path& path, const std::string& text,
                                                 bool top_level_allowed) {
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
