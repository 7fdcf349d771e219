#pragma once
// The DerivedMFU table `opmfu analyze --derived` writes beside upstream's OperatorMFU and ModuleMFU
// (which it never touches): one row per kernel signature and rank, derived or skipped, "derived
// from kernel shapes (not msprof-analyze)". Columns and their meaning: docs/derived-mfu.md.

#include <filesystem>
#include <string_view>

#include "common/result.h"
#include "report/derived_mfu.h"

namespace opmfu::report {

extern const char* const kDerivedTableName;  ///< "DerivedMFU"

/// Replaces the DerivedMFU table of the cluster DB at `db_path` (creating the file if absent) with
/// `section.rank_groups` (build it with DerivedOptions::keep_rank_groups). Atomic: the DB is copied
/// beside itself, updated, flushed and renamed over the original, so a reader sees the old file or
/// the new one. Every other table is copied unchanged.
Status WriteDerivedMfuTable(const std::filesystem::path& db_path, const DerivedSection& section);

}  // namespace opmfu::report
