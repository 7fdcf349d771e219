#include "linter/python_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "linter/python_project.h"

namespace opmfu::python {

namespace {

constexpr std::string_view kTransferToNpu = "torch_npu.contrib.transfer_to_npu";

// Deep enough for real alias chains; a cycle (`x = x + 1`) or absurd nesting ends as unknown.
constexpr int kMaxDepth = 24;
// A list whose items each have several values has many combinations; beyond this, only the
// first combination is kept.
constexpr std::size_t kMaxCombinations = 16;
// Steps one question (a Resolve, FindArgument or CalleeName from outside) may take, across every
// module it reaches: real code can branch at each step (a recursive wrapper whose parameters come
// from many calls), and a lint must end in about parse time; beyond this the value is unknown.
constexpr std::size_t kMaxSteps = 20000;
// Values one expression keeps (distinct ones first); see ResolveIn.
constexpr std::size_t kMaxValues = 64;
thread_local std::size_t steps_taken = 0;

bool IsScopeNode(std::string_view type) { return type == "function_definition" || type == "class_definition"; }

bool IsConditional(std::string_view type) {
  return type == "if_statement" || type == "elif_clause" || type == "else_clause" || type == "for_statement" ||
         type == "while_statement" || type == "try_statement" || type == "except_clause" || type == "finally_clause" ||
         type == "match_statement" || type == "case_clause" || type == "block";
}

bool Contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

// `name.append(x)`, `.extend(xs)`, `.insert(i, x)`, `.add(x)` written as a statement of its own.
bool IsListUpdate(const SyntaxTree& tree, TSNode call, TSNode function) {
  // Runs for every call of every file: the method name first, the parent (costly) last.
  if (!IsType(function, "attribute")) return false;
  const std::string_view method = tree.Text(ChildByField(function, "attribute"));
  if (method != "append" && method != "extend" && method != "insert" && method != "add") return false;
  if (!IsType(ChildByField(function, "object"), "identifier")) return false;
  TSNode parent = ts_node_parent(call);
  return !ts_node_is_null(parent) && IsType(parent, "expression_statement");
}

bool IsListUpdate(const SyntaxTree& tree, TSNode call) {
  return IsListUpdate(tree, call, ChildByField(call, "function"));
}

std::string PythonRepr(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

// `a + b` of two lists (or two tuples) of traced items; nullopt for anything else.
std::optional<Value> Concatenate(const Value& left, const Value& right) {
  if (left.kind != ValueKind::kSequence || right.kind != ValueKind::kSequence) return std::nullopt;
  if (left.container != right.container || left.container == "set") return std::nullopt;
  Value joined = left;
  joined.items.insert(joined.items.end(), right.items.begin(), right.items.end());
  return joined;
}

Value WithStep(Value value, Note step) {
  value.chain.insert(value.chain.begin(), std::move(step));
  return value;
}

void Append(Values& into, Values more) {
  into.insert(into.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

bool SameLiteral(const Value& a, const Value& b) {
  if (a.kind != b.kind) {
    // An enum constant equals its string value ("Level1" == ProfilerLevel.Level1).
    const bool a_text = a.kind == ValueKind::kString || a.kind == ValueKind::kEnum;
    const bool b_text = b.kind == ValueKind::kString || b.kind == ValueKind::kEnum;
    return a_text && b_text && a.text == b.text;
  }
  switch (a.kind) {
    case ValueKind::kString:
    case ValueKind::kEnum:
      return a.text == b.text;
    case ValueKind::kBool:
      return a.boolean == b.boolean;
    case ValueKind::kInt:
      return a.integer == b.integer;
    case ValueKind::kNone:
      return true;
    default:
      return false;
  }
}

struct ConstantEntry {
  std::string_view type;
  std::string_view member;
  std::string_view value;
};
constexpr std::array kConstants = {
    ConstantEntry{"ProfilerLevel", "Level_none", "Level_none"},
    ConstantEntry{"ProfilerLevel", "Level0", "Level0"},
    ConstantEntry{"ProfilerLevel", "Level1", "Level1"},
    ConstantEntry{"ProfilerLevel", "Level2", "Level2"},
    ConstantEntry{"ExportType", "Text", "text"},
    ConstantEntry{"ExportType", "Db", "db"},
    ConstantEntry{"ProfilerActivity", "CPU", "CPU"},
    ConstantEntry{"ProfilerActivity", "NPU", "NPU"},
    ConstantEntry{"ProfilerActivity", "CUDA", "CUDA"},
    ConstantEntry{"AiCMetrics", "AiCoreNone", "ACL_AICORE_NONE"},
    ConstantEntry{"AiCMetrics", "PipeUtilization", "ACL_AICORE_PIPE_UTILIZATION"},
    ConstantEntry{"AiCMetrics", "ArithmeticUtilization", "ACL_AICORE_ARITHMETIC_UTILIZATION"},
    ConstantEntry{"AiCMetrics", "Memory", "ACL_AICORE_MEMORY_BANDWIDTH"},
    ConstantEntry{"AiCMetrics", "MemoryL0", "ACL_AICORE_L0B_AND_WIDTH"},
    ConstantEntry{"AiCMetrics", "MemoryUB", "ACL_AICORE_MEMORY_UB"},
    ConstantEntry{"AiCMetrics", "ResourceConflictRatio", "ACL_AICORE_RESOURCE_CONFLICT_RATIO"},
    ConstantEntry{"AiCMetrics", "L2Cache", "ACL_AICORE_L2_CACHE"},
    ConstantEntry{"AiCMetrics", "MemoryAccess", "ACL_AICORE_MEMORY_ACCESS"},
};

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

}  // namespace

std::optional<ProfilerConstant> FindProfilerConstant(std::string_view qualified_name) {
  if (!qualified_name.starts_with("torch_npu.") && !qualified_name.starts_with("torch.")) return std::nullopt;
  const std::size_t last_dot = qualified_name.rfind('.');
  const std::size_t type_dot = qualified_name.rfind('.', last_dot - 1);
  if (type_dot == std::string_view::npos) return std::nullopt;
  const std::string_view type = qualified_name.substr(type_dot + 1, last_dot - type_dot - 1);
  const std::string_view member = qualified_name.substr(last_dot + 1);
  for (const ConstantEntry& entry : kConstants) {
    if (entry.type == type && entry.member == member) return ProfilerConstant{entry.type, entry.value};
  }
  return std::nullopt;
}

std::string Value::Describe() const {
  switch (kind) {
    case ValueKind::kUnknown:
      return "an unknown value";
    case ValueKind::kNone:
      return from_json ? "null" : "None";
    case ValueKind::kBool:
      if (from_json) return boolean ? "true" : "false";
      return boolean ? "True" : "False";
    case ValueKind::kInt:
      return std::to_string(integer);
    case ValueKind::kFloat:
      return std::to_string(real);
    case ValueKind::kString:
      return from_json ? nlohmann::json(text).dump() : PythonRepr(text);
    case ValueKind::kDynamicString:
      return "a string formatted at run time";
    case ValueKind::kEnum:
      return from_json ? nlohmann::json(text).dump() : container + "." + container_member();
    case ValueKind::kSequence: {
      std::string out = container == "tuple" ? "(" : container == "set" ? "{" : "[";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].Describe();
      if (container == "tuple" && items.size() == 1) out += ",";
      return out + (container == "tuple" ? ")" : container == "set" ? "}" : "]");
    }
    case ValueKind::kDict:
      return from_json ? "an object" : "a dict";
    case ValueKind::kCall:
      return "the result of " + text + "(...)";
    case ValueKind::kFunction:
      return "the function " + text;
    case ValueKind::kModule:
      return text;
    case ValueKind::kNamespace:
      return "an argparse namespace";
  }
  return "?";
}

std::string Value::container_member() const {
  for (const ConstantEntry& entry : kConstants) {
    if (entry.type == container && entry.value == text) return std::string(entry.member);
  }
  return text;
}

// ---- parsing and indexing ---------------------------------------------------------------------

PythonModule::PythonModule(std::string path, SyntaxTree tree) : path_(std::move(path)), tree_(std::move(tree)) {}

Result<PythonModule> PythonModule::Parse(std::string path, std::string source) {
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, ParseSource(Grammar::kPython, std::move(source)));
  PythonModule module(std::move(path), std::move(tree));
  module.Index();
  return module;
}

bool PythonModule::TransfersToNpu() const {
  if (!transfers_to_npu_) {
    transfers_to_npu_ = imports_transfer_to_npu_;
    if (!*transfers_to_npu_ && modules_ != nullptr && modules_->AnyImports(kTransferToNpu)) {
      // Parsed only when the text imports it: which of them import it where it runs on import.
      for (const PythonModule* other : modules_->Containing("transfer_to_npu", this)) {
        if (other->imports_transfer_to_npu_) transfers_to_npu_ = true;
      }
    }
  }
  return *transfers_to_npu_;
}

namespace {

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

// Inside a helper whose own name says it changes choices (`add_parser_argument_choices_value`):
// its calls name the options it changes, so its body does not open every option.
bool InChoicesHelper(const SyntaxTree& tree, TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (IsType(up, "function_definition")) {
      return tree.Text(ChildByField(up, "name")).find("choices") != std::string_view::npos;
    }
  }
  return false;
}

}  // namespace

bool PythonModule::InMainGuard(TSNode node) const { return python::InMainGuard(tree_, node); }

void PythonModule::NoteArgparseFacts(TSNode call, TSNode function) {
  // Runs for every call of every file: names first, arguments only for the rare calls that matter.
  TSNode last = IsType(function, "attribute") ? ChildByField(function, "attribute") : function;
  const std::string_view name = tree_.Text(last);
  // `action.choices.append(v)`: choices changed at run time.
  if (name == "append" || name == "extend" || name == "insert" || name == "add") {
    TSNode object = ChildByField(function, "object");
    if (IsType(object, "attribute") && tree_.Text(ChildByField(object, "attribute")) == "choices" &&
        !InChoicesHelper(tree_, call)) {
      mutates_choices_ = true;
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
        disallows_abbreviation_ = true;
      }
      continue;
    }
    if (!adds_choices) continue;
    // add_parser_argument_choices_value(parser, "--x", "v"): more choices for --x at run time.
    if (auto option = StringLiteralValue(tree_, child); option && option->starts_with('-')) {
      choices_extended_.insert(*option);
    }
  }
}

