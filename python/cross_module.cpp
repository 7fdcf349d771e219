#include "python/module.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <set>

#include "common/text.h"
#include "python/evaluator_internal.h"
#include "python/project.h"

namespace opmfu::python {

bool PythonModule::ImportsPatch() const {
  if (!patched_) {
    patched_ = imports_patch_;
    const std::string_view patch = knowledge_->patch_module;
    if (!*patched_ && !patch.empty() && modules_ != nullptr && modules_->AnyImports(patch)) {
      // Parsed only when the text imports it: which of them import it where it runs on import.
      for (const PythonModule* other : modules_->Containing(LastComponent(patch), this)) {
        if (other->imports_patch_) patched_ = true;
      }
    }
  }
  return *patched_;
}

Values PythonModule::ResolveTopLevel(std::string_view name, int depth) const {
  std::vector<const Binding*> reaching = Reaching(0, name, UINT32_MAX, depth);
  if (!reaching.empty()) return ResolveBindings(reaching, name, depth);
  if (auto imported = imports_.find(name); imported != imports_.end()) {
    // Re-exported (`from .args import get_args` in a package's __init__.py).
    if (auto values = ResolveImported(imported->second, depth + 1)) return *values;
  }
  Value missing;
  missing.unknown_reason = "`" + std::string(name) + "` is not assigned in " + path_;
  return {missing};
}

std::optional<Values> PythonModule::ResolveImported(const std::string& qualified, int depth) const {
  if (modules_ == nullptr || depth > kMaxDepth) return std::nullopt;
  const std::size_t dot = qualified.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string module_name = qualified.substr(0, dot);
  if (module_name.find_first_not_of('.') == std::string::npos) return std::nullopt;  // `from . import x`: a module
  const std::string member = qualified.substr(dot + 1);
  const PythonModule* other = modules_->Find(module_name, path_, member);
  if (other == nullptr || other == this) return std::nullopt;
  const bool defined =
      other->bindings_.contains(std::pair<std::uint32_t, std::string>(0, member)) || other->imports_.contains(member);
  if (!defined) return std::nullopt;
  return FromOtherModule(other->ResolveTopLevel(member, depth + 1), other);
}

}  // namespace opmfu::python
