#include "python/module.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <set>

#include "common/text.h"
#include "python/node_shapes.h"

namespace opmfu::python {

namespace {

struct PythonSymbols {
  TSSymbol function_definition, class_definition, assignment, augmented_assignment, for_statement, for_in_clause,
      as_pattern, call, comment, import_statement, import_from_statement, keyword_argument;
};

const PythonSymbols& Symbols() {
  static const PythonSymbols symbols = [] {
    const TSLanguage* language = LanguageOf(Grammar::kPython);
    const auto id = [&](std::string_view name) {
      return ts_language_symbol_for_name(language, name.data(), static_cast<std::uint32_t>(name.size()), true);
    };
    return PythonSymbols{id("function_definition"),
                         id("class_definition"),
                         id("assignment"),
                         id("augmented_assignment"),
                         id("for_statement"),
                         id("for_in_clause"),
                         id("as_pattern"),
                         id("call"),
                         id("comment"),
                         id("import_statement"),
                         id("import_from_statement"),
                         id("keyword_argument")};
  }();
  return symbols;
}

bool InMainGuard(const SyntaxTree& tree, TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (!IsType(up, "if_statement")) continue;
    const std::string_view condition = tree.Text(ChildByField(up, "condition"));
    if (condition.find("__name__") != std::string_view::npos && condition.find("__main__") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

// ---- parsing and indexing ---------------------------------------------------------------------

const LibraryKnowledge& LibraryKnowledge::None() {
  static const LibraryKnowledge none;
  return none;
}

PythonModule::PythonModule(std::string path, SyntaxTree tree, const LibraryKnowledge& knowledge)
    : path_(std::move(path)), tree_(std::move(tree)), knowledge_(&knowledge) {}

Result<PythonModule> PythonModule::Parse(std::string path, std::string source, const LibraryKnowledge& knowledge) {
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, ParseSource(Grammar::kPython, std::move(source), {.file = path}));
  PythonModule module(std::move(path), std::move(tree), knowledge);
  module.Index();
  return module;
}

bool PythonModule::InMainGuard(TSNode node) const { return python::InMainGuard(tree_, node); }

// What Index keeps while it walks the tree: the scopes open at the current node, innermost last,
// and the names each function declares `global`.
struct PythonModule::IndexWalk {
  struct OpenScope {
    std::uint32_t id;
    std::uint32_t end;
  };
  std::vector<OpenScope> scopes = {{0, UINT32_MAX}};
  std::map<std::uint32_t, std::set<std::string, std::less<>>> globals;

  std::uint32_t scope() const { return scopes.back().id; }
  // `global name` in a function: its assignments there bind the module's name.
  bool DeclaredGlobal(std::string_view name) const {
    auto found = globals.find(scope());
    return scope() != 0 && found != globals.end() && found->second.contains(name);
  }
};

void PythonModule::Index() {
  scopes_[0] = Scope{static_cast<std::uint32_t>(tree_.source().size()), 0, TSNode{}};
  IndexWalk walk;
  for (TSNode root : tree_.roots()) {
    WalkTree(root, [&](TSNode node) { return IndexNode(walk, node); });
  }
}

void PythonModule::BindPattern(const IndexWalk& walk, TSNode pattern, TSNode value, std::string how) {
  if (IsType(pattern, "identifier")) {
    const std::string name(tree_.Text(pattern));
    if (walk.DeclaredGlobal(name)) {
      bindings_[{0, name}].push_back({pattern, value, std::move(how), 0, -1, true});
      return;
    }
    bindings_[{walk.scope(), name}].push_back({pattern, value, std::move(how), walk.scope()});
    return;
  }
  // Unpacking: every name inside is bound to something we do not follow, except the first
  // name of `args, rest = parser.parse_known_args()`.
  bool first = true;
  WalkTree(pattern, [&](TSNode node) {
    // `self.x = ...`, `d[k] = ...`: an attribute or item is set, no name is bound.
    if (IsType(node, "attribute") || IsType(node, "subscript")) return false;
    if (IsType(node, "identifier")) {
      const bool namespace_first = first && !ts_node_is_null(value) && IsType(value, "call");
      bindings_[{walk.scope(), std::string(tree_.Text(node))}].push_back(
          {node, namespace_first ? value : TSNode{}, namespace_first ? "" : "unpacking", walk.scope()});
      first = false;
    }
    return true;
  });
}

// `a, b = value`: each plain name takes its item of the value (a tuple a function returns, say);
// a starred or nested target, and every name after a starred one, is not followed.
void PythonModule::BindUnpacking(const IndexWalk& walk, TSNode pattern, TSNode value) {
  const std::uint32_t count = ts_node_named_child_count(pattern);
  bool starred = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode target = ts_node_named_child(pattern, i);
    starred = starred || !IsType(target, "identifier");
    if (starred) {
      BindPattern(walk, target, TSNode{}, "unpacking");
      continue;
    }
    bindings_[{walk.scope(), std::string(tree_.Text(target))}].push_back(
        {target, value, "", walk.scope(), static_cast<int>(i)});
  }
}

bool PythonModule::IndexNode(IndexWalk& walk, TSNode node) {
  const PythonSymbols& symbol = Symbols();
  const std::uint32_t start = ts_node_start_byte(node);
  while (walk.scopes.size() > 1 && start >= walk.scopes.back().end) walk.scopes.pop_back();
  // Symbols, not type strings: this runs for every node of every file.
  const TSSymbol type = ts_node_symbol(node);
  if (type == symbol.import_statement || type == symbol.import_from_statement) {
    IndexImport(walk, node);
    return false;
  }
  if (IsType(node, "global_statement")) {
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode name = ts_node_named_child(node, i);
      if (IsType(name, "identifier")) walk.globals[walk.scope()].insert(std::string(tree_.Text(name)));
    }
    return false;
  }
  if (type == symbol.function_definition || type == symbol.class_definition) {
    TSNode name = ChildByField(node, "name");
    if (!ts_node_is_null(name) && type == symbol.function_definition) {
      bindings_[{walk.scope(), std::string(tree_.Text(name))}].push_back({name, node, "", walk.scope()});
    }
    const std::uint32_t id = start + 1;
    scopes_[id] = Scope{ts_node_end_byte(node), walk.scope(), node};
    walk.scopes.push_back({id, ts_node_end_byte(node)});
  } else if (type == symbol.assignment) {
    IndexAssignment(walk, node);
  } else if (type == symbol.augmented_assignment) {
    // `x += [...]`: a new value of `x` computed from its previous one (see ResolveUpdate).
    TSNode left = ChildByField(node, "left");
    if (!ts_node_is_null(left))
      BindPattern(walk, left, IsType(left, "identifier") ? node : TSNode{}, "an augmented assignment");
  } else if (type == symbol.for_statement || type == symbol.for_in_clause) {
    TSNode left = ChildByField(node, "left");
    if (!ts_node_is_null(left)) BindPattern(walk, left, TSNode{}, "a for loop");
  } else if (type == symbol.as_pattern) {
    TSNode alias = ChildByField(node, "alias");
    if (!ts_node_is_null(alias)) {
      TSNode target = ts_node_named_child_count(alias) > 0 ? ts_node_named_child(alias, 0) : alias;
      BindPattern(walk, target, TSNode{}, "a `with` or `except` clause");
    }
  } else if (type == symbol.call) {
    IndexCall(walk, node);
  } else if (type == symbol.keyword_argument) {
    // Megatron-style: the framework builds the parser and calls back for more options.
    if (tree_.Text(ChildByField(node, "name")) == "extra_args_provider") {
      argparse_facts_.options_from_framework = true;
    }
  } else if (type == symbol.comment) {
    comments_.push_back(node);
  }
  return true;
}

void PythonModule::IndexImport(const IndexWalk& walk, TSNode node) {
  CollectImportStatement(tree_, node, imports_);
  // A patch module (transfer_to_npu) patches when the import runs: at the top of a module (or
  // in its try/if blocks) it runs on import; inside a function only if that function is called.
  const std::string_view text = tree_.Text(node);
  const std::string_view patch = knowledge_->patch_module;
  if (!patch.empty() && text.find(LastComponent(patch)) != std::string_view::npos &&
      ImportsModule(ScanImports(text), patch)) {
    const bool in_function = std::any_of(walk.scopes.begin(), walk.scopes.end(), [&](const IndexWalk::OpenScope& open) {
      return open.id != 0 && IsType(scopes_.at(open.id).definition, "function_definition");
    });
    imports_patch_ = imports_patch_ || !in_function;
  }
}

void PythonModule::IndexAssignment(const IndexWalk& walk, TSNode node) {
  TSNode left = ChildByField(node, "left");
  TSNode right = ChildByField(node, "right");
  while (!ts_node_is_null(right) && IsType(right, "assignment")) right = ChildByField(right, "right");
  if (IsType(left, "attribute") && tree_.Text(ChildByField(left, "attribute")) == "choices" &&
      !InChoicesHelper(tree_, node)) {
    argparse_facts_.mutates_choices = true;
  }
  if (IsType(left, "attribute") && !ts_node_is_null(right) && walk.scopes.size() > 1 &&
      tree_.Text(ChildByField(left, "object")) == "self") {
    const Scope& method = scopes_.at(walk.scope());
    if (IsType(method.definition, "function_definition") &&
        IsType(scopes_.at(method.parent).definition, "class_definition")) {
      self_attributes_[{method.parent, std::string(tree_.Text(ChildByField(left, "attribute")))}].push_back(right);
    }
  }
  if (ts_node_is_null(left) || ts_node_is_null(right)) return;
  if (IsType(left, "pattern_list") || IsType(left, "tuple_pattern")) {
    const bool known_args =
        IsType(right, "call") && tree_.Text(right).find("parse_known_args") != std::string_view::npos;
    if (known_args) {
      BindPattern(walk, left, right, "unpacking");
    } else {
      BindUnpacking(walk, left, right);
    }
  } else {
    BindPattern(walk, left, right, "");
  }
}

void PythonModule::IndexCall(const IndexWalk& walk, TSNode node) {
  calls_.push_back(node);
  TSNode function = ChildByField(node, "function");
  if (IsListUpdate(tree_, node, function)) {
    // `acts.append(x)` as a statement: a new value of `acts` from its previous one, bound
    // where it is written, so a conditional append is one more possible value.
    TSNode object = ChildByField(function, "object");
    bindings_[{walk.scope(), std::string(tree_.Text(object))}].push_back({object, node, "", walk.scope()});
  }
  TSNode last = IsType(function, "attribute") ? ChildByField(function, "attribute") : function;
  if (IsType(last, "identifier")) calls_by_name_[std::string(tree_.Text(last))].push_back(node);
  // `getattr(torch_npu.profiler, "profile")(...)` calls what the attribute names.
  if (auto member = GetattrMember(tree_, function)) calls_by_name_[*member].push_back(node);
  if (IsType(function, "attribute")) {
    const std::string_view method = tree_.Text(ChildByField(function, "attribute"));
    TSNode arguments = ChildByField(node, "arguments");
    if (method == "add_argument" && !ts_node_is_null(arguments)) {
      IndexAddArgument(node, arguments);
    } else if (method == "parse_args" || method == "parse_known_args") {
      // A parse under `if __name__ == "__main__":` runs only when this file is the script.
      const bool guarded = InMainGuard(node);
      bool& parses = method == "parse_args"
                         ? (guarded ? argparse_facts_.parses_args_as_main : argparse_facts_.parses_args)
                         : (guarded ? argparse_facts_.parses_known_args_as_main : argparse_facts_.parses_known_args);
      parses = true;
    } else if (method == "set_defaults" && !ts_node_is_null(arguments)) {
      const std::uint32_t count = ts_node_named_child_count(arguments);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode child = ts_node_named_child(arguments, i);
        if (!IsType(child, "keyword_argument")) continue;
        argparse_set_defaults_[std::string(tree_.Text(ChildByField(child, "name")))] = ChildByField(child, "value");
      }
    }
  }
  if (!ts_node_is_null(function)) NoteArgparseFacts(node, function);
}

