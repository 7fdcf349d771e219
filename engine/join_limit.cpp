#include "engine/join_limit.h"

#include <algorithm>
#include <string>

namespace opmfu::engine {

std::uint64_t JoinRowLimit(std::uintmax_t db_bytes) {
  constexpr std::uint64_t kFloor = 4'000'000;
  return std::max<std::uint64_t>(kFloor, static_cast<std::uint64_t>(db_bytes / 16));
}

Error JoinFanOutError(const std::filesystem::path& db_path, std::string_view join, std::uint64_t limit,
                      const std::optional<SharedTaskId>& widest) {
  std::string message = db_path.string() + ": the " + std::string(join) + " would give more than " +
                        std::to_string(limit) + " rows (the limit for a DB of this size)";
  if (widest) {
    message += ": globalTaskId " + std::to_string(widest->id) + " is shared by " + std::to_string(widest->task_rows) +
               " TASK rows and " + std::to_string(widest->kernel_rows) + " COMPUTE_TASK_INFO rows";
  }
  return Error::Input(message + "; torch_npu writes one TASK row per id, so the DB is damaged");
}

}  // namespace opmfu::engine
