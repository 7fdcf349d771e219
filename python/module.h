#pragma once
// Static value tracing in one Python file: what an expression can evaluate to, and how each value
// got there (its provenance chain). Nothing is executed or imported. Where a value cannot be
// determined, the result says "unknown" and why, rather than guessing.
// The class is one index of one file (module_index.cpp); its questions are answered in
// evaluator.cpp (expressions, names, calls), argparse_model.cpp, environment.cpp and
// cross_module.cpp (values defined in the program's other modules).

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/tree_sitter.h"
#include "python/syntax.h"
#include "python/value.h"

namespace opmfu::python {

class ModuleSet;

/// A word a launcher passes to the script (or an exported variable's value), with where it was
/// written. `known` is false for values only known at run time (`$(date)`).
struct LaunchWord {
  std::string text;
  bool known = true;
  Note origin;  ///< "`--profile-level level0`" at train.sh:12
};

/// How one launch command runs the script: its argv (after the script) and exported environment.
struct ScriptInvocation {
  std::string launcher;
  std::vector<LaunchWord> arguments;
  std::map<std::string, LaunchWord, std::less<>> environment;
};

/// One add_argument(...) of the file, for the launcher rules.
struct ArgparseOption {
  std::vector<std::string> options;  ///< "--profile-level", "-l"; empty for a positional
  std::string dest;
  std::string action;                               ///< "store_true", ... or empty
  std::optional<std::vector<std::string>> choices;  ///< when given as a literal list of strings
  bool takes_value() const {
    return action != "store_true" && action != "store_false" && action != "count" && action != "store_const" &&
           action != "help" && action != "version" && action != "boolean_optional";
  }
};

/// A library constant (an enum member) named by a qualified name.
struct NamedConstant {
  std::string_view type;    ///< its class: "ExportType"
  std::string_view member;  ///< "Db"
  std::string_view value;   ///< its string value: "db"
  /// Its value once the program imports the patch module (LibraryKnowledge::patch_module), when
  /// the patch changes it; empty otherwise. A patched constant is named by its value.
  std::string_view patched_value;
};

/// What the evaluator knows about the libraries a program uses, beyond Python itself. python/
/// knows Python; the layer above supplies this (linter/torch_npu.h: torch_npu's).
struct LibraryKnowledge {
  /// The constant behind a qualified name ("torch_npu.profiler.ExportType.Db"); nullopt for a
  /// name that is none. Null: no constants.
  std::optional<NamedConstant> (*constant)(std::string_view qualified_name) = nullptr;
  /// A module whose import patches other libraries process-wide when it runs; empty: none.
  std::string_view patch_module;
  /// Names that can only be these modules, even in a snippet without its import line.
  std::vector<std::string_view> implied_modules;

  /// Python alone: no constants, no patch, no implied modules.
  static const LibraryKnowledge& None();
};

/// A parsed Python file with the indexes value tracing needs. Built once per file.
class PythonModule {
 public:
  /// Parses and indexes. A file with syntax errors still gives a module (its ERROR subtrees are
  /// skipped); only an unparseable input fails.
  /// `knowledge` must outlive the module.
  static Result<PythonModule> Parse(std::string path, std::string source,
                                    const LibraryKnowledge& knowledge = LibraryKnowledge::None());

  const std::string& path() const { return path_; }
  const SyntaxTree& tree() const { return tree_; }
  const ImportBindings& imports() const { return imports_; }

  /// Every call in the file, in document order.
  const std::vector<TSNode>& calls() const { return calls_; }
  /// Every comment, in document order.
  const std::vector<TSNode>& comments() const { return comments_; }

  /// The calls whose callee may be one of `names` (by its last component: `profile` matches
  /// `torch_npu.profiler.profile(...)`, `P.profile(...)`, and `Make(...)` after `Make = ...profile`
  /// or `from ... import profile as Make`), in document order. A cheap filter before CalleeName.
  std::vector<TSNode> CallsMaybeTo(std::initializer_list<std::string_view> names) const;

  /// The qualified name of a call's callee ("torch_npu.profiler.profile"), through imports and
  /// simple aliases (`P = torch_npu.profiler.profile`); nullopt for computed callees.
  std::optional<std::string> CalleeName(TSNode call) const;

  /// The possible values of an expression.
  Values Resolve(TSNode expression) const;

  /// A keyword argument of a call (or the `position`-th positional one), also found through
  /// `**mapping` arguments. nullopt when the call does not pass it; the node is the argument's
  /// value (or the `**` expression it came from).
  struct Argument {
    TSNode node{};
    TSNode keyword{};  ///< the whole `name=value` node, when written as a keyword
    Values values;
  };
  std::optional<Argument> FindArgument(TSNode call, std::string_view keyword, int position = -1) const;