void PythonModule::Index() {
  const PythonSymbols& symbol = Symbols();
  scopes_[0] = Scope{static_cast<std::uint32_t>(tree_.source().size()), 0, TSNode{}};
  struct OpenScope {
    std::uint32_t id;
    std::uint32_t end;
  };
  std::vector<OpenScope> scopes = {{0, UINT32_MAX}};

  // `global name` in a function: its assignments there bind the module's name.
  std::map<std::uint32_t, std::set<std::string, std::less<>>> globals;
  const auto declared_global = [&](std::string_view name) {
    auto found = globals.find(scopes.back().id);
    return scopes.back().id != 0 && found != globals.end() && found->second.contains(name);
  };
  const auto bind_pattern = [&](TSNode pattern, TSNode value, std::string how) {
    if (IsType(pattern, "identifier")) {
      const std::string name(tree_.Text(pattern));
      if (declared_global(name)) {
        bindings_[{0, name}].push_back({pattern, value, std::move(how), 0, -1, true});
        return;
      }
      bindings_[{scopes.back().id, name}].push_back({pattern, value, std::move(how), scopes.back().id});
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
        bindings_[{scopes.back().id, std::string(tree_.Text(node))}].push_back(
            {node, namespace_first ? value : TSNode{}, namespace_first ? "" : "unpacking", scopes.back().id});
        first = false;
      }
      return true;
    });
  };

  // `a, b = value`: each plain name takes its item of the value (a tuple a function returns, say);
  // a starred or nested target, and every name after a starred one, is not followed.
  const auto bind_unpacking = [&](TSNode pattern, TSNode value) {
    const std::uint32_t count = ts_node_named_child_count(pattern);
    bool starred = false;
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode target = ts_node_named_child(pattern, i);
      starred = starred || !IsType(target, "identifier");
      if (starred) {
        bind_pattern(target, TSNode{}, "unpacking");
        continue;
      }
      bindings_[{scopes.back().id, std::string(tree_.Text(target))}].push_back(
          {target, value, "", scopes.back().id, static_cast<int>(i)});
    }
  };

  for (TSNode root : tree_.roots()) {
    WalkTree(root, [&](TSNode node) {
      const std::uint32_t start = ts_node_start_byte(node);
      while (scopes.size() > 1 && start >= scopes.back().end) scopes.pop_back();
      // Symbols, not type strings: this runs for every node of every file.
      const TSSymbol type = ts_node_symbol(node);
      if (type == symbol.import_statement || type == symbol.import_from_statement) {
        CollectImportStatement(tree_, node, imports_);
        // transfer_to_npu patches torch when the import runs: at the top of a module (or in its
        // try/if blocks) it runs on import; inside a function only if that function is called.
        const std::string_view text = tree_.Text(node);
        if (text.find("transfer_to_npu") != std::string_view::npos &&
            ImportsModule(ScanImports(text), kTransferToNpu)) {
          const bool in_function = std::any_of(scopes.begin(), scopes.end(), [&](const OpenScope& open) {
            return open.id != 0 && IsType(scopes_.at(open.id).definition, "function_definition");
          });
          imports_transfer_to_npu_ = imports_transfer_to_npu_ || !in_function;
        }
        return false;
      }
      if (IsType(node, "global_statement")) {
        const std::uint32_t count = ts_node_named_child_count(node);
        for (std::uint32_t i = 0; i < count; ++i) {
          TSNode name = ts_node_named_child(node, i);
          if (IsType(name, "identifier")) globals[scopes.back().id].insert(std::string(tree_.Text(name)));
        }
        return false;
      }
      if (type == symbol.function_definition || type == symbol.class_definition) {
        TSNode name = ChildByField(node, "name");
        if (!ts_node_is_null(name) && type == symbol.function_definition) {
          bindings_[{scopes.back().id, std::string(tree_.Text(name))}].push_back({name, node, "", scopes.back().id});
        }
        const std::uint32_t id = start + 1;
        scopes_[id] = Scope{ts_node_end_byte(node), scopes.back().id, node};
        scopes.push_back({id, ts_node_end_byte(node)});
      } else if (type == symbol.assignment) {
        TSNode left = ChildByField(node, "left");
        TSNode right = ChildByField(node, "right");
        while (!ts_node_is_null(right) && IsType(right, "assignment")) right = ChildByField(right, "right");
        if (IsType(left, "attribute") && tree_.Text(ChildByField(left, "attribute")) == "choices" &&
            !InChoicesHelper(tree_, node)) {
          mutates_choices_ = true;
        }
        if (IsType(left, "attribute") && !ts_node_is_null(right) && scopes.size() > 1 &&
            tree_.Text(ChildByField(left, "object")) == "self") {
          const Scope& method = scopes_.at(scopes.back().id);
          if (IsType(method.definition, "function_definition") &&
              IsType(scopes_.at(method.parent).definition, "class_definition")) {
            self_attributes_[{method.parent, std::string(tree_.Text(ChildByField(left, "attribute")))}].push_back(
                right);
          }
        }
        if (!ts_node_is_null(left) && !ts_node_is_null(right)) {
          if (IsType(left, "pattern_list") || IsType(left, "tuple_pattern")) {
            const bool known_args =
                IsType(right, "call") && tree_.Text(right).find("parse_known_args") != std::string_view::npos;
            if (known_args) {
              bind_pattern(left, right, "unpacking");
            } else {
              bind_unpacking(left, right);
            }
          } else {
            bind_pattern(left, right, "");
          }
        }
      } else if (type == symbol.augmented_assignment) {
        // `x += [...]`: a new value of `x` computed from its previous one (see ResolveUpdate).
        TSNode left = ChildByField(node, "left");
        if (!ts_node_is_null(left))
          bind_pattern(left, IsType(left, "identifier") ? node : TSNode{}, "an augmented assignment");
      } else if (type == symbol.for_statement || type == symbol.for_in_clause) {
        TSNode left = ChildByField(node, "left");
        if (!ts_node_is_null(left)) bind_pattern(left, TSNode{}, "a for loop");
      } else if (type == symbol.as_pattern) {
        TSNode alias = ChildByField(node, "alias");
        if (!ts_node_is_null(alias)) {
          TSNode target = ts_node_named_child_count(alias) > 0 ? ts_node_named_child(alias, 0) : alias;
          bind_pattern(target, TSNode{}, "a `with` or `except` clause");
        }
      } else if (type == symbol.call) {
        calls_.push_back(node);
        TSNode function = ChildByField(node, "function");
        if (IsListUpdate(tree_, node, function)) {
          // `acts.append(x)` as a statement: a new value of `acts` from its previous one, bound
          // where it is written, so a conditional append is one more possible value.
          TSNode object = ChildByField(function, "object");
          bindings_[{scopes.back().id, std::string(tree_.Text(object))}].push_back(
              {object, node, "", scopes.back().id});
        }
        TSNode last = IsType(function, "attribute") ? ChildByField(function, "attribute") : function;
        if (IsType(last, "identifier")) calls_by_name_[std::string(tree_.Text(last))].push_back(node);
        if (IsType(function, "attribute")) {
          const std::string_view method = tree_.Text(ChildByField(function, "attribute"));
          TSNode arguments = ChildByField(node, "arguments");
          if (method == "add_argument" && !ts_node_is_null(arguments)) {
            ArgparseArgument argument;
            argument.call = node;
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
                if (argument.options[o].starts_with("--"))
                  argument.options.push_back("--no-" + argument.options[o].substr(2));
              }
            }
            if (dest.empty()) {
              std::string_view name = argument.option;
              while (name.starts_with('-')) name.remove_prefix(1);
              dest = std::string(name);
              std::replace(dest.begin(), dest.end(), '-', '_');
            }
            if (!dest.empty()) argparse_[dest].push_back(std::move(argument));
          } else if (method == "parse_args" || method == "parse_known_args") {
            // A parse under `if __name__ == "__main__":` runs only when this file is the script.
            const bool guarded = InMainGuard(node);
            bool& parses = method == "parse_args" ? (guarded ? parses_args_as_main_ : parses_args_)
                                                  : (guarded ? parses_known_args_as_main_ : parses_known_args_);
            parses = true;
          } else if (method == "set_defaults" && !ts_node_is_null(arguments)) {
            const std::uint32_t count = ts_node_named_child_count(arguments);
            for (std::uint32_t i = 0; i < count; ++i) {
              TSNode child = ts_node_named_child(arguments, i);
              if (!IsType(child, "keyword_argument")) continue;
              argparse_set_defaults_[std::string(tree_.Text(ChildByField(child, "name")))] =
                  ChildByField(child, "value");
            }
          }
        }
        if (!ts_node_is_null(function)) NoteArgparseFacts(node, function);
      } else if (type == symbol.keyword_argument) {
        // Megatron-style: the framework builds the parser and calls back for more options.
        if (tree_.Text(ChildByField(node, "name")) == "extra_args_provider") options_from_framework_ = true;
      } else if (type == symbol.comment) {
        comments_.push_back(node);
      }
      return true;
    });
  }
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

Value PythonModule::Unknown(TSNode node, std::string reason) const {
  Value value;
  value.kind = ValueKind::kUnknown;
  value.node = node;
  value.unknown_reason = std::move(reason);
  return value;
}

