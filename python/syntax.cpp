#include "python/syntax.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "common/text.h"

namespace opmfu::python {

namespace {

bool IsDottedName(std::string_view text) {
  if (text.empty()) return false;
  // No part of a module name starts with a digit ("a.1" or "3" is a number, not a module).
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((i == 0 || text[i - 1] == '.') && std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
}

// An import statement ends at `;` or a comment: `import a; data = [1, 2, ...]` imports only `a`.
std::string_view ImportStatement(std::string_view line) {
  return TrimWhitespace(line.substr(0, std::min(line.find_first_of(";#"), line.size())));
}

// "a.b as c" -> "a.b"
std::string_view WithoutAlias(std::string_view item) {
  item = TrimWhitespace(item);
  const std::size_t as = item.find(" as ");
  return TrimWhitespace(as == std::string_view::npos ? item : item.substr(0, as));
}

// Decodes the escape sequences Python gives meaning to in a non-raw str literal; the ones
// registration arguments could plausibly contain. Unknown escapes stay as written, as in Python.
void AppendEscape(std::string_view escape, std::string& out) {
  if (escape.size() < 2) {
    out.append(escape);
    return;
  }
  switch (escape[1]) {
    case 'n':
      out += '\n';
      return;
    case 't':
      out += '\t';
      return;
    case 'r':
      out += '\r';
      return;
    case '\\':
      out += '\\';
      return;
    case '\'':
      out += '\'';
      return;
    case '"':
      out += '"';
      return;
    case '\n':
      return;  // line continuation inside the literal
    case 'x':
      if (escape.size() == 4) {
        out += static_cast<char>(std::stoi(std::string(escape.substr(2)), nullptr, 16));
        return;
      }
      break;
    default:
      break;
  }
  out.append(escape);
}

std::optional<std::string> SingleStringValue(const SyntaxTree& tree, TSNode node) {
  TSNode start = ts_node_named_child(node, 0);
  std::string_view prefix = IsType(start, "string_start") ? tree.Text(start) : std::string_view();
  bool raw = false;
  for (char c : prefix) {
    if (c == 'b' || c == 'B') return std::nullopt;
    if (c == 'r' || c == 'R') raw = true;
  }
  std::string value;
  const std::uint32_t count = ts_node_named_child_count(node);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(node, i);
    const std::string_view type = ts_node_type(child);
    if (type == "interpolation") return std::nullopt;
    if (type == "string_content") {
      // Escape sequences are children of string_content in this grammar version; walk them.
      std::uint32_t cursor = ts_node_start_byte(child);
      const std::uint32_t content_count = ts_node_named_child_count(child);
      for (std::uint32_t j = 0; j < content_count; ++j) {
        TSNode part = ts_node_named_child(child, j);
        if (IsType(part, "interpolation")) return std::nullopt;
        if (!IsType(part, "escape_sequence")) continue;
        value.append(tree.source(), cursor, ts_node_start_byte(part) - cursor);
        if (raw) {
          value.append(tree.Text(part));
        } else {
          AppendEscape(tree.Text(part), value);
        }
        cursor = ts_node_end_byte(part);
      }
      value.append(tree.source(), cursor, ts_node_end_byte(child) - cursor);
    } else if (type == "escape_sequence") {
      if (raw) {
        value.append(tree.Text(child));
      } else {
        AppendEscape(tree.Text(child), value);
      }
    }
  }
  return value;
}

void BindImport(const SyntaxTree& tree, TSNode name_node, const std::string& module_prefix, ImportBindings& out) {
  if (IsType(name_node, "aliased_import")) {
    TSNode name = ChildByField(name_node, "name");
    TSNode alias = ChildByField(name_node, "alias");
    if (ts_node_is_null(name) || ts_node_is_null(alias)) return;
    out[std::string(tree.Text(alias))] = module_prefix + std::string(tree.Text(name));
  } else if (IsType(name_node, "dotted_name")) {
    const std::string dotted(tree.Text(name_node));
    if (module_prefix.empty()) {
      // `import a.b` binds only `a`.
      const std::string first = dotted.substr(0, dotted.find('.'));
      out[first] = first;
    } else {
      out[std::string(LastComponent(dotted))] = module_prefix + dotted;
    }
  }
}

}  // namespace

std::optional<std::string> StringLiteralValue(const SyntaxTree& tree, TSNode node) {
  if (IsType(node, "parenthesized_expression") && ts_node_named_child_count(node) == 1) {
    return StringLiteralValue(tree, ts_node_named_child(node, 0));
  }
  if (IsType(node, "string")) return SingleStringValue(tree, node);
  if (IsType(node, "concatenated_string")) {
    std::string value;
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      auto part = SingleStringValue(tree, ts_node_named_child(node, i));
      if (!part) return std::nullopt;
      value += *part;
    }
    return value;
  }
  return std::nullopt;
}

