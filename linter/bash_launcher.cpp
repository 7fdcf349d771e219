#include "linter/bash_launcher.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::linter {

namespace fs = std::filesystem;

namespace {

// A launcher's branches multiply; beyond this many alternatives per variable or per command only
// the first ones are kept (a finding then still names a real path).
constexpr std::size_t kMaxAlternatives = 8;
// Commands that start Python, besides python, python3, python3.11, ...
const std::set<std::string, std::less<>> kLaunchers = {"torchrun", "deepspeed", "accelerate", "msrun"};
// Only these other commands' arguments matter; expanding every `echo` and `mkdir` would cost more
// than the rest of the evaluation.
const std::set<std::string, std::less<>> kReadArguments = {"source",         ".",     "bash", "sh",
                                                           "msprof-analyze", "opmfu", "rm",   "cd"};
constexpr int kMaxSourceNesting = 16;  // nested sources and function calls
// Stated limits (docs/reliability.md, "Limits"): how deep the evaluator follows nested blocks and
// expansions (each level is a C++ frame: 10,000 nested `if`s would overflow the stack), and how
// long one variable's value may grow (`a=$a$a` forty times would be a terabyte). Past either the
// launcher is still read, the rest of that block or value counting as unknown, and the file gets
// one line saying which limit it hit.
constexpr int kMaxNesting = 200;
constexpr std::size_t kMaxValueBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxArrayElements = 4096;

// The node types the evaluator tests, numbered once (SymbolKinds) in this order: it tests
// several on every node of every launcher.
enum Kind : std::uint8_t {
  kOther,
  kWord,
  kNumber,
  kExtglobPattern,
  kRawString,
  kString,
  kStringContent,
  kConcatenation,
  kSimpleExpansion,
  kExpansion,
  kComment,
  kVariableAssignment,
  kDeclarationCommand,
  kFunctionDefinition,
  kIfStatement,
  kCaseStatement,
  kForStatement,
  kWhileStatement,
  kCStyleForStatement,
  kCommand,
  kHeredocBody,
  kHeredocRedirect,
  kElifClause,
  kElseClause,
  kCaseItem,
  kArray,
  kSubscript,
  kCommandName,
  kHerestringRedirect,
  kFileRedirect,
  kVariableName,
  kSpecialVariableName,
  kCommandSubstitution,
  kList,
  kRedirectedStatement,
};

const SymbolKinds& Kinds() {
  static const SymbolKinds kinds(Grammar::kBash, {"word",
                                                  "number",
                                                  "extglob_pattern",
                                                  "raw_string",
                                                  "string",
                                                  "string_content",
                                                  "concatenation",
                                                  "simple_expansion",
                                                  "expansion",
                                                  "comment",
                                                  "variable_assignment",
                                                  "declaration_command",
                                                  "function_definition",
                                                  "if_statement",
                                                  "case_statement",
                                                  "for_statement",
                                                  "while_statement",
                                                  "c_style_for_statement",
                                                  "command",
                                                  "heredoc_body",
                                                  "heredoc_redirect",
                                                  "elif_clause",
                                                  "else_clause",
                                                  "case_item",
                                                  "array",
                                                  "subscript",
                                                  "command_name",
                                                  "herestring_redirect",
                                                  "file_redirect",
                                                  "variable_name",
                                                  "special_variable_name",
                                                  "command_substitution",
                                                  "list",
                                                  "redirected_statement"});
  return kinds;
}

Kind KindOf(TSNode node) { return static_cast<Kind>(Kinds().Of(node)); }

struct Alternative {
  std::vector<ShellWord> words;  ///< one for a scalar; the elements of an array
  bool unset = false;
};

struct Variable {
  std::vector<Alternative> alternatives;
  bool exported = false;
};

// Variables, in layers: a branch or a `V=x cmd` prefix works on a layer over the environment it
// starts from, so nothing is copied until it is written (launchers branch a lot).
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

 private:
  const Environment* parent_ = nullptr;
  std::map<std::string, Variable, std::less<>> own_;
};

// Word lists: the alternatives an expansion can give.
using Words = std::vector<ShellWord>;
using WordAlternatives = std::vector<Words>;

// Calls visit(child, field id) for a node's named children in one pass (tree-sitter's
// ts_node_named_child and ts_node_field_name_for_child walk from the first child on every call).
template <typename Visit>
void ForEachNamedChild(TSNode node, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) visit(child, ts_tree_cursor_current_field_id(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

std::vector<TSNode> NamedChildren(TSNode node) {
  std::vector<TSNode> out;
  ForEachNamedChild(node, [&](TSNode child, TSFieldId) { out.push_back(child); });
  return out;
}

TSFieldId BashField(std::string_view name) {
  return ts_language_field_id_for_name(LanguageOf(Grammar::kBash), name.data(),
                                       static_cast<std::uint32_t>(name.size()));
}

bool SameWords(const Words& a, const Words& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].text != b[i].text || a[i].known != b[i].known) return false;
  }
  return true;
}

void AddAlternative(std::vector<Alternative>& into, Alternative alternative) {
  for (const Alternative& existing : into) {
    if (existing.unset == alternative.unset && SameWords(existing.words, alternative.words)) return;
  }
  if (into.size() < kMaxAlternatives) into.push_back(std::move(alternative));
}

// Inside evaluation, the parts of a word known only at run time are kept between these two
// characters, so splitting and concatenation know where they are; Clean() removes them.
constexpr char kOpaqueStart = '\x01';
constexpr char kOpaqueEnd = '\x02';

ShellWord Clean(ShellWord word) {
  word.known = word.known && word.text.find(kOpaqueStart) == std::string::npos;
  if (word.HasRuns() && word.text.find_first_of("\x01\x02") != std::string::npos) {
    // Runs never cover a marker (they spell literal text), so each moves back by the markers
    // before it.
    std::vector<std::size_t> markers_before(word.text.size() + 1, 0);
    for (std::size_t i = 0; i < word.text.size(); ++i) {
      const char c = word.text[i];
      markers_before[i + 1] = markers_before[i] + (c == kOpaqueStart || c == kOpaqueEnd ? 1 : 0);
    }
    std::vector<SpelledRun> moved = word.Runs();
    for (SpelledRun& run : moved) run.offset -= markers_before[std::min(run.offset, word.text.size())];
    word.SetRuns(std::move(moved));
  }
  std::erase_if(word.text, [](char c) { return c == kOpaqueStart || c == kOpaqueEnd; });
  return word;
}

// The most spelled runs a word keeps.
constexpr std::size_t kMaxSpelledRuns = 64;

// Appends `right`'s text to `left`'s, its runs moved past `left`'s text.
void AppendText(ShellWord& left, const ShellWord& right) {
  // The left word's runs are fixed to its text before it grows: a shared window would otherwise
  // widen over runs that spell something else.
  if (right.HasRuns() || left.HasRuns()) {
    // A word put together from many literals (`a=$a$a` forty times, `A="$A x"` in a loop) keeps
    // no runs: a fix rewrites one literal, and counting past a few would make every append cost
    // as much as all the ones before it.
    if (std::size_t{left.spelled_count} + right.spelled_count > kMaxSpelledRuns) {
      left.SetRuns({});
      left.text += right.text;
      return;
    }
    std::vector<SpelledRun> joined = left.Runs();
    for (SpelledRun run : right.Runs()) {
      run.offset += left.text.size();
      joined.push_back(std::move(run));
    }
    left.SetRuns(std::move(joined));
  }
  left.text += right.text;
}

// A word spelled exactly by the bytes at `at` (a plain word, a quoted string's content).
ShellWord WithRun(ShellWord word, TextLocation at) {
  if (!word.text.empty() && at.valid() && at.end_byte >= at.start_byte &&
      at.end_byte - at.start_byte == word.text.size()) {
    word.SetRuns({{0, word.text.size(), std::move(at)}});
  }
  return word;
}

