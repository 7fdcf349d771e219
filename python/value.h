#pragma once
// One possible value of a Python expression, as the evaluator traces it, and how it reads in a
// message (Python spelling, or JSON spelling for a value read from a JSON file).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "common/text_location.h"
#include "common/tree_sitter.h"

namespace opmfu::python {

class PythonModule;
struct Value;

/// An item looked up in a literal mapping by a string key that a launcher spells
/// (`LEVELS[args.profile_level]`, `--profile-level level0`): where the key is spelled, and each
/// string key of the mapping with the value it gives, so a fix can write the key that gives a
/// good value there.
struct KeyedLookup {
  TextLocation key_at;
  std::vector<std::pair<std::string, Value>> entries;
};

enum class ValueKind {
  kUnknown,  ///< see Value::unknown_reason
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kDynamicString,  ///< an f-string or concatenation with a part known only at run time
  kEnum,           ///< a library constant such as ProfilerLevel.Level1 (`container`); `text` is its string value
  kSequence,       ///< list, tuple or set (`container`), with `items`
  kDict,           ///< `keys` and `items` side by side
  kCall,           ///< the result of a call: `text` is the callee's qualified name, `node` the call
  kFunction,       ///< a function or lambda passed as a value (`text`: its name)
  kModule,         ///< an imported name (`text`: what it was imported as)
  kNamespace,      ///< an argparse namespace (`args = parser.parse_args()`)
};

/// One possible value of an expression.
struct Value {
  ValueKind kind = ValueKind::kUnknown;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
  std::string container;  ///< "list", "tuple", "set" or "dict"
  std::vector<Value> items;
  std::vector<Value> keys;
  TSNode node{};  ///< the expression the value was read from (a literal, usually); null if implied
                  ///< or read in another file
  const PythonModule* owner = nullptr;  ///< for a kFunction defined in another module: that module
  /// The steps from the use back to where the value was written, outermost first.
  std::vector<Note> chain;
  std::string unknown_reason;
  bool from_json = false;  ///< read from a JSON file: described as JSON (`true`, `"db"`, `null`)
  /// A string a launcher passes, spelled literally there (a fix may rewrite it in the launcher).
  std::optional<TextLocation> spelled_in_launcher;
  /// Looked up in a mapping by such a string (see KeyedLookup).
  std::shared_ptr<const KeyedLookup> looked_up;

  bool is_true() const { return kind == ValueKind::kBool && boolean; }
  /// How the value reads in a message: `True`, `'level1'`, `ProfilerLevel.Level0`, `['text']`.
  std::string Describe() const;
  /// For kEnum: the constant's member name ("Db" for ExportType's "db") when it differs from
  /// its value.
  std::string member;
  std::string container_member() const { return member.empty() ? text : member; }
};

/// Possible values of one expression (several when branches or defaults disagree).
using Values = std::vector<Value>;

}  // namespace opmfu::python
