#include "rules/lint_checks.h"

#include <algorithm>
#include <filesystem>

#include "python/syntax.h"

namespace opmfu::rules {

using python::Value;
using python::ValueKind;

namespace {

// Past kMaxFindingsPerFile, a finding is not placed (its position and snippet cost a walk of its
// line: 30,000 on one 0.4 MB line took minutes) but still counted, so the lint says the limit
// was hit. The caller may still add notes or a fix: it gets a scratch finding to write into.
Diagnostic* BeyondTheLimit(std::vector<Diagnostic>& out) {
  if (out.size() <= kMaxFindingsPerFile) return nullptr;
  thread_local Diagnostic scratch;
  scratch = Diagnostic{};
  return &scratch;
}

}  // namespace

Diagnostic& LintCheckContext::Report(TSNode node, std::string message, std::string help) {
  if (Diagnostic* scratch = BeyondTheLimit(out)) return *scratch;
  const SyntaxTree& tree = module().tree();
  Diagnostic diagnostic;
  diagnostic.rule_id = rule.id;
  diagnostic.rule_name = rule.name;
  diagnostic.severity = severity;
  diagnostic.file = module().path();
  diagnostic.range = tree.RangeOf(node);
  if (diagnostic.range.end.line != diagnostic.range.start.line) {
    // A multi-line call: underline its first line only.
    const std::string_view line = tree.LineOf(ts_node_start_byte(node));
    const SourcePosition line_end =
        tree.PositionAt(static_cast<std::uint32_t>(line.data() - tree.source().data() + line.size()));
    diagnostic.range.end = line_end;
  }
  diagnostic.message = std::move(message);
  diagnostic.help = std::move(help);
  SetSnippet(diagnostic, tree.LineOf(ts_node_start_byte(node)));
  out.push_back(std::move(diagnostic));
  return out.back();
}

namespace {

Diagnostic ShellDiagnostic(const RuleInfo& rule, Severity severity, const TextLocation& where, std::string message,
                           std::string help) {
  Diagnostic diagnostic;
  diagnostic.rule_id = rule.id;
  diagnostic.rule_name = rule.name;
  diagnostic.severity = severity;
  diagnostic.file = where.file();
  diagnostic.range = where.range();
  if (diagnostic.range.end.line != diagnostic.range.start.line) {
    diagnostic.range.end = {diagnostic.range.start.line, diagnostic.range.start.column + 1};
  }
  diagnostic.message = std::move(message);
  diagnostic.help = std::move(help);
  SetSnippet(diagnostic, where.snippet());
  return diagnostic;
}

}  // namespace

Diagnostic& LintCheckContext::ReportAt(const TextLocation& where, std::string message, std::string help) {
  if (Diagnostic* scratch = BeyondTheLimit(out)) return *scratch;
  out.push_back(ShellDiagnostic(rule, severity, where, std::move(message), std::move(help)));
  return out.back();
}

Diagnostic& LintCheckContext::Report(const linter::Setting& setting, std::string message, std::string help) {
  if (setting.where.valid()) {
    if (!setting.remedy.empty()) help = setting.remedy;
    return ReportAt(setting.where, std::move(message), std::move(help));
  }
  return Report(setting.anchor, std::move(message), std::move(help));
}

Diagnostic& LauncherCheckContext::ReportAt(const TextLocation& where, std::string message, std::string help) {
  if (Diagnostic* scratch = BeyondTheLimit(out)) return *scratch;
  out.push_back(ShellDiagnostic(rule, severity, where, std::move(message), std::move(help)));
  return out.back();
}

std::vector<Diagnostic> CheckLauncher(const LauncherLint& launcher,
                                      const std::map<std::string, std::optional<Severity>>& effective) {
  std::vector<Diagnostic> diagnostics =
      RunChecks<LauncherCheck, LauncherCheckContext>(launcher, InputKind::kLauncher, effective);
  SortAndDeduplicate(diagnostics);
  return diagnostics;
}

void SortAndDeduplicate(std::vector<Diagnostic>& diagnostics) {
  SortDiagnostics(diagnostics);
  diagnostics.erase(std::unique(diagnostics.begin(), diagnostics.end(),
                                [](const Diagnostic& a, const Diagnostic& b) {
                                  return a.rule_id == b.rule_id && a.file == b.file && a.range.start == b.range.start &&
                                         a.message == b.message;
                                }),
                    diagnostics.end());
}

bool IsOpaque(const Value& value) {
  switch (value.kind) {
    case ValueKind::kUnknown:
    case ValueKind::kCall:
    case ValueKind::kDynamicString:
    case ValueKind::kFunction:
    case ValueKind::kModule:
    case ValueKind::kNamespace:
      return true;
    default:
      return false;
  }
}

std::string RenderChain(const std::vector<Note>& chain) {
  std::string out;
  for (const Note& step : chain) {
    if (!out.empty()) out += " <- ";
    out += step.message;
    if (step.position) {
      out +=
          " (" + std::filesystem::path(step.file).filename().string() + ":" + std::to_string(step.position->line) + ")";
    }
  }
  return out;
}

Diagnostic* ReportBadValues(LintCheckContext& context, const linter::Setting& setting,
                            const std::function<Verdict(const Value&)>& classify,
                            const std::function<std::string(const Value&)>& problem, std::string help,
                            bool* on_every_path) {
  if (on_every_path != nullptr) *on_every_path = false;
  std::vector<const Value*> bad;
  std::size_t others = 0;
  TSNode first_bad_at{};  // the config the first bad value is written in (or left out of)
  for (std::size_t i = 0; i < setting.values.size(); ++i) {
    const Value& value = setting.values[i];
    if (IsOpaque(value)) {
      ++others;
      continue;
    }
    const Verdict verdict = classify(value);
    if (verdict == Verdict::kBad) {
      if (bad.empty() && setting.value_anchors.size() == setting.values.size()) first_bad_at = setting.value_anchors[i];
      bad.push_back(&value);
    }
    if (verdict != Verdict::kBad) ++others;
  }
  if (bad.empty()) return nullptr;
  const Value& first = *bad.front();
  std::string message = problem(first);
  const bool partial = others > 0;
  if (on_every_path != nullptr) *on_every_path = !partial;
  if (partial) {
    message =
        "on " + std::to_string(bad.size()) + " of " + std::to_string(bad.size() + others) + " traced paths, " + message;
  }
  // The message explains the first bad value; name the others too, so one fix covers them all.
  std::vector<std::string> described;
  for (const Value* value : bad) {
    std::string text = value->Describe();
    if (std::find(described.begin(), described.end(), text) == described.end()) described.push_back(std::move(text));
  }
  if (described.size() > 1) {
    message += " (bad values: ";
    for (std::size_t i = 0; i < described.size(); ++i) message += (i ? ", " : "") + described[i];
    message += ")";
  }
  if (!first.chain.empty()) message += ": " + RenderChain(first.chain);
  Diagnostic& diagnostic = setting.where.valid() || ts_node_is_null(first_bad_at)
                               ? context.Report(setting, std::move(message), std::move(help))
                               : context.Report(first_bad_at, std::move(message), std::move(help));
  if (partial && diagnostic.severity > Severity::kWarning) diagnostic.severity = Severity::kWarning;
  diagnostic.notes = first.chain;
  return &diagnostic;
}

namespace {

// `node` is the value of `NAME = node`, and NAME is read in more than one place of the module
// (`DEBUG = False` given to the profiler and tested by `if DEBUG:`): rewriting the value changes
// what those other places do too, so such a fix is not safe.
bool ValueOfASharedName(const SyntaxTree& tree, TSNode node) {
  const TSNode parent = ts_node_parent(node);
  if (ts_node_is_null(parent) || !IsType(parent, "assignment")) return false;
  const TSNode left = ChildByField(parent, "left");
  if (ts_node_is_null(left) || !IsType(left, "identifier")) return false;
  const std::string_view name = tree.Text(left);
  int reads = 0;
  std::vector<TSNode> pending(tree.roots().begin(), tree.roots().end());
  while (!pending.empty() && reads < 2) {
    const TSNode at = pending.back();
    pending.pop_back();
    if (IsType(at, "identifier")) {
      const TSNode up = ts_node_parent(at);
      const bool assigned =
          !ts_node_is_null(up) && IsType(up, "assignment") && ts_node_eq(ChildByField(up, "left"), at);
      if (!assigned && tree.Text(at) == name) ++reads;
      continue;
    }
    const std::uint32_t count = ts_node_named_child_count(at);
    for (std::uint32_t i = 0; i < count; ++i) pending.push_back(ts_node_named_child(at, i));
  }
  return reads > 1;
}

}  // namespace

std::optional<Fix> SetSettingFix(const LintCheckContext& context, const linter::Setting& setting,
                                 const std::string& replacement) {
  if (setting.where.valid() || !context.facts.module) return std::nullopt;
  const SyntaxTree& tree = context.module().tree();
  Fix fix;
  fix.safe = true;
  if (!setting.written) {
    TSNode arguments = ChildByField(setting.call, "arguments");
    if (ts_node_is_null(arguments) || !IsType(arguments, "argument_list")) return std::nullopt;
    const std::string text = setting.name + "=" + replacement;
    fix.edits.push_back(python::AppendItemEdit(tree, arguments, text));
    fix.message = "add `" + text + "`";
    return fix;
  }
  if (setting.values.size() != 1) return std::nullopt;
  const Value& value = setting.values.front();
  if (ts_node_is_null(value.node) || IsOpaque(value)) return std::nullopt;
  const std::string_view type = ts_node_type(value.node);
  if (type != "true" && type != "false" && type != "string" && type != "none" && type != "tuple" && type != "integer") {
    return std::nullopt;
  }
  fix.safe = !ValueOfASharedName(tree, value.node);
  fix.edits.push_back({ts_node_start_byte(value.node), ts_node_end_byte(value.node), replacement});
  const SourcePosition at = tree.PositionAt(ts_node_start_byte(value.node));
  fix.message = "replace `" + std::string(tree.Text(value.node)) + "` with `" + replacement + "` (line " +
                std::to_string(at.line) + ")";
  return fix;
}

std::optional<Fix> AddExperimentalConfigFix(const LintCheckContext& context, const linter::ProfilerCallSite& site) {
  const auto absent = [&](const linter::Setting& setting) {
    return !setting.written && !setting.where.valid() && ts_node_eq(setting.call, site.call);
  };
  if (!context.facts.module || !IsType(site.call, "call") || !absent(site.mstx) || !absent(site.msprof_tx) ||
      !absent(site.export_type) || !absent(site.profiler_level)) {
    return std::nullopt;
  }
  TSNode arguments = ChildByField(site.call, "arguments");
  if (ts_node_is_null(arguments) || !IsType(arguments, "argument_list")) return std::nullopt;
  const auto config = SpelledInFile(context, "torch_npu.profiler._ExperimentalConfig");
  const auto level = SpelledInFile(context, "torch_npu.profiler.ProfilerLevel.Level1");
  const auto text = SpelledInFile(context, "torch_npu.profiler.ExportType.Text");
  const auto db = SpelledInFile(context, "torch_npu.profiler.ExportType.Db");
  if (!config || !level || !text || !db) return std::nullopt;
  const std::string item = "experimental_config=" + *config + "(profiler_level=" + *level + ", export_type=[" + *text +
                           ", " + *db + "], mstx=True, msprof_tx=True)";
  Fix fix;
  fix.safe = true;
  fix.edits.push_back(python::AppendItemEdit(context.module().tree(), arguments, item));
  fix.message = "add `" + item + "`";
  return fix;
}

const Value* EditableLiteral(const LintCheckContext& context, const linter::Setting& setting) {
  if (setting.where.valid() || !context.facts.module || !setting.written || setting.values.size() != 1) return nullptr;
  const Value& value = setting.values.front();
  if (ts_node_is_null(value.node) || IsOpaque(value)) return nullptr;
  // Written as the argument or as a variable's value: an item of a table (`LEVELS = {"level0":
  // ProfilerLevel.Level0}` looked up by a flag) is what another key means, not this setting's.
  const TSNode parent = ts_node_parent(value.node);
  if (ts_node_is_null(parent) || !(IsType(parent, "keyword_argument") || IsType(parent, "assignment"))) return nullptr;
  // Nor one branch of a choice (`else: level = ProfilerLevel.Level0` after `if args.level == "l1"`):
  // the other branches are the user's other options, and the choice itself is what to change.
  // An argument written in the call is this call's whatever branch holds the call; a variable's
  // value in one branch of a choice is one of the user's options. An `if` with no `elif` or
  // `else` only guards (`if args.profile:`): not a choice.
  if (IsType(parent, "keyword_argument")) return &value;
  for (TSNode up = parent; !ts_node_is_null(up); up = ts_node_parent(up)) {
    const std::string_view type = ts_node_type(up);
    if (type == "function_definition" || type == "class_definition") break;
    if (type == "elif_clause" || type == "else_clause" || type == "case_clause" || type == "conditional_expression") {
      return nullptr;
    }
    if (type == "if_statement") {
      for (std::uint32_t i = 0; i < ts_node_named_child_count(up); ++i) {
        const std::string_view clause = ts_node_type(ts_node_named_child(up, i));
        if (clause == "elif_clause" || clause == "else_clause") return nullptr;
      }
    }
  }
  return &value;
}

Fix ReplaceLiteralFix(const LintCheckContext& context, TSNode node, const std::string& replacement) {
  const SyntaxTree& tree = context.module().tree();
  Fix fix;
  fix.safe = !ValueOfASharedName(tree, node);
  fix.edits.push_back({ts_node_start_byte(node), ts_node_end_byte(node), replacement});
  fix.message = "replace `" + std::string(tree.Text(node)) + "` with `" + replacement + "` (line " +
                std::to_string(tree.PositionAt(ts_node_start_byte(node)).line) + ")";
  return fix;
}

namespace {

// A safe fix that writes `replacement` over the bytes at `at` in a launcher ("replace `x` with
// `y`"); `other_file`: the launcher is not the finding's file, so the edit and message name it.
Fix ReplaceInLauncherFix(const TextLocation& at, const std::string& replacement, bool other_file) {
  const std::string_view written =
      std::string_view(*at.source->text).substr(at.start_byte, at.end_byte - at.start_byte);
  Fix fix;
  fix.safe = true;
  fix.edits.push_back({at.start_byte, at.end_byte, replacement, other_file ? at.file() : std::string()});
  fix.message = "replace `" + std::string(written) + "` with `" + replacement + "`" +
                (other_file ? " in " + std::filesystem::path(at.file()).filename().string() : std::string()) +
                " (line " + std::to_string(at.range().start.line) + ")";
  return fix;
}

}  // namespace

std::optional<Fix> LauncherOptionFix(const Diagnostic& finding, const linter::Setting& setting,
                                     const std::string& wanted) {
  if (!setting.launcher_option) return std::nullopt;
  const linter::LauncherOptionValue& option = *setting.launcher_option;
  const auto replacement = option.option_for.find(wanted);
  if (replacement == option.option_for.end() || !option.value.valid() || option.value.file() != finding.file) {
    return std::nullopt;
  }
  return ReplaceInLauncherFix(option.value, replacement->second, false);
}

std::optional<Fix> LauncherKeyFix(const linter::Setting& setting,
                                  const std::function<bool(const python::Value&)>& good) {
  if (setting.values.size() != 1 || !setting.values.front().looked_up) return std::nullopt;
  const python::KeyedLookup& lookup = *setting.values.front().looked_up;
  const TextLocation& at = lookup.key_at;
  if (!at.valid() || at.end_byte > at.source->text->size() || at.end_byte <= at.start_byte) return std::nullopt;
  const auto chosen =
      std::find_if(lookup.entries.begin(), lookup.entries.end(), [&](const auto& entry) { return good(entry.second); });
  if (chosen == lookup.entries.end()) return std::nullopt;
  // The key is written into a shell word as it is: nothing that bash would read otherwise.
  if (chosen->first.empty() ||
      chosen->first.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
          std::string::npos) {
    return std::nullopt;
  }
  return ReplaceInLauncherFix(at, chosen->first, true);
}

std::optional<Fix> AppendToListFix(const LintCheckContext& context, TSNode list, const std::string& item) {
  if (ts_node_is_null(list) || !IsType(list, "list")) return std::nullopt;
  for (std::uint32_t i = 0; i < ts_node_named_child_count(list); ++i) {
    if (IsType(ts_node_named_child(list, i), "list_splat")) return std::nullopt;  // `[*xs]`: not a list of literals
  }
  Fix fix;
  fix.safe = true;
  fix.edits.push_back(python::AppendItemEdit(context.module().tree(), list, item));
  const SourcePosition at = context.module().tree().PositionAt(ts_node_start_byte(list));
  fix.message = "add `" + item + "` (line " + std::to_string(at.line) + ")";
  return fix;
}

std::optional<std::string> SpelledInFile(const LintCheckContext& context, std::string_view qualified) {
  std::optional<std::string> best;
  for (const auto& [local, imported] : context.module().imports()) {
    std::string spelled;
    if (qualified == imported) {
      spelled = local;
    } else if (qualified.starts_with(imported) && qualified.size() > imported.size() &&
               qualified[imported.size()] == '.') {
      spelled = local + std::string(qualified.substr(imported.size()));
    } else {
      continue;
    }
    if (!best || spelled.size() < best->size()) best = std::move(spelled);
  }
  return best;
}

std::optional<std::string> SpelledLike(const LintCheckContext& context, TSNode like, std::string_view member) {
  if (ts_node_is_null(like) || !IsType(like, "attribute")) return std::nullopt;
  const SyntaxTree& tree = context.module().tree();
  const TSNode object = ChildByField(like, "object");
  if (ts_node_is_null(object)) return std::nullopt;
  return std::string(tree.Text(object)) + "." + std::string(member);
}

InputKind InputOf(const linter::ProfilerFacts& facts) {
  if (facts.module) return InputKind::kPython;
  if (facts.dynamic_config) return InputKind::kDynamicConfig;
  return InputKind::kKnownLauncher;
}

std::vector<Diagnostic> CheckProfilerFacts(const linter::ProfilerFacts& facts,
                                           const std::map<std::string, std::optional<Severity>>& effective) {
  std::vector<Diagnostic> diagnostics = RunChecks<SettingsCheck, LintCheckContext>(facts, InputOf(facts), effective);
  // One _ExperimentalConfig can feed several profile calls: report each place once.
  SortAndDeduplicate(diagnostics);
  return diagnostics;
}

}  // namespace opmfu::rules
