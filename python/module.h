#pragma once
// One parsed Python file and the indexes value tracing needs (module_index.cpp): its bindings,
// scopes, calls, imports and argparse calls. Immutable once parsed, and independent of how the
// file is launched or which program it is part of, so one parse serves every program that imports
// it. The questions about values are a python::Tracer's (python/tracer.h).

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

  bool InMainGuard(TSNode node) const;
  /// Index's part for argparse: allow_abbrev, choices changed at run time, extra_args_provider.
  void NoteArgparseFacts(TSNode call, TSNode function);
  std::vector<ArgparseOption> LocalArgparseOptions() const;
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
  bool imports_patch_ = false;  ///< this file imports the patch module where it runs
  bool parses_args_ = false;
  bool parses_known_args_ = false;
  bool parses_args_as_main_ = false;                     ///< under `if __name__ == "__main__":`
  bool parses_known_args_as_main_ = false;               ///< likewise
  bool disallows_abbreviation_ = false;                  ///< an ArgumentParser(allow_abbrev=False)
  bool mutates_choices_ = false;                         ///< `x.choices = ...`, `x.choices.append(...)`
  bool options_from_framework_ = false;                  ///< a call passes `extra_args_provider=`
  std::set<std::string, std::less<>> choices_extended_;  ///< options given more choices at run time

  // The tracer reads the index directly: the index is its data, kept apart only so that it does
  // not depend on a program or a launch.
  friend class Tracer;
};

}  // namespace opmfu::python
