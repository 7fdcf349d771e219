#pragma once
// The model of a `_flops_formulas.py`: every `@register_npu_flop(...)` registration, read with
// tree-sitter-python and never executed.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/tree_sitter.h"
#include "python/syntax.h"

namespace opmfu::registry {

/// One decorator argument as written: a literal we could read, or an expression we cannot.
struct ArgumentValue {
  enum class Kind { kAbsent, kString, kNone, kTrue, kFalse, kExpression };
  Kind kind = Kind::kAbsent;
  std::string text;  ///< the string's value, or the expression's source text
  TSNode node{};     ///< the value's node (null when absent)

  bool absent() const { return kind == Kind::kAbsent; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_expression() const { return kind == Kind::kExpression; }
};

struct Parameter {
  std::string name;  ///< with its `*`/`**` for *args/**kwargs
  std::optional<std::string> default_value;
};

/// Where the op name (the part of the "<flops>-<op_name>" MSTX message) comes from.
enum class OpNameSource { kExplicit, kTarget, kFunctionName, kUnknown };

struct Registration {
  std::string function_name;
  std::string decorator;         ///< the decorator's callee as written, e.g. "register_npu_flop"
  bool decorator_called = true;  ///< false for a bare `@register_npu_flop`
  ArgumentValue target;
  ArgumentValue op_name;
  ArgumentValue is_default;
  /// The pre-release form `@register_npu_flop("op")`: one positional string with no ':'.
  bool legacy_positional_op_name = false;
  /// Arguments the decorator does not take (an unknown keyword, a third positional, `**kw`).
  std::vector<TSNode> unexpected_arguments;

  std::string resolved_op_name;  ///< empty when it depends on an expression
  OpNameSource op_name_source = OpNameSource::kUnknown;
  std::vector<Parameter> parameters;
  std::optional<std::string> doc;

  TSNode decorated_definition{};  ///< the whole `@...\ndef ...:` node
  TSNode decorator_node{};
  TSNode function{};  ///< the function_definition node
  int line = 0;       ///< 1-based line of the decorator

  /// is_default as torch_npu reads it (keyword-only, False when absent); nullopt when not literal.
  std::optional<bool> IsDefault() const;
  /// "module:attr" if the target is a string literal.
  std::optional<std::string> TargetText() const;
};

/// A parsed formulas file. Registrations hold nodes of `tree`, so they live and move with it.
struct FormulaFile {
  std::string path;  ///< as the user named it
  SyntaxTree tree;
  python::ImportBindings imports;
  std::vector<Registration> registrations;
  /// Local names under which the decorator is reachable, e.g. {"register_npu_flop"} or {"reg"}.
  std::vector<std::string> decorator_names;

  bool parsed_cleanly() const { return !python::FirstSyntaxError(tree); }
};

/// How much of the file to parse: everything (checks, edits) or only what a listing shows
/// (decorators, signatures, docstrings), which is much faster on large files.
enum class ParseDepth { kFull, kSignatures };

/// Parses formulas source text; fails only on input we refuse outright (binary data).
Result<FormulaFile> ParseFormulaFile(std::string path, std::string source, ParseDepth depth = ParseDepth::kFull);

/// Reads and parses a formulas file from disk.
Result<FormulaFile> LoadFormulaFile(const std::filesystem::path& path, ParseDepth depth = ParseDepth::kFull);

/// "torch.nn.functional:linear" and "torch:nn.functional.linear" both name
/// "torch.nn.functional.linear": the object a target resolves to, for duplicate detection.
std::optional<std::string> ResolvedTargetPath(std::string_view target);

/// Why a target string is not of the form "<dotted.module>:<attr>[.<attr>...]", or nullopt.
std::optional<std::string> TargetProblem(std::string_view target);

/// True when the file binds the decorator: an import of register_npu_flop, a def of it, or at
/// least one registration using it.
bool BindsDecorator(const FormulaFile& file);

}  // namespace opmfu::registry
