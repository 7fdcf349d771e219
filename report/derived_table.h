#pragma once
// The DerivedMFU table `opmfu analyze --derived` writes beside upstream's OperatorMFU and ModuleMFU
// (which it never touches): one row per kernel signature and rank, derived or skipped, "derived
// from kernel shapes (not msprof-analyze)". Columns and their meaning: docs/derived-mfu.md.

#include <filesystem>
#include <string_view>

#include "common/result.h"
#include "engine/analyze.h"
#include "report/derived_mfu.h"

namespace opmfu::report {

extern const char* const kDerivedTableName;  ///< "DerivedMFU"

/// Replaces the DerivedMFU table of the cluster DB at `db_path` (creating the file if absent) with
/// `section.rank_groups` (build it with DerivedOptions::keep_rank_groups). Atomic: the DB is copied
/// beside itself, updated, flushed and renamed over the original, so a reader sees the old file or
/// the new one. Every other table is copied unchanged. `db_path` is
/// `<-o>/cluster_analysis_output/cluster_analysis.db`: the folder below -o is never entered through
/// a link.
Status WriteDerivedMfuTable(const std::filesystem::path& db_path, const DerivedSection& section);

/// `analyze --derived`: the FLOPs derived from every kernel's shapes, written as the DerivedMFU
/// table into the cluster DB `analysis` wrote (engine/ knows nothing of it: the table is added
/// after the engine has written, so without --derived the output is exactly upstream's). When the
/// analysis wrote no DB (no rank had a FLOPs record), a new DB holds DerivedMFU alone, and
/// `analysis.written` says so; an earlier analysis' DB is not mixed with this run's derived rows.
/// `analysis` is lent to the derivation and handed back; only `written` and `nothing_to_write`
/// change. Returns the rows written.
Result<std::size_t> WriteDerivedForAnalysis(engine::AnalyzeReport& analysis,
                                            const std::filesystem::path& profiling_path, DerivedOptions options);

}  // namespace opmfu::report
