#pragma once
// The 15 built-in FLOPs formulas of torch_npu's `_flops_formulas.py`, computed in C++ from shapes
// and arguments (shared/spec/collection-config.md 5.2), call for call as torch_npu's profiler hook
// runs them: the arguments bind as Python binds them (keywords a formula does not name go to its
// `**kwargs` and are ignored, an explicit None stays None), and where the formula raises, so that
// torch_npu records nothing, the result is an Error that says why. A value is never guessed.
// docs/flops.md describes the differential test against the real formulas.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::registry {

/// One release of torch_npu's built-in formulas, by the behaviours in which releases differ.
struct FormulasVersion {
  std::string_view name;  ///< "v26.1.0"
  std::string_view description;
  /// npu_fusion_attention with BSH/SBH derives the key/value head count from the key's hidden size
  /// (grouped-query attention); without it the key and value are split into head_num heads.
  bool infers_kv_heads = true;
  /// TND: a zero-length sequence in actual_seq_qlen/kvlen makes the formula raise.
  bool zero_length_sequence_raises = false;
};

/// The releases opmfu can compute, newest first (the first is the default).
std::span<const FormulasVersion> KnownFormulasVersions();
const FormulasVersion& NewestFormulasVersion();
const FormulasVersion* FindFormulasVersion(std::string_view name);

/// Which version's built-in formulas a `_flops_formulas.py` text holds, read from the source text
/// (never run); nullopt when it cannot tell. `evidence` says what was recognized.
struct RecognizedFormulas {
  FormulasVersion version;
  std::string evidence;
};
std::optional<RecognizedFormulas> RecognizeFormulasVersion(std::string_view source);

struct BuiltinParameter {
  std::string_view name;
  /// The default as `--arg` would read it ("None", "0", "(0, 1, 2)", "TND"); empty when required.
  std::string_view default_value;
  bool keyword_only = false;
};

struct BuiltinTarget {
  std::string_view target;   ///< "torch:mm"
  std::string_view op_name;  ///< "mm": what the "<flops>-<op_name>" message carries
  /// The formula's named parameters in signature order.
  std::vector<BuiltinParameter> parameters;
  /// The formula takes `*args`: extra positional arguments are accepted and ignored.
  bool variadic = false;
  /// What the formula reads (the rest are accepted and ignored, as torch_npu does).
  std::vector<std::string_view> used;

  std::size_t positional_count() const;
};

/// The built-in registrations, in the file's order.
std::span<const BuiltinTarget> BuiltinTargets();

/// By op_name ("mm"), by target ("torch:mm"), or by any target naming the same object
/// ("torch:nn.functional.linear" is "torch.nn.functional:linear"); nullptr if it is not built in.
const BuiltinTarget* FindBuiltinTarget(std::string_view name);

/// The arguments of one call, by parameter name. A tensor is its shape ([1024, 512]); a list of
/// tensors is a list of shapes; other values are JSON numbers, strings, booleans, null (None) or
/// lists. A parameter that is absent takes the formula's default.
using FlopsArguments = nlohmann::json;

/// One call bound to a formula's signature as Python binds it.
struct BoundFlopsCall {
  FlopsArguments arguments = FlopsArguments::object();  ///< the formula's own parameters
  /// Keywords the formula does not name: its `**kwargs` takes them and ignores them.
  std::vector<std::pair<std::string, nlohmann::json>> absorbed;
  /// Positional values past the named parameters, taken by `*args` (npu_fusion_attention).
  std::size_t extra_positional = 0;
  /// Required parameters the call left out whose value the formula never reads (npu_alltoallv_gmm's
  /// hcom): bound to None, "not given", since any value records the same FLOPs.
  std::vector<std::string> not_given;
};

/// Binds positional values to the target's parameters (in order) and merges named ones. What
/// Python refuses with a TypeError is an error: too many positional values, a keyword-only
/// parameter given by position, a value given twice, a required parameter the formula reads
/// missing (one error naming every missing one). A missing required parameter it never reads is
/// bound to None and listed in `not_given`.
Result<BoundFlopsCall> BindFlopsArguments(const BuiltinTarget& target, const std::vector<nlohmann::json>& positional,
                                          const std::vector<std::pair<std::string, nlohmann::json>>& named);

/// Reads one `--arg` value: JSON when it parses ([1,2], 8, true, null, "x"), Python's True/False/
/// None, and otherwise the text itself as a string (BNSD).
nlohmann::json ParseFlopsArgumentValue(std::string_view text);

/// A value as Python prints it: None, True, 'BNSD', [1024, 512].
std::string PythonRepr(const nlohmann::json& value);

/// What torch_npu's hook records for one call.
struct FlopsOutcome {
  /// The formula's value in decimal, exactly as the `<flops>-<op_name>` message carries it (any
  /// size: torch_npu formats a Python int, so a value >= 2^63 is written as text too).
  std::string decimal;
  /// The value, when it fits a signed 64-bit integer.
  std::optional<std::int64_t> value;
  /// Things torch itself would do differently, e.g. reject the op after the formula has run.
  std::vector<std::string> warnings;
};

/// The FLOPs torch_npu records for this call with the given release's formulas. An error when the
/// formula raises, or returns a negative value (the hook records only values >= 0).
Result<FlopsOutcome> EvaluateBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments,
                                          const FormulasVersion& version);

/// The newest formulas' value as a 64-bit integer (for `audit`); an error past 2^63-1.
Result<std::int64_t> ComputeBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments);

}  // namespace opmfu::registry