// The last segment of a path (trailing slashes ignored) when no part of it is known only at
// run time; "" otherwise. Takes the text before Clean().
std::string KnownLastSegment(std::string_view text) {
  while (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  const std::size_t slash = text.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? text : text.substr(slash + 1);
  if (last.find(kOpaqueStart) != std::string_view::npos || last.find(kOpaqueEnd) != std::string_view::npos) return {};
  return std::string(last);
}

// Word splitting on whitespace, except inside run-time parts: each field with its offset.
std::vector<std::pair<std::string, std::size_t>> SplitFields(std::string_view text) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::string current;
  std::size_t start = 0;
  int opaque = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == kOpaqueStart) ++opaque;
    if (c == kOpaqueEnd) --opaque;
    if (opaque == 0 && (c == ' ' || c == '\t' || c == '\n')) {
      if (!current.empty()) out.emplace_back(std::move(current), start);
      current.clear();
    } else {
      if (current.empty()) start = i;
      current += c;
    }
  }
  if (!current.empty()) out.emplace_back(std::move(current), start);
  return out;
}

// Where field `offset..offset+size` of a word is written, when the word is a literal in the
// source (`"--a --b"` split into --a and --b); else the whole word.
TextLocation FieldLocation(const ShellWord& word, std::size_t offset, std::size_t size) {
  const TextLocation& where = word.where;
  if (!where.source || where.end_byte > where.source->text->size() || where.end_byte < where.start_byte) return where;
  const std::string_view written =
      std::string_view(*where.source->text).substr(where.start_byte, where.end_byte - where.start_byte);
  std::uint32_t base = where.start_byte;
  if (written.size() == word.text.size() + 2 && (written.front() == '"' || written.front() == '\'') &&
      written.back() == written.front() && written.substr(1, word.text.size()) == word.text) {
    base += 1;
  } else if (written != word.text) {
    return where;
  }
  return {where.source, base + static_cast<std::uint32_t>(offset), base + static_cast<std::uint32_t>(offset + size)};
}

// Appends each alternative of the next word(s) to each path so far (capped). One alternative,
// the usual case, is appended in place: copying every prefix would make long arrays quadratic.
void AppendAlternatives(WordAlternatives& paths, WordAlternatives next_words) {
  if (next_words.size() == 1) {
    Words& words = next_words.front();
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (i + 1 == paths.size()) {
        paths[i].insert(paths[i].end(), std::make_move_iterator(words.begin()), std::make_move_iterator(words.end()));
      } else {
        paths[i].insert(paths[i].end(), words.begin(), words.end());
      }
    }
    return;
  }
  WordAlternatives next;
  for (const Words& prefix : paths) {
    for (const Words& words : next_words) {
      if (next.size() >= kMaxAlternatives) break;
      Words joined;
      joined.reserve(std::max(prefix.capacity(), prefix.size() + words.size()));  // keeps the caller's hint
      joined.insert(joined.end(), prefix.begin(), prefix.end());
      joined.insert(joined.end(), words.begin(), words.end());
      next.push_back(std::move(joined));
    }
  }
  paths = std::move(next);
}