std::optional<bool> PythonModule::EvaluateCondition(TSNode node, int depth) const {
  if (ts_node_is_null(node) || depth > kMaxDepth) return std::nullopt;
  const std::string_view type = ts_node_type(node);
  if (type == "parenthesized_expression") return EvaluateCondition(ts_node_named_child(node, 0), depth + 1);
  if (type == "not_operator") {
    auto inner = EvaluateCondition(ChildByField(node, "argument"), depth + 1);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (type == "boolean_operator") {
    auto left = EvaluateCondition(ChildByField(node, "left"), depth + 1);
    auto right = EvaluateCondition(ChildByField(node, "right"), depth + 1);
    const bool is_and = tree_.Text(ChildByField(node, "operator")) == "and";
    if (is_and) {
      if ((left && !*left) || (right && !*right)) return false;
      if (left && right) return true;
    } else {
      if ((left && *left) || (right && *right)) return true;
      if (left && right) return false;
    }
    return std::nullopt;
  }
  const auto literal = [](const Value& v) {
    return v.kind == ValueKind::kString || v.kind == ValueKind::kEnum || v.kind == ValueKind::kBool ||
           v.kind == ValueKind::kInt || v.kind == ValueKind::kNone;
  };
  std::optional<bool> agreed;
  bool disagree = false;
  const auto agree = [&](bool result) {
    if (agreed && *agreed != result) disagree = true;
    agreed = result;
  };
  if (type == "comparison_operator") {
    if (ts_node_named_child_count(node) != 2) return std::nullopt;
    std::string op;
    for (std::uint32_t i = 0; i < ts_node_child_count(node); ++i) {
      TSNode child = ts_node_child(node, i);
      if (!ts_node_is_named(child)) op += (op.empty() ? "" : " ") + std::string(tree_.Text(child));
    }
    const Values left = ResolveIn(ts_node_named_child(node, 0), depth + 1);
    const Values right = ResolveIn(ts_node_named_child(node, 1), depth + 1);
    for (const Value& l : left) {
      if (!literal(l)) return std::nullopt;
      for (const Value& r : right) {
        if (op == "==" || op == "!=" || op == "is" || op == "is not") {
          if (!literal(r)) return std::nullopt;
          const bool equal = SameLiteral(l, r);
          agree(op == "==" || op == "is" ? equal : !equal);
        } else if (op == "in" || op == "not in") {
          if (r.kind != ValueKind::kSequence && r.kind != ValueKind::kDict) return std::nullopt;
          const auto& members = r.kind == ValueKind::kDict ? r.keys : r.items;
          bool found = false;
          for (const Value& member : members) {
            if (!literal(member)) return std::nullopt;
            found = found || SameLiteral(l, member);
          }
          agree(op == "in" ? found : !found);
        } else {
          return std::nullopt;
        }
      }
    }
    return disagree ? std::nullopt : agreed;
  }
  // Truthiness of a traced value.
  for (const Value& v : ResolveIn(node, depth + 1)) {
    if (!literal(v)) return std::nullopt;
    const bool truthy = v.kind == ValueKind::kBool   ? v.boolean
                        : v.kind == ValueKind::kInt  ? v.integer != 0
                        : v.kind == ValueKind::kNone ? false
                                                     : !v.text.empty();
    agree(truthy);
  }
  return disagree ? std::nullopt : agreed;
}

PythonModule::Branch PythonModule::BranchTaken(TSNode statement, TSNode node, int depth) const {
  // Branches in order: the consequence, each elif, the else. One runs: the first whose condition
  // holds.
  bool earlier_maybe = false;
  const std::uint32_t count = ts_node_named_child_count(statement);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode branch = ts_node_named_child(statement, i);
    const std::string_view type = ts_node_type(branch);
    std::optional<bool> condition;
    if (type == "block") {
      condition = EvaluateCondition(ChildByField(statement, "condition"), depth + 1);
    } else if (type == "elif_clause") {
      condition = EvaluateCondition(ChildByField(branch, "condition"), depth + 1);
    } else if (type == "else_clause") {
      condition = true;
    } else {
      continue;
    }
    if (Contains(branch, node)) {
      if (condition && !*condition) return Branch::kNever;
      return condition && !earlier_maybe ? Branch::kAlways : Branch::kMaybe;
    }
    if (condition && *condition) return earlier_maybe ? Branch::kMaybe : Branch::kNever;
    if (!condition) earlier_maybe = true;
  }
  return Branch::kMaybe;
}

std::vector<const PythonModule::Binding*> PythonModule::Reaching(std::uint32_t scope, std::string_view name,
                                                                 std::uint32_t before, int depth) const {
  std::vector<const Binding*> out;
  auto found = bindings_.find(std::pair<std::uint32_t, std::string>(scope, std::string(name)));
  if (found == bindings_.end()) return out;
  const std::vector<Binding>& all = found->second;
  // The bindings that can reach `before`: walking back from the nearest one, every binding up to
  // and including one that runs on every path to the use.
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (ts_node_start_byte(it->target) >= before) continue;
    // `x = x + [...]`: the `x` on the right reads the value from before this assignment.
    if (!ts_node_is_null(it->value) && ts_node_start_byte(it->value) <= before && before < ts_node_end_byte(it->value))
      continue;
    // Conditional blocks around the binding that do not also hold the use make it conditional,
    // unless an if/else assigns the name in every branch. An if branch whose condition the traced
    // values decide is either skipped or as good as unconditional.
    TSNode exhaustive_if{};
    bool conditional = it->from_function;
    bool never = false;
    for (TSNode up = ts_node_parent(it->target); !ts_node_is_null(up); up = ts_node_parent(up)) {
      const std::string_view type = ts_node_type(up);
      if (IsScopeNode(type) || type == "module") break;
      if (!IsConditional(type) || ts_node_end_byte(up) > before) continue;
      if (type == "block" || type == "elif_clause" || type == "else_clause") continue;
      if (type == "if_statement") {
        const Branch taken = BranchTaken(up, it->target, depth);
        if (taken == Branch::kNever) never = true;
        if (taken == Branch::kAlways) continue;
        exhaustive_if = up;
      }
      conditional = true;
    }
    if (never) continue;
    out.push_back(&*it);
    if (!conditional) break;
    if (!ts_node_is_null(exhaustive_if) && ts_node_end_byte(exhaustive_if) <= before) {
      bool has_else = false;
      bool every_branch = true;
      const std::uint32_t count = ts_node_named_child_count(exhaustive_if);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode branch = ts_node_named_child(exhaustive_if, i);
        const std::string_view type = ts_node_type(branch);
        if (type == "else_clause") has_else = true;
        if (type != "block" && type != "elif_clause" && type != "else_clause") continue;
        const bool assigns =
            std::any_of(all.begin(), all.end(), [&](const Binding& b) { return Contains(branch, b.target); });
        every_branch = every_branch && assigns;
      }
      if (has_else && every_branch) {
        // Take the rest of this if statement's bindings, then stop.
        for (++it; it != all.rend() && Contains(exhaustive_if, it->target); ++it) out.push_back(&*it);
        break;
      }
    }
  }
  return out;
}

// ---- resolution -------------------------------------------------------------------------------

Values PythonModule::Resolve(TSNode expression) const { return ResolveIn(expression, 0); }

Values PythonModule::ResolveIn(TSNode node, int depth) const {
  Values values = ResolveOnce(node, depth);
  if (values.size() <= kMaxValues) return values;
  // Many paths with few distinct values (a wrapper passing one argument on several ways): keep
  // one of each. Past the bound, the rest is unknown, so no rule calls the kept values "every path".
  Values distinct;
  std::set<std::string, std::less<>> seen;
  for (Value& value : values) {
    std::string key = std::to_string(static_cast<int>(value.kind)) + value.Describe() + "\n" + value.unknown_reason;
    if (seen.insert(std::move(key)).second) distinct.push_back(std::move(value));
  }
  if (distinct.size() > kMaxValues) {
    distinct.resize(kMaxValues - 1);
    distinct.push_back(Unknown(node, "the value can be reached along too many paths to follow"));
  }
  return distinct;
}

