#pragma once
// A shard's partial result and `opmfu merge` (docs/sharding.md).
//
// A partial is a SQLite file opmfu writes (atomically) and reads back: which shard of how many,
// the input's identity (every rank of the whole input with its database's size and modification
// time, and the options that change rows), the ranks this shard analysed with their outcome
// (failed and why, notes, row counts, the flags upstream's column types depend on), and their
// OperatorMFU and ModuleMFU rows exactly (doubles as their IEEE-754 bits). Merging puts the
// ranks back in analysis order and writes the tables with the writers `analyze` uses, so the
// output equals a one-shot analysis row for row, column types included.

#include <filesystem>
#include <vector>

#include "common/result.h"
#include "engine/analyze.h"
#include "engine/shard.h"

namespace opmfu::engine {

/// The partial's format, in its shard_info table; a partial of another format is refused.
inline constexpr const char* kPartialFormat = "opmfu-partial/2";

/// Writes `report` (one shard's ranks, rows still in report.tables) as the partial at `path`, below
/// `tree` (the -o directory: the folders between are never entered through a link).
Status WritePartial(const std::filesystem::path& path, const std::filesystem::path& tree, const ShardSpec& shard,
                    const InputIdentity& input, const AnalyzeReport& report);

struct MergeOptions {
  /// Each a shard's `-o` folder (every partial below its opmfu_partial/), that opmfu_partial
  /// folder, or one partial file.
  std::vector<std::filesystem::path> partials;
  std::filesystem::path output_path;  ///< <OUT>; the tables go to <OUT>/cluster_analysis_output
  ExportType export_type = ExportType::kDb;
  std::vector<std::string> stale_tables;  ///< as AnalyzeOptions::stale_tables
};

/// Merges one complete set of shards into the tables a one-shot analysis writes. A set that is
/// incomplete or inconsistent (a shard missing or given twice, shards of different N or of
/// different inputs, a path that holds no partial) is a usage error naming what is wrong; the
/// report is that of the whole analysis, failed ranks included.
Result<AnalyzeReport> RunMerge(const MergeOptions& options);

}  // namespace opmfu::engine