// bash ends a command continued by `\` at the end of the file (the next "line" is empty);
// tree-sitter-bash calls it an error and drops the command's last word. A newline added after
// the backslash is the same program to bash and parses cleanly; offsets before it are unchanged.
Result<SyntaxTree> ParseLauncher(std::string source) {
  std::size_t end = source.size();
  if (end > 0 && source[end - 1] == '\n') --end;
  if (end > 0 && source[end - 1] == '\\') {
    std::size_t backslashes = 0;
    for (std::size_t i = end; i > 0 && source[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 1) source += end == source.size() ? "\n\n" : "\n";
  }
  return ParseSource(Grammar::kBash, std::move(source));
}

std::string BaseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Commands that run the rest of their words as a command: the options that take a value (as the
// next word), and how many operands come before the command (`timeout 1h cmd`, `taskset 0xff cmd`).
struct Wrapper {
  std::string_view name;
  std::set<std::string_view, std::less<>> options_with_value;
  std::size_t operands = 0;
};

const Wrapper* WrapperOf(std::string_view name) {
  static const std::vector<Wrapper> kWrappers = {
      {"nohup", {}},
      {"exec", {"-a"}},
      {"time", {}},
      {"setsid", {}},
      {"nice", {"-n", "--adjustment"}},
      {"env", {"-u", "--unset", "-C", "--chdir"}},
      {"timeout", {"-s", "--signal", "-k", "--kill-after"}, 1},
      {"numactl",
       {"-C", "--physcpubind", "-N", "--cpunodebind", "-m", "--membind", "-i", "--interleave", "-p", "--preferred"}},
      {"taskset", {}, 1},
      {"msprof", {}},
      {"eval", {}},
  };
  for (const Wrapper& wrapper : kWrappers) {
    if (wrapper.name == name) return &wrapper;
  }
  return nullptr;
}

// The index of the command a wrapper runs among its words (npos when it runs none); `env`'s
// `V=x` words go into `assignments`.
std::size_t UnwrapWords(const Wrapper& wrapper, const std::vector<ShellWord>& words,
                        std::vector<ShellWord>& assignments) {
  std::size_t operands = wrapper.operands;
  bool options = true;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (options && word == "--") {
      options = false;
      continue;
    }
    if (options && word.size() > 1 && word.starts_with("-")) {
      if (wrapper.name == "taskset" && (word == "-p" || word == "--pid")) return std::string::npos;
      if (wrapper.options_with_value.contains(word)) ++i;
      continue;
    }
    options = false;
    if (wrapper.name == "env" && word.find('=') != std::string::npos && word.front() != '=') {
      assignments.push_back(words[i]);
      continue;
    }
    if (operands > 0) {
      --operands;
      continue;
    }
    return i;
  }
  return std::string::npos;
}

class Evaluator {
 public:
  Evaluator(LauncherFacts& facts, const FileReader& files) : facts_(facts), files_(files) {}

  /// One line per limit the launcher hit (each named once, with the file where it first was).
  void ReportLimits() const {
    if (nesting_hit_) {
      facts_.limits.push_back(*nesting_hit_ + ": nesting deeper than " + std::to_string(kMaxNesting) +
                              " levels (a limit of opmfu): what lies deeper was not followed");
    }
    if (value_hit_) {
      facts_.limits.push_back(*value_hit_ + ": a variable's value grew past " + DescribeBytes(kMaxValueBytes) + " or " +
                              std::to_string(kMaxArrayElements) +
                              " elements (a limit of opmfu): it counts as unknown from there");
    }
  }

  /// Marks the top-level file as being read, so a launcher that sources itself stops there.
  void Enter(const std::string& path) { visiting_.insert(Identity(path)); }

  /// The name one file has however it is reached, for the loop check.
  std::string Identity(const std::string& path) const {
    auto canonical = files_.Canonical(path);
    return canonical.ok() ? *canonical : path;
  }

  void RunFile(const std::string& path, std::shared_ptr<const SyntaxTree> tree, Environment& env, int depth) {
    const InText in_file(*this, tree.get(), path, std::make_shared<const TextSource>(path, tree->shared_source()));
    trees_.push_back(tree);
    for (TSNode root : tree->roots()) Run(root, env, depth);
  }

 private:
  // While it lives, the evaluator reads another text (a sourced file, the file a function was
  // defined in, an eval string); the caller's comes back when it ends.
  class InText {
   public:
    InText(Evaluator& evaluator, const SyntaxTree* tree, std::string file, std::shared_ptr<const TextSource> source)
        : evaluator_(evaluator),
          tree_(std::exchange(evaluator.tree_, tree)),
          file_(std::exchange(evaluator.file_, std::move(file))),
          source_(std::exchange(evaluator.source_, std::move(source))) {}
    ~InText() {
      evaluator_.tree_ = tree_;
      evaluator_.file_ = std::move(file_);
      evaluator_.source_ = std::move(source_);
    }
    InText(const InText&) = delete;
    InText& operator=(const InText&) = delete;

   private:
    Evaluator& evaluator_;
    const SyntaxTree* tree_;
    std::string file_;
    std::shared_ptr<const TextSource> source_;
  };

  TextLocation Where(TSNode node) const {
    const std::uint32_t start = ts_node_start_byte(node);
    const std::uint32_t end = ts_node_end_byte(node);
    // Text that `eval` parsed is placed where it is written in the launcher (the value of
    // `cmd="torchrun ... train.py"`), or on the whole word when it was put together.
    for (const EvalText& text : eval_texts_) {
      if (text.source != source_.get()) continue;
      if (!text.exact) return text.origin;
      return {text.origin.source, text.origin.start_byte + start, text.origin.start_byte + end};
    }
    return {source_, start, end};
  }

  ShellWord Literal(std::string text, TSNode node, bool known = true) const {
    if (!known) text = kOpaqueStart + text + kOpaqueEnd;
    return {std::move(text), true, Where(node)};
  }

  // A literal spelled byte for byte by `node` (or by `node` without its quotes).
  ShellWord SpelledLiteral(std::string text, TSNode node, std::uint32_t quotes = 0) const {
    ShellWord word = Literal(std::move(text), node);
    TextLocation at = word.where;
    at.start_byte += quotes;
    at.end_byte -= std::min(at.end_byte - at.start_byte, quotes);
    return WithRun(std::move(word), std::move(at));
  }

  // The value of a variable as alternatives of word lists; `unset` alternatives come back empty
  // with `*unset` set, so the caller can apply a default.
  static std::vector<std::pair<const Words*, bool>> Lookup(const Environment& env, std::string_view name) {
    static const Words kNone;
    std::vector<std::pair<const Words*, bool>> out;
    const Variable* found = env.Find(name);
    if (found == nullptr || found->alternatives.empty()) {
      out.emplace_back(&kNone, true);
      return out;
    }
    for (const Alternative& alternative : found->alternatives) out.emplace_back(&alternative.words, alternative.unset);
    return out;
  }

  // Expands one argument node into word-list alternatives (never none). `quoted`: inside "...",
  // no splitting.
  WordAlternatives Expand(TSNode node, const Environment& env, bool quoted) const {
    WordAlternatives out = ExpandNode(node, env, quoted);
    if (out.empty()) out.push_back({Literal(std::string(tree_->Text(node)), node, false)});
    return out;
  }

  WordAlternatives ExpandNode(TSNode node, const Environment& env, bool quoted) const {
    const NestingLevel level(*this);
    if (!level.Entered()) return {{Literal(std::string(tree_->Text(node).substr(0, 256)), node, false)}};
    const Kind kind = KindOf(node);
    if (kind == kWord || kind == kNumber || kind == kExtglobPattern) {
      std::string text;
      const std::string_view raw = tree_->Text(node);
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size()) ++i;  // an escaped character stands for itself
        text += raw[i];
      }
      if (text.size() == raw.size()) return {{SpelledLiteral(std::move(text), node)}};
      return {{Literal(text, node)}};
    }
    if (kind == kRawString) {
      std::string_view raw = tree_->Text(node);
      if (raw.size() >= 2) raw = raw.substr(1, raw.size() - 2);
      return {{SpelledLiteral(std::string(raw), node, 1)}};
    }
    if (kind == kString) {
      // "...": one word, except "${ARRAY[@]}" which gives one word per element.
      WordAlternatives out = {{Literal("", node)}};
      for (TSNode part : NamedChildren(node)) {
        WordAlternatives parts = KindOf(part) == kStringContent
                                     ? WordAlternatives{{SpelledLiteral(std::string(tree_->Text(part)), part)}}
                                     : Expand(part, env, true);
        out = Concatenate(out, parts, node);
      }
      return out;
    }
    if (kind == kConcatenation) {
      WordAlternatives out = {{Literal("", node)}};
      for (TSNode part : NamedChildren(node)) out = Concatenate(out, Expand(part, env, quoted), node);
      return out;
    }
    if (kind == kSimpleExpansion || kind == kExpansion) return ExpandVariable(node, env, quoted);
    if (kind == kCommandSubstitution) {
      // One result per alternative of the variables it reads (`cd "$DIR/.."` where DIR differs
      // between branches); a branch it cannot follow is unknown.
      std::size_t alternatives = 1;
      WordAlternatives out;
      bool any = false;
      for (std::size_t pick = 0; pick < alternatives && pick < kMaxAlternatives; ++pick) {
        bool printed_absolute = false;
        std::optional<std::string> directory = DirectoryOfSubstitution(node, env, pick, alternatives, printed_absolute);
        any = any || directory.has_value();
        Words words = {directory ? Literal(std::move(*directory), node)
                                 : Literal(std::string(tree_->Text(node)), node, false)};
        words.front().anchored = directory.has_value() && printed_absolute;
        if (std::none_of(out.begin(), out.end(), [&](const Words& seen) { return SameWords(seen, words); })) {
          out.push_back(std::move(words));
        }
      }
      if (any) return out;
    }
    // $(...), $((...)), <(...), and anything else: only known at run time.
    return {{Literal(std::string(tree_->Text(node)), node, false)}};
  }

  // The directory idioms launchers use to find their project: `$(cd "$(dirname "$0")/.." && pwd)`,
  // `$(cd `dirname $0`; cd ../..; pwd)`, `$(dirname "$(readlink -f "$0")")`: a sequence of cd,
  // pwd, dirname, realpath and readlink -f on known paths. The result is relative to the
  // directory opmfu runs in, as $0 is (pwd would print it absolute: the same place). nullopt for
  // anything else (the value is then only known at run time).
  // `pick` chooses among an operand's alternatives; `alternatives` grows to the most any has.
  // `printed_absolute`: the last command was pwd, realpath or readlink -f (bash prints an absolute
  // path; dirname prints what it was given).
  std::optional<std::string> DirectoryOfSubstitution(TSNode node, const Environment& env, std::size_t pick,
                                                     std::size_t& alternatives, bool& printed_absolute) const {
    std::vector<TSNode> commands;
    if (!SimpleCommands(node, commands)) return std::nullopt;
    fs::path directory = ".";
    std::optional<fs::path> output;
    for (TSNode command : commands) {
      std::string name;
      std::vector<std::string> operands;
      bool follow_links = false;
      for (TSNode child : NamedChildren(command)) {
        const Kind kind = KindOf(child);
        if (kind == kCommandName) {
          name = std::string(tree_->Text(child));
          continue;
        }
        if (kind == kFileRedirect || kind == kComment) continue;
        const WordAlternatives words = Expand(child, env, true);
        alternatives = std::max(alternatives, words.size());
        const Words& chosen = words[std::min(pick, words.size() - 1)];
        if (chosen.size() != 1) return std::nullopt;
        const ShellWord word = Clean(chosen.front());
        if (!word.known) return std::nullopt;
        if (word.text.starts_with("-") && word.text.size() > 1) {
          follow_links = follow_links || word.text == "-f" || word.text == "-e" || word.text == "-m";
          continue;
        }
        operands.push_back(word.text);
      }
      const auto resolve = [&](const std::string& path) {
        return fs::path(path).is_absolute() ? fs::path(path) : directory / path;
      };
      if (name == "cd" && operands.size() == 1) {
        directory = resolve(operands.front()).lexically_normal();
      } else if (name == "pwd" && operands.empty()) {
        output = directory;
        printed_absolute = true;
      } else if (name == "dirname" && operands.size() == 1) {
        std::string path = operands.front();
        while (path.size() > 1 && path.back() == '/') path.pop_back();
        const fs::path parent = fs::path(path).parent_path();
        output = parent.empty() ? fs::path(".") : parent;
        printed_absolute = false;
      } else if ((name == "realpath" || (name == "readlink" && follow_links)) && operands.size() == 1) {
        output = resolve(operands.front()).lexically_normal();
        printed_absolute = true;
      } else {
        return std::nullopt;
      }
    }
    if (!output) return std::nullopt;
    std::string text = output->lexically_normal().string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text.empty() ? std::string(".") : text;
  }

  // The commands of a substitution that is only commands in sequence (`;`, `&&`, redirections).
  static bool SimpleCommands(TSNode node, std::vector<TSNode>& commands) {
    std::vector<TSNode> leaves;
    for (TSNode child : NamedChildren(node)) {
      if (KindOf(child) == kList) {
        std::vector<TSNode> chain = ListCommands(child);  // iterative: a chain can be long
        leaves.insert(leaves.end(), chain.begin(), chain.end());
      } else {
        leaves.push_back(child);
      }
      if (leaves.size() > 64) return false;  // far more than the idioms have: not one of them
    }
    for (TSNode leaf : leaves) {
      const Kind kind = KindOf(leaf);
      if (kind == kCommand) {
        commands.push_back(leaf);
      } else if (kind == kRedirectedStatement) {
        TSNode body = ChildByField(leaf, "body");
        if (ts_node_is_null(body) || KindOf(body) != kCommand) return false;
        commands.push_back(body);
      } else if (kind != kComment) {
        return false;
      }
    }
    return !commands.empty() && commands.size() <= 8;
  }

  // Joins the last word of each left alternative with the first of each right one.
  WordAlternatives Concatenate(const WordAlternatives& left, const WordAlternatives& right, TSNode node) const {
    WordAlternatives out;
    for (const Words& l : left) {
      for (const Words& r : right) {
        if (out.size() >= kMaxAlternatives) break;
        Words joined = l;
        if (joined.empty()) joined.push_back(Literal("", node));
        if (r.empty()) {
          out.push_back(joined);
          continue;
        }
        // `$R/../sub` names what R names: a word takes its start's anchoring.
        if (joined.back().text.empty()) joined.back().anchored = r.front().anchored;
        AppendText(joined.back(), r.front());
        joined.back().known = joined.back().known && r.front().known;
        joined.back().where = Where(node);
        CapValue(joined.back());
        joined.insert(joined.end(), r.begin() + 1, r.end());
        out.push_back(std::move(joined));
      }
    }
    return out;
  }

  WordAlternatives ExpandVariable(TSNode node, const Environment& env, bool quoted) const {
    std::string name;
    bool all_elements = false;
    TSNode fallback{};
    std::string op;
    const std::uint32_t count = ts_node_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_child(node, i);
      const Kind kind = KindOf(child);
      if (kind == kVariableName || kind == kSpecialVariableName) {
        name = std::string(tree_->Text(child));
      } else if (kind == kSubscript) {
        name = std::string(tree_->Text(ChildByField(child, "name")));
        const std::string_view index = tree_->Text(ChildByField(child, "index"));
        all_elements = index == "@" || index == "*";
      } else if (!ts_node_is_named(child)) {
        const std::string_view text = tree_->Text(child);
        if (text == ":-" || text == "-" || text == ":=" || text == "=") op = std::string(text);
      } else if (!op.empty() && ts_node_is_null(fallback)) {
        fallback = child;
      }
    }
    // The grammar misreads some valid defaults (`${V:-['a','b']}`, `${V:-$(((a + b) * 2))}`,
    // `${V:$N+1}`): what it recovered is a fragment, so the default is read from the text, or is
    // unknown; never the fragment.
    std::optional<WordAlternatives> recovered;
    if (ts_node_has_error(node)) {
      recovered = RecoverDefault(node, op);
      if (!recovered) return {{Literal(std::string(tree_->Text(node)), node, false)}};
    }
    const auto expand_default = [&]() -> WordAlternatives {
      return recovered ? *recovered : Expand(fallback, env, true);
    };
    const bool has_default = recovered.has_value() || !ts_node_is_null(fallback);
    // $0 is the script bash runs; ${BASH_SOURCE[0]} the file being read (a sourced one too).
    if (name == "0") return {{Literal(dollar_zero_, node)}};
    if (name == "BASH_SOURCE" && env.Find(name) == nullptr) return {{Literal(file_, node)}};
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name == "@" || name == "*") {
      // Positional parameters: their default when there is one, else unknown.
      if (has_default) return expand_default();
      return {{Literal(std::string(tree_->Text(node)), node, false)}};
    }
    WordAlternatives out;
    for (const auto& [found_words, unset] : Lookup(env, name)) {
      const Words& words = *found_words;
      if (unset || (words.size() == 1 && words[0].text.empty() && op.starts_with(":"))) {
        if (has_default) {
          for (Words& alternative : expand_default()) out.push_back(std::move(alternative));
        } else {
          out.push_back({Literal(std::string(tree_->Text(node)), node, false)});
        }
        continue;
      }
      if (words.empty()) {
        // `a=()`: "$a" and "${a[0]}" are empty (no element to take or join).
        out.push_back({Literal("", node, true)});
        continue;
      }
      if (words.size() > 1 && !all_elements && !quoted) {
        out.push_back({words.front()});  // $ARRAY is its first element
        continue;
      }
      if (quoted && !all_elements) {
        // "$VAR": one word, the elements joined.
        ShellWord joined = words.front();
        for (std::size_t i = 1; i < words.size(); ++i) {
          joined.text += " ";
          AppendText(joined, words[i]);
        }
        out.push_back({joined});
        continue;
      }
      if (quoted) {
        out.push_back(words);
        continue;
      }
      // Unquoted: word splitting on whitespace.
      Words split;
      for (const ShellWord& word : words) {
        for (auto& [field, offset] : SplitFields(word.text)) {
          const TextLocation where = FieldLocation(word, offset, field.size());
          // The first field starts where the word does, so it names what the word names.
          ShellWord part = word.Part(offset, field.size());
          part.known = true;
          part.where = where;
          part.anchored = word.anchored && offset == 0;
          split.push_back(std::move(part));
        }
      }
      out.push_back(std::move(split));
    }
    if (out.size() > kMaxAlternatives) out.resize(kMaxAlternatives);
    return out;
  }

  // `${NAME<op>TEXT}` whose TEXT the grammar could not parse: TEXT as bash reads it when it is
  // plain words and single quotes (`['npu','cpu']` is [npu,cpu]); nullopt when it holds
  // expansions, other quoting, or the expansion is not of that form (the value is unknown).
  std::optional<WordAlternatives> RecoverDefault(TSNode node, std::string_view op) const {
    const std::string_view raw = tree_->Text(node);
    if (op.empty() || !raw.starts_with("${") || !raw.ends_with("}")) return std::nullopt;
    std::size_t i = 2;
    while (i < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[i])) != 0 || raw[i] == '_')) ++i;
    if (i == 2 || raw.substr(i, op.size()) != op) return std::nullopt;
    const std::string_view text = raw.substr(i + op.size(), raw.size() - 1 - (i + op.size()));
    if (text.find_first_of("$`\\\"{}\n") != std::string_view::npos) return std::nullopt;
    std::string value;
    bool in_quotes = false;
    for (const char c : text) {
      if (c == '\'') {
        in_quotes = !in_quotes;
        continue;
      }
      if (!in_quotes && (c == ' ' || c == '\t')) return std::nullopt;  // would split: keep it simple
      value += c;
    }
    if (in_quotes) return std::nullopt;
    return WordAlternatives{{Literal(std::move(value), node)}};
  }

  void Assign(TSNode assignment, Environment& env, bool exported) const {
    TSNode name_node = ChildByField(assignment, "name");
    TSNode value = ChildByField(assignment, "value");
    if (ts_node_is_null(name_node)) return;
    std::string name(tree_->Text(name_node));
    if (KindOf(name_node) == kSubscript) return;  // ARR[i]=x: not followed
    const bool append = tree_->Text(assignment).substr(name.size()).starts_with("+=");
    std::vector<Alternative> values;
    if (ts_node_has_error(assignment) && (ts_node_is_null(value) || !ts_node_has_error(value))) {
      // The grammar gave up around the value (`V=<placeholder>/x`): what it kept is not the value.
      values.push_back({{Literal(std::string(tree_->Text(assignment)), assignment, false)}, false});
    } else if (ts_node_is_null(value)) {
      values.push_back({{Literal("", assignment)}, false});
    } else if (KindOf(value) == kArray) {
      WordAlternatives elements = {{}};
      for (TSNode element : NamedChildren(value)) {
        AppendAlternatives(elements, Expand(element, env, false));
        for (Words& words : elements) CapWords(words);
      }
      for (Words& words : elements) values.push_back({std::move(words), false});
    } else {
      for (Words& words : Expand(value, env, true)) {
        // A scalar assignment does not split: keep one word.
        ShellWord word = words.empty() ? Literal("", value) : words.front();
        for (std::size_t i = 1; i < words.size(); ++i) {
          word.text += " " + words[i].text;
          word.known = word.known && words[i].known;
        }
        word.where = Where(value);
        CapValue(word);
        values.push_back({{word}, false});
      }
    }
    // Only now: `X=${X:-d}` reads X before it is written.
    Variable& variable = env.Set(name);
    variable.exported = variable.exported || exported;
    if (append) {
      if (variable.alternatives.empty()) variable.alternatives.push_back({{}, false});
      std::vector<Alternative> combined;
      for (const Alternative& before : variable.alternatives) {
        for (const Alternative& added : values) {
          Alternative joined = before;
          joined.unset = false;
          if (KindOf(value) == kArray || joined.words.empty() || added.words.empty()) {
            joined.words.insert(joined.words.end(), added.words.begin(), added.words.end());
            CapWords(joined.words);
          } else {
            // `V+=" more"` on a string (or an array's first element) concatenates.
            ShellWord& first = joined.words.front();
            first.text += added.words.front().text;
            first.known = first.known && added.words.front().known;
            CapValue(first);
          }
          AddAlternative(combined, std::move(joined));
        }
      }
      variable.alternatives = std::move(combined);
    } else {
      variable.alternatives.clear();
      for (Alternative& alternative : values) AddAlternative(variable.alternatives, std::move(alternative));
    }
  }

  // Runs the branches from `env` and leaves in `env` every value any of them can end with.
  void Branches(const std::vector<std::vector<TSNode>>& branches, bool exhaustive, Environment& env, int depth) {
    std::vector<std::unique_ptr<Environment>> layers;
    std::set<std::string, std::less<>> written;
    for (const std::vector<TSNode>& branch : branches) {
      layers.push_back(std::make_unique<Environment>(&env));
      for (TSNode statement : branch) Run(statement, *layers.back(), depth);
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
      for (const auto& layer : layers) add(layer->Find(name));
      if (!exhaustive) add(env.Find(name));
      env.Replace(name, std::move(merged));
    }
  }

  void Run(TSNode node, Environment& env, int depth) {
    if (depth > kMaxSourceNesting) return;
    const NestingLevel level(*this);
    if (!level.Entered()) return;
    const Kind kind = KindOf(node);
    if (kind == kComment) {
      if (depth == 0 && file_ == facts_.path) facts_.comments.push_back(node);
      return;
    }
    if (kind == kVariableAssignment) {
      Assign(node, env, false);
      return;
    }
    if (kind == kDeclarationCommand) {
      const bool exported = tree_->Text(node).starts_with("export");
      for (TSNode child : NamedChildren(node)) {
        if (KindOf(child) == kVariableAssignment) {
          Assign(child, env, exported);
          if (exported) NoteExport(std::string(tree_->Text(ChildByField(child, "name"))), env);
        } else if (KindOf(child) == kVariableName && exported) {
          env.Set(std::string(tree_->Text(child))).exported = true;
          NoteExport(std::string(tree_->Text(child)), env);
        }
      }
      return;
    }
    if (kind == kFunctionDefinition) {
      functions_[std::string(tree_->Text(ChildByField(node, "name")))] = {node, tree_, file_, source_};
      return;
    }
    static const TSFieldId kCondition = BashField("condition");
    static const TSFieldId kValue = BashField("value");
    if (kind == kIfStatement) {
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
      for (TSNode statement : condition) Run(statement, env, depth);
      Branches(branches, has_else, env, depth);
      return;
    }
    if (kind == kCaseStatement) {
      std::vector<std::vector<TSNode>> branches;
      bool has_default = false;
      ForEachNamedChild(node, [&](TSNode item, TSFieldId) {
        if (KindOf(item) != kCaseItem) return;
        std::vector<TSNode> body;
        ForEachNamedChild(item, [&](TSNode child, TSFieldId field) {
          if (field != kValue) {
            body.push_back(child);
          } else if (tree_->Text(child) == "*") {
            has_default = true;
          }
        });
        branches.push_back(std::move(body));
      });
      Branches(branches, has_default, env, depth);
      return;
    }
    if (kind == kForStatement || kind == kWhileStatement || kind == kCStyleForStatement) {
      // A while's condition runs at least once (a function it calls sets variables); the body
      // may not run at all.
      if (kind == kWhileStatement) {
        ForEachNamedChild(node, [&](TSNode child, TSFieldId field) {
          if (field == kCondition) Run(child, env, depth);
        });
      }
      TSNode body = ChildByField(node, "body");
      if (!ts_node_is_null(body)) Branches({{body}}, false, env, depth);
      return;
    }
    if (kind == kCommand) {
      RunCommand(node, env, depth);
      return;
    }
    if (kind == kList) {
      // `a && b && c` nests to the left, one level per operator: run the commands of the whole
      // chain in order, without a frame per operator (a chain of 30,000 is a valid script).
      for (TSNode command : ListCommands(node)) Run(command, env, depth);
      return;
    }
    // Containers: programs, pipelines, subshells, redirections, groups.
    for (TSNode child : NamedChildren(node)) {
      if (KindOf(child) == kHeredocBody || KindOf(child) == kHeredocRedirect) continue;
      Run(child, env, depth);
    }
  }

  // The operands of a chain of lists, in order, lists inside it flattened (iteratively).
  static std::vector<TSNode> ListCommands(TSNode list) {
    std::vector<TSNode> commands;
    std::vector<TSNode> pending = {list};
    while (!pending.empty()) {
      const TSNode node = pending.back();
      pending.pop_back();
      if (KindOf(node) != kList) {
        if (KindOf(node) != kHeredocBody && KindOf(node) != kHeredocRedirect) commands.push_back(node);
        continue;
      }
      std::vector<TSNode> children = NamedChildren(node);
      pending.insert(pending.end(), children.rbegin(), children.rend());
    }
    return commands;
  }

  void NoteExport(const std::string& name, const Environment& env) {
    const Variable* found = env.Find(name);
    if (found == nullptr || found->alternatives.empty()) return;
    const Alternative& first = found->alternatives.front();
    if (first.words.empty()) return;
    facts_.commands.push_back({ShellCommandFact::Kind::kExportedVariable, name, Clean(first.words.front()), {}});
  }

  void RunCommand(TSNode command, Environment& env, int depth) {
    TSNode name_node = ChildByField(command, "name");
    if (ts_node_is_null(name_node)) return;
    TSNode written_name = ts_node_named_child(name_node, 0);
    std::string name;
    Words name_rest;            // "${LAUNCH[@]}" with LAUNCH=(uv run python3): the words after the first
    bool name_unknown = false;  // `$PYTHON train.py` with PYTHON unset
    if (KindOf(written_name) == kWord) {
      name = BaseName(tree_->Text(written_name));  // the usual case, without expanding
    } else {
      WordAlternatives names = Expand(written_name, env, false);
      if (names.empty() || names.front().empty()) return;
      const ShellWord first = Clean(names.front().front());
      name_unknown = !first.known && BaseName(first.text).find('$') != std::string::npos;
      name = BaseName(first.text);
      name_rest.assign(std::make_move_iterator(names.front().begin() + 1),
                       std::make_move_iterator(names.front().end()));
    }
    if (auto function = functions_.find(name); function != functions_.end()) {
      // The body runs where it was defined (it may come from a sourced file).
      const Function& called = function->second;
      TSNode body = ChildByField(called.definition, "body");
      if (ts_node_is_null(body) || depth >= kMaxSourceNesting) return;
      const InText in_definition(*this, called.tree, called.file, called.source);
      Run(body, env, depth + 1);
      return;
    }
    if (!name.starts_with("python") && !kLaunchers.contains(name) && !kReadArguments.contains(name) && name != "uv" &&
        !name_unknown && WrapperOf(name) == nullptr) {
      return;
    }

    // `V=x cmd`: a layer over the environment for this command only; most commands have no prefix.
    std::optional<Environment> prefixed;
    std::vector<TSNode> arguments;
    bool before_name = true;
    for (TSNode child : NamedChildren(command)) {
      const Kind kind = KindOf(child);
      if (kind == kVariableAssignment && before_name) {
        if (!prefixed) prefixed.emplace(&env);
        Assign(child, *prefixed, true);
      } else if (kind == kCommandName) {
        before_name = false;
      } else if (kind != kComment && kind != kHerestringRedirect && kind != kFileRedirect) {
        arguments.push_back(child);
      }
    }
    const Environment& local = prefixed ? *prefixed : env;

    // The argument words, on each path (capped).
    WordAlternatives argv = {std::move(name_rest)};
    argv.front().reserve(argv.front().size() + arguments.size());
    for (TSNode argument : arguments) AppendAlternatives(argv, Expand(argument, env, false));
    Dispatch(command, name, Where(written_name), name_unknown, std::move(argv), local, env, depth);
  }

  // Runs a command whose name and words are known: sees through wrappers (`nohup`, `env V=x`,
  // `timeout 1h`, `numactl ...`, `msprof ...`, `eval "$cmd"`) to the command they start.
  // `where` is the command word, `local` the environment the command sees.
  void Dispatch(TSNode command, std::string name, TextLocation where, bool name_unknown, WordAlternatives argv,
                const Environment& local_env, Environment& env, int depth) {
    std::vector<std::unique_ptr<Environment>> layers;  // `env V=x cmd`: V for cmd only
    const Environment* visible = &local_env;
    std::string outer;  // the first wrapper, for messages
    const RestoreCollector restore(*this);
    for (int wrappers = 0; const Wrapper* wrapper = WrapperOf(name); ++wrappers) {
      if (wrappers > 16 || argv.empty()) return;
      if (outer.empty()) outer = name;
      if (name == "eval") {
        RunEval(command, argv.front(), env, depth);
        return;
      }
      if (name == "msprof") {
        collector_ = where;
        // `msprof --application="python3 train.py"`: msprof splits the string into a command.
        const Words& words = argv.front();
        const auto application = std::find_if(
            words.begin(), words.end(), [](const ShellWord& word) { return word.text.starts_with("--application="); });
        if (application != words.end()) {
          ShellWord text = *application;  // its findings land on the whole word
          text.text = text.text.substr(std::string_view("--application=").size());
          DispatchFields(command, text, *visible, env, depth, outer);
          return;
        }
      }
      // Each path drops the wrapper's own words; paths that then run another command are left out.
      WordAlternatives unwrapped;
      std::string next;
      TextLocation next_where;
      bool next_unknown = false;
      std::vector<ShellWord> assignments;
      for (Words& words : argv) {
        std::vector<ShellWord> path_assignments;
        const std::size_t at = UnwrapWords(*wrapper, words, path_assignments);
        if (at == std::string::npos) continue;  // `taskset -p PID`, `exec >log`: starts no command
        const ShellWord first = Clean(words[at]);
        const std::string base = BaseName(first.text);
        if (unwrapped.empty()) {
          next = base;
          next_where = words[at].where;
          next_unknown = !first.known && base.find('$') != std::string::npos;
          assignments = std::move(path_assignments);
        } else if (base != next) {
          continue;
        }
        unwrapped.emplace_back(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(at) + 1),
                               std::make_move_iterator(words.end()));
      }
      if (unwrapped.empty()) return;
      if (!assignments.empty()) {
        layers.push_back(std::make_unique<Environment>(visible));
        for (const ShellWord& assignment : assignments) {
          const std::size_t equals = assignment.text.find('=');
          ShellWord value = assignment;
          value.text = assignment.text.substr(equals + 1);
          Variable& variable = layers.back()->Set(assignment.text.substr(0, equals));
          variable.exported = true;
          variable.alternatives = {Alternative{{std::move(value)}, false}};
        }
        visible = layers.back().get();
      }
      name = std::move(next);
      where = std::move(next_where);
      name_unknown = next_unknown;
      argv = std::move(unwrapped);
    }
    if (!outer.empty() && !Followed(name) && !name_unknown) {
      ReportUnfollowed(command, name, where, outer, argv.front());
      return;
    }
    RunProgram(command, name, name_unknown, std::move(argv), *visible, env, depth);
  }

  // Puts back the msprof command of the caller when a wrapper's command is done.
  class RestoreCollector {
   public:
    explicit RestoreCollector(Evaluator& evaluator) : evaluator_(evaluator), saved_(evaluator.collector_) {}
    ~RestoreCollector() { evaluator_.collector_ = std::move(saved_); }
    RestoreCollector(const RestoreCollector&) = delete;
    RestoreCollector& operator=(const RestoreCollector&) = delete;

   private:
    Evaluator& evaluator_;
    std::optional<TextLocation> saved_;
  };

  // A command opmfu follows, once wrappers are seen through.
  static bool Followed(const std::string& name) {
    return name.starts_with("python") || kLaunchers.contains(name) || kReadArguments.contains(name) || name == "uv";
  }

  // A wrapper runs a command opmfu does not follow (`nohup srun python3 train.py`): when its words
  // still name Python or a .py file, the launch is reported as not followed (OPM205) rather than
  // dropped without a word.
  void ReportUnfollowed(TSNode command, const std::string& name, const TextLocation& where, const std::string& outer,
                        const Words& words) {
    const bool looks_like_launch = std::any_of(words.begin(), words.end(), [](const ShellWord& word) {
      const std::string base = BaseName(word.text);
      return (word.text.ends_with(".py") && !word.text.starts_with("-")) || base.starts_with("python") ||
             kLaunchers.contains(base);
    });
    if (!looks_like_launch) return;
    Launch launch;
    launch.launcher = file_;
    launch.command = Where(command);
    launch.tool = outer;
    launch.unfollowed = name;
    launch.script = {name, false, where};
    launch.directory = directory_;
    launch.directory_unknown = directory_unknown_;
    facts_.launches.push_back(std::move(launch));
  }

  // `eval "$cmd"`: the words joined by spaces are parsed and run as the launcher would; a string
  // only partly known is split into a command's words instead (its unknown parts stay unknown).
  void RunEval(TSNode command, const Words& words, Environment& env, int depth) {
    if (words.empty() || depth >= kMaxSourceNesting) return;
    ShellWord joined = words.front();
    for (std::size_t i = 1; i < words.size(); ++i) {
      joined.text += " " + words[i].text;
      joined.known = joined.known && words[i].known;
    }
    if (words.size() > 1) joined.where = Where(command);
    const ShellWord clean = Clean(joined);
    if (!clean.known) {
      DispatchFields(command, joined, env, env, depth, "eval");
      return;
    }
    auto tree = ParseLauncher(clean.text);
    if (!tree.ok()) return;
    const auto parsed = std::make_shared<const SyntaxTree>(std::move(*tree));
    trees_.push_back(parsed);
    const InText in_string(*this, parsed.get(), file_,
                           std::make_shared<const TextSource>(file_, parsed->shared_source()));
    const TextLocation exact = FieldLocation(clean, 0, clean.text.size());
    const bool is_exact = words.size() == 1 && exact.valid() && exact.end_byte - exact.start_byte == clean.text.size();
    eval_texts_.push_back({source_.get(), is_exact ? exact : clean.where, is_exact});
    // The string runs in the launcher's shell: its assignments are the launcher's.
    for (TSNode root : parsed->roots()) Run(root, env, depth + 1);
    eval_texts_.pop_back();
  }

  // A command line as one string split on whitespace (msprof's --application, a partly known
  // eval string), run as a command.
  void DispatchFields(TSNode command, const ShellWord& text, const Environment& local_env, Environment& env, int depth,
                      const std::string& outer) {
    Words words;
    for (auto& [field, offset] : SplitFields(text.text)) {
      const TextLocation where = FieldLocation(text, offset, field.size());
      words.push_back({std::move(field), true, where});
    }
    if (words.empty()) return;
    const ShellWord first = Clean(words.front());
    const std::string name = BaseName(first.text);
    const bool unknown = !first.known && name.find('$') != std::string::npos;
    const TextLocation where = words.front().where;
    Words rest(std::make_move_iterator(words.begin() + 1), std::make_move_iterator(words.end()));
    if (!Followed(name) && !unknown && WrapperOf(name) == nullptr) {
      ReportUnfollowed(command, name, where, outer, rest);
      return;
    }
    Dispatch(command, name, where, unknown, {std::move(rest)}, local_env, env, depth);
  }

  // The program a command runs, with its words (wrappers already seen through).
  void RunProgram(TSNode command, std::string name, bool name_unknown, WordAlternatives argv, const Environment& local,
                  Environment& env, int depth) {
    if (name == "uv" && !UnwrapUvRun(name, argv)) return;
    const bool python = name.starts_with("python") || name_unknown;

    if ((name == "source" || name == ".") && !argv.front().empty()) {
      Follow(argv.front().front(), env, depth);
      return;
    }
    if ((name == "bash" || name == "sh") && !argv.front().empty() && argv.front().front().text.ends_with(".sh")) {
      Environment child(&local);
      const std::string caller_zero = dollar_zero_;
      Follow(argv.front().front(), child, depth, true);
      dollar_zero_ = caller_zero;
      return;
    }
    if (name == "cd") {
      // Scripts named after it are relative to the new directory (followed in order; a `cd` in
      // a branch counts as taken).
      const ShellWord target = argv.front().size() == 1 ? Clean(argv.front().front()) : ShellWord{};
      if (argv.size() == 1 && target.known && !target.text.empty() && target.text != "-") {
        // An absolute or anchored target is a known place again; a relative one moves from
        // where the launcher is, known or not.
        const bool from_here = fs::path(target.text).is_absolute() || target.anchored;
        const fs::path next =
            from_here ? fs::path(target.text) : fs::path(directory_.empty() ? "." : directory_) / target.text;
        directory_ = next.lexically_normal().string();
        directory_unknown_ = directory_unknown_ && !from_here;
      } else {
        directory_.clear();
        directory_unknown_ = argv.size() == 1 && !target.known;  // `cd` alone goes home: outside the tree
      }
      return;
    }
    if (name == "rm") {
      for (const Words& words : argv) {
        for (const ShellWord& word : words) {
          if (!word.text.starts_with("-"))
            facts_.commands.push_back({ShellCommandFact::Kind::kRemovedPath, name, Clean(word), {}});
        }
      }
      return;
    }
    if (name == "msprof-analyze" ||
        (name == "opmfu" && !argv.front().empty() && argv.front().front().text == "analyze")) {
      const Words& words = argv.front();
      for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i].text;
        for (const char* option : {"-d", "--profiling_path", "--profiling-path"}) {
          if (word == option && i + 1 < words.size()) {
            facts_.commands.push_back({ShellCommandFact::Kind::kAnalysisDirectory, name, Clean(words[i + 1]),
                                       KnownLastSegment(words[i + 1].text)});
          } else if (word.starts_with(std::string(option) + "=")) {
            ShellWord value = words[i];
            value.text = word.substr(std::string(option).size() + 1);
            std::string last = KnownLastSegment(value.text);
            facts_.commands.push_back(
                {ShellCommandFact::Kind::kAnalysisDirectory, name, Clean(std::move(value)), std::move(last)});
          }
        }
      }
      return;
    }
    if (!python && !kLaunchers.contains(name)) return;
    std::shared_ptr<const std::map<std::string, ShellWord, std::less<>>> exported;  // the same on every path
    for (Words& words : argv) {
      // The script is the first argument ending in .py; `python -m pkg.mod` runs pkg/mod.py.
      Launch launch;
      launch.launcher = file_;
      launch.command = Where(command);
      launch.tool = name;
      launch.directory = directory_;
      launch.directory_unknown = directory_unknown_;
      bool found = false;
      for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i].text;
        // `--config=cfg/base.py` is an option's value, never the script.
        if (word.ends_with(".py") && !word.starts_with("-")) {
          launch.script = words[i];
          launch.arguments.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                                  std::make_move_iterator(words.end()));
          found = true;
          break;
        }
        // `python -m pkg.mod`, and torchrun's `-m`/`--module` (its script is then a module).
        if ((word == "-m" || (!python && word == "--module")) && i + 1 < words.size() &&
            !words[i + 1].text.starts_with("-")) {
          const std::string module = words[i + 1].text;
          // Launcher modules run the script named after them.
          if (module == "torch.distributed.run" || module == "torch.distributed.launch" ||
              module == "accelerate.commands.launch" || module == "deepspeed.launcher.runner") {
            continue;
          }
          launch.script = words[i + 1];
          launch.module = module;
          std::string path = module;
          std::replace(path.begin(), path.end(), '.', '/');
          launch.script.text = path + ".py";
          launch.arguments.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(i) + 2),
                                  std::make_move_iterator(words.end()));
          found = true;
          break;
        }
      }
      if (!found) continue;
      if (!exported) {
        auto variables = std::make_shared<std::map<std::string, ShellWord, std::less<>>>();
        local.ForEachVisible([&](const std::string& variable, const Variable& value) {
          if (!value.exported || value.alternatives.empty() || value.alternatives.front().words.empty()) return;
          (*variables)[variable] = Clean(value.alternatives.front().words.front());
        });
        exported = std::move(variables);
      }
      launch.environment = exported;
      launch.collector = collector_;
      launch.script = Clean(launch.script);
      for (ShellWord& argument : launch.arguments) argument = Clean(argument);
      facts_.launches.push_back(std::move(launch));
    }
  }

  // `uv run [options] python3 x.py ...` runs python3 (or torchrun, ...); `uv run x.py` runs the
  // script with uv's python. Leaves the program in `name` and its arguments in `argv`; false
  // when this is no `uv run` of a Python program.
  static bool UnwrapUvRun(std::string& name, WordAlternatives& argv) {
    if (argv.front().empty() || argv.front().front().text != "run") return false;
    std::string program = "python";
    for (Words& words : argv) {
      std::size_t used = 1;  // "run"
      for (std::size_t j = 1; j < words.size(); ++j) {
        const std::string base = BaseName(words[j].text);
        if (base.starts_with("python") || kLaunchers.contains(base)) {
          program = base;
          used = j + 1;
          break;
        }
        if (words[j].text.ends_with(".py")) break;
      }
      words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(used));
    }
    name = program;
    return true;
  }

  void Follow(const ShellWord& raw_target, Environment& env, int depth, bool new_script = false) {
    const ShellWord target = Clean(raw_target);
    if (!target.known || depth >= kMaxSourceNesting) return;
    fs::path path = target.text;
    if (path.is_relative()) {
      // As bash does: relative to the current directory (where lint runs, the project root, as
      // the launcher does, until the launcher's own `cd`); then next to the launcher, for
      // launchers run from their directory.
      const fs::path beside = (fs::path(file_).parent_path() / path).lexically_normal();
      const fs::path here = (directory_.empty() ? path : fs::path(directory_) / path).lexically_normal();
      if (files_.IsFile(here.string())) {
        path = here;
      } else {
        path = files_.IsFile(path.string()) ? path.lexically_normal() : beside;
      }
    }
    const std::string canonical = Identity(path.string());
    if (!visiting_.insert(canonical).second) return;  // a `source` loop
    auto source = files_.ReadFile(path.string());
    if (!source.ok()) {
      const std::string why = fs::path(target.text).is_relative() && files_.Stat(path.string()) == FileKind::kMissing
                                  ? "neither in the current directory nor next to " + file_
                                  : source.error().message;
      facts_.problems.push_back(Error::Input(file_ + ":" + std::to_string(target.where.range().start.line) +
                                             ": cannot follow `" + target.text + "`: " + why));
      visiting_.erase(canonical);
      return;
    }
    auto tree = ParseLauncher(std::move(*source));
    if (new_script) dollar_zero_ = path.string();
    if (tree.ok()) RunFile(path.string(), std::make_shared<const SyntaxTree>(std::move(*tree)), env, depth + 1);
    visiting_.erase(canonical);
  }

  // Counts one level of nesting while alive; false from Entered() when past kMaxNesting.
  class NestingLevel {
   public:
    explicit NestingLevel(const Evaluator& evaluator) : evaluator_(evaluator) { ++evaluator_.nesting_; }
    ~NestingLevel() { --evaluator_.nesting_; }
    NestingLevel(const NestingLevel&) = delete;
    NestingLevel& operator=(const NestingLevel&) = delete;
    bool Entered() const {
      if (evaluator_.nesting_ <= kMaxNesting) return true;
      if (!evaluator_.nesting_hit_) evaluator_.nesting_hit_ = evaluator_.file_;
      return false;
    }

   private:
    const Evaluator& evaluator_;
  };

  // A value past kMaxValueBytes becomes unknown (its start kept, for the message of a finding).
  void CapValue(ShellWord& word) const {
    if (word.text.size() <= kMaxValueBytes) return;
    if (!value_hit_) value_hit_ = file_;
    word.text.resize(std::min<std::size_t>(word.text.size(), 256));
    word.known = false;
    // Runs past the kept text are clipped when read.
  }
  // An array past kMaxValueBytes in all, or kMaxArrayElements, keeps its first elements, the last
  // of them unknown.
  void CapWords(Words& words) const {
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
      bytes += words[i].text.size() + 1;
      if (bytes <= kMaxValueBytes && i + 1 < kMaxArrayElements) continue;
      if (!value_hit_) value_hit_ = file_;
      words.resize(i + 1);
      words.back().known = false;
      CapValue(words.back());
      return;
    }
  }

  mutable int nesting_ = 0;
  mutable std::optional<std::string> nesting_hit_;
  mutable std::optional<std::string> value_hit_;
  LauncherFacts& facts_;
  const FileReader& files_;
  std::string file_;
  std::string dollar_zero_ = facts_.path;
  std::string directory_;           // after the launcher's `cd`s; "" where opmfu runs
  bool directory_unknown_ = false;  // a `cd` went to a place only known at run time
  const SyntaxTree* tree_ = nullptr;
  std::shared_ptr<const TextSource> source_;
  std::vector<std::shared_ptr<const SyntaxTree>> trees_;
  struct Function {
    TSNode definition;
    const SyntaxTree* tree;  // kept alive by trees_
    std::string file;
    std::shared_ptr<const TextSource> source;
  };
  std::map<std::string, Function, std::less<>> functions_;
  std::set<std::string> visiting_;
  struct EvalText {
    const TextSource* source;  // the text `eval` parsed
    TextLocation origin;       // where it is written (exact) or put together
    bool exact;
  };
  std::vector<EvalText> eval_texts_;
  std::optional<TextLocation> collector_;  // the msprof command the commands being read run under
};

}  // namespace