void PythonModule::IndexAddArgument(TSNode call, TSNode arguments) {
  ArgparseArgument argument;
  argument.call = call;
  std::string dest;
  const std::uint32_t count = ts_node_named_child_count(arguments);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    if (IsType(child, "keyword_argument")) {
      const std::string_view key = tree_.Text(ChildByField(child, "name"));
      TSNode value = ChildByField(child, "value");
      if (key == "default") argument.default_value = value;
      if (key == "dest") dest = StringLiteralValue(tree_, value).value_or("");
      if (key == "action") {
        argument.action = StringLiteralValue(tree_, value).value_or("");
        // argparse.BooleanOptionalAction: `--x` and `--no-x`, neither takes a value.
        if (tree_.Text(value).ends_with("BooleanOptionalAction")) argument.action = "boolean_optional";
      }
      if (key == "choices") argument.choices = value;
      if (key == "type") argument.type = std::string(tree_.Text(value));
      continue;
    }
    auto option = StringLiteralValue(tree_, child);
    if (!option) continue;
    argument.options.push_back(*option);
    // The first long option names the dest; else the first option of any kind.
    if (argument.option.empty() || (option->starts_with("--") && !argument.option.starts_with("--"))) {
      argument.option = *option;
    }
  }
  if (argument.action == "boolean_optional") {
    const std::size_t written = argument.options.size();
    for (std::size_t o = 0; o < written; ++o) {
      if (argument.options[o].starts_with("--")) argument.options.push_back("--no-" + argument.options[o].substr(2));
    }
  }
  if (dest.empty()) {
    std::string_view name = argument.option;
    while (name.starts_with('-')) name.remove_prefix(1);
    dest = std::string(name);
    std::replace(dest.begin(), dest.end(), '-', '_');
  }
  if (!dest.empty()) argparse_[dest].push_back(std::move(argument));
}