LiteralKind ClassifyLiteral(const SyntaxTree& tree, TSNode node) {
  if (ts_node_is_null(node)) return LiteralKind::kOther;
  const std::string_view type = ts_node_type(node);
  if (type == "true") return LiteralKind::kTrue;
  if (type == "false") return LiteralKind::kFalse;
  if (type == "none") return LiteralKind::kNone;
  if (type == "integer") return LiteralKind::kInteger;
  if (type == "float") return LiteralKind::kFloat;
  if ((type == "string" || type == "concatenated_string") && StringLiteralValue(tree, node)) {
    return LiteralKind::kString;
  }
  return LiteralKind::kOther;
}

void CollectImportStatement(const SyntaxTree& tree, TSNode statement, ImportBindings& bindings) {
  if (IsType(statement, "import_statement")) {
    const std::uint32_t count = ts_node_named_child_count(statement);
    for (std::uint32_t i = 0; i < count; ++i) BindImport(tree, ts_node_named_child(statement, i), "", bindings);
    return;
  }
  TSNode module = ChildByField(statement, "module_name");
  if (ts_node_is_null(module)) return;
  // `from . import x` binds ".x" and `from .pkg import x` ".pkg.x": the leading dots are the level.
  const std::string written(tree.Text(module));
  const std::string prefix = written.ends_with('.') ? written : written + ".";
  const std::uint32_t count = ts_node_named_child_count(statement);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(statement, i);
    if (ts_node_eq(child, module)) continue;
    BindImport(tree, child, prefix, bindings);
  }
}

ImportBindings CollectImports(const SyntaxTree& tree, bool nested) {
  ImportBindings bindings;
  for (TSNode root : tree.roots())
    WalkTree(root, [&](TSNode node) {
      const std::string_view type = ts_node_type(node);
      if (type == "import_statement" || type == "import_from_statement") {
        CollectImportStatement(tree, node, bindings);
        return false;
      }
      // Imports inside functions bind locally; a module's own bindings are what registrations see.
      return nested || (type != "function_definition" && type != "class_definition");
    });
  return bindings;
}

std::optional<std::string> QualifiedName(const SyntaxTree& tree, TSNode expression, const ImportBindings& imports) {
  if (IsType(expression, "identifier")) {
    const std::string_view name = tree.Text(expression);
    auto found = imports.find(name);
    return found != imports.end() ? found->second : std::string(name);
  }
  if (IsType(expression, "attribute")) {
    auto object = QualifiedName(tree, ChildByField(expression, "object"), imports);
    TSNode attribute = ChildByField(expression, "attribute");
    if (!object || ts_node_is_null(attribute)) return std::nullopt;
    return *object + "." + std::string(tree.Text(attribute));
  }
  return std::nullopt;
}

std::string_view LastComponent(std::string_view dotted) {
  const std::size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

std::optional<std::string> DocstringFirstLine(const SyntaxTree& tree, TSNode function_definition) {
  TSNode body = ChildByField(function_definition, "body");
  if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0) return std::nullopt;
  TSNode first = ts_node_named_child(body, 0);
  if (!IsType(first, "expression_statement") || ts_node_named_child_count(first) != 1) return std::nullopt;
  auto text = StringLiteralValue(tree, ts_node_named_child(first, 0));
  if (!text) return std::nullopt;
  for (std::string_view line : SplitString(*text, '\n')) {
    const std::string_view trimmed = TrimWhitespace(line);
    if (!trimmed.empty()) return std::string(trimmed);
  }
  return std::nullopt;
}

std::optional<std::string> GetattrMember(const SyntaxTree& tree, TSNode node) {
  if (!IsType(node, "call")) return std::nullopt;
  const TSNode function = ChildByField(node, "function");
  if (!IsType(function, "identifier") || tree.Text(function) != "getattr") return std::nullopt;
  const TSNode arguments = ChildByField(node, "arguments");
  if (!IsType(arguments, "argument_list")) return std::nullopt;
  std::vector<TSNode> positional;
  for (std::uint32_t i = 0; i < ts_node_named_child_count(arguments); ++i) {
    const TSNode child = ts_node_named_child(arguments, i);
    if (IsType(child, "comment")) continue;
    if (!IsType(child, "keyword_argument") && !IsType(child, "list_splat") && !IsType(child, "dictionary_splat")) {
      positional.push_back(child);
    } else {
      return std::nullopt;
    }
  }
  if (positional.size() < 2 || positional.size() > 3) return std::nullopt;
  return StringLiteralValue(tree, positional[1]);
}