  /// The launches that run this file: argparse and environment lookups then take the values they
  /// pass (an option a launch does not pass keeps its default). Without any, defaults are used.
  void BindInvocations(std::vector<ScriptInvocation> invocations) { invocations_ = std::move(invocations); }
  const std::vector<ScriptInvocation>& invocations() const { return invocations_; }

  /// The program's other modules (imports followed below the root): imported functions and
  /// constants, argparse options defined elsewhere and callers in other files are traced there.
  void AttachModules(const ModuleSet* modules) { modules_ = modules; }

  /// The program's add_argument(...) calls (this file's and its modules'), and whether it calls
  /// parse_args (not only parse_known_args), i.e. whether argparse rejects options it does not define.
  /// Choices that part of the program extends or changes at run time
  /// (`add_parser_argument_choices_value(parser, "--x", "v")`, `action.choices.append(...)`) are
  /// left out (nullopt): they are not a closed list.
  std::vector<ArgparseOption> ArgparseOptions() const;
  /// False also when the options come from a framework the program hands its parser to
  /// (`extra_args_provider=`, Megatron's `pretrain`/`initialize_megatron` outside the root): the
  /// option set is open. Another module's parse under `if __name__ == "__main__":` does not count.
  bool RejectsUnknownOptions() const;
  /// The long option a typed one names, as argparse reads it: itself, or the only option it is a
  /// prefix of (unless a parser sets `allow_abbrev=False`); nullopt when none or ambiguous.
  std::optional<std::string> ExpandAbbreviation(std::string_view typed) const;

  /// The knowledge's patch module (torch_npu's `transfer_to_npu`) is imported where it runs on
  /// import, by this file or by a module of the program: its patch is process-wide.
  bool ImportsPatch() const;

  /// A step of a provenance chain at `node`: "`label` (file:line)".
  Note StepAt(TSNode node, std::string label) const;

 private:
  struct Binding {
    TSNode target{};  ///< the name as written
    TSNode value{};   ///< null: bound by something we do not trace (a loop, unpacking, `with`)
    std::string how;  ///< for a null value: "a for loop", ...
    std::uint32_t scope = 0;
    int element = -1;  ///< `a, b = value`: the name takes item `element` of each value
    /// Made in a function through `global name`: when it runs is not known, so it is one more
    /// possible value of the module's name, never the only one.
    bool from_function = false;
  };
  struct ArgparseArgument {
    TSNode call{};
    std::string option;                ///< "--prof-level", or the positional name
    std::vector<std::string> options;  ///< every option string
    TSNode default_value{};
    TSNode choices{};
    std::string action;
    std::string type;  ///< "int", "float", "str", ... as written
  };
  struct FunctionInfo {
    TSNode definition{};
    std::uint32_t scope = 0;  ///< the scope holding the definition
  };

  PythonModule(std::string path, SyntaxTree tree, const LibraryKnowledge& knowledge);
  void Index();