void PythonModule::NoteArgparseFacts(TSNode call, TSNode function) {
  // Runs for every call of every file: names first, arguments only for the rare calls that matter.
  TSNode last = IsType(function, "attribute") ? ChildByField(function, "attribute") : function;
  const std::string_view name = tree_.Text(last);
  // `action.choices.append(v)`: choices changed at run time.
  if (name == "append" || name == "extend" || name == "insert" || name == "add") {
    TSNode object = ChildByField(function, "object");
    if (IsType(object, "attribute") && tree_.Text(ChildByField(object, "attribute")) == "choices" &&
        !InChoicesHelper(tree_, call)) {
      argparse_facts_.mutates_choices = true;
    }
    return;
  }
  const bool adds_choices = name != "add_argument" && name.find("choices") != std::string_view::npos;
  if (!adds_choices && name != "ArgumentParser") return;
  TSNode arguments = ChildByField(call, "arguments");
  const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    if (IsType(child, "keyword_argument")) {
      if (name == "ArgumentParser" && tree_.Text(ChildByField(child, "name")) == "allow_abbrev" &&
          IsType(ChildByField(child, "value"), "false")) {
        argparse_facts_.disallows_abbreviation = true;
      }
      continue;
    }
    if (!adds_choices) continue;
    // add_parser_argument_choices_value(parser, "--x", "v"): more choices for --x at run time.
    if (auto option = StringLiteralValue(tree_, child); option && option->starts_with('-')) {
      argparse_facts_.choices_extended.insert(*option);
    }
  }
}

