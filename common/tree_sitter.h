#pragma once
// Owning wrappers around the tree-sitter C API and the grammars opmfu compiles in.

#include <tree_sitter/api.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"

namespace opmfu {

enum class Grammar { kPython, kBash, kJson };

const TSLanguage* LanguageOf(Grammar grammar);
std::string_view GrammarName(Grammar grammar);

/// Checks that every grammar's ABI fits the linked runtime; the error is one line naming each that does not.
Status CheckGrammarAbi();

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};

/// A parsed file: owns its source text and its trees, so nodes stay valid as long as it lives.
/// A large file may be parsed in parts (one tree each, cut at top-level statements); node offsets
/// and points are always relative to the whole file.
class SyntaxTree {
 public:
  SyntaxTree(SyntaxTree&&) noexcept = default;
  SyntaxTree& operator=(SyntaxTree&&) noexcept = default;

  /// The root of each part, in file order.
  const std::vector<TSNode>& roots() const { return roots_; }
  /// The root of a file parsed in one part (small inputs, tests).
  TSNode root() const { return roots_.front(); }
  const std::string& source() const { return *source_; }
  /// The source, shared: locations that outlive the tree point into it without a copy.
  const std::shared_ptr<const std::string>& shared_source() const { return source_; }
  bool has_error() const;

  /// Source text of a node.
  std::string_view Text(TSNode node) const;
  /// 1-based position (code-point column) of a byte offset.
  SourcePosition PositionAt(std::uint32_t byte_offset) const;
  SourceRange RangeOf(TSNode node) const;
  /// The whole source line holding a byte offset.
  std::string_view LineOf(std::uint32_t byte_offset) const;
  /// The first ERROR or MISSING node, in document order, if the parse was not clean.
  std::optional<TSNode> FirstError() const;
  /// True when function bodies were left out (ParseOptions::python_signatures_only).
  bool bodies_skipped() const { return bodies_skipped_; }

 private:
  friend Result<SyntaxTree> ParseSource(Grammar grammar, std::string source, const struct ParseOptions& options);
  SyntaxTree(std::string source, std::vector<std::unique_ptr<TSTree, TreeDeleter>> trees, bool bodies_skipped);

  std::shared_ptr<const std::string> source_;
  bool bodies_skipped_ = false;
  std::vector<std::unique_ptr<TSTree, TreeDeleter>> trees_;
  std::vector<TSNode> roots_;
};

struct ParseOptions {
  /// Threads for one large Python file (0: as many as there are cores, at most 4). A file with a
  /// syntax error is always re-parsed whole, so results never depend on this.
  unsigned threads = 0;
  /// Below this size a file is parsed in one piece.
  std::size_t parallel_threshold = std::size_t{256} << 10;
  /// Python only: parse decorators, signatures and each function's first statement, and skip
  /// the rest of top-level function bodies. For readers that need no more (`registry list`).
  bool python_signatures_only = false;
  /// The file, as errors name it (the bounds below refuse a file by name).
  std::string_view file = {};
  /// Wall time for one tree-sitter parse (kParseTimeoutMicros below; tests set less).
  std::uint64_t timeout_micros = 0;
};

/// Brackets (`(`, `[`, `{`) a Python file may nest. CPython's tokenizer refuses more than 200
/// ("too many nested parentheses"), so a deeper file is not Python; tree-sitter's error recovery on
/// deep brackets grows without bound (2 million nested: 2.5 GB; 40,000 unclosed `f(`: an abort).
inline constexpr std::size_t kMaxPythonBracketDepth = 200;
/// Arrays and objects a JSON file parsed by tree-sitter may nest (as common/json_input's
/// kMaxJsonDepth; `json.load` itself stops near 1,000). 40,000 unclosed `[1,` aborted tree-sitter.
inline constexpr std::size_t kMaxJsonBracketDepth = 256;
/// Brackets (`(`, `{`, `[`, `$(`, `${`) a launcher may leave open at its end: as deep as the shell
/// evaluator follows (linter/shell/budget.h). 40,000 unclosed `$(`, `${a:-`, `` `( `` or `a=(`
/// aborted tree-sitter or took its whole parse timeout; deep nesting that is closed parses.
inline constexpr std::size_t kMaxBashBracketDepth = 200;
/// Wall time one tree-sitter parse may take (ts_parser_set_timeout_micros): the backstop for error
/// recovery no pre-scan foresees. A clean 4 MiB file parses in well under a second alone; a 10 MB
/// one took 9.9 s on the loaded 2-core VM.
inline constexpr std::uint64_t kParseTimeoutMicros = 15'000'000;

