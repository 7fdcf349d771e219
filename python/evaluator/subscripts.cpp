// Subscripts: `os.environ[...]`, items of traced sequences and mappings, namespace keys.
#include <memory>

#include "python/evaluator/internal.h"

namespace opmfu::python {

Values Tracer::ResolveSubscript(TSNode subscript, int depth) const {
  Values containers = ResolveIn(ChildByField(subscript, "value"), depth + 1);
  Values keys = ResolveIn(ChildByField(subscript, "subscript"), depth + 1);
  // `os.environ["X"]`: set at run time, by a launcher we do not see here.
  for (const Value& container : containers) {
    if (container.kind == ValueKind::kModule && container.text == "os.environ") {
      const std::string name = keys.size() == 1 && keys[0].kind == ValueKind::kString ? keys[0].text : "?";
      Values out;
      for (const ScriptInvocation& invocation : invocations()) {
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

Values Tracer::Lookup(const Values& containers, const Values& keys, TSNode use, int depth) const {
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
        PrependNotes(item.chain, key.chain);
        if (key.kind == ValueKind::kString && key.spelled_in_launcher) {
          auto lookup = std::make_shared<KeyedLookup>();
          lookup->key_at = *key.spelled_in_launcher;
          for (std::size_t k = 0; k < container.keys.size(); ++k) {
            if (container.keys[k].kind == ValueKind::kString) {
              // What a rule asks of an entry: its kind and text, not its provenance.
              Value gives;
              gives.kind = container.items[k].kind;
              gives.text = container.items[k].text;
              gives.container = container.items[k].container;
              lookup->entries.emplace_back(container.keys[k].text, std::move(gives));
            }
          }
          item.looked_up = std::move(lookup);
        }
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

}  // namespace opmfu::python