std::vector<ArgparseOption> PythonModule::LocalArgparseOptions() const {
  std::vector<ArgparseOption> out;
  for (const auto& [dest, arguments] : argparse_) {
    for (const ArgparseArgument& argument : arguments) {
      ArgparseOption option;
      option.dest = dest;
      option.action = argument.action;
      for (const std::string& text : argument.options) {
        if (text.starts_with('-')) option.options.push_back(text);
      }
      if (!ts_node_is_null(argument.choices) &&
          (IsType(argument.choices, "list") || IsType(argument.choices, "tuple"))) {
        std::vector<std::string> choices;
        bool literal = true;
        const std::uint32_t count = ts_node_named_child_count(argument.choices);
        for (std::uint32_t i = 0; i < count; ++i) {
          auto text = StringLiteralValue(tree_, ts_node_named_child(argument.choices, i));
          if (!text) literal = false;
          if (text) choices.push_back(*text);
        }
        if (literal) option.choices = std::move(choices);
      }
      out.push_back(std::move(option));
    }
  }
  return out;
}

// ---- the index's accessors ------------------------------------------------------------------

const std::vector<PythonModule::Binding>* PythonModule::BindingsOf(std::uint32_t scope, std::string_view name) const {
  auto found = bindings_.find(std::pair<std::uint32_t, std::string>(scope, std::string(name)));
  return found == bindings_.end() ? nullptr : &found->second;
}

