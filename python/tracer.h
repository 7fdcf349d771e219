#pragma once
// Static value tracing: what an expression of a Python file can evaluate to, and how each value
// got there (its provenance chain). Nothing is executed or imported. Where a value cannot be
// determined, the result says "unknown" and why, rather than guessing.
// A Tracer is made with everything it reads: the file's index (python/module.h), the program's
// other modules (read beforehand, python/project.h), the launches that run the file and the
// step budget of one question. Its questions are answered in python/evaluator/, one file per kind
// of expression (literals, containers, operators, names, parameters, attributes, calls,
// subscripts, arguments), plus the reaching bindings, argparse, the environment and values defined
// in the program's other modules (cross_module). It reads the index (python/module.h) only
// through PythonModule's public accessors.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/module.h"

namespace opmfu::python {

class ModuleSet;

/// Steps one question (a Resolve or FindArgument from outside) may take, across every module it
/// reaches: real code can branch at each step (a recursive wrapper whose parameters come from many
/// calls), and a lint must end in about parse time; beyond this the value is unknown.
inline constexpr std::size_t kDefaultStepBudget = 20000;
/// Steps one value is followed through (names, calls, nested expressions) before it is unknown
/// ("defined through too many steps"): deep enough for real alias chains.
inline constexpr int kMaxTraceDepth = 24;

class Tracer {
 public:
  /// `module` and `program` (the program's other modules; null: the file traced alone) must
  /// outlive the tracer. `invocations`: the launches that run the file; argparse and environment
  /// lookups take the values they pass (an option a launch does not pass keeps its default).
  /// Without any (null), defaults are used. Shared: every module a program's launches reach is
  /// traced with the same ones.
  Tracer(const PythonModule& module, const ModuleSet* program,
         std::shared_ptr<const std::vector<ScriptInvocation>> invocations,
         std::size_t step_budget = kDefaultStepBudget);
  Tracer(Tracer&&) noexcept = default;
  Tracer& operator=(Tracer&&) noexcept = default;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;
  ~Tracer();

  const PythonModule& module() const { return *module_; }
  const std::vector<ScriptInvocation>& invocations() const { return *context_->invocations; }

  /// The possible values of an expression.
  Values Resolve(TSNode expression) const;

  /// The qualified name of a call's callee ("torch_npu.profiler.profile"), through imports and
  /// simple aliases (`P = torch_npu.profiler.profile`); nullopt for computed callees.
  std::optional<std::string> CalleeName(TSNode call) const;

  /// A name held to one of its assignments, so that questions are asked along one path: `prof =
  /// torch_npu.profiler` in one branch of an if and `prof = torch.profiler` in the other are two
  /// paths a `prof.profile(...)` call is traced on.
  struct Path {
    const PythonModule* module = nullptr;
    std::uint32_t scope = 0;
    std::string name;
    std::uint32_t assigned_at = 0;  ///< the start byte of the assignment's target
  };
  struct Callee {
    std::string name;
    std::optional<Path> path;  ///< nullopt: the callee is the same on every path
  };
  /// Every qualified name a call's callee can be: one without a path when it is the same on every
  /// path (or cannot be told, as CalleeName), else one per assignment of the name the callee is read
  /// through (`prof.profile` after `prof` is assigned on two branches), each with its path.
  std::vector<Callee> Callees(TSNode call) const;
  /// A tracer of the same trace that asks its questions along `path`.
  Tracer Along(const Path& path) const;
  /// A tracer of the same trace that takes every branch as possible, even one whose condition the
  /// traced values decide (an argparse default decides `if args.device == "cuda":` only for a run
  /// that passes nothing): for what a program can do on some run.
  Tracer OnEveryPath() const;

  /// A keyword argument of a call (or the `position`-th positional one), also found through
  /// `**mapping` arguments. nullopt when the call does not pass it; the node is the argument's
  /// value (or the `**` expression it came from).
  struct Argument {
    TSNode node{};
    TSNode keyword{};  ///< the whole `name=value` node, when written as a keyword
    Values values;
  };
  std::optional<Argument> FindArgument(TSNode call, std::string_view keyword, int position = -1) const;

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

 private:
  using Binding = PythonModule::Binding;
  using ArgparseArgument = PythonModule::ArgparseArgument;
  using Scope = PythonModule::Scope;
  /// A function definition and the scope that holds it.
  struct FunctionInfo {
    TSNode definition{};
    std::uint32_t scope = 0;
  };

