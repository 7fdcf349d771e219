#pragma once
// The one way opmfu parses JSON it was given (device info.json, profiler_info_<rank>.json, the
// output of a helper program): nlohmann's tree is built only for a document that nests at most so
// deep, because its copy, dump and comparison recurse once per level (a 200 KB file nested
// 100,000 deep overflows the stack of whichever thread touches it).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

#include "common/result.h"

namespace opmfu {

/// Arrays and objects inside one another that a JSON input may hold. The files opmfu reads nest
/// 3-5 levels; 256 leaves room for any real one and keeps each recursion a few hundred frames.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Checks, in one pass that builds nothing, that `text` nests arrays and objects at most
/// `max_depth` deep (brackets inside strings do not count). The error is one line naming `file`,
/// the limit and the line where the document goes past it.
Status CheckJsonNesting(std::string_view text, std::string_view file, std::size_t max_depth = kMaxJsonDepth);

/// `text` parsed by nlohmann without exceptions, once CheckJsonNesting passed: a syntax error gives
/// a discarded value (is_discarded()), which each caller reports in its own words; the only Error
/// is the nesting limit.
Result<nlohmann::json> ParseJsonWithinLimits(std::string_view text, std::string_view file,
                                             std::size_t max_depth = kMaxJsonDepth);

}  // namespace opmfu