/// The deepest bracket nesting of `source` as its grammar lexes it (strings and comments skipped;
/// for bash, the nesting left open at the end), stopping once past `stop_above`; with the line it was reached on.
struct BracketDepth {
  std::size_t depth = 0;
  std::size_t line = 1;
};
BracketDepth DeepestBrackets(std::string_view source, Grammar grammar, std::size_t stop_above);

/// Comment lines in one run (blank lines between them do not end it) that tree-sitter is given as
/// comments. tree-sitter 0.20 counts the comments between two tokens in 16 bits: 65,535 in a row
/// wrap it and corrupt the tree (a crash, or an abort in the allocator on its bad free); and
/// tree-sitter-python's scanner looks ahead over every later line of the run at each comment in a
/// block, quadratic in the run (8,000 took 5 s). A longer run, and runs past a budget of
/// 10 x kMaxCommentRun^2 for the sum of their squared lengths, reach the parser as blank lines:
/// comments are never code, so only their nodes (and any suppression directive among them) go.
inline constexpr std::size_t kMaxCommentRun = 1000;

/// The text tree-sitter is given for `source`: nullopt when it is the source itself, else a copy
/// of the same length with the comment lines of runs past the limits above blanked.
std::optional<std::string> WithoutLongCommentRuns(std::string_view source, Grammar grammar);

/// Parses `source`. Syntax errors give a tree with ERROR nodes, not an Error; an Error (one line,
/// naming `options.file`) is a source past the bracket limits above (refused before tree-sitter
/// sees it) or a parse that ran past kParseTimeoutMicros.
Result<SyntaxTree> ParseSource(Grammar grammar, std::string source, const ParseOptions& options = {});

/// Calls `visit` for each top-level statement of every part, in order (cursor-based: linear in
/// the number of statements).
template <typename Visit>
void ForEachTopLevelNode(const SyntaxTree& tree, Visit&& visit) {
  for (TSNode root : tree.roots()) {
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        TSNode node = ts_tree_cursor_current_node(&cursor);
        if (ts_node_is_named(node)) visit(node);
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  }
}

/// Named field child, or a null node. `field` must outlive the process (a string literal): its
/// id is cached.
TSNode ChildByField(TSNode node, std::string_view field);
bool IsType(TSNode node, std::string_view type);

/// Node types a walker tests on every node, numbered once per grammar: a test by name costs a
/// strlen and a compare, a test by kind one table lookup. Kind 0 is "none of these"; the name at
/// index i is kind i + 1 (every symbol with that name, aliases included, so a kind test agrees
/// with IsType).
class SymbolKinds {
 public:
  SymbolKinds(Grammar grammar, std::initializer_list<std::string_view> names);
  /// The kind of a node (0 for a null node or another type).
  std::uint8_t Of(TSNode node) const {
    if (ts_node_is_null(node)) return 0;
    const TSSymbol symbol = ts_node_symbol(node);
    return symbol < kinds_.size() ? kinds_[symbol] : 0;
  }

 private:
  std::vector<std::uint8_t> kinds_;
};

/// Visits every node below `root` in document order without recursion (deep nesting is input we
/// must survive). `visit` returns false to skip a node's children.
template <typename Visit>
void WalkTree(TSNode root, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  struct CursorGuard {
    TSTreeCursor* cursor;
    ~CursorGuard() { ts_tree_cursor_delete(cursor); }
  } guard{&cursor};
  while (true) {
    const bool descend = visit(ts_tree_cursor_current_node(&cursor));
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) return;
    }
  }
}

}  // namespace opmfu