const std::vector<TSNode>* PythonModule::CallsNamed(std::string_view name) const {
  auto found = calls_by_name_.find(name);
  return found == calls_by_name_.end() ? nullptr : &found->second;
}

const std::vector<TSNode>* PythonModule::SelfAttributeValues(std::uint32_t class_scope, std::string_view member) const {
  auto found = self_attributes_.find(std::pair<std::uint32_t, std::string>(class_scope, std::string(member)));
  return found == self_attributes_.end() ? nullptr : &found->second;
}

TSNode PythonModule::ArgparseSetDefault(std::string_view dest) const {
  auto found = argparse_set_defaults_.find(dest);
  return found == argparse_set_defaults_.end() ? TSNode{} : found->second;
}

// ---- helpers ----------------------------------------------------------------------------------

std::uint32_t PythonModule::ScopeOf(TSNode node) const {
  // Scopes nest: the last one starting at or before the node holds it, or one of its parents does.
  const std::uint32_t at = ts_node_start_byte(node);
  auto it = std::prev(scopes_.upper_bound(at + 1));
  while (it->first != 0 && !(it->first - 1 <= at && at < it->second.end)) it = scopes_.find(it->second.parent);
  return it->first;
}

Note PythonModule::StepAt(TSNode node, std::string label) const {
  Note note;
  note.file = path_;
  note.position = tree_.RangeOf(node).start;  // from the node's point: no scan from the file's start
  note.message = std::move(label);
  return note;
}

std::string PythonModule::Spelling(TSNode node) const {
  std::string text(tree_.Text(node));
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

Value PythonModule::BeyondInt64(TSNode node) const {
  return Unknown(node, "`" + Spelling(node) + "` is an integer beyond 64 bits");
}

Value PythonModule::Unknown(TSNode node, std::string reason) const {
  Value value;
  value.kind = ValueKind::kUnknown;
  value.node = node;
  value.unknown_reason = std::move(reason);
  return value;
}

std::vector<TSNode> PythonModule::CallsMaybeTo(std::initializer_list<std::string_view> names) const {
  const auto wanted = [&](std::string_view dotted) {
    const std::string_view last = LastComponent(dotted);
    return std::find(names.begin(), names.end(), last) != names.end();
  };
  std::vector<std::string> locals(names.begin(), names.end());
  for (const auto& [local, imported] : imports_) {
    if (wanted(imported)) locals.push_back(local);
  }
  for (const auto& [key, bindings] : bindings_) {
    for (const Binding& binding : bindings) {
      if (ts_node_is_null(binding.value)) continue;
      const bool named = (IsType(binding.value, "attribute") || IsType(binding.value, "identifier")) &&
                         wanted(tree_.Text(binding.value));
      const std::optional<std::string> member = GetattrMember(tree_, binding.value);
      if (named || (member && wanted(*member))) locals.push_back(key.second);
    }
  }
  std::vector<TSNode> out;
  for (const std::string& local : locals) {
    if (auto found = calls_by_name_.find(local); found != calls_by_name_.end()) {
      out.insert(out.end(), found->second.begin(), found->second.end());
    }
  }
  std::sort(out.begin(), out.end(), [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
  out.erase(std::unique(out.begin(), out.end(), [](TSNode a, TSNode b) { return ts_node_eq(a, b); }), out.end());
  return out;
}

}  // namespace opmfu::python
