#include "linter/shell/interpreter.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <optional>
#include <utility>

#include "linter/shell/assignment.h"
#include "linter/shell/commands.h"
#include "linter/shell/dispatch.h"
#include "linter/shell/expansion.h"
#include "linter/shell/syntax.h"

namespace opmfu::linter::shell {

namespace fs = std::filesystem;

void Interpreter::RunLauncher() {
  visiting_.insert(Identity(facts.path));  // a launcher that sources itself stops there
  Environment env;
  Frame frame;
  frame.budget = &budget_;
  frame.dollar_zero = &facts.path;
  frame.directory = &directory;
  frame.directory_unknown = &directory_unknown;
  RunFile(facts.path, facts.tree, env, frame);
  budget_.Report(facts.limits);
}

std::string Interpreter::Identity(const std::string& path) const {
  auto canonical = files.Canonical(path);
  return canonical.ok() ? *canonical : path;
}

void Interpreter::RunFile(const std::string& path, std::shared_ptr<const SyntaxTree> tree, Environment& env,
                          const Frame& frame) {
  const ShellText text{tree.get(), path, std::make_shared<const TextSource>(path, tree->shared_source()), nullptr};
  Frame in_file = frame;
  in_file.text = &text;
  for (TSNode root : tree->roots()) Run(root, in_file, env);
}

void Interpreter::Follow(const ShellWord& raw_target, Environment& env, const Frame& frame, bool new_script) {
  const ShellWord target = Clean(raw_target);
  if (!target.known) return;
  if (frame.depth >= kMaxSourceNesting) {
    // Said: a chain that deep is never a real launcher's, and its launch would go unchecked. (A
    // function calling itself stops at the same depth unsaid: the evaluator takes every branch,
    // so any recursion reaches it.)
    frame.budget->NoteSourceNesting(frame.file());
    return;
  }
  fs::path path = target.text;
  if (path.is_relative()) {
    // As bash does: relative to the current directory (where lint runs, the project root, as
    // the launcher does, until the launcher's own `cd`); then next to the launcher, for
    // launchers run from their directory.
    const fs::path beside = (fs::path(frame.file()).parent_path() / path).lexically_normal();
    const fs::path here = (directory.empty() ? path : fs::path(directory) / path).lexically_normal();
    if (files.IsFile(here.string())) {
      path = here;
    } else {
      path = files.IsFile(path.string()) ? path.lexically_normal() : beside;
    }
  }
  const std::string canonical = Identity(path.string());
  if (visiting_.contains(canonical)) return;  // a `source` loop
  if (!frame.budget->Follow(frame.file())) return;
  const std::shared_ptr<const SyntaxTree> tree = Parsed(path.string(), canonical, target, frame);
  if (!tree) return;
  visiting_.insert(canonical);
  const std::string script = path.string();
  Frame in_file = frame;
  in_file.depth = frame.depth + 1;
  if (new_script) in_file.dollar_zero = &script;
  RunFile(script, tree, env, in_file);
  visiting_.erase(canonical);
}

std::shared_ptr<const SyntaxTree> Interpreter::Parsed(const std::string& path, const std::string& canonical,
                                                      const ShellWord& target, const Frame& frame) {
  // A file sourced many times is read and parsed once, and a problem with it said once.
  if (const auto known = parsed_.find(canonical); known != parsed_.end()) return known->second;
  std::shared_ptr<const SyntaxTree>& tree = parsed_[canonical];
  auto source = files.ReadFile(path);
  if (!source.ok()) {
    const std::string why = fs::path(target.text).is_relative() && files.Stat(path) == FileKind::kMissing
                                ? "neither in the current directory nor next to " + frame.file()
                                : source.error().message;
    facts.problems.push_back(Error::Input(frame.file() + ":" + std::to_string(target.where.range().start.line) +
                                          ": cannot follow `" + target.text + "`: " + why));
    return tree;
  }
  auto parsed = ParseLauncher(std::move(*source), path);
  if (!parsed.ok()) {
    facts.problems.push_back(parsed.take_error());  // past a parse bound: said, not followed
    return tree;
  }
  tree = std::make_shared<const SyntaxTree>(std::move(*parsed));
  return tree;
}

// `eval "$cmd"`: the words joined by spaces are parsed and run as the launcher would; a string
// only partly known is split into a command's words instead (its unknown parts stay unknown).
void Interpreter::Eval(TSNode command, const Words& words, Environment& env, const Frame& frame) {
  if (words.empty() || frame.depth >= kMaxSourceNesting) return;
  ShellWord joined = words.front();
  for (std::size_t i = 1; i < words.size(); ++i) {
    joined.text += " " + words[i].text;
    joined.known = joined.known && words[i].known;
  }
  if (words.size() > 1) joined.where = frame.Where(command);
  const ShellWord clean = Clean(joined);
  if (!clean.known) {
    DispatchFields(*this, frame, command, joined, env, env, "eval");
    return;
  }
  auto tree = ParseLauncher(clean.text);
  if (!tree.ok()) return;
  const auto parsed = std::make_shared<const SyntaxTree>(std::move(*tree));
  trees_.push_back(parsed);
  const TextLocation exact = FieldLocation(clean, 0, clean.text.size());
  const bool is_exact = words.size() == 1 && exact.valid() && exact.end_byte - exact.start_byte == clean.text.size();
  const ShellText text{parsed.get(), frame.file(),
                       std::make_shared<const TextSource>(frame.file(), parsed->shared_source()),
                       std::make_shared<const EvalOrigin>(EvalOrigin{is_exact ? exact : clean.where, is_exact})};
  Frame in_string = frame;
  in_string.text = &text;
  in_string.depth = frame.depth + 1;
  // The string runs in the launcher's shell: its assignments are the launcher's.
  for (TSNode root : parsed->roots()) Run(root, in_string, env);
}

void Interpreter::Run(TSNode node, const Frame& outer, Environment& env) {
  if (outer.depth > kMaxSourceNesting) return;
  const std::optional<Frame> nested = outer.Nested();
  if (!nested) return;
  const Frame& frame = *nested;
  switch (KindOf(node)) {
    case kComment:
      return;
    case kVariableAssignment:
      Assign(node, frame, env, false);
      return;
    case kDeclarationCommand:
      RunDeclaration(node, frame, env);
      return;
    case kFunctionDefinition:
      functions_[std::string(frame.Text(ChildByField(node, "name")))] = {node, frame.text->tree, frame.file(),
                                                                         frame.text->source, frame.text->eval};
      return;
    case kIfStatement:
      RunIf(node, frame, env);
      return;
    case kCaseStatement:
      RunCase(node, frame, env);
      return;
    case kForStatement:
    case kWhileStatement:
    case kCStyleForStatement:
      RunLoop(node, frame, env);
      return;
    case kCommand:
      RunCommand(node, frame, env);
      return;
    case kList:
      // `a && b && c` nests to the left, one level per operator: run the commands of the whole
      // chain in order, without a frame per operator (a chain of 30,000 is a valid script).
      for (TSNode command : ListCommands(node)) Run(command, frame, env);
      return;
    default:
      // Containers: programs, pipelines, subshells, redirections, groups.
      for (TSNode child : NamedChildren(node)) {
        if (KindOf(child) == kHeredocBody || KindOf(child) == kHeredocRedirect) continue;
        Run(child, frame, env);
      }
  }
}

void Interpreter::RunDeclaration(TSNode node, const Frame& frame, Environment& env) {
  const bool exported = frame.Text(node).starts_with("export");
  for (TSNode child : NamedChildren(node)) {
    if (KindOf(child) == kVariableAssignment) {
      Assign(child, frame, env, exported);
      if (exported) NoteExport(std::string(frame.Text(ChildByField(child, "name"))), env);
    } else if (KindOf(child) == kVariableName && exported) {
      env.Set(std::string(frame.Text(child))).exported = true;
      NoteExport(std::string(frame.Text(child)), env);
    }
  }
}

void Interpreter::RunIf(TSNode node, const Frame& frame, Environment& env) {
  static const TSFieldId kCondition = BashField("condition");
  std::vector<std::vector<TSNode>> branches(1);
  bool has_else = false;
  // The condition always runs, before either branch: a function it calls sets variables
  // (`if ! pick; then exit 1; fi; "$L" train.py`), a launch in it is a launch.
  std::vector<TSNode> condition;
  ForEachNamedChild(node, [&](TSNode child, TSFieldId field) {
    if (field == kCondition) {
      condition.push_back(child);
      return;
    }
    const Kind child_kind = KindOf(child);
    if (child_kind != kElifClause && child_kind != kElseClause) {
      branches.front().push_back(child);
      return;
    }
    has_else = has_else || child_kind == kElseClause;
    // An elif's condition runs on the paths that reach it: first in its branch.
    std::vector<TSNode> body;
    ForEachNamedChild(child, [&](TSNode statement, TSFieldId) { body.push_back(statement); });
    branches.push_back(std::move(body));
  });
  for (TSNode statement : condition) Run(statement, frame, env);
  Branches(branches, has_else, frame, env);
}

void Interpreter::RunCase(TSNode node, const Frame& frame, Environment& env) {
  static const TSFieldId kValue = BashField("value");
  std::vector<std::vector<TSNode>> branches;
  bool has_default = false;
  ForEachNamedChild(node, [&](TSNode item, TSFieldId) {
    if (KindOf(item) != kCaseItem) return;
    std::vector<TSNode> body;
    ForEachNamedChild(item, [&](TSNode child, TSFieldId field) {
      if (field != kValue) {
        body.push_back(child);
      } else if (frame.Text(child) == "*") {
        has_default = true;
      }
    });
    branches.push_back(std::move(body));
  });
  Branches(branches, has_default, frame, env);
}

void Interpreter::RunLoop(TSNode node, const Frame& frame, Environment& env) {
  static const TSFieldId kCondition = BashField("condition");
  // A while's condition runs at least once (a function it calls sets variables); the body
  // may not run at all.
  if (KindOf(node) == kWhileStatement) {
    ForEachNamedChild(node, [&](TSNode child, TSFieldId field) {
      if (field == kCondition) Run(child, frame, env);
    });
  }
  TSNode body = ChildByField(node, "body");
  if (!ts_node_is_null(body)) Branches({{body}}, false, frame, env, true);
}

namespace {

bool IsEmpty(const Alternative& alternative) {
  return alternative.unset || alternative.words.empty() ||
         (alternative.words.size() == 1 && alternative.words.front().known && alternative.words.front().text.empty());
}

bool AnyUnknown(const Variable& variable) {
  return std::any_of(variable.alternatives.begin(), variable.alternatives.end(), [](const Alternative& alternative) {
    return std::any_of(alternative.words.begin(), alternative.words.end(), [](const ShellWord& word) {
      return !word.known || word.text.find(kOpaqueStart) != std::string::npos;
    });
  });
}

}  // namespace

void Interpreter::Branches(const std::vector<std::vector<TSNode>>& branches, bool exhaustive, const Frame& frame,
                           Environment& env, bool loop) {
  std::vector<std::unique_ptr<Environment>> layers;
  std::set<std::string, std::less<>> written;
  for (const std::vector<TSNode>& branch : branches) {
    layers.push_back(std::make_unique<Environment>(&env));
    for (TSNode statement : branch) Run(statement, frame, *layers.back());
    for (const auto& [name, variable] : layers.back()->own()) written.insert(name);
  }
  for (const std::string& name : written) {
    Variable merged;
    const auto add = [&](const Variable* variable) {
      if (variable == nullptr) {
        AddAlternative(merged.alternatives, Alternative{{}, true});  // still unset on this path
        return;
      }
      merged.exported = merged.exported || variable->exported;
      for (const Alternative& alternative : variable->alternatives) AddAlternative(merged.alternatives, alternative);
    };
    bool run_time = false;
    for (const auto& layer : layers) {
      const Variable* variable = layer->Find(name);
      run_time = run_time || (variable != nullptr && AnyUnknown(*variable));
      add(variable);
    }
    if (!exhaustive) add(env.Find(name));
    if (loop && run_time) {
      // The empty start of an argument loop's variable (also kept by a `case` arm that does not
      // set it) is not a value the launch runs with: the arguments it is given decide.
      std::erase_if(merged.alternatives, IsEmpty);
    }
    env.Replace(name, std::move(merged));
  }
}

void Interpreter::RunCommand(TSNode command, const Frame& frame, Environment& env) {
  TSNode name_node = ChildByField(command, "name");
  if (ts_node_is_null(name_node)) return;
  TSNode written_name = ts_node_named_child(name_node, 0);
  // The commands the name can be: one for a plain word; for an expansion, one per command its paths
  // run (`$L train.py` with L=torchrun on one branch and python on another), each with the words
  // the expansion gives after it ("${LAUNCH[@]}" with LAUNCH=(uv run python3)).
  std::vector<CommandLine> lines;
  if (KindOf(written_name) == kWord) {
    lines.push_back({command, BaseName(frame.Text(written_name)), {}, false, {Words{}}});
  } else {
    std::vector<PathWords> paths;
    for (Words& words : Expand(written_name, frame, env, false)) paths.push_back({std::move(words), 0, {}});
    lines = SplitByCommand(command, std::move(paths));
  }
  // Only the commands of the table matter; expanding every `echo` and `mkdir` would cost more
  // than the rest of the evaluation.
  std::erase_if(lines, [&](const CommandLine& line) {
    if (auto function = functions_.find(line.name); function != functions_.end()) {
      CallFunction(function->second, frame, env);
      return true;
    }
    return FindCommand(line.name) == nullptr && !line.name_unknown;
  });
  if (lines.empty()) return;

  // `V=x cmd`: a layer over the environment for this command only; most commands have no prefix.
  std::optional<Environment> prefixed;
  std::vector<TSNode> arguments;
  bool before_name = true;
  for (TSNode child : NamedChildren(command)) {
    const Kind kind = KindOf(child);
    if (kind == kVariableAssignment && before_name) {
      if (!prefixed) prefixed.emplace(&env);
      Assign(child, frame, *prefixed, true);
    } else if (kind == kCommandName) {
      before_name = false;
    } else if (kind != kComment && kind != kHerestringRedirect && kind != kFileRedirect) {
      arguments.push_back(child);
    }
  }
  const Environment& local = prefixed ? *prefixed : env;

  // The argument words, on each path (capped).
  std::vector<WordAlternatives> expanded;
  expanded.reserve(arguments.size());
  for (TSNode argument : arguments) expanded.push_back(Expand(argument, frame, env, false));
  for (CommandLine& line : lines) {
    for (const WordAlternatives& words : expanded) AppendAlternatives(line.argv, words);
    line.where = frame.Where(written_name);
    Dispatch(*this, frame, std::move(line), local, env);
  }
}

// The body runs where it was defined (it may come from a sourced file, or an eval string).
void Interpreter::CallFunction(const Function& function, const Frame& frame, Environment& env) {
  TSNode body = ChildByField(function.definition, "body");
  if (ts_node_is_null(body) || frame.depth >= kMaxSourceNesting) return;
  const ShellText text{function.tree, function.file, function.source, function.eval.lock()};
  Frame in_definition = frame;
  in_definition.text = &text;
  in_definition.depth = frame.depth + 1;
  Run(body, in_definition, env);
}

void Interpreter::NoteExport(const std::string& name, const Environment& env) {
  const Variable* found = env.Find(name);
  if (found == nullptr || found->alternatives.empty()) return;
  const Alternative& first = found->alternatives.front();
  if (first.words.empty()) return;
  facts.commands.push_back({ShellCommandFact::Kind::kExportedVariable, name, Clean(first.words.front()), {}});
}

}  // namespace opmfu::linter::shell