  /// What every module's tracer of one trace shares: the program, the launches, the budget and
  /// the steps the current question has taken.
  struct Context {
    const ModuleSet* program;
    std::shared_ptr<const std::vector<ScriptInvocation>> invocations;  ///< never null
    std::size_t step_budget;
    mutable std::size_t steps_taken = 0;
    mutable std::map<const PythonModule*, bool> patched;  ///< ImportsPatch, per module, on first use
    std::optional<Path> path;                             ///< the one path questions are asked along (Along)
    bool every_path = false;                              ///< no branch is decided by the traced values (OnEveryPath)
  };
  Tracer(const PythonModule& module, const Context& context) : module_(&module), context_(&context) {}
  /// The same trace, asking about another module of the program.
  Tracer In(const PythonModule& other) const { return {other, *context_}; }
  const ModuleSet* program() const { return context_->program; }

  Values ResolveIn(TSNode expression, int depth) const;
  /// ResolveIn before bounding its values: hands the expression to the resolver of its kind.
  Values ResolveOnce(TSNode expression, int depth) const;
  /// `True`, `None`, `0x10`, `1.5`, `"text"` (evaluator/literals.cpp).
  Values ResolveLiteral(TSNode literal) const;
  /// A list, tuple, set or bare `a, b`: one value per combination of its items' values, up to
  /// kMaxCombinations (evaluator/containers.cpp).
  Values ResolveSequence(TSNode sequence, int depth) const;
  Values ResolveDictionary(TSNode dictionary, int depth) const;
  /// `a if c else b` (one side when the traced values decide c), `a or b`, `a and b`
  /// (evaluator/operators.cpp).
  Values ResolveAlternatives(TSNode expression, int depth) const;
  /// `not x` of a bool, `-x` of a number.
  Values ResolveUnary(TSNode expression, int depth) const;
  /// `+` of strings, integers and sequences; `/` of paths.
  Values ResolveBinary(TSNode expression, int depth) const;
  Values ResolveName(std::string_view name, TSNode use, int depth) const;
  Values ResolveAttribute(TSNode attribute, int depth) const;
  /// `member` of a module value (`torch_npu.profiler` . `profile`), read at `at` (the attribute, or
  /// a `getattr(...)` with that literal name): a library constant, a value defined in another
  /// module of the program, or the qualified name; appended to `out`.
  void ResolveModuleMember(const Value& owner, const std::string& member, TSNode at, int depth, Values& out) const;
  /// `self.member` in a method: every value assigned to it in the class's methods; nullopt when
  /// none is (or `attribute` is not on `self` in a method).
  std::optional<Values> ResolveSelfAttribute(TSNode attribute, int depth) const;
  /// The class whose method holds `node` (its scope id), when `node` is in a method.
  std::optional<std::uint32_t> EnclosingClass(TSNode node) const;
  Values ResolveCall(TSNode call, int depth) const;
  /// `parser.parse_args()`, `os.environ.get(...)`, `d.get(k, default)`, `s.lower()` and the like;
  /// nullopt when the method is none of those (the callee is then resolved as any other).
  std::optional<Values> ResolveMethodCall(TSNode call, int depth) const;
  /// `dict(a=1, b=x)`.
  Value ResolveDictCall(TSNode call, int depth) const;
  /// `getattr(args, "name", default)` and `getattr(module, "name")`, appended to `out`.
  void ResolveGetattrCall(TSNode call, int depth, Values& out) const;
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

  // The index's own helpers, as the evaluator's files call them.
  std::uint32_t ScopeOf(TSNode node) const { return module_->ScopeOf(node); }
  bool InMainGuard(TSNode node) const { return module_->InMainGuard(node); }
  Value Unknown(TSNode node, std::string reason) const { return module_->Unknown(node, std::move(reason)); }
  Value BeyondInt64(TSNode node) const { return module_->BeyondInt64(node); }
  std::string Spelling(TSNode node) const { return module_->Spelling(node); }
  Note StepAt(TSNode node, std::string label) const { return module_->StepAt(node, std::move(label)); }

  const PythonModule* module_;
  std::unique_ptr<const Context> owned_;  ///< the root tracer's; null in a tracer made by In()
  const Context* context_;
};

}  // namespace opmfu::python
