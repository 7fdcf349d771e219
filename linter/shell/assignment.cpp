#include "linter/shell/assignment.h"

#include <utility>
#include <vector>

#include "linter/shell/expansion.h"
#include "linter/shell/syntax.h"

namespace opmfu::linter::shell {

void Assign(TSNode assignment, const Frame& frame, Environment& env, bool exported) {
  TSNode name_node = ChildByField(assignment, "name");
  TSNode value = ChildByField(assignment, "value");
  if (ts_node_is_null(name_node)) return;
  std::string name(frame.Text(name_node));
  if (KindOf(name_node) == kSubscript) return;  // ARR[i]=x: not followed
  const bool append = frame.Text(assignment).substr(name.size()).starts_with("+=");
  std::vector<Alternative> values;
  if (ts_node_has_error(assignment) && (ts_node_is_null(value) || !ts_node_has_error(value))) {
    // The grammar gave up around the value (`V=<placeholder>/x`): what it kept is not the value.
    values.push_back({{frame.Literal(std::string(frame.Text(assignment)), assignment, false)}, false});
  } else if (ts_node_is_null(value)) {
    values.push_back({{frame.Literal("", assignment)}, false});
  } else if (KindOf(value) == kArray) {
    WordAlternatives elements = {{}};
    for (TSNode element : NamedChildren(value)) {
      AppendAlternatives(elements, Expand(element, frame, env, false));
      for (Words& words : elements) frame.CapWords(words);
    }
    for (Words& words : elements) values.push_back({std::move(words), false});
  } else {
    for (Words& words : Expand(value, frame, env, true)) {
      // A scalar assignment does not split: keep one word.
      ShellWord word = words.empty() ? frame.Literal("", value) : words.front();
      for (std::size_t i = 1; i < words.size(); ++i) {
        word.text += " " + words[i].text;
        word.known = word.known && words[i].known;
      }
      word.where = frame.Where(value);
      frame.CapValue(word);
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
          frame.CapWords(joined.words);
        } else {
          // `V+=" more"` on a string (or an array's first element) concatenates.
          ShellWord& first = joined.words.front();
          first.text += added.words.front().text;
          first.known = first.known && added.words.front().known;
          frame.CapValue(first);
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

}  // namespace opmfu::linter::shell