namespace {

// `error` lies in a replacement field tree-sitter read as `name := ...` where Python reads the
// name and a format spec, and that spec is one Python accepts.
bool InMisreadFormatSpec(const SyntaxTree& tree, TSNode error) {
  TSNode field{};
  for (TSNode up = ts_node_parent(error); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (IsType(up, "interpolation")) {
      field = up;
      break;
    }
    if (IsType(up, "string")) return false;  // in the string's text, not in a field
  }
  if (ts_node_is_null(field)) return false;
  const TSNode expression = ChildByField(field, "expression");
  if (!IsType(expression, "named_expression") || !IsType(ChildByField(expression, "name"), "identifier")) return false;
  const TSNode string = ts_node_parent(field);
  if (!IsType(string, "string")) return false;
  const std::uint32_t count = ts_node_child_count(string);
  const TSNode start = count > 0 ? ts_node_child(string, 0) : TSNode{};
  const TSNode end = count > 0 ? ts_node_child(string, count - 1) : TSNode{};
  if (!IsType(start, "string_start") || !IsType(end, "string_end")) return false;
  // The field's text after the name: `:=^40}` (the walrus tree-sitter saw is the spec's start).
  const std::string_view text = tree.Text(field);
  const std::uint32_t name_end = ts_node_end_byte(ChildByField(expression, "name")) - ts_node_start_byte(field);
  if (name_end >= text.size() || text.back() != '}') return false;
  std::string_view rest = text.substr(name_end);
  const std::size_t colon = rest.find_first_not_of(" \t");
  if (colon == std::string_view::npos || rest.substr(colon, 2) != ":=") return false;
  // The spec without its leading `=` fill, which tree-sitter would read as the walrus again.
  const std::string_view spec = rest.substr(colon + 2, rest.size() - colon - 3);
  std::string probe = std::string(tree.Text(start)) + "{_:x" + std::string(spec) + "}" + std::string(tree.Text(end));
  auto parsed = ParseSource(Grammar::kPython, std::move(probe));
  return parsed.ok() && !parsed->has_error();
}

}  // namespace

std::optional<TSNode> FirstSyntaxError(const SyntaxTree& tree) {
  for (TSNode root : tree.roots()) {
    if (!ts_node_has_error(root)) continue;
    std::optional<TSNode> found;
    bool any = false;
    WalkTree(root, [&](TSNode node) {
      if (found) return false;
      if (ts_node_is_missing(node) || IsType(node, "ERROR")) {
        any = true;
        if (!InMisreadFormatSpec(tree, node)) found = node;
        return false;
      }
      return ts_node_has_error(node);
    });
    if (found) return found;
    if (!any) return root;  // an error tree-sitter flags without an ERROR node of its own
  }
  return std::nullopt;
}

TextEdit AppendItemEdit(const SyntaxTree& tree, TSNode container, std::string_view item) {
  TSNode last{};
  const std::uint32_t count = ts_node_named_child_count(container);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(container, i);
    if (!IsType(child, "comment")) last = child;
  }
  if (ts_node_is_null(last)) {
    const std::uint32_t open = ts_node_start_byte(container) + 1;
    // Several items added to one empty list are one list: ", " between them.
    return {open, open, std::string(item), {}, ", "};
  }
  const std::string& source = tree.source();
  const std::uint32_t start = ts_node_start_byte(last);
  std::uint32_t line_start = start;
  while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
  const std::string_view before = std::string_view(source).substr(line_start, start - line_start);
  const bool own_line =
      before.find_first_not_of(" \t") == std::string_view::npos && line_start > ts_node_start_byte(container);
  const TSNode next = ts_node_next_sibling(last);
  const bool trailing_comma = !ts_node_is_null(next) && IsType(next, ",");
  if (own_line) {
    const std::uint32_t after = trailing_comma ? ts_node_end_byte(next) : ts_node_end_byte(last);
    // A comment that ends the last item's line stays with that item.
    std::uint32_t line_end = after;
    while (line_end < source.size() && source[line_end] != '\n') ++line_end;
    const std::string_view rest = std::string_view(source).substr(after, line_end - after);
    const std::size_t hash = rest.find_first_not_of(" \t\r");
    const bool comment = hash != std::string_view::npos && rest[hash] == '#';
    if (trailing_comma && line_end < source.size() && (comment || hash == std::string_view::npos)) {
      // A line of its own after the last item's line, which stays as it is.
      const std::uint32_t next_line = line_end + 1;
      return {next_line, next_line, std::string(before) + std::string(item) + ",\n"};
    }
    std::string text = trailing_comma ? "" : ",";
    if (comment) text += rest;
    text += "\n" + std::string(before) + std::string(item) + (trailing_comma ? "," : "");
    return {after, comment ? line_end : after, std::move(text)};
  }
  const std::uint32_t at = ts_node_end_byte(last);
  return {at, at, ", " + std::string(item)};
}

