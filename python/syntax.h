#pragma once
// Python front end: literal values, import bindings and dotted names, read statically from a
// tree-sitter-python tree. Nothing here executes or imports the code it reads.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/text_edit.h"
#include "common/tree_sitter.h"

namespace opmfu::python {

/// The value of a plain string literal (or an implicit concatenation of them); nullopt for
/// f-strings with replacement fields, bytes, and anything that is not a string literal.
std::optional<std::string> StringLiteralValue(const SyntaxTree& tree, TSNode node);

enum class LiteralKind { kString, kTrue, kFalse, kNone, kInteger, kFloat, kOther };
LiteralKind ClassifyLiteral(const SyntaxTree& tree, TSNode node);

/// Local name -> what it was imported as, for the import statements of a module (at any depth, so
/// imports inside try/except are seen). `import a.b as c` binds c -> "a.b"; `import a.b` binds
/// a -> "a"; `from x import y as z` binds z -> "x.y"; relative modules keep their dots: ".m.y".
/// With `nested`, imports inside functions and classes count too (the linter's file-wide view).
using ImportBindings = std::map<std::string, std::string, std::less<>>;
ImportBindings CollectImports(const SyntaxTree& tree, bool nested = false);

/// Adds the bindings of one import_statement or import_from_statement to `bindings`.
void CollectImportStatement(const SyntaxTree& tree, TSNode statement, ImportBindings& bindings);

/// The dotted names a file imports, read from its text (`import a.b`, `from a import b` gives
/// "a" and "a.b"; `from .m import f` gives ".m" and ".m.f"). Cheap; no parse.
std::vector<std::string> ScanImports(std::string_view source);
/// Whether `imports` (from ScanImports) holds `name` or a module below it.
bool ImportsModule(const std::vector<std::string>& imports, std::string_view name);

/// Dotted name of an identifier or attribute chain with its first part resolved through the
/// imports ("P.profile" -> "torch_npu.profiler.profile"); nullopt for other expressions.
std::optional<std::string> QualifiedName(const SyntaxTree& tree, TSNode expression, const ImportBindings& imports);

/// The attribute a `getattr(obj, "name")` (or `getattr(obj, "name", default)`) call reads, when
/// `node` is one with a literal name: "name"; nullopt otherwise.
std::optional<std::string> GetattrMember(const SyntaxTree& tree, TSNode node);

/// The last part of a dotted name: "a.b.c" -> "c".
std::string_view LastComponent(std::string_view dotted);

/// The first syntax error of a Python tree that Python would also reject: an ERROR or MISSING
/// node (or the root, for an error tree-sitter flags without one), in document order; nullopt
/// when the file is valid Python. tree-sitter-python 0.23 reads a replacement field whose format
/// spec starts with `=` (`f"{title:=^40}"`, `f"{x:=}"`) as an assignment expression and fails on
/// the rest, where Python ends the field's expression at its first `:` (an assignment expression
/// must be parenthesized there). Such an error is confirmed the way Python reads the field: the
/// name, then the format spec, re-parsed as the spec of a field of the same string. Nothing runs.
std::optional<TSNode> FirstSyntaxError(const SyntaxTree& tree);

/// First line of a function's docstring, if its body starts with a string literal.
std::optional<std::string> DocstringFirstLine(const SyntaxTree& tree, TSNode function_definition);

/// The edit that adds `item` as the last element of a bracketed container (an argument list, a
/// list, a parameter list), written as the container is laid out: one element per line (the last
/// starts its line) puts `item` on a line of its own with the same indentation, keeping a trailing
/// comma if there is one; otherwise `, item` follows the last element; an empty container gets
/// `item` just inside its opening bracket (items several fixes add there are joined by ", "). Comments
/// are not elements.
TextEdit AppendItemEdit(const SyntaxTree& tree, TSNode container, std::string_view item);

/// The names a `parameters` or `lambda_parameters` node binds, in order (`*args` and `**kw` give
/// `args` and `kw`).
std::vector<std::string> ParameterNames(const SyntaxTree& tree, TSNode parameters);

/// Why `tree` is not a Python file an edit may leave: it has a syntax error, or a function with
/// two parameters of one name (`def f(a, kwargs, **kwargs)`, which Python refuses to compile and
/// tree-sitter parses); nullopt when it is fine.
std::optional<std::string> EditedPythonProblem(const SyntaxTree& tree);

}  // namespace opmfu::python