Values PythonModule::ResolveOnce(TSNode node, int depth) const {
  if (ts_node_is_null(node)) return {Unknown(node, "no expression")};
  if (depth == 0) steps_taken = 0;
  if (depth > kMaxDepth) return {Unknown(node, "the value is defined through too many steps")};
  if (++steps_taken > kMaxSteps) return {Unknown(node, "the value can be reached along too many paths to follow")};
  const std::string_view type = ts_node_type(node);
  Value value;
  value.node = node;
  if (type == "true" || type == "false") {
    value.kind = ValueKind::kBool;
    value.boolean = type == "true";
    return {value};
  }
  if (type == "none") {
    value.kind = ValueKind::kNone;
    return {value};
  }
  if (type == "integer") {
    value.kind = ValueKind::kInt;
    std::string digits;
    for (char c : tree_.Text(node)) {
      if (c != '_') digits += c;
    }
    std::int64_t parsed = 0;
    const int base = digits.size() > 2 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))
                         ? (digits[1] == 'x' || digits[1] == 'X'   ? 16
                            : digits[1] == 'o' || digits[1] == 'O' ? 8
                                                                   : 2)
                         : 10;
    const char* begin = digits.data() + (base == 10 ? 0 : 2);
    auto [end, error] = std::from_chars(begin, digits.data() + digits.size(), parsed, base);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      return {Unknown(node, "an integer literal out of range")};
    }
    value.integer = parsed;
    return {value};
  }
  if (type == "float") {
    value.kind = ValueKind::kFloat;
    value.real = std::strtod(std::string(tree_.Text(node)).c_str(), nullptr);
    return {value};
  }
  if (type == "string" || type == "concatenated_string") {
    if (auto text = StringLiteralValue(tree_, node)) {
      value.kind = ValueKind::kString;
      value.text = std::move(*text);
    } else {
      value.kind = ValueKind::kDynamicString;
    }
    return {value};
  }
  if (type == "parenthesized_expression") return ResolveIn(ts_node_named_child(node, 0), depth + 1);
  if (type == "list" || type == "tuple" || type == "set" || type == "expression_list") {
    // `return a, b` and `x = a, b` are tuples written without parentheses.
    value.kind = ValueKind::kSequence;
    value.container = type == "expression_list" ? "tuple" : std::string(type);
    std::vector<Value> combinations = {value};
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode item = ts_node_named_child(node, i);
      if (IsType(item, "comment")) continue;
      Values options = ResolveIn(item, depth + 1);
      if (options.empty()) options.push_back(Unknown(item, "an empty alternative"));
      std::vector<Value> next;
      for (const Value& partial : combinations) {
        for (const Value& option : options) {
          if (next.size() >= kMaxCombinations) break;
          Value extended = partial;
          extended.items.push_back(option);
          next.push_back(std::move(extended));
        }
      }
      combinations = std::move(next);
    }
    return combinations;
  }
  if (type == "dictionary") {
    value.kind = ValueKind::kDict;
    value.container = "dict";
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode pair = ts_node_named_child(node, i);
      if (!IsType(pair, "pair")) continue;
      Values keys = ResolveIn(ChildByField(pair, "key"), depth + 1);
      Values items = ResolveIn(ChildByField(pair, "value"), depth + 1);
      for (const Value& key : keys) {
        for (const Value& item : items) {
          value.keys.push_back(key);
          value.items.push_back(item);
        }
      }
    }
    return {value};
  }
  if (type == "conditional_expression") {
    // `a if c else b`: one side when the traced values decide c.
    if (auto condition = EvaluateCondition(ts_node_named_child(node, 1), depth + 1)) {
      return ResolveIn(ts_node_named_child(node, *condition ? 0 : 2), depth + 1);
    }
  }
  if (type == "conditional_expression" || type == "boolean_operator") {
    // `a if c else b`, `a or b`, `a and b`: any operand can be the result.
    Values out;
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      if (type == "conditional_expression" && i == 1) continue;  // the condition
      Append(out, ResolveIn(ts_node_named_child(node, i), depth + 1));
    }
    return out;
  }
  if (type == "not_operator") {
    Values out;
    for (Value inner : ResolveIn(ChildByField(node, "argument"), depth + 1)) {
      if (inner.kind != ValueKind::kBool) return {Unknown(node, "`not` of a value that is not a bool literal")};
      inner.boolean = !inner.boolean;
      inner.node = node;
      out.push_back(std::move(inner));
    }
    return out;
  }
  if (type == "unary_operator") {
    Values out;
    const bool minus = tree_.Text(ChildByField(node, "operator")) == "-";
    for (Value inner : ResolveIn(ChildByField(node, "argument"), depth + 1)) {
      if (inner.kind == ValueKind::kInt && minus) inner.integer = -inner.integer;
      if (inner.kind == ValueKind::kFloat && minus) inner.real = -inner.real;
      inner.node = node;
      out.push_back(std::move(inner));
    }
    return out;
  }
  if (type == "binary_operator") {
    // Paths: `a + b` and `a / b` (pathlib) on strings. Known only when both sides are literals.
    Values left = ResolveIn(ChildByField(node, "left"), depth + 1);
    Values right = ResolveIn(ChildByField(node, "right"), depth + 1);
    const std::string_view op = tree_.Text(ChildByField(node, "operator"));
    if (op == "+" && left.size() == 1 && right.size() == 1 && left[0].kind == ValueKind::kString &&
        right[0].kind == ValueKind::kString) {
      value.kind = ValueKind::kString;
      value.text = left[0].text + right[0].text;
      return {value};
    }
    if (op == "+" && left.size() == 1 && right.size() == 1 && left[0].kind == ValueKind::kInt &&
        right[0].kind == ValueKind::kInt) {
      value.kind = ValueKind::kInt;
      value.integer = left[0].integer + right[0].integer;
      return {value};
    }
    if (op == "+" && !left.empty() && !right.empty() &&
        std::all_of(left.begin(), left.end(), [](const Value& v) { return v.kind == ValueKind::kSequence; })) {
      Values joined;
      for (const Value& l : left) {
        for (const Value& r : right) {
          if (joined.size() >= kMaxCombinations) break;
          if (auto sum = Concatenate(l, r)) {
            joined.push_back(std::move(*sum));
          } else {
            joined.push_back(r.kind == ValueKind::kUnknown ? r : Unknown(node, "computed by `" + Spelling(node) + "`"));
          }
        }
      }
      return joined;
    }
    const auto is_text = [](const Values& values) {
      return std::all_of(values.begin(), values.end(), [](const Value& v) {
        return v.kind == ValueKind::kString || v.kind == ValueKind::kDynamicString;
      });
    };
    if ((op == "+" || op == "/") && (is_text(left) || is_text(right))) {
      value.kind = ValueKind::kDynamicString;
      return {value};
    }
    return {Unknown(node, "computed by `" + Spelling(node) + "`")};
  }
  if (type == "identifier") return ResolveName(tree_.Text(node), node, depth);
  if (type == "attribute") return ResolveAttribute(node, depth);
  if (type == "call") return ResolveCall(node, depth);
  if (type == "subscript") return ResolveSubscript(node, depth);
  if (type == "lambda") {
    value.kind = ValueKind::kFunction;
    value.text = "lambda";
    return {value};
  }
  return {Unknown(node, "computed by `" + Spelling(node) + "`")};
}

Values PythonModule::ResolveBindings(const std::vector<const Binding*>& reaching, std::string_view name,
                                     int depth) const {
  const std::string label = "`" + std::string(name) + "`";
  Values out;
  for (const Binding* binding : reaching) {
    if (ts_node_is_null(binding->value)) {
      out.push_back(
          WithStep(Unknown(binding->target, label + " is bound by " + binding->how), StepAt(binding->target, label)));
      continue;
    }
    if (IsType(binding->value, "augmented_assignment") || IsType(binding->value, "call")) {
      if (IsType(binding->value, "augmented_assignment") || IsListUpdate(tree_, binding->value)) {
        for (Value value : ResolveUpdate(*binding, name, depth)) {
          out.push_back(WithStep(std::move(value), StepAt(binding->value, "`" + Spelling(binding->value) + "`")));
        }
        continue;
      }
    }
    if (IsType(binding->value, "function_definition")) {
      Value function;
      function.kind = ValueKind::kFunction;
      function.text = std::string(name);
      function.node = binding->value;
      out.push_back(function);
      continue;
    }
    for (Value value : ResolveIn(binding->value, depth + 1)) {
      if (binding->element >= 0) {
        const auto element = static_cast<std::size_t>(binding->element);
        if (value.kind == ValueKind::kSequence && value.container != "set" && element < value.items.size()) {
          Value item = value.items[element];
          item.chain.insert(item.chain.begin(), value.chain.begin(), value.chain.end());
          value = std::move(item);
        } else if (value.kind != ValueKind::kUnknown) {
          value = Unknown(binding->target, label + " is bound by unpacking " + value.Describe());
        }
      }
      out.push_back(WithStep(std::move(value), StepAt(binding->target, label)));
    }
  }
  return out;
}

Values PythonModule::ResolveUpdate(const Binding& binding, std::string_view name, int depth) const {
  TSNode update = binding.value;
  const std::string label = "`" + Spelling(update) + "`";
  const Values before = ResolveName(name, binding.target, depth + 1);
  Values out;
  const auto keep = [&](Value value) {
    if (out.size() < kMaxCombinations) out.push_back(std::move(value));
  };
  const auto cannot = [&](const Value& base) {
    keep(base.kind == ValueKind::kUnknown ? base
                                          : Unknown(update, "`" + std::string(name) + "` is changed by " + label));
  };
  if (IsType(update, "augmented_assignment")) {
    const bool plus = tree_.Text(ChildByField(update, "operator")) == "+=";
    const Values right = ResolveIn(ChildByField(update, "right"), depth + 1);
    for (const Value& base : before) {
      for (const Value& added : right) {
        std::optional<Value> sum = plus ? Concatenate(base, added) : std::nullopt;
        if (plus && !sum && base.kind == ValueKind::kInt && added.kind == ValueKind::kInt) {
          sum = base;
          sum->integer += added.integer;
        }
        if (plus && !sum && base.kind == ValueKind::kString && added.kind == ValueKind::kString) {
          sum = base;
          sum->text += added.text;
        }
        if (sum) {
          keep(std::move(*sum));
        } else {
          cannot(base);
        }
      }
    }
    return out;
  }
  const std::string_view method = tree_.Text(ChildByField(ChildByField(update, "function"), "attribute"));
  std::vector<TSNode> arguments;
  TSNode list = ChildByField(update, "arguments");
  const std::uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(list, i);
    if (!IsType(child, "comment")) arguments.push_back(child);
  }
  const std::size_t wanted = method == "insert" ? 2 : 1;
  for (const Value& base : before) {
    const bool set_add = method == "add" && base.container == "set";
    const bool list_change = method != "add" && base.container == "list";
    if (base.kind != ValueKind::kSequence || (!set_add && !list_change) || arguments.size() != wanted ||
        IsType(arguments.back(), "keyword_argument") || IsType(arguments.back(), "list_splat")) {
      cannot(base);
      continue;
    }
    std::size_t at = base.items.size();  // append, add, extend: at the end
    bool position_known = true;
    if (method == "insert") {
      // list.insert clamps the index to the list, as Python does; negative counts from the end.
      const Values index = ResolveIn(arguments[0], depth + 1);
      position_known = index.size() == 1 && index[0].kind == ValueKind::kInt;
      if (position_known) {
        const auto size = static_cast<std::int64_t>(base.items.size());
        const std::int64_t i = index[0].integer < 0 ? index[0].integer + size : index[0].integer;
        at = static_cast<std::size_t>(std::clamp<std::int64_t>(i, 0, size));
      }
    }
    for (const Value& item : ResolveIn(arguments.back(), depth + 1)) {
      if (!position_known || (method == "extend" && item.kind != ValueKind::kSequence)) {
        cannot(item.kind == ValueKind::kUnknown ? item : base);
        continue;
      }
      Value changed = base;
      if (method == "extend") {
        changed.items.insert(changed.items.end(), item.items.begin(), item.items.end());
      } else {
        changed.items.insert(changed.items.begin() + static_cast<std::ptrdiff_t>(at), item);
      }
      keep(std::move(changed));
    }
  }
  return out;
}