  Values ResolveIn(TSNode expression, int depth) const;
  Values ResolveOnce(TSNode expression, int depth) const;  ///< ResolveIn before bounding its values
  Values ResolveName(std::string_view name, TSNode use, int depth) const;
  Values ResolveAttribute(TSNode attribute, int depth) const;
  /// `self.member` in a method: every value assigned to it in the class's methods; nullopt when
  /// none is (or `attribute` is not on `self` in a method).
  std::optional<Values> ResolveSelfAttribute(TSNode attribute, int depth) const;
  /// The class whose method holds `node` (its scope id), when `node` is in a method.
  std::optional<std::uint32_t> EnclosingClass(TSNode node) const;
  Values ResolveCall(TSNode call, int depth) const;
  Values ResolveSubscript(TSNode subscript, int depth) const;
  Values ResolveReturns(TSNode function, TSNode call, int depth) const;
  /// `bool(x)`, `int(x)` or `str(x)` of one traced value of x, as Python computes it.
  Value Converted(const Value& inner, std::string_view builtin, TSNode call) const;
  Values ResolveParameter(const FunctionInfo& function, TSNode parameter, std::string_view name, int depth) const;
  Values ResolveArgparse(std::string_view dest, TSNode use, int depth) const;
  Values ResolveEnvironment(TSNode call, int depth) const;
  /// `qualified` ("pkg.args.get_args") as defined at the top level of another module of the
  /// program; nullopt when that is not a module we have.
  std::optional<Values> ResolveImported(const std::string& qualified, int depth) const;
  Values ResolveTopLevel(std::string_view name, int depth) const;
  Values ResolveBindings(const std::vector<const Binding*>& reaching, std::string_view name, int depth) const;
  /// The value of `name` after an update bound at `binding`: `name += ...`, `name.append(x)`,
  /// `.extend(xs)`, `.insert(i, x)` or `.add(x)`, applied to each value it had before.
  Values ResolveUpdate(const Binding& binding, std::string_view name, int depth) const;
  /// This module and the program's other modules that define argparse options.
  std::vector<const PythonModule*> ArgparseModules() const;
  bool OptionsFromFramework() const;
  /// A parser of this file handed to, or made by, a function imported from outside the project
  /// (`parser = add_vendor_flags(parser)`, `parser = vendorpkg.make_parser()`): that function
  /// may add options this program never sees, so its option set is open.
  bool ParserLeavesTheProject() const;
  bool InMainGuard(TSNode node) const;
  /// Index's part for argparse: allow_abbrev, choices changed at run time, extra_args_provider.
  void NoteArgparseFacts(TSNode call, TSNode function);
  std::vector<ArgparseOption> LocalArgparseOptions() const;
  /// The value `argument` gets from one invocation, or nullopt when the invocation does not pass it.
  std::optional<Value> PassedValue(const ArgparseArgument& argument, const ScriptInvocation& invocation) const;
  Values Lookup(const Values& containers, const Values& keys, TSNode use, int depth) const;
  std::optional<Argument> FindArgumentIn(TSNode call, std::string_view keyword, int position, int depth) const;
  std::vector<const Binding*> Reaching(std::uint32_t scope, std::string_view name, std::uint32_t before,
                                       int depth) const;
  /// The truth of a condition when every traced value agrees on it; nullopt otherwise.
  std::optional<bool> EvaluateCondition(TSNode condition, int depth) const;
  enum class Branch { kNever, kAlways, kMaybe };
  /// Whether the branch of if_statement `statement` that holds `node` runs.
  Branch BranchTaken(TSNode statement, TSNode node, int depth) const;
  std::uint32_t ScopeOf(TSNode node) const;
  Value Unknown(TSNode node, std::string reason) const;
  /// Integer arithmetic at `node` whose result does not fit 64 bits (Python's would): unknown.
  Value BeyondInt64(TSNode node) const;
  std::string Spelling(TSNode node) const;

  std::string path_;
  SyntaxTree tree_;
  ImportBindings imports_;
  std::vector<TSNode> calls_;
  std::vector<TSNode> comments_;
  /// Scopes by id: the start byte of their function or class plus one (0 is the module).
  struct Scope {
    std::uint32_t end = 0;
    std::uint32_t parent = 0;
    TSNode definition{};  ///< the function_definition or class_definition; null for the module
  };
  std::map<std::uint32_t, Scope> scopes_;
  std::map<std::pair<std::uint32_t, std::string>, std::vector<Binding>, std::less<>> bindings_;
  std::map<std::string, std::vector<TSNode>, std::less<>> calls_by_name_;  ///< by the callee's last name
  /// `self.name = value` in a method, by (the class's scope, name): the values of `self.name` in
  /// any method of that class.
  std::map<std::pair<std::uint32_t, std::string>, std::vector<TSNode>, std::less<>> self_attributes_;
  std::map<std::string, std::vector<ArgparseArgument>, std::less<>> argparse_;
  std::map<std::string, TSNode, std::less<>> argparse_set_defaults_;
  const LibraryKnowledge* knowledge_;
  bool imports_patch_ = false;           ///< this file imports the patch module where it runs
  mutable std::optional<bool> patched_;  ///< with the program's modules, on first use
  bool parses_args_ = false;
  bool parses_known_args_ = false;
  bool parses_args_as_main_ = false;                     ///< under `if __name__ == "__main__":`
  bool parses_known_args_as_main_ = false;               ///< likewise
  bool disallows_abbreviation_ = false;                  ///< an ArgumentParser(allow_abbrev=False)
  bool mutates_choices_ = false;                         ///< `x.choices = ...`, `x.choices.append(...)`
  bool options_from_framework_ = false;                  ///< a call passes `extra_args_provider=`
  std::set<std::string, std::less<>> choices_extended_;  ///< options given more choices at run time
  std::vector<ScriptInvocation> invocations_;
  const ModuleSet* modules_ = nullptr;
};

}  // namespace opmfu::python
