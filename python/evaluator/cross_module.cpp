// The tracer itself, and values defined in the program's other modules (imports, re-exports, the
// patch module imported anywhere).
#include "python/evaluator/internal.h"
#include "python/project.h"

namespace opmfu::python {

Tracer::Tracer(const PythonModule& module, const ModuleSet* program,
               std::shared_ptr<const std::vector<ScriptInvocation>> invocations, std::size_t step_budget)
    : module_(&module),
      owned_(std::make_unique<const Context>(Context{
          program,
          invocations != nullptr ? std::move(invocations) : std::make_shared<const std::vector<ScriptInvocation>>(),
          step_budget,
          0,
          {},
          std::nullopt,
          false})),
      context_(owned_.get()) {}

Tracer::~Tracer() = default;

bool Tracer::ImportsPatch() const {
  const auto [known, inserted] = context_->patched.try_emplace(module_, module_->imports_patch());
  if (inserted) {
    const std::string_view patch = module_->knowledge().patch_module;
    if (!known->second && !patch.empty() && program() != nullptr && program()->AnyImports(patch)) {
      // Parsed only when the text imports it: which of them import it where it runs on import.
      for (const PythonModule* other : program()->Containing(LastComponent(patch), module_)) {
        if (other->imports_patch()) known->second = true;
      }
    }
  }
  return known->second;
}

Values Tracer::ResolveTopLevel(std::string_view name, int depth) const {
  std::vector<const Binding*> reaching = Reaching(0, name, UINT32_MAX, depth);
  if (!reaching.empty()) return ResolveBindings(reaching, name, depth);
  if (auto imported = module_->imports().find(name); imported != module_->imports().end()) {
    // Re-exported (`from .args import get_args` in a package's __init__.py).
    if (auto values = ResolveImported(imported->second, depth + 1)) return *values;
  }
  Value missing;
  missing.unknown_reason = "`" + std::string(name) + "` is not assigned in " + module_->path();
  return {missing};
}

std::optional<Values> Tracer::ResolveImported(const std::string& qualified, int depth) const {
  if (program() == nullptr || depth > kMaxDepth) return std::nullopt;
  const std::size_t dot = qualified.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string module_name = qualified.substr(0, dot);
  if (module_name.find_first_not_of('.') == std::string::npos) return std::nullopt;  // `from . import x`: a module
  const std::string member = qualified.substr(dot + 1);
  const PythonModule* other = program()->Find(module_name, module_->path(), member);
  if (other == nullptr || other == module_) return std::nullopt;
  const bool defined = other->BindingsOf(0, member) != nullptr || other->imports().contains(member);
  if (!defined) return std::nullopt;
  return FromOtherModule(In(*other).ResolveTopLevel(member, depth + 1), other);
}

}  // namespace opmfu::python
