#pragma once
// `opmfu flops TARGET ...`: the FLOPs torch_npu's built-in formula records for one call, under
// the release chosen (or recognized in a formulas file), with what the other releases record.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "registry/builtin_flops.h"
#include "registry/locate.h"

namespace opmfu::registry {

struct FlopsRequest {
  std::string target;                  ///< op name or target, as `opmfu flops --list` lists them
  std::vector<std::string> values;     ///< positional values, as typed ("[4096,4096]", "True")
  std::vector<std::string> arguments;  ///< NAME=VALUE
  std::string formulas_version;        ///< --formulas-version, or empty
  std::string formulas;                ///< --formulas: a file whose release is recognized, or empty
  bool installed = false;              ///< --installed: the file `locate` finds
  bool python_given = false;           ///< --python (it only goes with --installed)
  LocateOptions locate;                ///< for --installed
};

struct FlopsAnswer {
  const BuiltinTarget* target = nullptr;
  const FormulasVersion* version = nullptr;
  std::string version_source;                  ///< how the release was decided
  std::optional<std::string> version_warning;  ///< the release could not be told from the file
  BoundFlopsCall bound;
  FlopsOutcome flops;
  std::string message;         ///< the mfu_flops range message, "<flops>-<op_name>"
  std::string not_given_note;  ///< parameters left out because they do not change the FLOPs
  std::vector<std::pair<std::string_view, std::string>> others;  ///< releases that record otherwise
};

/// A usage error, with the reason, for an unknown target, a malformed argument, or a call the
/// formula refuses.
Result<FlopsAnswer> AnswerFlops(const FlopsRequest& request);

/// `opmfu flops --list`: every built-in target and the releases known, as text or JSON.
std::string RenderBuiltinTargets(bool json);
/// The answer as `opmfu flops` prints it.
std::string RenderFlopsText(const FlopsAnswer& answer);
/// docs/schema/flops.schema.json.
std::string RenderFlopsJson(const FlopsAnswer& answer);

}  // namespace opmfu::registry
