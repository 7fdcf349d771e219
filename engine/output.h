#pragma once
// Writing OperatorMFU and ModuleMFU: into cluster_analysis.db (as upstream), or as CSV or JSON.

#include <filesystem>
#include <memory>
#include <vector>

#include "common/result.h"
#include "engine/mfu_rows.h"

namespace opmfu::engine {

struct AnalysisTables {
  std::vector<OperatorMfuRow> operator_rows;
  std::vector<std::shared_ptr<const StringPool>> string_pools;  ///< what operator_rows point into
  std::vector<ModuleMfuRow> module_rows;
  bool duration_integer = true;  ///< upstream's declared type for kernel_duration(ns) (spec 4.5)
  bool flops_integer = true;     ///< ...and for flops
  /// avg_mfu is dropped when empty in every row (spec 5.8).
  bool with_avg_mfu() const;
};

/// Replaces the OperatorMFU and ModuleMFU tables of `db_path` (creating the file if needed) and
/// keeps every other table. The change is made on a copy that is renamed into place, so a crash
/// leaves the old file or the new one. Unlike upstream, a table with no rows is dropped rather
/// than left stale from an earlier run.
Status WriteClusterDb(const std::filesystem::path& db_path, const AnalysisTables& tables);

/// operator_mfu.csv and module_mfu.csv (header row, upstream's db column names) in `directory`.
Result<std::vector<std::filesystem::path>> WriteCsv(const std::filesystem::path& directory,
                                                    const AnalysisTables& tables);
/// operator_mfu.json and module_mfu.json (arrays of objects keyed by column name).
Result<std::vector<std::filesystem::path>> WriteJson(const std::filesystem::path& directory,
                                                     const AnalysisTables& tables);

}  // namespace opmfu::engine
