#pragma once
// Reads one rank's `ascend_pytorch_profiler_<rank>.db` (read-only) into RankData.

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/profile_data.h"

namespace opmfu::engine {

/// A message for the rank's log, with upstream's wording where upstream logs one.
struct RankNote {
  enum class Level { kInfo, kWarning, kError };
  Level level;
  std::string text;
};

/// kAuto: a scan of each table joined in memory (scan_reader.h) where it reproduces SQLite's
/// plans, else the queries. kQueries and kScan force one way (kScan fails where it declines).
enum class ReadMethod { kAuto, kQueries, kScan };

/// Reads the tables the analysis needs, on up to `threads` threads (0: one per core). A database
/// that cannot be opened at all is an Error; a missing table or a failing query is logged in
/// `notes` and read as empty, as upstream does. With `with_kernel_signatures`, the scan also
/// groups the kernels by signature (RankData::kernel_signatures); the queries never do.
Result<RankData> ReadRank(const std::filesystem::path& db_path, std::vector<RankNote>& notes, unsigned threads = 0,
                          ReadMethod method = ReadMethod::kAuto, bool with_kernel_signatures = false);

/// Every query ReadRank runs, in order (for the benchmark's SQLite floor).
std::vector<std::string> AnalysisQueries();

/// "NULL->0 int": numbers as stored, text parsed as a number, anything else 0; floats truncate.
std::int64_t CoerceInt(int sqlite_type, std::int64_t as_int, double as_double, std::string_view as_text);

}  // namespace opmfu::engine
