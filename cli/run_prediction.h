#pragma once
// `opmfu lint ... --run DIR`: lint's traced settings held against what a run recorded in its
// profiler_info_<rank>.json files. The two libraries meet only here: the lint model (rules) does
// not know profiling directories, and the engine does not know Python.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/result.h"
#include "lint/lint.h"

namespace opmfu::cli {

// nlohmann::json's destructor may allocate its work stack: a bad_alloc there ends the process
// whatever this struct's implicit noexcept members say.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PredictionCheck {
  std::string text;        ///< the comparison, for the terminal
  bool disagrees = false;  ///< no traced call is consistent with the run
  /// The same comparison for `--format json` (docs/schema/lint.schema.json, `run`): per recorded
  /// configuration, per traced call, per setting the traced values, the recorded one and a verdict.
  nlohmann::ordered_json json;
};

/// Compares every traced call with every distinct recorded configuration under `run_directory`.
/// An Error when the directory holds no rank or no rank recorded its configuration.
Result<PredictionCheck> CheckPrediction(const std::vector<lint::TracedSite>& sites, const std::string& run_directory);

}  // namespace opmfu::cli