namespace {

// Values read in another module keep their chain (it names that file) but not their nodes, which
// belong to the other file's tree; a function keeps its definition and says whose it is.
void FromOtherModule(Value& value, const PythonModule* other) {
  if (value.kind == ValueKind::kFunction && !ts_node_is_null(value.node)) {
    if (value.owner == nullptr) value.owner = other;
  } else {
    value.node = TSNode{};
  }
  for (Value& item : value.items) FromOtherModule(item, other);
  for (Value& key : value.keys) FromOtherModule(key, other);
}

Values FromOtherModule(Values values, const PythonModule* other) {
  for (Value& value : values) FromOtherModule(value, other);
  return values;
}

}  // namespace

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

Values PythonModule::ResolveName(std::string_view name, TSNode use, int depth) const {
  const std::string label = "`" + std::string(name) + "`";
  const std::uint32_t use_scope = ScopeOf(use);
  for (std::uint32_t scope = use_scope;;) {
    // In an enclosing scope, a name is looked up when the inner code runs: any binding counts.
    const std::uint32_t before = scope == use_scope ? ts_node_start_byte(use) : UINT32_MAX;
    std::vector<const Binding*> reaching = Reaching(scope, name, before, depth);
    if (scope == 0 && imports_.contains(name)) {
      // `try: import torch_npu` / `except ImportError: torch_npu = None`: on the path where a
      // profiler is configured at all, the name is the module.
      std::erase_if(reaching, [&](const Binding* binding) {
        return !ts_node_is_null(binding->value) && IsType(binding->value, "none");
      });
    }
    if (!reaching.empty()) return ResolveBindings(reaching, name, depth);
    if (scope == 0) break;
    // A parameter of the enclosing function?
    const Scope& current = scopes_.at(scope);
    if (IsType(current.definition, "function_definition")) {
      TSNode parameters = ChildByField(current.definition, "parameters");
      const std::uint32_t count = ts_node_is_null(parameters) ? 0 : ts_node_named_child_count(parameters);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode parameter = ts_node_named_child(parameters, i);
        TSNode id = IsType(parameter, "identifier") ? parameter : ChildByField(parameter, "name");
        if (ts_node_is_null(id) && IsType(parameter, "typed_parameter")) id = ts_node_named_child(parameter, 0);
        if (!ts_node_is_null(id) && tree_.Text(id) == name) {
          return ResolveParameter(FunctionInfo{current.definition, current.parent}, parameter, name, depth);
        }
      }
    }
    // Otherwise the next scope out (Python skips class bodies here; close enough).
    scope = current.parent;
  }
  if (auto imported = imports_.find(name); imported != imports_.end()) {
    if (auto values = ResolveImported(imported->second, depth)) {
      for (Value& value : *values) value = WithStep(std::move(value), StepAt(use, label));
      return *values;
    }
    Value module;
    module.kind = ValueKind::kModule;
    module.text = imported->second;
    module.node = use;
    return {module};
  }
  // `os`, the builtins we follow, and torch/torch_npu in a snippet that uses them without its
  // import line: the name can only be the module.
  if (name == "os" || name == "argparse" || name == "dict" || name == "getattr" || name == "vars" ||
      name == "torch_npu" || name == "torch") {
    Value builtin;
    builtin.kind = ValueKind::kModule;
    builtin.text = std::string(name);
    builtin.node = use;
    return {builtin};
  }
  return {Unknown(use, label + " is not assigned in this file")};
}

Values PythonModule::ResolveParameter(const FunctionInfo& function, TSNode parameter, std::string_view name,
                                      int depth) const {
  const std::string function_name(tree_.Text(ChildByField(function.definition, "name")));
  TSNode default_value = ChildByField(parameter, "value");
  // Its position among the positional parameters (a method's `self` is not passed).
  TSNode parameters = ts_node_parent(parameter);
  int position = -1;
  int index = 0;
  const bool method = IsType(scopes_.at(function.scope).definition, "class_definition");
  const std::uint32_t count = ts_node_named_child_count(parameters);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    const std::string_view type = ts_node_type(p);
    if (type == "keyword_separator" || type == "list_splat_pattern" || type == "dictionary_splat_pattern") break;
    if (ts_node_eq(p, parameter)) {
      position = index;
      break;
    }
    ++index;
  }
  if (method && position >= 0) {
    TSNode first = ts_node_named_child(parameters, 0);
    if (tree_.Text(first) == "self" || tree_.Text(first) == "cls") --position;
  }

  const std::string label = "parameter `" + std::string(name) + "` of `" + function_name + "`";
  Values out;
  bool any_call = false;
  // A constructor's arguments are passed by calls of its class.
  const std::string called = method && function_name == "__init__"
                                 ? std::string(tree_.Text(ChildByField(scopes_.at(function.scope).definition, "name")))
                                 : function_name;
  auto named = calls_by_name_.find(called);
  for (TSNode call : named == calls_by_name_.end() ? std::vector<TSNode>() : named->second) {
    // `obj.profile(...)` calls some other object's method, not this file's function `profile`;
    // a method is called through an attribute (`self.run(...)`), a function by its name.
    const bool by_name = IsType(ChildByField(call, "function"), "identifier");
    if (by_name == (method && function_name != "__init__")) continue;
    any_call = true;
    auto argument = FindArgumentIn(call, name, position, depth + 1);
    if (argument) {
      for (Value value : argument->values) {
        out.push_back(WithStep(std::move(value), StepAt(argument->node, label + ", passed by `" + called + "(...)`")));
      }
    } else if (!ts_node_is_null(default_value)) {
      for (Value value : ResolveIn(default_value, depth + 1)) {
        out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
      }
    } else {
      out.push_back(Unknown(call, label + " is not passed by this call"));
    }
  }
  if (!any_call && modules_ != nullptr && function.scope == 0) {
    // A top-level function called from other modules of the program.
    for (const PythonModule* other : modules_->Containing(function_name, this)) {
      auto calls = other->calls_by_name_.find(function_name);
      if (calls == other->calls_by_name_.end()) continue;
      for (TSNode call : calls->second) {
        const std::optional<std::string> callee = other->CalleeName(call);
        if (!callee || callee->rfind('.') == std::string::npos) continue;
        auto defined_in = modules_->locator().Locate(callee->substr(0, callee->rfind('.')), other->path());
        std::error_code ec;
        if (!defined_in || *defined_in != std::filesystem::weakly_canonical(path_, ec).lexically_normal()) continue;
        any_call = true;
        const std::string passed = label + ", passed by `" + function_name + "(...)` in " +
                                   std::filesystem::path(other->path()).filename().string();
        if (auto argument = other->FindArgumentIn(call, name, position, depth + 1)) {
          for (Value value : FromOtherModule(argument->values, other)) {
            out.push_back(WithStep(std::move(value), other->StepAt(argument->node, passed)));
          }
        } else if (!ts_node_is_null(default_value)) {
          for (Value value : ResolveIn(default_value, depth + 1)) {
            out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
          }
        }
      }
    }
  }
  if (any_call) return out;
  if (!ts_node_is_null(default_value)) {
    for (Value value : ResolveIn(default_value, depth + 1)) {
      out.push_back(WithStep(std::move(value), StepAt(default_value, "default of " + label)));
    }
    return out;
  }
  return {Unknown(parameter, label + " has no default and no call in this file")};
}

std::optional<std::uint32_t> PythonModule::EnclosingClass(TSNode node) const {
  for (std::uint32_t scope = ScopeOf(node); scope != 0;) {
    const Scope& current = scopes_.at(scope);
    if (IsType(current.definition, "function_definition") &&
        IsType(scopes_.at(current.parent).definition, "class_definition")) {
      return current.parent;
    }
    scope = current.parent;
  }
  return std::nullopt;
}

