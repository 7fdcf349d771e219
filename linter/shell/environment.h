#pragma once
// A launcher's variables: each with the alternatives its value has on the paths so far, kept in
// layers so a branch or a `V=x cmd` prefix copies nothing until it writes.

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linter/shell/words.h"

namespace opmfu::linter::shell {

struct Alternative {
  Words words;  ///< one for a scalar; the elements of an array
  bool unset = false;
};

struct Variable {
  std::vector<Alternative> alternatives;
  bool exported = false;
};

/// Adds an alternative unless it is there already, up to kMaxAlternatives.
void AddAlternative(std::vector<Alternative>& into, Alternative alternative);

/// Variables, in layers: a branch or a `V=x cmd` prefix works on a layer over the environment it
/// starts from, so nothing is copied until it is written (launchers branch a lot).
class Environment {
 public:
  Environment() = default;
  explicit Environment(const Environment* parent) : parent_(parent) {}

  const Variable* Find(std::string_view name) const {
    for (const Environment* layer = this; layer != nullptr; layer = layer->parent_) {
      if (auto found = layer->own_.find(name); found != layer->own_.end()) return &found->second;
    }
    return nullptr;
  }
  /// The variable in this layer, starting from what the layers below hold.
  Variable& Set(const std::string& name) {
    if (auto found = own_.find(name); found != own_.end()) return found->second;
    const Variable* inherited = parent_ != nullptr ? parent_->Find(name) : nullptr;
    return own_.emplace(name, inherited != nullptr ? *inherited : Variable{}).first->second;
  }
  /// Sets the variable in this layer, whatever the layers below hold.
  void Replace(const std::string& name, Variable variable) { own_.insert_or_assign(name, std::move(variable)); }
  const std::map<std::string, Variable, std::less<>>& own() const { return own_; }
  template <typename Visit>
  void ForEachVisible(Visit&& visit) const {
    std::set<std::string, std::less<>> seen;
    for (const Environment* layer = this; layer != nullptr; layer = layer->parent_) {
      for (const auto& [name, variable] : layer->own_) {
        if (seen.insert(name).second) visit(name, variable);
      }
    }
  }

  /// The value of a variable as alternatives of word lists, each with whether it is unset there
  /// (then empty, so the caller can apply a default); an unknown variable is one unset one.
  std::vector<std::pair<const Words*, bool>> Lookup(std::string_view name) const;

 private:
  const Environment* parent_ = nullptr;
  std::map<std::string, Variable, std::less<>> own_;
};

}  // namespace opmfu::linter::shell
