#include "linter/shell/expansion.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "linter/shell/syntax.h"

namespace opmfu::linter::shell {

namespace fs = std::filesystem;

namespace {

// `${NAME<op>TEXT}` whose TEXT the grammar could not parse: TEXT as bash reads it when it is
// plain words and single quotes (`['npu','cpu']` is [npu,cpu]); nullopt when it holds
// expansions, other quoting, or the expansion is not of that form (the value is unknown).
std::optional<WordAlternatives> RecoverDefault(TSNode node, std::string_view op, const Frame& frame) {
  const std::string_view raw = frame.Text(node);
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
  return WordAlternatives{{frame.Literal(std::move(value), node)}};
}

// Joins the last word of each left alternative with the first of each right one.
WordAlternatives Concatenate(const WordAlternatives& left, const WordAlternatives& right, TSNode node,
                             const Frame& frame) {
  WordAlternatives out;
  for (const Words& l : left) {
    for (const Words& r : right) {
      if (out.size() >= kMaxAlternatives) break;
      Words joined = l;
      if (joined.empty()) joined.push_back(frame.Literal("", node));
      if (r.empty()) {
        out.push_back(joined);
        continue;
      }
      // `$R/../sub` names what R names: a word takes its start's anchoring.
      if (joined.back().text.empty()) joined.back().anchored = r.front().anchored;
      AppendText(joined.back(), r.front());
      joined.back().known = joined.back().known && r.front().known;
      joined.back().where = frame.Where(node);
      frame.CapValue(joined.back());
      joined.insert(joined.end(), r.begin() + 1, r.end());
      out.push_back(std::move(joined));
    }
  }
  return out;
}

// The directory idioms launchers use to find their project: `$(cd "$(dirname "$0")/.." && pwd)`,
// `$(cd `dirname $0`; cd ../..; pwd)`, `$(dirname "$(readlink -f "$0")")`: a sequence of cd,
// pwd, dirname, realpath and readlink -f on known paths. The result is relative to the
// directory opmfu runs in, as $0 is (pwd would print it absolute: the same place). nullopt for
// anything else (the value is then only known at run time).
// `pick` chooses among an operand's alternatives; `alternatives` grows to the most any has.
// `printed_absolute`: the last command was pwd, realpath or readlink -f (bash prints an absolute
// path; dirname prints what it was given).
std::optional<std::string> DirectoryOfSubstitution(TSNode node, const Frame& frame, const Environment& env,
                                                   std::size_t pick, std::size_t& alternatives,
                                                   bool& printed_absolute) {
  std::vector<TSNode> commands;
  if (!SimpleCommands(node, commands)) return std::nullopt;
  // The substitution starts where the launcher is: `CODE_ROOT=$(pwd)` after `cd pkg` is pkg.
  fs::path directory = frame.directory != nullptr && !frame.directory->empty() ? *frame.directory : ".";
  bool start_known = frame.directory_unknown == nullptr || !*frame.directory_unknown;
  std::optional<fs::path> output;
  for (TSNode command : commands) {
    std::string name;
    std::vector<std::pair<std::string, bool>> operands;  // each with whether it is anchored
    bool follow_links = false;
    for (TSNode child : NamedChildren(command)) {
      const Kind kind = KindOf(child);
      if (kind == kCommandName) {
        name = std::string(frame.Text(child));
        continue;
      }
      if (kind == kFileRedirect || kind == kComment) continue;
      const WordAlternatives words = Expand(child, frame, env, true);
      alternatives = std::max(alternatives, words.size());
      const Words& chosen = words[std::min(pick, words.size() - 1)];
      if (chosen.size() != 1) return std::nullopt;
      const ShellWord word = Clean(chosen.front());
      if (!word.known) return std::nullopt;
      if (word.text.starts_with("-") && word.text.size() > 1) {
        follow_links = follow_links || word.text == "-f" || word.text == "-e" || word.text == "-m";
        continue;
      }
      operands.emplace_back(word.text, word.anchored);
    }
    // An absolute or anchored operand names a place whatever the current directory is.
    const auto from_here = [](const std::pair<std::string, bool>& operand) {
      return operand.second || fs::path(operand.first).is_absolute();
    };
    const auto resolve = [&](const std::pair<std::string, bool>& operand) {
      return from_here(operand) ? fs::path(operand.first) : directory / operand.first;
    };
    if (name == "cd" && operands.size() == 1) {
      start_known = start_known || from_here(operands.front());
      directory = resolve(operands.front()).lexically_normal();
    } else if (name == "pwd" && operands.empty()) {
      if (!start_known) return std::nullopt;
      output = directory;
      printed_absolute = true;
    } else if (name == "dirname" && operands.size() == 1) {
      std::string path = operands.front().first;
      const bool anchored_path = from_here(operands.front());
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      const fs::path parent = fs::path(path).parent_path();
      output = parent.empty() ? fs::path(".") : parent;
      printed_absolute = anchored_path;  // the parent of a place that does not move does not move
    } else if ((name == "realpath" || (name == "readlink" && follow_links)) && operands.size() == 1) {
      if (!start_known && !from_here(operands.front())) return std::nullopt;
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

WordAlternatives ExpandVariable(TSNode node, const Frame& frame, const Environment& env, bool quoted) {
  std::string name;
  bool all_elements = false;
  TSNode fallback{};
  std::string op;
  const std::uint32_t count = ts_node_child_count(node);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_child(node, i);
    const Kind kind = KindOf(child);
    if (kind == kVariableName || kind == kSpecialVariableName) {
      name = std::string(frame.Text(child));
    } else if (kind == kSubscript) {
      name = std::string(frame.Text(ChildByField(child, "name")));
      const std::string_view index = frame.Text(ChildByField(child, "index"));
      all_elements = index == "@" || index == "*";
    } else if (!ts_node_is_named(child)) {
      const std::string_view text = frame.Text(child);
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
    recovered = RecoverDefault(node, op, frame);
    if (!recovered) return {{frame.Literal(std::string(frame.Text(node)), node, false)}};
  }
  const auto expand_default = [&]() -> WordAlternatives {
    return recovered ? *recovered : Expand(fallback, frame, env, true);
  };
  const bool has_default = recovered.has_value() || !ts_node_is_null(fallback);
  // $0 is the script bash runs; ${BASH_SOURCE[0]} the file being read (a sourced one too).
  // Both name the file as opmfu reads it, relative to where opmfu runs: anchored, so that a `cd`
  // before `$(dirname "$0")` does not move it (as if bash had been given the launcher's full path).
  const auto anchored = [](ShellWord word) {
    word.anchored = true;
    return word;
  };
  if (name == "0") return {{anchored(frame.Literal(*frame.dollar_zero, node))}};
  if (name == "BASH_SOURCE" && env.Find(name) == nullptr) return {{anchored(frame.Literal(frame.file(), node))}};
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name == "@" || name == "*") {
    // Positional parameters: their default when there is one, else unknown.
    if (has_default) return expand_default();
    return {{frame.Literal(std::string(frame.Text(node)), node, false)}};
  }
  WordAlternatives out;
  for (const auto& [found_words, unset] : env.Lookup(name)) {
    const Words& words = *found_words;
    if (unset || (words.size() == 1 && words[0].text.empty() && op.starts_with(":"))) {
      if (has_default) {
        for (Words& alternative : expand_default()) out.push_back(std::move(alternative));
      } else {
        out.push_back({frame.Literal(std::string(frame.Text(node)), node, false)});
      }
      continue;
    }
    if (words.empty()) {
      // `a=()`: "$a" and "${a[0]}" are empty (no element to take or join).
      out.push_back({frame.Literal("", node, true)});
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

WordAlternatives ExpandNode(TSNode node, const Frame& outer, const Environment& env, bool quoted) {
  const std::optional<Frame> nested = outer.Nested();
  if (!nested) return {{outer.Literal(std::string(outer.Text(node).substr(0, 256)), node, false)}};
  const Frame& frame = *nested;
  const Kind kind = KindOf(node);
  if (kind == kWord || kind == kNumber || kind == kExtglobPattern) {
    std::string text;
    const std::string_view raw = frame.Text(node);
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) ++i;  // an escaped character stands for itself
      text += raw[i];
    }
    if (text.size() == raw.size()) return {{frame.SpelledLiteral(std::move(text), node)}};
    return {{frame.Literal(text, node)}};
  }
  if (kind == kRawString) {
    std::string_view raw = frame.Text(node);
    if (raw.size() >= 2) raw = raw.substr(1, raw.size() - 2);
    return {{frame.SpelledLiteral(std::string(raw), node, 1)}};
  }
  if (kind == kString) {
    // "...": one word, except "${ARRAY[@]}" which gives one word per element.
    // Literal text between two parts is the string's own text too: tree-sitter-bash gives the
    // space in "$a $b" no node, or puts it at the start of the next expansion's node.
    const std::string_view raw = frame.Text(node);
    const std::uint32_t start = ts_node_start_byte(node);
    WordAlternatives out = {{frame.Literal("", node)}};
    std::size_t from = raw.starts_with('"') ? 1 : raw.starts_with("$\"") ? 2 : 0;
    const auto add_gap = [&](std::size_t to) {
      if (to > from && to <= raw.size()) {
        out = Concatenate(out, {{frame.Literal(std::string(raw.substr(from, to - from)), node)}}, node, frame);
      }
    };
    for (TSNode part : NamedChildren(node)) {
      const std::string_view part_text = frame.Text(part);
      const std::size_t blank = KindOf(part) == kStringContent ? 0 : part_text.find_first_not_of(" \t\n");
      add_gap(ts_node_start_byte(part) - start + (blank == std::string_view::npos ? 0 : blank));
      WordAlternatives parts = KindOf(part) == kStringContent
                                   ? WordAlternatives{{frame.SpelledLiteral(std::string(frame.Text(part)), part)}}
                                   : Expand(part, frame, env, true);
      out = Concatenate(out, parts, node, frame);
      from = std::max<std::size_t>(from, ts_node_end_byte(part) - start);
    }
    if (raw.size() >= 2 && raw.ends_with('"')) add_gap(raw.size() - 1);
    return out;
  }
  if (kind == kConcatenation) {
    WordAlternatives out = {{frame.Literal("", node)}};
    for (TSNode part : NamedChildren(node)) out = Concatenate(out, Expand(part, frame, env, quoted), node, frame);
    return out;
  }
  if (kind == kSimpleExpansion || kind == kExpansion) return ExpandVariable(node, frame, env, quoted);
  if (kind == kCommandSubstitution) {
    // One result per alternative of the variables it reads (`cd "$DIR/.."` where DIR differs
    // between branches); a branch it cannot follow is unknown.
    std::size_t alternatives = 1;
    WordAlternatives out;
    bool any = false;
    for (std::size_t pick = 0; pick < alternatives && pick < kMaxAlternatives; ++pick) {
      bool printed_absolute = false;
      std::optional<std::string> directory =
          DirectoryOfSubstitution(node, frame, env, pick, alternatives, printed_absolute);
      any = any || directory.has_value();
      Words words = {directory ? frame.Literal(std::move(*directory), node)
                               : frame.Literal(std::string(frame.Text(node)), node, false)};
      words.front().anchored = directory.has_value() && printed_absolute;
      if (std::none_of(out.begin(), out.end(), [&](const Words& seen) { return SameWords(seen, words); })) {
        out.push_back(std::move(words));
      }
    }
    if (any) return out;
  }
  // $(...), $((...)), <(...), and anything else: only known at run time.
  return {{frame.Literal(std::string(frame.Text(node)), node, false)}};
}

}  // namespace

// Expands one argument node into word-list alternatives (never none). `quoted`: inside "...",
// no splitting.
WordAlternatives Expand(TSNode node, const Frame& frame, const Environment& env, bool quoted) {
  WordAlternatives out = ExpandNode(node, frame, env, quoted);
  if (out.empty()) out.push_back({frame.Literal(std::string(frame.Text(node)), node, false)});
  return out;
}

}  // namespace opmfu::linter::shell
