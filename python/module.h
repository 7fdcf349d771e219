#pragma once
// One parsed Python file and the indexes value tracing needs (module_index.cpp): its bindings,
// scopes, calls, imports and argparse calls. Immutable once parsed, and independent of how the
// file is launched or which program it is part of, so one parse serves every program that imports
// it. The questions about values are a python::Tracer's (python/tracer.h), which reads the index
// through the const accessors below and nothing else.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/tree_sitter.h"
#include "python/syntax.h"
#include "python/value.h"

namespace opmfu::python {

/// A word a launcher passes to the script (or an exported variable's value), with where it was
/// written. `known` is false for values only known at run time (`$(date)`).
struct LaunchWord {
  std::string text;
  bool known = true;
  Note origin;  ///< "`--profile-level level0`" at train.sh:12
  /// Where the launcher spells `text` literally, byte for byte, when it does.
  std::optional<TextLocation> spelled;
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
  /// or `from ... import profile as Make`), in document order. A cheap filter before Tracer::CalleeName.
  std::vector<TSNode> CallsMaybeTo(std::initializer_list<std::string_view> names) const;

  /// A step of a provenance chain at `node`: "`label` (file:line)".
  Note StepAt(TSNode node, std::string label) const;

  // ---- the index, read by python::Tracer ----------------------------------------------------

  /// One binding of a name: an assignment, a definition, or something we do not trace.
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
  /// Every binding, by (scope id, name), each list in document order.
  using BindingIndex = std::map<std::pair<std::uint32_t, std::string>, std::vector<Binding>, std::less<>>;
  const BindingIndex& bindings() const { return bindings_; }
  /// The bindings of `name` in `scope`, in document order; null when it has none.
  const std::vector<Binding>* BindingsOf(std::uint32_t scope, std::string_view name) const;

  /// A function or class body, or the module (id 0). Ids are the start byte of the definition
  /// plus one.
  struct Scope {
    std::uint32_t end = 0;
    std::uint32_t parent = 0;
    TSNode definition{};  ///< the function_definition or class_definition; null for the module
  };
  const Scope& ScopeAt(std::uint32_t id) const { return scopes_.at(id); }
  /// The innermost scope holding `node`.
  std::uint32_t ScopeOf(TSNode node) const;

  /// The calls whose callee's last name is `name` (`f(...)`, `x.f(...)`, `getattr(x, "f")(...)`),
  /// in document order; null when none.
  const std::vector<TSNode>* CallsNamed(std::string_view name) const;
  /// The values assigned to `self.member` in the methods of the class of scope `class_scope`;
  /// null when none.
  const std::vector<TSNode>* SelfAttributeValues(std::uint32_t class_scope, std::string_view member) const;

  /// One add_argument(...) call as the index saw it.
  struct ArgparseArgument {
    TSNode call{};
    std::string option;                ///< "--prof-level", or the positional name
    std::vector<std::string> options;  ///< every option string
    TSNode default_value{};
    TSNode choices{};
    std::string action;
    std::string type;  ///< "int", "float", "str", ... as written
  };
  /// The add_argument calls, by dest.
  using ArgparseIndex = std::map<std::string, std::vector<ArgparseArgument>, std::less<>>;
  const ArgparseIndex& argparse_arguments() const { return argparse_; }
  /// The value of a `set_defaults(dest=value)`; null when no call sets it.
  TSNode ArgparseSetDefault(std::string_view dest) const;
  /// An add_argument or a set_defaults of this file names `dest`.
  bool DefinesArgparseDest(std::string_view dest) const {
    return argparse_.contains(dest) || argparse_set_defaults_.contains(dest);
  }
  /// What the file does with its parsers, beyond the options they define.
  struct ArgparseFacts {
    bool parses_args = false;
    bool parses_known_args = false;
    bool parses_args_as_main = false;                     ///< under `if __name__ == "__main__":`
    bool parses_known_args_as_main = false;               ///< likewise
    bool disallows_abbreviation = false;                  ///< an ArgumentParser(allow_abbrev=False)
    bool mutates_choices = false;                         ///< `x.choices = ...`, `x.choices.append(...)`
    bool options_from_framework = false;                  ///< a call passes `extra_args_provider=`
    std::set<std::string, std::less<>> choices_extended;  ///< options given more choices at run time
  };
  const ArgparseFacts& argparse_facts() const { return argparse_facts_; }
  /// The file's add_argument(...) calls as the launcher rules read them.
  std::vector<ArgparseOption> LocalArgparseOptions() const;

  const LibraryKnowledge& knowledge() const { return *knowledge_; }
  /// This file imports the knowledge's patch module where it runs (not only inside a function).
  bool imports_patch() const { return imports_patch_; }

  // Small questions about nodes of this file, shared by the index and the tracer.
  bool InMainGuard(TSNode node) const;
  Value Unknown(TSNode node, std::string reason) const;
  /// Integer arithmetic at `node` whose result does not fit 64 bits (Python's would): unknown.
  Value BeyondInt64(TSNode node) const;
  /// The node's text, cut to 60 characters, for messages.
  std::string Spelling(TSNode node) const;

 private:
  PythonModule(std::string path, SyntaxTree tree, const LibraryKnowledge& knowledge);
  void Index();
  // Index's parts (module_index.cpp), one per kind of node; `walk` holds the open scopes.
  struct IndexWalk;
  bool IndexNode(IndexWalk& walk, TSNode node);  ///< false: do not descend into the node
  void IndexImport(const IndexWalk& walk, TSNode statement);
  void IndexAssignment(const IndexWalk& walk, TSNode assignment);
  void IndexCall(const IndexWalk& walk, TSNode call);
  void IndexAddArgument(TSNode call, TSNode arguments);
  void BindPattern(const IndexWalk& walk, TSNode pattern, TSNode value, std::string how);
  void BindUnpacking(const IndexWalk& walk, TSNode pattern, TSNode value);
  /// Index's part for argparse: allow_abbrev, choices changed at run time, extra_args_provider.
  void NoteArgparseFacts(TSNode call, TSNode function);

  std::string path_;
  SyntaxTree tree_;
  ImportBindings imports_;
  std::vector<TSNode> calls_;
  std::vector<TSNode> comments_;
  std::map<std::uint32_t, Scope> scopes_;
  BindingIndex bindings_;
  std::map<std::string, std::vector<TSNode>, std::less<>> calls_by_name_;  ///< by the callee's last name
  /// `self.name = value` in a method, by (the class's scope, name): the values of `self.name` in
  /// any method of that class.
  std::map<std::pair<std::uint32_t, std::string>, std::vector<TSNode>, std::less<>> self_attributes_;
  ArgparseIndex argparse_;
  std::map<std::string, TSNode, std::less<>> argparse_set_defaults_;
  ArgparseFacts argparse_facts_;
  const LibraryKnowledge* knowledge_;
  bool imports_patch_ = false;  ///< this file imports the patch module where it runs
};

}  // namespace opmfu::python
