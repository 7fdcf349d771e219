#include "common/tree_sitter.h"

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <optional>

#include "common/parallel.h"
#include "common/parse_allocator.h"
#include "common/python_split.h"

#include "common/text.h"

extern "C" const TSLanguage* tree_sitter_python();
extern "C" const TSLanguage* tree_sitter_bash();
extern "C" const TSLanguage* tree_sitter_json();

#if defined(__SANITIZE_ADDRESS__)
#define OPMFU_LEAK_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPMFU_LEAK_SANITIZER 1
#endif
#endif
#ifndef OPMFU_LEAK_SANITIZER
#define OPMFU_LEAK_SANITIZER 0
#endif
#if OPMFU_LEAK_SANITIZER
#include <sanitizer/lsan_interface.h>
#endif

namespace opmfu {

const TSLanguage* LanguageOf(Grammar grammar) {
  switch (grammar) {
    case Grammar::kPython:
      return tree_sitter_python();
    case Grammar::kBash:
      return tree_sitter_bash();
    case Grammar::kJson:
      return tree_sitter_json();
  }
  return nullptr;
}

std::string_view GrammarName(Grammar grammar) {
  switch (grammar) {
    case Grammar::kPython:
      return "tree-sitter-python";
    case Grammar::kBash:
      return "tree-sitter-bash";
    case Grammar::kJson:
      return "tree-sitter-json";
  }
  return {};
}

Status CheckGrammarAbi() {
  std::string problems;
  for (Grammar grammar : {Grammar::kPython, Grammar::kBash, Grammar::kJson}) {
    const std::uint32_t abi = ts_language_version(LanguageOf(grammar));
    if (abi < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION || abi > TREE_SITTER_LANGUAGE_VERSION) {
      problems += std::string(problems.empty() ? "" : "; ") + std::string(GrammarName(grammar)) + " has ABI " +
                  std::to_string(abi);
    }
  }
  if (problems.empty()) return Ok();
  return Error::Internal("grammar ABI mismatch: " + problems + ", but the tree-sitter runtime accepts " +
                         std::to_string(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) + "-" +
                         std::to_string(TREE_SITTER_LANGUAGE_VERSION) +
                         "; rebuild with the grammars pinned in grammars/package-lock.json");
}

std::string_view SyntaxTree::Text(TSNode node) const {
  const std::uint32_t begin = ts_node_start_byte(node);
  const std::uint32_t end = ts_node_end_byte(node);
  if (begin >= source_->size() || end < begin) return {};
  return std::string_view(*source_).substr(begin, end - begin);
}

std::string_view SyntaxTree::LineOf(std::uint32_t byte_offset) const { return LineInText(*source_, byte_offset); }

SourcePosition SyntaxTree::PositionAt(std::uint32_t byte_offset) const { return PositionInText(*source_, byte_offset); }

SourceRange SyntaxTree::RangeOf(TSNode node) const {
  // Points give rows cheaply; columns still need the line text to count code points.
  const TSPoint start = ts_node_start_point(node);
  const TSPoint end = ts_node_end_point(node);
  const std::string_view start_line = LineOf(ts_node_start_byte(node));
  const std::string_view end_line = LineOf(ts_node_end_byte(node));
  return {{static_cast<int>(start.row) + 1, CodePointCount(start_line, start.column) + 1},
          {static_cast<int>(end.row) + 1, CodePointCount(end_line, end.column) + 1}};
}

SyntaxTree::SyntaxTree(std::string source, std::vector<std::unique_ptr<TSTree, TreeDeleter>> trees, bool bodies_skipped)
    : source_(std::make_shared<const std::string>(std::move(source))),
      bodies_skipped_(bodies_skipped),
      trees_(std::move(trees)) {
  for (const auto& tree : trees_) roots_.push_back(ts_tree_root_node(tree.get()));
}

bool SyntaxTree::has_error() const {
  return std::any_of(roots_.begin(), roots_.end(), [](TSNode root) { return ts_node_has_error(root); });
}

std::optional<TSNode> SyntaxTree::FirstError() const {
  std::optional<TSNode> found;
  for (TSNode root : roots_) {
    if (found || !ts_node_has_error(root)) continue;
    WalkTree(root, [&](TSNode node) {
      if (found) return false;
      if (ts_node_is_missing(node) || std::strcmp(ts_node_type(node), "ERROR") == 0) {
        found = node;
        return false;
      }
      return ts_node_has_error(node);
    });
    if (!found) found = root;  // an error tree-sitter flags without an ERROR node of its own
  }
  return found;
}

namespace {

using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// Allocations made while one is alive are not reported by LeakSanitizer (a no-op elsewhere).
struct LeakCheckPause {
  LeakCheckPause() {
#if OPMFU_LEAK_SANITIZER
    __lsan_disable();
#endif
  }
  ~LeakCheckPause() {
#if OPMFU_LEAK_SANITIZER
    __lsan_enable();
#endif
  }
  LeakCheckPause(const LeakCheckPause&) = delete;
  LeakCheckPause& operator=(const LeakCheckPause&) = delete;
};

std::unique_ptr<TSParser, ParserDeleter>& ThreadParserSlot(Grammar grammar) {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parsers[3];
  return parsers[static_cast<int>(grammar)];
}

// A parser jumped out of mid-parse is in no state to be used or freed: it is let go (leaked, with
// the memory it holds, at most a parse budget), and the next parse on the thread makes a new one.
void AbandonThreadParser(Grammar grammar) { (void)ThreadParserSlot(grammar).release(); }

// Parses `source` with the parser's ranges set, jumping out of tree-sitter when it takes more
// than `budget` bytes of fresh memory or its runtime frees what it never allocated (`*escaped`
// then says which, and nullptr is returned). Nothing in this frame has a destructor, so the jump
// skips none.
TSTree* ParseWithinBudget(TSParser* parser, const std::string& source, std::size_t budget,
                          std::optional<ParseEscape>* escaped) {
  std::jmp_buf escape;
  if (const int reason = setjmp(escape); reason != 0) {  // NOLINT(cert-err52-cpp): see parse_allocator.h
    EndParseBudget();
    *escaped = static_cast<ParseEscape>(reason);
    return nullptr;
  }
  BeginParseBudget(budget, &escape);
  TSTree* tree = ts_parser_parse_string(parser, nullptr, source.data(), static_cast<std::uint32_t>(source.size()));
  EndParseBudget();
  return tree;
}

// One parser per thread and grammar: creating parsers is cheap, but not free on many small files.
Result<TSParser*> ThreadParser(Grammar grammar) {
  auto& parser = ThreadParserSlot(grammar);
  if (!parser) {
    parser.reset(ts_parser_new());
    // The grammar's scanner state is allocated here (with calloc); a parser given up mid-parse
    // (AbandonThreadParser) keeps it for good, which LeakSanitizer is told is no leak.
    const LeakCheckPause pause;
    if (!ts_parser_set_language(parser.get(), LanguageOf(grammar))) {
      parser.reset();
      return Error::Internal(std::string(GrammarName(grammar)) + " does not fit the tree-sitter runtime");
    }
  }
  return parser.get();
}

// A parse takes about 40 bytes of tree per source byte (bash up to 800 on a long pipeline); the
// budget is far above that and stops error recovery that grows without bound.
std::size_t ParseMemoryBudgetFor(std::size_t source_bytes) {
  constexpr std::size_t kFloor = std::size_t{128} << 20;
  constexpr std::size_t kCeiling = std::size_t{768} << 20;
  return std::min(kCeiling, kFloor + 128 * source_bytes);
}

std::string Named(std::string_view file) { return file.empty() ? std::string() : std::string(file) + ": "; }

std::string DescribeMicros(std::uint64_t micros) {
  return micros >= 1000000 && micros % 1000000 == 0 ? std::to_string(micros / 1000000) + " s"
                                                    : std::to_string(micros) + " us";
}

// tree-sitter 0.20's error recovery, on a construct left open tens of thousands of times (`x = ` +
// `1 if 1 else ` x 40,000), can return a tree whose sizes have wrapped: its root ends far short of
// the text (80 KiB of 470 KiB), a walk sees only part of the file, and deleting the tree frees an
// address inside a block. In a sound tree the root ends at the last token, so only whitespace
// (what a blanked comment run became included) follows it; this is checked on trees with an error.
constexpr std::size_t kMaxBytesPastTheRoot = 16384;

bool RootEndsShortOfTheText(TSNode root, const std::string& source, const std::vector<TSRange>& ranges) {
  const std::size_t text_end =
      ranges.empty() ? source.size() : std::min<std::size_t>(ranges.back().end_byte, source.size());
  const std::size_t last = text_end == 0 ? std::string::npos : source.find_last_not_of(" \t\r\n\f\v", text_end - 1);
  const std::size_t tokens_end = last == std::string::npos ? 0 : last + 1;
  return ts_node_end_byte(root) + kMaxBytesPastTheRoot < tokens_end;
}

// Parses `source` limited to `ranges` (the whole text when empty).
Result<TreePtr> ParseRanges(Grammar grammar, const std::string& source, const std::vector<TSRange>& ranges,
                            const ParseOptions& options) {
  OPMFU_ASSIGN_OR_RETURN(TSParser * parser, ThreadParser(grammar));
  const std::uint64_t timeout = options.timeout_micros != 0 ? options.timeout_micros : kParseTimeoutMicros;
  ts_parser_set_timeout_micros(parser, timeout);
  ts_parser_set_included_ranges(parser, ranges.empty() ? nullptr : ranges.data(),
                                static_cast<std::uint32_t>(ranges.size()));
  std::optional<ParseEscape> escaped;
  TSTree* tree = ParseWithinBudget(parser, source, ParseMemoryBudgetFor(source.size()), &escaped);
  if (escaped == ParseEscape::kRuntimeFault) {
    AbandonThreadParser(grammar);
    return Error::Input(Named(options.file) +
                        "the parser failed on a construct left open tens of thousands of times (a fault of the "
                        "tree-sitter runtime, stopped by opmfu), so the file was not read");
  }
  if (escaped) {
    AbandonThreadParser(grammar);
    return Error::Input(Named(options.file) + "parsing needed more than " +
                        std::to_string(ParseMemoryBudgetFor(source.size()) >> 20) +
                        " MiB of memory (a limit of opmfu: tree-sitter's error recovery grows without bound on "
                        "some unterminated input), so the file was not read");
  }
  ts_parser_set_included_ranges(parser, nullptr, 0);
  if (tree != nullptr && ts_node_has_error(ts_tree_root_node(tree)) &&
      RootEndsShortOfTheText(ts_tree_root_node(tree), source, ranges)) {
    // Not deleted: deleting such a tree can free an address inside a block. It is let go with
    // its memory (at most the parse budget), as an abandoned parser is.
    return Error::Input(Named(options.file) + "the parser failed on a construct left open tens of thousands of " +
                        "times (a fault of the tree-sitter runtime, stopped by opmfu), so the file was not read");
  }
  if (tree != nullptr) return TreePtr(tree);
  // The only other way a parse returns nothing: it ran past the timeout.
  ts_parser_reset(parser);
  return Error::Input(Named(options.file) + "parsing took longer than " + DescribeMicros(timeout) +
                      " (a limit of opmfu), so the file was not read");
}

TSPoint EndPoint(const std::string& source) {
  const std::size_t last_newline = source.rfind('\n');
  const auto rows = static_cast<std::uint32_t>(std::count(source.begin(), source.end(), '\n'));
  const std::size_t column = last_newline == std::string::npos ? source.size() : source.size() - last_newline - 1;
  return {rows, static_cast<std::uint32_t>(column)};
}

// Spans start and end at line starts, except a span that ends with a file lacking a final newline.
TSRange ToRange(const SourceSpan& span, const std::string& source, const TSPoint& end_of_file) {
  const TSPoint end = span.end == source.size() ? end_of_file : TSPoint{static_cast<std::uint32_t>(span.end_row), 0};
  return {{static_cast<std::uint32_t>(span.begin_row), 0},
          end,
          static_cast<std::uint32_t>(span.begin),
          static_cast<std::uint32_t>(span.end)};
}

// The spans to parse, grouped into parts cut at `cuts`.
std::vector<std::vector<TSRange>> RangesByPart(const std::string& source, const std::vector<SourceSpan>& spans,
                                               const std::vector<SplitPoint>& cuts) {
  const TSPoint end_of_file = EndPoint(source);
  std::vector<SourceSpan> bounds;
  std::size_t begin = 0;
  std::size_t begin_row = 0;
  for (const SplitPoint& cut : cuts) {
    bounds.push_back({begin, cut.byte, begin_row, cut.row});
    begin = cut.byte;
    begin_row = cut.row;
  }
  bounds.push_back({begin, source.size(), begin_row, static_cast<std::size_t>(end_of_file.row)});

  std::vector<std::vector<TSRange>> parts(bounds.size());
  for (std::size_t part = 0; part < bounds.size(); ++part) {
    for (const SourceSpan& span : spans) {
      // Cuts are statement starts, which never fall inside a skipped body: intersections of a
      // span with a part start and end at line starts too.
      const std::size_t from = std::max(span.begin, bounds[part].begin);
      const std::size_t to = std::min(span.end, bounds[part].end);
      if (from >= to) continue;
      const std::size_t from_row = from == span.begin ? span.begin_row : bounds[part].begin_row;
      const std::size_t to_row = to == span.end ? span.end_row : bounds[part].end_row;
      parts[part].push_back(ToRange({from, to, from_row, to_row}, source, end_of_file));
    }
  }
  return parts;
}

// Parses the parts on `threads` threads; nullopt if any part has a syntax error, an Error if one
// could not be parsed at all (parsing the whole file again would only take as long).
Result<std::optional<std::vector<TreePtr>>> ParseInParts(Grammar grammar, const std::string& source,
                                                         const std::vector<std::vector<TSRange>>& parts,
                                                         unsigned threads, const ParseOptions& options) {
  std::vector<Result<TreePtr>> results = MapInParallel(
      parts.size(), threads, [&](std::size_t i) { return ParseRanges(grammar, source, parts[i], options); });
  std::vector<TreePtr> trees;
  for (Result<TreePtr>& result : results) {
    if (!result.ok()) return result.take_error();
    if (ts_node_has_error(ts_tree_root_node(result.value().get()))) return std::optional<std::vector<TreePtr>>();
    trees.push_back(std::move(result).value());
  }
  return std::optional<std::vector<TreePtr>>(std::move(trees));
}

bool IsCommentLine(std::string_view line, Grammar grammar) {
  const std::size_t first = line.find_first_not_of(" \t\r\f");
  if (first == std::string_view::npos) return false;
  const std::string_view rest = line.substr(first);
  return grammar == Grammar::kJson ? rest.starts_with("//") : rest.starts_with('#');
}

bool IsBlankLine(std::string_view line) { return line.find_first_not_of(" \t\r\f") == std::string_view::npos; }

// A run of comment lines (blank lines between them do not end it): bytes [begin, end), lines.
struct CommentRun {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t lines = 0;
};

template <typename Visit>
void ForEachLine(std::string_view text, Visit&& visit) {
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t newline = text.find('\n', begin);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline;
    visit(begin, text.substr(begin, end - begin));
    begin = end + 1;
  }
}

}  // namespace

