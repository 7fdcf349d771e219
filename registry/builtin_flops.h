#pragma once
// The 15 built-in FLOPs formulas of torch_npu's `_flops_formulas.py`, computed in C++ from shapes
// and arguments (shared/spec/collection-config.md 5.2). Where torch_npu's formula raises, and so
// records nothing, this returns an Error that says why: a value is never guessed.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::registry {

struct BuiltinTarget {
  std::string_view target;   ///< "torch:mm"
  std::string_view op_name;  ///< "mm": what the "<flops>-<op_name>" message carries
  /// The formula's parameters in signature order; the first `positional` can be given by position.
  std::vector<std::string_view> parameters;
  std::size_t positional = 0;
  /// What the formula reads (the rest are accepted and ignored, as torch_npu does).
  std::vector<std::string_view> used;
};

/// The built-in registrations, in the file's order.
std::span<const BuiltinTarget> BuiltinTargets();

/// By op_name ("mm") or target ("torch:mm"); nullptr if it is not built in.
const BuiltinTarget* FindBuiltinTarget(std::string_view name);

/// The arguments of one call, by parameter name. A tensor is its shape ([1024, 512]); a list of
/// tensors is a list of shapes; other values are JSON numbers, strings, booleans, null or lists.
using FlopsArguments = nlohmann::json;

/// Binds positional values to the target's parameters (in order) and merges named ones; an unknown
/// name or a value given twice is an error.
Result<FlopsArguments> BindFlopsArguments(const BuiltinTarget& target, const std::vector<nlohmann::json>& positional,
                                          const std::vector<std::pair<std::string, nlohmann::json>>& named);

/// Reads one `--arg` value: JSON when it parses ([1,2], 8, true, null, "x"), Python's True/False/
/// None, and otherwise the text itself as a string (BNSD).
nlohmann::json ParseFlopsArgumentValue(std::string_view text);

/// The FLOPs torch_npu records for this call: exactly the integer its formula returns.
Result<std::int64_t> ComputeBuiltinFlops(const BuiltinTarget& target, const FlopsArguments& arguments);

}  // namespace opmfu::registry