std::optional<Values> PythonModule::ResolveSelfAttribute(TSNode attribute, int depth) const {
  TSNode object = ChildByField(attribute, "object");
  if (!IsType(object, "identifier") || tree_.Text(object) != "self") return std::nullopt;
  const std::optional<std::uint32_t> owner = EnclosingClass(attribute);
  if (!owner) return std::nullopt;
  const std::string member(tree_.Text(ChildByField(attribute, "attribute")));
  auto found = self_attributes_.find(std::pair<std::uint32_t, std::string>(*owner, member));
  if (found == self_attributes_.end()) return std::nullopt;
  Values out;
  for (TSNode value : found->second) {
    if (Contains(value, attribute)) continue;  // `self.x = f(self.x)`: the earlier values
    for (Value v : ResolveIn(value, depth + 1)) {
      out.push_back(WithStep(std::move(v), StepAt(ts_node_parent(value), "`self." + member + "`")));
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

Values PythonModule::ResolveAttribute(TSNode attribute, int depth) const {
  if (auto assigned = ResolveSelfAttribute(attribute, depth)) return *assigned;
  TSNode object = ChildByField(attribute, "object");
  const std::string member(tree_.Text(ChildByField(attribute, "attribute")));
  Values out;
  const Values owners = ResolveIn(object, depth + 1);
  // `x.attr` raises when x is None, so a path where x is None does not get here: those values are
  // left out while any other remains (`_ARGS = None` at the top, set later through `global`).
  const bool any_other =
      std::any_of(owners.begin(), owners.end(), [](const Value& owner) { return owner.kind != ValueKind::kNone; });
  for (const Value& owner : owners) {
    if (owner.kind == ValueKind::kNone && any_other) continue;
    if (owner.kind == ValueKind::kModule) {
      Value value;
      value.node = attribute;
      value.chain = owner.chain;
      const std::string qualified = owner.text + "." + member;
      if (auto constant = FindProfilerConstant(qualified)) {
        value.kind = ValueKind::kEnum;
        value.container = std::string(constant->type);
        value.text = std::string(constant->value);
        if (constant->type == "ProfilerActivity" && constant->value == "CUDA" && qualified.starts_with("torch.") &&
            TransfersToNpu()) {
          value.text = "NPU";  // transfer_to_npu patches torch's CUDA activity to torch_npu's NPU
          value.chain.push_back(StepAt(attribute, "`" + Spelling(attribute) + "` is NPU after transfer_to_npu"));
        }
      } else if (auto imported = ResolveImported(qualified, depth)) {
        for (Value& found : *imported) {
          out.push_back(WithStep(std::move(found), StepAt(attribute, "`" + Spelling(attribute) + "`")));
        }
        continue;
      } else {
        value.kind = ValueKind::kModule;
        value.text = qualified;
      }
      out.push_back(std::move(value));
    } else if (owner.kind == ValueKind::kNamespace) {
      for (Value value : ResolveArgparse(member, attribute, depth)) {
        if (!owner.text.empty() && value.kind == ValueKind::kUnknown &&
            value.unknown_reason.starts_with("no add_argument")) {
          // A framework's get_args(): its parser is outside the project root.
          value.unknown_reason = "`" + Spelling(attribute) + "` is read from what " + owner.text +
                                 "() returns, defined outside the project root, and no launch passes it";
        }
        out.push_back(WithStep(std::move(value), StepAt(attribute, "`" + Spelling(attribute) + "`")));
      }
    } else if (owner.kind == ValueKind::kUnknown) {
      out.push_back(owner);
    } else {
      std::string where =
          owner.kind == ValueKind::kCall && !owner.unknown_reason.empty() ? ", " + owner.unknown_reason : std::string();
      out.push_back(Unknown(attribute, "`" + Spelling(attribute) + "` is an attribute of " + owner.Describe() + where));
    }
  }
  return out;
}

Values PythonModule::ResolveArgparse(std::string_view dest, TSNode use, int depth) const {
  if (!argparse_.contains(dest) && !argparse_set_defaults_.contains(dest) && modules_ != nullptr &&
      depth <= kMaxDepth) {
    // Defined in another module of the program (a get_args() or an add_*_args(parser) helper).
    std::string option(dest);
    std::replace(option.begin(), option.end(), '_', '-');
    for (const PythonModule* other : modules_->Containing("add_argument", {dest, option}, this)) {
      if (other->argparse_.contains(dest) || other->argparse_set_defaults_.contains(dest)) {
        return FromOtherModule(other->ResolveArgparse(dest, TSNode{}, depth + 1), other);
      }
    }
  }
  // Launchers first: a value they pass wins over every default; one that passes nothing leaves it.
  Values out;
  bool defaults_needed = invocations_.empty();
  auto found = argparse_.find(dest);
  // An option no module of the program defines (a framework's parser, reached through its
  // `get_args()`): read from the launch by argparse's naming convention, `--dest-name`.
  std::optional<ArgparseArgument> conventional;
  if (found == argparse_.end() && !argparse_set_defaults_.contains(dest)) {
    conventional.emplace();
    std::string option = "--" + std::string(dest);
    conventional->options.push_back(option);
    std::replace(option.begin(), option.end(), '_', '-');
    conventional->options.push_back(option);
    conventional->option = option;
    conventional->action = "unknown";  // a flag or a value: told by the word after it
  }
  for (const ScriptInvocation& invocation : invocations_) {
    std::optional<Value> passed = found != argparse_.end() ? PassedValue(found->second.front(), invocation)
                                  : conventional           ? PassedValue(*conventional, invocation)
                                                           : std::nullopt;
    if (passed) {
      out.push_back(std::move(*passed));
    } else {
      defaults_needed = true;
    }
  }
  if (!defaults_needed) return out;
  if (auto defaults = argparse_set_defaults_.find(dest); defaults != argparse_set_defaults_.end()) {
    for (Value value : ResolveIn(defaults->second, depth + 1)) {
      out.push_back(
          WithStep(std::move(value), StepAt(defaults->second, "set_defaults(" + std::string(dest) + "=...)")));
    }
    return out;
  }
  if (found == argparse_.end() && conventional && !invocations_.empty()) {
    out.push_back(Unknown(use, "`" + conventional->option +
                                   "` is not passed by the launcher, and no add_argument in this file or the "
                                   "modules it imports defines it (its default is set elsewhere)"));
    return out;
  }
  if (found == argparse_.end()) {
    out.push_back(Unknown(use, "no add_argument in this file" +
                                   std::string(modules_ != nullptr ? " or the modules it imports" : "") + " defines `" +
                                   std::string(dest) + "`"));
    return out;
  }
  const ArgparseArgument& argument = found->second.front();
  std::string label = "argparse default of `" + argument.option + "`";
  if (!invocations_.empty()) label += " (a launcher does not pass it)";
  if (!ts_node_is_null(argument.default_value)) {
    for (Value value : ResolveIn(argument.default_value, depth + 1)) {
      out.push_back(WithStep(std::move(value), StepAt(argument.default_value, label)));
    }
    return out;
  }
  Value implied;
  implied.node = argument.call;
  if (argument.action == "store_true" || argument.action == "store_false") {
    implied.kind = ValueKind::kBool;
    implied.boolean = argument.action == "store_false";
  } else {
    implied.kind = ValueKind::kNone;
  }
  out.push_back(WithStep(
      implied, StepAt(argument.call, label + " (" + (argument.action.empty() ? "none given" : argument.action) + ")")));
  return out;
}

std::optional<std::string> PythonModule::ExpandAbbreviation(std::string_view typed) const {
  std::optional<std::string> expanded;
  int matches = 0;
  // One listing of the program's parsers serves both questions (this runs for every launch word).
  const std::vector<const PythonModule*> modules = ArgparseModules();
  const bool abbreviations = std::none_of(modules.begin(), modules.end(),
                                          [](const PythonModule* module) { return module->disallows_abbreviation_; });
  for (const PythonModule* module : modules) {
    for (const auto& [dest, arguments] : module->argparse_) {
      for (const ArgparseArgument& argument : arguments) {
        for (const std::string& text : argument.options) {
          if (text == typed) return text;
          if (abbreviations && text.starts_with(typed)) {
            expanded = text;
            ++matches;
          }
        }
      }
    }
  }
  return matches == 1 ? expanded : std::nullopt;
}

std::optional<Value> PythonModule::PassedValue(const ArgparseArgument& argument,
                                               const ScriptInvocation& invocation) const {
  std::optional<Value> result;
  const auto& words = invocation.arguments;
  for (std::size_t i = 0; i < words.size(); ++i) {
    // argparse also accepts an unambiguous prefix of a long option (`--prof` for `--prof-level`).
    const std::string& typed = words[i].text;
    const std::string typed_name = typed.substr(0, typed.find('='));
    std::string word = typed;
    if (typed_name.starts_with("--")) {
      if (auto full = ExpandAbbreviation(typed_name)) word = *full + typed.substr(typed_name.size());
    }
    for (const std::string& option : argument.options) {
      if (!option.starts_with('-')) continue;
      const bool exact = word == option;
      const bool joined = word.starts_with(option + "=");
      if (!exact && !joined) continue;
      Value value;
      Note step = words[i].origin;
      const bool bare_flag =
          argument.action == "unknown" && exact && (i + 1 >= words.size() || words[i + 1].text.starts_with("--"));
      if (bare_flag) {
        value.kind = ValueKind::kBool;  // `--profile-with-cpu` alone: a store_true flag
        value.boolean = true;
        step.message = "`" + word + "`";
      } else if (argument.action == "boolean_optional") {
        value.kind = ValueKind::kBool;
        value.boolean = !option.starts_with("--no-");
        step.message = "`" + word + "`";
      } else if (argument.action == "store_true" || argument.action == "store_false") {
        value.kind = ValueKind::kBool;
        value.boolean = argument.action == "store_true";
        step.message = "`" + word + "`";
      } else {
        const LaunchWord* source = nullptr;
        std::string text;
        if (joined) {
          source = &words[i];
          text = word.substr(option.size() + 1);
        } else if (i + 1 < words.size()) {
          source = &words[i + 1];
          text = source->text;
        }
        if (source == nullptr) continue;
        step = source->origin;
        step.message = "`" + option + " " + text + "`";
        if (!source->known) {
          value.kind = ValueKind::kUnknown;
          value.unknown_reason = "the launcher passes `" + option + "` a value known only at run time";
        } else if (argument.type == "int") {
          std::int64_t parsed = 0;
          auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
          value.kind = error == std::errc() && end == text.data() + text.size() ? ValueKind::kInt : ValueKind::kUnknown;
          value.integer = parsed;
          value.unknown_reason = "argparse would reject `" + text + "` as an int";
        } else {
          value.kind = ValueKind::kString;
          value.text = text;
        }
      }
      value.chain = {step};
      result = std::move(value);  // argparse keeps the last occurrence
    }
  }
  return result;
}

std::vector<const PythonModule*> PythonModule::ArgparseModules() const {
  std::vector<const PythonModule*> out = {this};
  if (modules_ != nullptr) {
    for (const PythonModule* other : modules_->Containing("add_argument", this)) out.push_back(other);
  }
  return out;
}

bool PythonModule::OptionsFromFramework() const {
  if (options_from_framework_) return true;
  // `from megatron.training import pretrain` and the like: a parser the framework builds, with
  // options this program never sees, when that framework is not below the project root.
  for (const auto& [local, qualified] : imports_) {
    const std::string_view last = LastComponent(qualified);
    if (last != "pretrain" && last != "initialize_megatron" && last != "parse_args" && last != "get_args") continue;
    if (calls_by_name_.find(local) == calls_by_name_.end()) continue;
    const std::size_t dot = qualified.rfind('.');
    if (dot == std::string::npos) continue;
    if (modules_ == nullptr || !modules_->locator().Locate(qualified.substr(0, dot), path_)) return true;
  }
  return false;
}

bool PythonModule::RejectsUnknownOptions() const {
  if (OptionsFromFramework()) return false;  // the option set is open
  bool parses = parses_args_ || parses_args_as_main_;
  bool known_only = parses_known_args_ || parses_known_args_as_main_;
  for (const PythonModule* module : ArgparseModules()) {
    if (module == this) continue;
    // Another module's `if __name__ == "__main__":` block does not run when it is imported.
    parses = parses || module->parses_args_;
    known_only = known_only || module->parses_known_args_;
  }
  return parses && !known_only;
}

std::vector<ArgparseOption> PythonModule::ArgparseOptions() const {
  std::vector<ArgparseOption> out;
  for (const PythonModule* module : ArgparseModules()) {
    for (ArgparseOption& option : module->LocalArgparseOptions()) out.push_back(std::move(option));
  }
  // Choices another part of the program extends or replaces at run time are not a closed list.
  std::vector<const PythonModule*> changers = {this};
  if (modules_ != nullptr) {
    for (const PythonModule* other : modules_->Containing("choices", this)) changers.push_back(other);
  }
  const bool all_open = std::any_of(changers.begin(), changers.end(),
                                    [](const PythonModule* module) { return module->mutates_choices_; });
  for (ArgparseOption& option : out) {
    if (!option.choices) continue;
    const bool extended = std::any_of(changers.begin(), changers.end(), [&](const PythonModule* module) {
      return std::any_of(option.options.begin(), option.options.end(),
                         [&](const std::string& name) { return module->choices_extended_.contains(name); });
    });
    if (all_open || extended) option.choices.reset();
  }
  return out;
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

Values PythonModule::ResolveEnvironment(TSNode call, int depth) const {
  TSNode arguments = ChildByField(call, "arguments");
  TSNode key = ts_node_named_child_count(arguments) > 0 ? ts_node_named_child(arguments, 0) : TSNode{};
  const std::string name = ts_node_is_null(key) ? "?" : StringLiteralValue(tree_, key).value_or(Spelling(key));
  Values exported;
  bool unset_somewhere = invocations_.empty();
  for (const ScriptInvocation& invocation : invocations_) {
    auto found = invocation.environment.find(name);
    if (found == invocation.environment.end()) {
      unset_somewhere = true;
      continue;
    }
    Value value;
    value.node = call;
    if (found->second.known) {
      value.kind = ValueKind::kString;
      value.text = found->second.text;
    } else {
      value.kind = ValueKind::kDynamicString;
    }
    Note step = found->second.origin;
    step.message = "$" + name + " set by the launcher";
    value.chain = {step};
    exported.push_back(std::move(value));
  }
  if (!unset_somewhere) return exported;
  if (ts_node_named_child_count(arguments) < 2) {
    Value none;
    none.kind = ValueKind::kNone;
    none.node = call;
    exported.push_back(WithStep(none, StepAt(call, "$" + name + " when unset")));
    return exported;
  }
  TSNode fallback = ts_node_named_child(arguments, 1);
  Values out = std::move(exported);
  for (Value value : ResolveIn(fallback, depth + 1)) {
    out.push_back(WithStep(std::move(value), StepAt(fallback, "default of $" + name + " (when unset)")));
  }
  return out;
}

Values PythonModule::ResolveCall(TSNode call, int depth) const {
  TSNode function = ChildByField(call, "function");
  TSNode arguments = ChildByField(call, "arguments");
  const auto positional = [&](std::uint32_t index) -> TSNode {
    std::uint32_t seen = 0;
    const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(arguments, i);
      if (IsType(child, "keyword_argument") || IsType(child, "comment")) continue;
      if (seen++ == index) return child;
    }
    return TSNode{};
  };
  Value result;
  result.node = call;
  if (IsType(function, "identifier")) {
    const std::string_view builtin = tree_.Text(function);
    if ((builtin == "bool" || builtin == "int" || builtin == "str") && !ts_node_is_null(positional(0)) &&
        ts_node_is_null(positional(1)) && !imports_.contains(builtin) &&
        !bindings_.contains(std::pair<std::uint32_t, std::string>(0, std::string(builtin)))) {
      Values out;
      for (const Value& inner : ResolveIn(positional(0), depth + 1)) out.push_back(Converted(inner, builtin, call));
      return out;
    }
  }
  if (IsType(function, "attribute")) {
    const std::string method(tree_.Text(ChildByField(function, "attribute")));
    if (method == "parse_args" || method == "parse_known_args") {
      result.kind = ValueKind::kNamespace;
      return {result};
    }
    const std::optional<std::string> qualified = QualifiedName(tree_, function, imports_);
    if (qualified && (*qualified == "os.environ.get" || *qualified == "os.getenv"))
      return ResolveEnvironment(call, depth);
    if (method == "get" || method == "lower" || method == "upper" || method == "strip") {
      Values owners = ResolveIn(ChildByField(function, "object"), depth + 1);
      Values out;
      for (const Value& owner : owners) {
        if (owner.kind == ValueKind::kDict && method == "get") {
          TSNode key = positional(0);
          TSNode fallback = positional(1);
          Values found = Lookup({owner}, ResolveIn(key, depth + 1), call, depth);
          const bool missing = found.empty() || std::any_of(found.begin(), found.end(), [](const Value& v) {
                                 return v.kind == ValueKind::kUnknown && v.unknown_reason == "missing key";
                               });
          std::erase_if(found, [](const Value& v) { return v.unknown_reason == "missing key"; });
          Append(out, std::move(found));
          if (missing) {
            if (ts_node_is_null(fallback)) {
              Value none;
              none.kind = ValueKind::kNone;
              none.node = call;
              out.push_back(none);
            } else {
              Append(out, ResolveIn(fallback, depth + 1));
            }
          }
        } else if (owner.kind == ValueKind::kString && method != "get") {
          Value changed = owner;
          changed.node = call;
          if (method == "lower") changed.text = AsciiLower(changed.text);
          if (method == "upper") changed.text = AsciiUpper(changed.text);
          if (method == "strip") changed.text = std::string(TrimWhitespace(changed.text));
          out.push_back(std::move(changed));
        } else if (owner.kind == ValueKind::kUnknown) {
          out.push_back(owner);
        } else {
          out.push_back(Unknown(call, "computed by `" + Spelling(call) + "`"));
        }
      }
      return out;
    }
  }
  Values callees = ResolveIn(function, depth + 1);
  Values out;
  for (const Value& callee : callees) {
    if (callee.kind == ValueKind::kModule && callee.text == "dict") {
      Value dict;
      dict.kind = ValueKind::kDict;
      dict.container = "dict";
      dict.node = call;
      const std::uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
      for (std::uint32_t i = 0; i < count; ++i) {
        TSNode child = ts_node_named_child(arguments, i);
        if (!IsType(child, "keyword_argument")) continue;
        Value key;
        key.kind = ValueKind::kString;
        key.text = std::string(tree_.Text(ChildByField(child, "name")));
        key.node = ChildByField(child, "name");
        for (Value item : ResolveIn(ChildByField(child, "value"), depth + 1)) {
          dict.keys.push_back(key);
          dict.items.push_back(std::move(item));
        }
      }
      out.push_back(std::move(dict));
    } else if (callee.kind == ValueKind::kModule && callee.text == "vars") {
      Append(out, ResolveIn(positional(0), depth + 1));
    } else if (callee.kind == ValueKind::kModule && callee.text == "getattr") {
      auto member = StringLiteralValue(tree_, positional(1));
      Values owners = ResolveIn(positional(0), depth + 1);
      for (const Value& owner : owners) {
        if (owner.kind == ValueKind::kNamespace && member) {
          const bool defined = argparse_.contains(*member) || argparse_set_defaults_.contains(*member);
          if (!defined && !ts_node_is_null(positional(2))) {
            Append(out, ResolveIn(positional(2), depth + 1));
          } else {
            Append(out, ResolveArgparse(*member, call, depth));
          }
        } else {
          out.push_back(Unknown(call, "computed by `" + Spelling(call) + "`"));
        }
      }
    } else if (callee.kind == ValueKind::kModule && (callee.text == "os.getenv" || callee.text == "os.environ.get")) {
      Append(out, ResolveEnvironment(call, depth));
    } else if (callee.kind == ValueKind::kFunction && !ts_node_is_null(callee.node) &&
               IsType(callee.node, "function_definition")) {
      if (callee.owner != nullptr && callee.owner != this) {
        Values returned = callee.owner->ResolveReturns(callee.node, TSNode{}, depth + 1);
        for (Value& value : returned) {
          FromOtherModule(value, callee.owner);
          out.push_back(WithStep(std::move(value), StepAt(call, "`" + Spelling(call) + "`")));
        }
      } else {
        Append(out, ResolveReturns(callee.node, call, depth));
      }
    } else if (callee.kind == ValueKind::kModule && !invocations_.empty() && LastComponent(callee.text) == "get_args" &&
               callee.text.find('.') != std::string::npos &&
               (modules_ == nullptr ||
                !modules_->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), path_))) {
      // Megatron's and MindSpeed's `get_args()` in a launched program: the namespace their parser
      // made from the command line, so a launch's flags are its values (see ResolveArgparse).
      // Without a launch, a library's framework arguments stay unknown: their defaults are not
      // what any real run uses.
      result.kind = ValueKind::kNamespace;
      result.text = callee.text;
      result.chain = callee.chain;
      out.push_back(result);
    } else if (callee.kind == ValueKind::kModule || callee.kind == ValueKind::kFunction) {
      result.kind = ValueKind::kCall;
      result.text = callee.text;
      result.chain = callee.chain;
      if (modules_ != nullptr && callee.kind == ValueKind::kModule && callee.text.find('.') != std::string::npos &&
          !modules_->locator().Locate(callee.text.substr(0, callee.text.rfind('.')), path_)) {
        // Where the trail leaves the program: say so when something is read from the result.
        result.unknown_reason = "defined outside the project root " + modules_->locator().root().string();
      }
      out.push_back(result);
    } else if (callee.kind == ValueKind::kUnknown && IsType(function, "identifier")) {
      // An unresolved plain name still names the callee (a builtin, or something from `*`).
      result.kind = ValueKind::kCall;
      result.text = std::string(tree_.Text(function));
      out.push_back(result);
    } else {
      out.push_back(Unknown(call, "returned by `" + Spelling(function) + "(...)`"));
    }
  }
  return out;
}

Value PythonModule::Converted(const Value& inner, std::string_view builtin, TSNode call) const {
  if (inner.kind == ValueKind::kUnknown) return inner;
  Value out = inner;
  out.node = call;
  out.items.clear();
  out.keys.clear();
  out.container.clear();
  const auto unknown = [&] { return Unknown(call, "computed by `" + Spelling(call) + "`"); };
  if (builtin == "bool") {
    out.kind = ValueKind::kBool;
    switch (inner.kind) {
      case ValueKind::kBool:
        return inner;
      case ValueKind::kInt:
        out.boolean = inner.integer != 0;
        return out;
      case ValueKind::kNone:
        out.boolean = false;
        return out;
      case ValueKind::kString:  // bool("False") is True: any non-empty string
        out.boolean = !inner.text.empty();
        return out;
      case ValueKind::kSequence:
      case ValueKind::kDict:
        out.boolean = !inner.items.empty();
        return out;
      default:
        return unknown();
    }
  }
  if (builtin == "int") {
    out.kind = ValueKind::kInt;
    if (inner.kind == ValueKind::kInt) return inner;
    if (inner.kind == ValueKind::kBool) {
      out.integer = inner.boolean ? 1 : 0;
      return out;
    }
    if (inner.kind == ValueKind::kString) {
      const std::string_view digits = TrimWhitespace(inner.text);
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out.integer);
      if (error == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return out;
    }
    return unknown();
  }
  // str()
  out.kind = ValueKind::kString;
  switch (inner.kind) {
    case ValueKind::kString:
      return inner;
    case ValueKind::kEnum:  // torch_npu's constants are plain strings ("Level1", "db")
      out.text = inner.text;
      return out;
    case ValueKind::kInt:
      out.text = std::to_string(inner.integer);
      return out;
    case ValueKind::kBool:
      out.text = inner.boolean ? "True" : "False";
      return out;
    case ValueKind::kNone:
      out.text = "None";
      return out;
    case ValueKind::kDynamicString:
      return inner;
    default:
      return unknown();
  }
}

Values PythonModule::ResolveReturns(TSNode function, TSNode call, int depth) const {
  // What a function of this file returns: every `return` in its own body (not nested functions).
  const std::string name(tree_.Text(ChildByField(function, "name")));
  Values out;
  TSNode body = ChildByField(function, "body");
  if (ts_node_is_null(body)) return {Unknown(call, "returned by `" + name + "(...)`")};
  WalkTree(body, [&](TSNode node) {
    const std::string_view type = ts_node_type(node);
    if (IsScopeNode(type) || type == "lambda") return false;
    if (type != "return_statement") return true;
    TSNode value = ts_node_named_child_count(node) > 0 ? ts_node_named_child(node, 0) : TSNode{};
    if (ts_node_is_null(value)) {
      Value none;
      none.kind = ValueKind::kNone;
      none.node = node;
      out.push_back(WithStep(none, StepAt(node, "returned by `" + name + "()`")));
      return false;
    }
    for (Value v : ResolveIn(value, depth + 1))
      out.push_back(WithStep(std::move(v), StepAt(node, "returned by `" + name + "()`")));
    return false;
  });
  if (out.empty()) return {Unknown(call, "`" + name + "(...)` has no return statement")};
  return out;
}

Values PythonModule::ResolveSubscript(TSNode subscript, int depth) const {
  Values containers = ResolveIn(ChildByField(subscript, "value"), depth + 1);
  Values keys = ResolveIn(ChildByField(subscript, "subscript"), depth + 1);
  // `os.environ["X"]`: set at run time, by a launcher we do not see here.
  for (const Value& container : containers) {
    if (container.kind == ValueKind::kModule && container.text == "os.environ") {
      const std::string name = keys.size() == 1 && keys[0].kind == ValueKind::kString ? keys[0].text : "?";
      Values out;
      for (const ScriptInvocation& invocation : invocations_) {
        auto found = invocation.environment.find(name);
        if (found == invocation.environment.end() || !found->second.known) {
          out.push_back(Unknown(subscript, "read from $" + name + ", which the launcher does not set"));
          continue;
        }
        Value value;
        value.kind = ValueKind::kString;
        value.text = found->second.text;
        value.node = subscript;
        Note step = found->second.origin;
        step.message = "$" + name + " set by the launcher";
        value.chain = {step};
        out.push_back(std::move(value));
      }
      if (out.empty()) out.push_back(Unknown(subscript, "read from $" + name + " at run time"));
      return out;
    }
  }
  Values out = Lookup(containers, keys, subscript, depth);
  for (Value& value : out) {
    if (value.unknown_reason == "missing key")
      value = Unknown(subscript, "`" + Spelling(subscript) + "` has no such key");
  }
  return out;
}

Values PythonModule::Lookup(const Values& containers, const Values& keys, TSNode use, int depth) const {
  Values out;
  for (const Value& container : containers) {
    if (container.kind == ValueKind::kNamespace) {
      for (const Value& key : keys) {
        if (key.kind == ValueKind::kString) Append(out, ResolveArgparse(key.text, use, depth));
      }
      continue;
    }
    if (container.kind == ValueKind::kSequence) {
      for (const Value& key : keys) {
        if (key.kind == ValueKind::kInt && key.integer >= 0 &&
            static_cast<std::size_t>(key.integer) < container.items.size()) {
          out.push_back(container.items[static_cast<std::size_t>(key.integer)]);
        } else {
          out.push_back(Unknown(use, "an index that cannot be followed"));
        }
      }
      continue;
    }
    if (container.kind != ValueKind::kDict) {
      out.push_back(container.kind == ValueKind::kUnknown ? container
                                                          : Unknown(use, "indexing " + container.Describe()));
      continue;
    }
    for (const Value& key : keys) {
      if (key.kind == ValueKind::kUnknown) {
        // An unknown key: any entry of the mapping may be the result.
        for (const Value& item : container.items) {
          out.push_back(
              WithStep(item, StepAt(use, "a value of the mapping (its key is unknown: " + key.unknown_reason + ")")));
        }
        continue;
      }
      bool found = false;
      for (std::size_t i = 0; i < container.keys.size(); ++i) {
        if (!SameLiteral(container.keys[i], key)) continue;
        found = true;
        Value item = container.items[i];
        item.chain.insert(item.chain.begin(), key.chain.begin(), key.chain.end());
        out.push_back(WithStep(std::move(item), StepAt(use, "`" + Spelling(use) + "` with key " + key.Describe())));
      }
      if (!found) {
        Value missing = Unknown(use, "missing key");
        out.push_back(missing);
      }
    }
  }
  return out;
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
      if (!ts_node_is_null(binding.value) &&
          (IsType(binding.value, "attribute") || IsType(binding.value, "identifier")) &&
          wanted(tree_.Text(binding.value))) {
        locals.push_back(key.second);
      }
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

std::optional<std::string> PythonModule::CalleeName(TSNode call) const {
  TSNode function = ChildByField(call, "function");
  if (ts_node_is_null(function)) return std::nullopt;
  for (const Value& callee : ResolveIn(function, 0)) {
    if (callee.kind == ValueKind::kModule || callee.kind == ValueKind::kFunction) return callee.text;
  }
  return QualifiedName(tree_, function, imports_);
}

std::optional<PythonModule::Argument> PythonModule::FindArgument(TSNode call, std::string_view keyword,
                                                                 int position) const {
  steps_taken = 0;
  return FindArgumentIn(call, keyword, position, 0);
}

std::optional<PythonModule::Argument> PythonModule::FindArgumentIn(TSNode call, std::string_view keyword, int position,
                                                                   int depth) const {
  TSNode arguments = ChildByField(call, "arguments");
  if (ts_node_is_null(arguments)) return std::nullopt;
  const std::uint32_t count = ts_node_named_child_count(arguments);
  int index = 0;
  std::optional<Argument> through_mapping;
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(arguments, i);
    const std::string_view type = ts_node_type(child);
    if (type == "comment") continue;
    if (type == "keyword_argument") {
      if (tree_.Text(ChildByField(child, "name")) != keyword) continue;
      Argument argument;
      argument.node = ChildByField(child, "value");
      argument.keyword = child;
      argument.values = ResolveIn(argument.node, depth + 1);
      return argument;
    }
    if (type == "dictionary_splat") {
      TSNode mapping = ts_node_named_child(child, 0);
      Argument argument;
      argument.node = child;
      for (const Value& dict : ResolveIn(mapping, depth + 1)) {
        if (dict.kind == ValueKind::kUnknown) {
          argument.values.push_back(Unknown(child, "passed through `" + Spelling(child) +
                                                       "`, which cannot be followed (" + dict.unknown_reason + ")"));
          continue;
        }
        if (dict.kind != ValueKind::kDict) continue;
        for (std::size_t k = 0; k < dict.keys.size(); ++k) {
          if (dict.keys[k].kind == ValueKind::kString && dict.keys[k].text == keyword) {
            argument.values.push_back(WithStep(dict.items[k], StepAt(child, "`" + Spelling(child) + "`")));
          }
        }
      }
      if (!argument.values.empty()) through_mapping = std::move(argument);
      continue;
    }
    if (type == "list_splat") {
      index = -1000;  // positions after *args cannot be counted
      continue;
    }
    if (position >= 0 && index == position) {
      Argument argument;
      argument.node = child;
      argument.values = ResolveIn(child, depth + 1);
      return argument;
    }
    ++index;
  }
  return through_mapping;
}

}  // namespace opmfu::python