ShellWord ShellWord::Part(std::size_t from, std::size_t size) const {
  from = std::min(from, text.size());
  size = std::min(size, text.size() - from);
  // Member by member: copying the whole word first would copy its whole text for each field.
  ShellWord part{text.substr(from, size), known, where, anchored};
  part.spelled = spelled;
  part.spelled_count = spelled_count;
  part.spelled_from = spelled_from + static_cast<std::uint32_t>(from);  // the runs are shared, read through the window
  return part;
}

void ShellWord::SetRuns(std::vector<SpelledRun> runs) {
  spelled_from = 0;
  spelled_count = static_cast<std::uint32_t>(runs.size());
  if (runs.empty()) {
    spelled = nullptr;
    return;
  }
  std::shared_ptr<SpelledRun[]> made = std::make_shared<SpelledRun[]>(runs.size());
  std::move(runs.begin(), runs.end(), made.get());
  spelled = std::move(made);
}

std::vector<SpelledRun> ShellWord::Runs() const {
  std::vector<SpelledRun> out;
  if (!spelled) return out;
  for (const SpelledRun& run : std::span(spelled.get(), spelled_count)) {
    const std::size_t begin = std::max<std::size_t>(run.offset, spelled_from);
    const std::size_t end = std::min(run.offset + run.size, spelled_from + text.size());
    if (begin >= end) continue;
    TextLocation at = run.at;
    at.start_byte += static_cast<std::uint32_t>(begin - run.offset);
    at.end_byte = at.start_byte + static_cast<std::uint32_t>(end - begin);
    out.push_back({begin - spelled_from, end - begin, std::move(at)});
  }
  return out;
}

