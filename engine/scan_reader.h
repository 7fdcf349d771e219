#pragma once
// Reads one rank's profiler DB as a scan: each table once, in storage order, only the columns the
// analysis uses, the tables on several threads (one connection each), joined in memory.
//
// The result must equal what the queries of rank_reader.cpp return, row for row and in the same
// order, ties included. SQLite orders ties by its query plan (the loop order, the column order of
// its automatic indexes, a stable sorter), so the scan reproduces the plans it knows and declines
// any other: a table with an unknown index, a different SQLite plan, a join key that is not an
// integer, a time column mixing storage classes. ReadRank then runs the queries instead, and says
// why under -v. The communication tables of both CANN schemas are read: COMMUNICATION_OP (Q4) and
// the newer COMMUNICATION_SCHEDULE_TASK_INFO (Q3, as compute kernels are); the older
// COMMUNICATION_TASK_INFO is not read by the analysis at all.

#include <filesystem>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/profile_data.h"

namespace opmfu::engine {

struct ScanResult {
  std::optional<RankData> data;  ///< shapes not yet stripped of quotes nor N/A-filtered
  std::string declined;          ///< why the scan does not apply, when data is empty
};

/// An Error only when the database cannot be opened at all. With `with_kernel_signatures`, also
/// RankData::kernel_signatures, from the same scan of TASK and COMPUTE_TASK_INFO; left empty (never
/// declining the scan for it) when COMPUTE_TASK_INFO lacks a signature column or holds one that is
/// not a STRING_IDS id.
Result<ScanResult> ReadRankByScan(const std::filesystem::path& db_path, unsigned jobs,
                                  bool with_kernel_signatures = false);

}  // namespace opmfu::engine
