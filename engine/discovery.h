#pragma once
// Finding ranks under `-d`, as msprof-analyze does (shared/spec/mfu-analysis.md 1.2), plus the
// help it does not give: a `-d` one level too deep, or several directories for one rank.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu::engine {

struct RankLocation {
  std::int64_t rank_id = 0;
  std::filesystem::path rank_directory;  ///< the directory holding ASCEND_PROFILER_OUTPUT
  std::filesystem::path db_path;
  std::vector<std::filesystem::path> ignored_directories;  ///< other directories of the same rank
  /// A directory with raw `PROF_*` data but no profiler database: collected, never parsed.
  /// rank_id then comes from its profiler_info_<n>.json (-1 without one) and db_path is where
  /// the parse would put the database.
  bool never_parsed = false;
  /// A Text export (engine/text_export.h): db_path is then its ASCEND_PROFILER_OUTPUT directory.
  bool text_export = false;
};

/// Which export a rank directory holding both is read from: the Db, as msprof-analyze does, or
/// the Text export (`--source text`).
enum class ExportSource { kDb, kText };

struct Discovery {
  std::filesystem::path root;       ///< where the search started (after correcting `-d`)
  std::string correction;           ///< non-empty when `-d` was corrected: what it should have been
  std::vector<RankLocation> ranks;  ///< sorted by rank id
  /// Directories of ranks that have no parsed directory anywhere, never_parsed set; sorted by rank.
  std::vector<RankLocation> unparsed;
  std::vector<std::string> notes;  ///< one line each: duplicates, rank -1
  /// What looks like profiling data but gives none, one line each naming it: an unreadable
  /// directory, an entry that cannot be followed (a symlink loop), a `*_ascend_pt` directory with
  /// neither a database nor raw data below it. Each makes the run exit 1, as a failed rank does.
  std::vector<std::string> problems;
  std::size_t directories_searched = 0;
};

/// Finds `*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler[_<rank>].db` up to 5 levels below
/// `path`. Accepts a `*_ascend_pt` directory, an ASCEND_PROFILER_OUTPUT directory or the .db file
/// itself. Also lists directories that hold raw data but were never parsed (`unparsed`). Fails
/// with what was searched for when neither is found.
/// A directory whose ASCEND_PROFILER_OUTPUT holds a Text export (kernel_details.csv or
/// trace_view.json) and no DB is a Text rank; with both, `source` decides.
Result<Discovery> DiscoverRanks(const std::filesystem::path& path, ExportSource source = ExportSource::kDb);

/// "Db" or "Text": which export a rank was read from, for -v and the outputs.
const char* ExportName(const RankLocation& location);

/// Discovery::problems for the log: every one up to `limit`, then a line counting the rest.
std::vector<std::string> DescribeProblems(const Discovery& discovery, std::size_t limit = 20);

/// Why a never-parsed directory yields nothing, with the offline parse torch_npu documents.
std::string NeverParsedCause(const RankLocation& location);

}  // namespace opmfu::engine