namespace {

// Bash: the brackets still open at the end of the file, and the line where the open ones last
// passed `stop_above`. Deep but closed nesting parses (the evaluator stops at its own depth); an
// unclosed run of `$(`, `${a:-`, `` `( `` or `a=(` is what tree-sitter's error recovery cannot
// bear. `(`, `{`, `[` count outside quotes, `$(` and `${` inside double quotes too; a backslash
// escapes the next character, single quotes are literal, a `#` that starts a word starts a comment.
BracketDepth UnclosedBashBrackets(std::string_view source, std::size_t stop_above) {
  std::size_t depth = 0;
  std::size_t line = 1;
  std::size_t passed_at = 1;
  bool in_double_quotes = false;
  const auto open = [&] {
    if (++depth == stop_above + 1) passed_at = line;
  };
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '\n') {
      ++line;
    } else if (c == '\\') {
      if (i + 1 < source.size() && source[++i] == '\n') ++line;
    } else if (c == '"') {
      in_double_quotes = !in_double_quotes;
    } else if (c == '$' && i + 1 < source.size() && (source[i + 1] == '(' || source[i + 1] == '{')) {
      ++i;
      open();
    } else if (in_double_quotes) {
      if ((c == ')' || c == '}') && depth > 0) --depth;
    } else if (c == '\'') {
      const std::size_t end = source.find('\'', i + 1);
      const std::size_t stop = end == std::string_view::npos ? source.size() : end;
      line += static_cast<std::size_t>(std::count(source.begin() + static_cast<std::ptrdiff_t>(i),
                                                  source.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
      i = stop;
    } else if (c == '#' && (i == 0 || std::string_view(" \t\n;&|()").find(source[i - 1]) != std::string_view::npos)) {
      const std::size_t end = source.find('\n', i);
      i = (end == std::string_view::npos ? source.size() : end) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      open();
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {depth, passed_at};
}

}  // namespace

BracketDepth DeepestBrackets(std::string_view source, Grammar grammar, std::size_t stop_above) {
  BracketDepth deepest;
  if (grammar == Grammar::kBash) return UnclosedBashBrackets(source, stop_above);
  const bool python = grammar == Grammar::kPython;
  std::size_t depth = 0;
  std::size_t line = 1;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"' || (python && c == '\'')) {
      // A string: to its closing quote (three for a triple-quoted one), a backslash escaping the
      // next character; a one-line string that meets a newline ends there (a syntax error).
      const std::string_view three = c == '"' ? "\"\"\"" : "'''";
      const bool triple = python && source.substr(i, 3) == three;
      const std::string_view close = triple ? three : three.substr(0, 1);
      for (i += close.size(); i < source.size(); ++i) {
        if (source[i] == '\\' && i + 1 < source.size()) {
          if (source[++i] == '\n') ++line;
        } else if (source[i] == '\n') {
          if (!triple) break;
          ++line;
        } else if (source.substr(i, close.size()) == close) {
          i += close.size() - 1;
          break;
        }
      }
      if (i < source.size() && source[i] == '\n') --i;  // the newline is counted by the loop
    } else if ((python && c == '#') || (!python && source.substr(i, 2) == "//")) {
      const std::size_t end = source.find('\n', i);
      i = (end == std::string_view::npos ? source.size() : end) - 1;
    } else if (!python && source.substr(i, 2) == "/*") {
      const std::size_t end = source.find("*/", i + 2);
      const std::size_t stop = end == std::string_view::npos ? source.size() : end + 2;
      line += static_cast<std::size_t>(std::count(source.begin() + static_cast<std::ptrdiff_t>(i),
                                                  source.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
      i = stop - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > deepest.depth) deepest = {depth, line};
      if (depth > stop_above) return deepest;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::optional<std::string> WithoutLongCommentRuns(std::string_view source, Grammar grammar) {
  std::vector<CommentRun> runs;
  std::optional<CommentRun> open;
  ForEachLine(source, [&](std::size_t begin, std::string_view line) {
    if (IsCommentLine(line, grammar)) {
      if (!open) open = CommentRun{begin, begin, 0};
      open->end = begin + line.size();
      ++open->lines;
    } else if (!IsBlankLine(line) && open) {
      runs.push_back(*open);
      open.reset();
    }
  });
  if (open) runs.push_back(*open);
  // Runs within kMaxCommentRun are kept while the scanner's quadratic work on them (a run's
  // length squared) fits one budget for the file; the others are blanked whole (a comment kept
  // in a blanked run would look ahead over all of it).
  constexpr std::size_t kCommentRunBudget = std::size_t{10} * kMaxCommentRun * kMaxCommentRun;
  std::size_t spent = 0;
  std::optional<std::string> parsed;
  for (const CommentRun& run : runs) {
    if (run.lines <= kMaxCommentRun && spent + run.lines * run.lines <= kCommentRunBudget) {
      spent += run.lines * run.lines;
      continue;
    }
    if (!parsed) parsed.emplace(source);
    ForEachLine(
        std::string_view(source).substr(run.begin, run.end - run.begin), [&](std::size_t begin, std::string_view line) {
          if (!IsCommentLine(line, grammar)) return;
          const auto from = static_cast<std::ptrdiff_t>(run.begin + begin);
          std::fill(parsed->begin() + from, parsed->begin() + from + static_cast<std::ptrdiff_t>(line.size()), ' ');
        });
  }
  return parsed;
}

Result<SyntaxTree> ParseSource(Grammar grammar, std::string source, const ParseOptions& options) {
  if (source.size() > UINT32_MAX / 2) return Error::Input(Named(options.file) + "source too large to parse");
  {
    const std::size_t limit = grammar == Grammar::kPython ? kMaxPythonBracketDepth
                              : grammar == Grammar::kBash ? kMaxBashBracketDepth
                                                          : kMaxJsonBracketDepth;
    if (const BracketDepth deepest = DeepestBrackets(source, grammar, limit); deepest.depth > limit) {
      const std::string where = options.file.empty()
                                    ? "line " + std::to_string(deepest.line) + ": "
                                    : std::string(options.file) + ":" + std::to_string(deepest.line) + ": ";
      return Error::Input(
          where + (grammar == Grammar::kBash ? "brackets left open deeper than " : "brackets nested deeper than ") +
          std::to_string(limit) + " levels" + (grammar == Grammar::kBash ? " at the end of the file" : "") +
          " (a limit of opmfu" + (grammar == Grammar::kPython ? "; CPython refuses more than 200" : "") +
          "), so the file was not read");
    }
  }
  // What tree-sitter is given: the source, or (rarely) a copy with long comment runs blanked. The
  // tree keeps the source itself: offsets are the same in both.
  const std::optional<std::string> blanked = WithoutLongCommentRuns(source, grammar);
  const std::string& text = blanked ? *blanked : source;
  const unsigned threads = options.threads != 0 ? options.threads : std::min(4U, HardwareCores());
  if (grammar == Grammar::kPython) {
    std::optional<std::vector<SourceSpan>> spans;
    if (options.python_signatures_only) spans = SignatureSpans(text);
    // tree-sitter finds the included range to lex in by a linear search, so a part should hold
    // only so many ranges.
    constexpr std::size_t kRangesPerPart = 128;
    std::size_t parts = text.size() >= options.parallel_threshold ? threads : 1;
    if (spans) parts = std::max(parts, spans->size() / kRangesPerPart + 1);
    std::vector<SplitPoint> cuts;
    if (parts > 1) cuts = TopLevelSplitPoints(text, parts);
    if (spans || !cuts.empty()) {
      const std::vector<SourceSpan> covered =
          spans ? *spans : std::vector<SourceSpan>{{0, text.size(), 0, EndPoint(text).row}};
      OPMFU_ASSIGN_OR_RETURN(auto trees,
                             ParseInParts(grammar, text, RangesByPart(text, covered, cuts), threads, options));
      if (trees) return SyntaxTree(std::move(source), std::move(*trees), spans.has_value());
      // An error in some part: parse the whole file as one, so what is reported never depends
      // on how it was cut.
    }
  }
  OPMFU_ASSIGN_OR_RETURN(TreePtr tree, ParseRanges(grammar, text, {}, options));
  std::vector<TreePtr> trees;
  trees.push_back(std::move(tree));
  return SyntaxTree(std::move(source), std::move(trees), false);
}

TSNode ChildByField(TSNode node, std::string_view field) {
  // tree-sitter resolves a field name by scanning every name of the grammar; callers ask for the
  // same few names millions of times, so remember the ids (per thread: no locking).
  struct CachedField {
    const TSLanguage* language;
    std::string_view name;
    TSFieldId id;
  };
  thread_local std::vector<CachedField> cache;
  if (ts_node_is_null(node)) return node;
  const TSLanguage* language = ts_tree_language(node.tree);
  for (const CachedField& entry : cache) {
    if (entry.language == language && entry.name == field) return ts_node_child_by_field_id(node, entry.id);
  }
  const TSFieldId id = ts_language_field_id_for_name(language, field.data(), static_cast<std::uint32_t>(field.size()));
  cache.push_back({language, field, id});
  return ts_node_child_by_field_id(node, id);
}

bool IsType(TSNode node, std::string_view type) { return !ts_node_is_null(node) && type == ts_node_type(node); }

SymbolKinds::SymbolKinds(Grammar grammar, std::initializer_list<std::string_view> names) {
  const TSLanguage* language = LanguageOf(grammar);
  const std::uint32_t count = ts_language_symbol_count(language);
  kinds_.assign(count, 0);
  for (std::uint32_t symbol = 0; symbol < count; ++symbol) {
    const char* name = ts_language_symbol_name(language, static_cast<TSSymbol>(symbol));
    if (name == nullptr) continue;
    std::uint8_t kind = 1;
    for (std::string_view wanted : names) {
      if (wanted == name) {
        kinds_[symbol] = kind;
        break;
      }
      ++kind;
    }
  }
}

}  // namespace opmfu
