#include "registry/formulas.h"

#include <algorithm>
#include <cctype>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::registry {

namespace {

constexpr std::string_view kDecoratorName = "register_npu_flop";

ArgumentValue ReadArgument(const SyntaxTree& tree, TSNode value) {
  ArgumentValue argument;
  argument.node = value;
  switch (python::ClassifyLiteral(tree, value)) {
    case python::LiteralKind::kString:
      argument.kind = ArgumentValue::Kind::kString;
      argument.text = *python::StringLiteralValue(tree, value);
      return argument;
    case python::LiteralKind::kNone:
      argument.kind = ArgumentValue::Kind::kNone;
      break;
    case python::LiteralKind::kTrue:
      argument.kind = ArgumentValue::Kind::kTrue;
      break;
    case python::LiteralKind::kFalse:
      argument.kind = ArgumentValue::Kind::kFalse;
      break;
    default:
      argument.kind = ArgumentValue::Kind::kExpression;
      break;
  }
  argument.text = std::string(tree.Text(value));
  return argument;
}

// Whitespace runs (including newlines in multi-line signatures) become one space.
std::string Condense(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<Parameter> ReadParameters(const SyntaxTree& tree, TSNode function) {
  std::vector<Parameter> parameters;
  TSNode list = ChildByField(function, "parameters");
  if (ts_node_is_null(list)) return parameters;
  const std::uint32_t count = ts_node_named_child_count(list);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode node = ts_node_named_child(list, i);
    const std::string_view type = ts_node_type(node);
    Parameter parameter;
    if (type == "identifier") {
      parameter.name = tree.Text(node);
    } else if (type == "default_parameter" || type == "typed_default_parameter") {
      parameter.name = tree.Text(ChildByField(node, "name"));
      parameter.default_value = Condense(tree.Text(ChildByField(node, "value")));
    } else if (type == "typed_parameter") {
      // The typed name is the first named child (identifier or splat pattern).
      parameter.name = Condense(tree.Text(ts_node_named_child(node, 0)));
    } else if (type == "list_splat_pattern" || type == "dictionary_splat_pattern") {
      parameter.name = Condense(tree.Text(node));
    } else if (type == "keyword_separator") {
      parameter.name = "*";
    } else if (type == "positional_separator") {
      parameter.name = "/";
    } else {
      continue;  // comments and error nodes
    }
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

bool IsDecoratorCallee(const SyntaxTree& tree, TSNode callee, const python::ImportBindings& imports) {
  auto name = python::QualifiedName(tree, callee, imports);
  return name && python::LastComponent(*name) == kDecoratorName;
}

void ReadDecoratorArguments(const SyntaxTree& tree, TSNode arguments, Registration& registration) {
  std::vector<TSNode> positional;
  const std::uint32_t count = ts_node_named_child_count(arguments);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode argument = ts_node_named_child(arguments, i);
    const std::string_view type = ts_node_type(argument);
    if (type == "comment") continue;
    if (type == "keyword_argument") {
      const std::string_view name = tree.Text(ChildByField(argument, "name"));
      TSNode value = ChildByField(argument, "value");
      if (name == "target") {
        registration.target = ReadArgument(tree, value);
      } else if (name == "op_name") {
        registration.op_name = ReadArgument(tree, value);
      } else if (name == "is_default") {
        registration.is_default = ReadArgument(tree, value);
      } else {
        registration.unexpected_arguments.push_back(argument);
      }
    } else if (type == "list_splat" || type == "dictionary_splat") {
      registration.unexpected_arguments.push_back(argument);
    } else {
      positional.push_back(argument);
    }
  }
  // register_npu_flop(target=None, op_name=None, *, is_default=False)
  if (!positional.empty() && registration.target.absent()) registration.target = ReadArgument(tree, positional[0]);
  if (positional.size() > 1 && registration.op_name.absent()) registration.op_name = ReadArgument(tree, positional[1]);
  for (std::size_t i = 2; i < positional.size(); ++i) registration.unexpected_arguments.push_back(positional[i]);

  registration.legacy_positional_op_name =
      positional.size() == 1 && registration.op_name.absent() && registration.target.is_string() &&
      registration.target.text.find(':') == std::string::npos && ts_node_eq(registration.target.node, positional[0]);
  if (registration.legacy_positional_op_name) {
    registration.op_name = registration.target;
    registration.target = ArgumentValue{};
  }
}

void ResolveOpName(Registration& registration) {
  if (registration.op_name.is_string()) {
    registration.resolved_op_name = registration.op_name.text;
    registration.op_name_source = OpNameSource::kExplicit;
  } else if (registration.op_name.is_expression()) {
    registration.op_name_source = OpNameSource::kUnknown;
  } else if (registration.target.is_string() && registration.target.text.find(':') != std::string::npos) {
    registration.resolved_op_name = registration.target.text.substr(registration.target.text.find(':') + 1);
    registration.op_name_source = OpNameSource::kTarget;
  } else if (registration.target.is_expression()) {
    registration.op_name_source = OpNameSource::kUnknown;
  } else {
    registration.resolved_op_name = registration.function_name;
    registration.op_name_source = OpNameSource::kFunctionName;
  }
}

}  // namespace

std::optional<bool> Registration::IsDefault() const {
  switch (is_default.kind) {
    case ArgumentValue::Kind::kAbsent:
    case ArgumentValue::Kind::kFalse:
      return false;
    case ArgumentValue::Kind::kTrue:
      return true;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> Registration::TargetText() const {
  if (!target.is_string()) return std::nullopt;
  return target.text;
}

std::optional<std::string> ResolvedTargetPath(std::string_view target) {
  const std::size_t colon = target.find(':');
  if (colon == std::string_view::npos || target.find(':', colon + 1) != std::string_view::npos) return std::nullopt;
  return std::string(target.substr(0, colon)) + "." + std::string(target.substr(colon + 1));
}

namespace {

bool IsDottedIdentifier(std::string_view text) {
  if (text.empty()) return false;
  for (const std::string& part : SplitString(text, '.')) {
    if (part.empty()) return false;
    const auto first = static_cast<unsigned char>(part[0]);
    if (!(std::isalpha(first) || first == '_' || first >= 0x80)) return false;
    for (unsigned char c : part) {
      if (!(std::isalnum(c) || c == '_' || c >= 0x80)) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> TargetProblem(std::string_view target) {
  const auto colons = std::count(target.begin(), target.end(), ':');
  if (colons == 0)
    return "has no ':' between the module and the attribute (expected \"module:attr\", e.g. \"torch:mm\")";
  if (colons > 1)
    return "has " + std::to_string(colons) + " ':' (expected exactly one, as in \"torch_npu:npu_fusion_attention\")";
  const std::size_t colon = target.find(':');
  const std::string_view module = target.substr(0, colon);
  const std::string_view attribute = target.substr(colon + 1);
  if (module.empty()) return "has an empty module part before ':'";
  if (attribute.empty()) return "has an empty attribute part after ':'";
  if (!IsDottedIdentifier(module)) return "module part '" + std::string(module) + "' is not a dotted Python name";
  if (!IsDottedIdentifier(attribute)) {
    return "attribute part '" + std::string(attribute) + "' is not a dotted Python name";
  }
  return std::nullopt;
}

bool BindsDecorator(const FormulaFile& file) {
  if (!file.registrations.empty()) return true;
  for (const auto& [local, imported] : file.imports) {
    if (python::LastComponent(imported) == kDecoratorName) return true;
  }
  bool defined = false;
  ForEachTopLevelNode(file.tree, [&](TSNode statement) {
    defined = defined || (IsType(statement, "function_definition") &&
                          file.tree.Text(ChildByField(statement, "name")) == kDecoratorName);
  });
  return defined;
}

Result<FormulaFile> ParseFormulaFile(std::string path, std::string source, ParseDepth depth) {
  if (source.find('\0') != std::string::npos) {
    return Error::Input(path + ": binary file (NUL byte at offset " + std::to_string(source.find('\0')) + ")");
  }
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree,
                         ParseSource(Grammar::kPython, std::move(source),
                                     {.python_signatures_only = depth == ParseDepth::kSignatures, .file = path}));
  FormulaFile file{std::move(path), std::move(tree), {}, {}, {}};
  file.imports = python::CollectImports(file.tree);
  for (const auto& [local, imported] : file.imports) {
    if (python::LastComponent(imported) == kDecoratorName) file.decorator_names.push_back(local);
  }
  const SyntaxTree& syntax = file.tree;
  std::size_t decorated = 0;
  ForEachTopLevelNode(syntax, [&](TSNode node) { decorated += IsType(node, "decorated_definition") ? 1 : 0; });
  file.registrations.reserve(decorated);

  for (TSNode root : syntax.roots())
    WalkTree(root, [&](TSNode node) {
      if (!IsType(node, "decorated_definition")) return true;
      TSNode function = ChildByField(node, "definition");
      const std::uint32_t count = ts_node_named_child_count(node);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode decorator = ts_node_named_child(node, i);
        if (!IsType(decorator, "decorator") || ts_node_named_child_count(decorator) == 0) continue;
        TSNode expression = ts_node_named_child(decorator, 0);
        const bool called = IsType(expression, "call");
        TSNode callee = called ? ChildByField(expression, "function") : expression;
        if (!IsDecoratorCallee(syntax, callee, file.imports)) continue;

        Registration registration;
        registration.decorator = Condense(syntax.Text(callee));
        registration.decorator_called = called;
        registration.decorated_definition = node;
        registration.decorator_node = decorator;
        registration.function = function;
        registration.line = static_cast<int>(ts_node_start_point(decorator).row) + 1;
        if (IsType(function, "function_definition")) {
          registration.function_name = syntax.Text(ChildByField(function, "name"));
          registration.parameters = ReadParameters(syntax, function);
          registration.doc = python::DocstringFirstLine(syntax, function);
        }
        if (called) {
          TSNode arguments = ChildByField(expression, "arguments");
          if (IsType(arguments, "argument_list")) ReadDecoratorArguments(syntax, arguments, registration);
        }
        ResolveOpName(registration);
        file.registrations.push_back(std::move(registration));
      }
      // Registrations nest only in module-level blocks (if/try), never in other decorated bodies.
      return false;
    });
  if (file.decorator_names.empty()) file.decorator_names.emplace_back(kDecoratorName);
  return file;
}

Result<FormulaFile> LoadFormulaFile(const std::filesystem::path& path, ParseDepth depth) {
  OPMFU_ASSIGN_OR_RETURN(std::string source, ReadTextFile(path));
  return ParseFormulaFile(path.string(), std::move(source), depth);
}

}  // namespace opmfu::registry