std::optional<TextLocation> ShellWord::SpelledAt(std::size_t from, std::size_t size) const {
  if (!HasRuns() || from + size > text.size()) return std::nullopt;
  const std::size_t wanted = spelled_from + from;  // in the runs' offsets
  for (const SpelledRun& run : std::span(spelled.get(), spelled_count)) {
    if (run.offset > wanted || run.offset + run.size < wanted + size) continue;
    TextLocation at = run.at;
    at.start_byte += static_cast<std::uint32_t>(wanted - run.offset);
    at.end_byte = at.start_byte + static_cast<std::uint32_t>(size);
    if (!at.source || at.end_byte > at.source->text->size()) return std::nullopt;
    // The bytes there must still spell it (a run is only ever made from them).
    if (std::string_view(*at.source->text).substr(at.start_byte, size) != std::string_view(text).substr(from, size)) {
      return std::nullopt;
    }
    return at;
  }
  return std::nullopt;
}

const ShellWord* Launch::Exported(std::string_view name) const {
  if (!environment) return nullptr;
  auto found = environment->find(name);
  return found == environment->end() ? nullptr : &found->second;
}

bool IsShellScript(const std::string& path, std::string_view source) {
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".sh" || extension == ".bash") return true;
  if (extension == ".py" || !source.starts_with("#!")) return false;
  const std::string_view shebang = source.substr(0, source.find('\n'));
  return shebang.find("python") == std::string_view::npos && shebang.find("sh") != std::string_view::npos;
}

Result<LauncherFacts> ReadLauncher(const std::string& path, std::string source, const FileReader& files) {
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, ParseLauncher(std::move(source)));
  LauncherFacts facts;
  facts.path = path;
  facts.tree = std::make_shared<const SyntaxTree>(std::move(tree));
  Environment env;
  Evaluator evaluator(facts, files);
  evaluator.Enter(path);
  evaluator.RunFile(path, facts.tree, env, 0);
  evaluator.ReportLimits();
  return facts;
}

}  // namespace opmfu::linter
