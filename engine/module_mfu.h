#pragma once
// Module-level MFU (ModuleMFU), shared/spec/mfu-analysis.md section 5.

#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/mfu_rows.h"
#include "engine/operator_mfu.h"
#include "engine/profile_data.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

/// ModuleMFU rows of one rank, in final order. Fails where upstream's run would crash on this
/// rank's data (a NULL kernel name inside a module, a NULL module name with child modules).
Result<std::vector<ModuleMfuRow>> ModuleRows(std::int64_t rank_id, const RankData& data,
                                             const MfuCalculation& calculation, const std::vector<MergedKernel>& merged,
                                             std::vector<RankNote>& notes);

/// avg_mfu of a group: per kernel position, the mean of the values > 0 as "12.34%", joined
/// with ','; positions without such values are skipped. The first list sets the positions.
std::string AverageMfuText(std::span<const std::span<const double>> mfu_lists);

}  // namespace opmfu::engine