bool ImportsModule(const std::vector<std::string>& imports, std::string_view name) {
  return std::any_of(imports.begin(), imports.end(), [&](const std::string& imported) {
    return imported == name || (imported.starts_with(name) && imported[name.size()] == '.');
  });
}

std::vector<std::string> ScanImports(std::string_view source) {
  std::vector<std::string> out;
  std::size_t at = 0;
  // Lines are visited as views; only import lines are looked at closely (files can be large).
  const auto next_line = [&]() -> std::string_view {
    const std::size_t end = std::min(source.find('\n', at), source.size());
    std::string_view line = source.substr(at, end - at);
    at = end + 1;
    return line;
  };
  while (at < source.size()) {
    std::string_view line = ImportStatement(next_line());
    if (line.starts_with("import ")) {
      for (const std::string& item : SplitString(line.substr(7), ',')) {
        const std::string_view name = WithoutAlias(item);
        if (IsDottedName(name)) out.emplace_back(name);
      }
      continue;
    }
    if (!line.starts_with("from ")) continue;
    const std::size_t import_at = line.find(" import ");
    if (import_at == std::string_view::npos) continue;
    const std::string_view module = TrimWhitespace(line.substr(5, import_at - 5));
    if (!IsDottedName(module)) continue;
    std::string names(line.substr(import_at + 8));
    // `from m import (a,\n b)`: gather the lines up to the closing parenthesis.
    if (names.find('(') != std::string::npos) {
      while (names.find(')') == std::string::npos && at < source.size()) names += " " + std::string(next_line());
    }
    std::erase_if(names, [](char c) { return c == '(' || c == ')' || c == '\\'; });
    out.emplace_back(module);
    const std::string prefix = module.ends_with('.') ? std::string(module) : std::string(module) + ".";
    for (const std::string& item : SplitString(names, ',')) {
      std::string_view name = WithoutAlias(item);
      const std::size_t comment = name.find('#');
      if (comment != std::string_view::npos) name = TrimWhitespace(name.substr(0, comment));
      if (IsDottedName(name) && name != "*") out.push_back(prefix + std::string(name));
    }
  }
  return out;
}

std::vector<std::string> ParameterNames(const SyntaxTree& tree, TSNode parameters) {
  std::vector<std::string> names;
  const std::uint32_t count = ts_node_named_child_count(parameters);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode parameter = ts_node_named_child(parameters, i);
    // `a`, `a=1`, `a: int`, `a: int = 1`, `*a`, `**a`: the first identifier in the parameter (for a
    // typed splat, inside its splat pattern) is its name.
    for (int depth = 0; depth < 3 && !ts_node_is_null(parameter) && !IsType(parameter, "identifier"); ++depth) {
      TSNode name = ChildByField(parameter, "name");
      parameter = ts_node_is_null(name) ? ts_node_named_child(parameter, 0) : name;
    }
    if (!ts_node_is_null(parameter) && IsType(parameter, "identifier")) names.emplace_back(tree.Text(parameter));
  }
  return names;
}

std::optional<std::string> EditedPythonProblem(const SyntaxTree& tree) {
  if (auto error = FirstSyntaxError(tree)) {
    return "a syntax error at line " + std::to_string(ts_node_start_point(*error).row + 1);
  }
  std::vector<TSNode> pending(tree.roots().begin(), tree.roots().end());
  while (!pending.empty()) {
    TSNode node = pending.back();
    pending.pop_back();
    if (IsType(node, "parameters") || IsType(node, "lambda_parameters")) {
      std::vector<std::string> names = ParameterNames(tree, node);
      std::sort(names.begin(), names.end());
      const auto repeated = std::adjacent_find(names.begin(), names.end());
      if (repeated != names.end()) {
        return "a function with two parameters named '" + *repeated + "' (line " +
               std::to_string(ts_node_start_point(node).row + 1) + "), which Python refuses";
      }
    }
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) pending.push_back(ts_node_named_child(node, i));
  }
  return std::nullopt;
}

}  // namespace opmfu::python
