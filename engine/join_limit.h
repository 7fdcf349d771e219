#pragma once
// A bound on what one rank's joins may produce. In a DB torch_npu writes, a globalTaskId has one
// TASK row and one kernel row, so the op-to-kernel and shapes joins give about one row per kernel.
// A damaged or hostile DB whose rows share one id would give their product instead (1 MB of rows
// sharing an id: past 2.4 GB): past the limit the rank fails with the id named, and the other
// ranks go on.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "common/result.h"

namespace opmfu::engine {

/// The rows one join of the rank at `db_bytes` may give: one per 16 bytes of the file, and at
/// least 4,000,000 (a real rank's join gives about one row per kernel, each of which takes more
/// than 100 bytes of the file).
std::uint64_t JoinRowLimit(std::uintmax_t db_bytes);

/// The globalTaskId with the most TASK rows, as the error names it.
struct SharedTaskId {
  std::int64_t id = 0;
  std::uint64_t task_rows = 0;
  std::uint64_t kernel_rows = 0;  ///< COMPUTE_TASK_INFO rows of the same id
};

/// "<db>: the <join> would give more than <limit> rows: globalTaskId <id> is shared by ...".
Error JoinFanOutError(const std::filesystem::path& db_path, std::string_view join, std::uint64_t limit,
                      const std::optional<SharedTaskId>& widest);

}  // namespace opmfu::engine
