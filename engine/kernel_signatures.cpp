#include "engine/kernel_signatures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "engine/numeric.h"

namespace opmfu::engine {

namespace {

struct Signature {
  std::array<std::int64_t, 8> ids{};  // name, opType, formats/types/shapes in and out
  bool operator==(const Signature& other) const { return ids == other.ids; }
};
struct SignatureHash {
  std::size_t operator()(const Signature& s) const {
    std::size_t hash = 0;
    for (std::int64_t id : s.ids) hash = hash * 1000003U ^ std::hash<std::int64_t>()(id);
    return hash;
  }
};

std::string Text(const std::unordered_map<std::int64_t, std::string>& strings, std::int64_t id) {
  const auto found = strings.find(id);
  return found == strings.end() ? std::string() : found->second;
}

struct PmuCounters {
  std::optional<double> mac_ratio;
  std::optional<double> cube_fops;
};

// TASK_PMU_INFO's aic_mac_ratio and aic_cube_fops by globalTaskId: the DB's form of
// kernel_details.csv's counter columns (one row per task and counter, the counter's name a
// STRING_IDS id). Sets has_mac_ratio / has_cube_fops when a value other than 0 is seen; an
// all-zero counter is one the run did not collect, as in the Text export.
Result<std::unordered_map<std::int64_t, PmuCounters>> ReadPmuCounters(
    Database& db, const std::unordered_map<std::int64_t, std::string>& strings, KernelSignatures& signatures) {
  std::unordered_map<std::int64_t, PmuCounters> counters;
  OPMFU_ASSIGN_OR_RETURN(const bool has_table, db.HasTable("TASK_PMU_INFO"));
  if (!has_table) return counters;
  std::optional<std::int64_t> mac_id;
  std::optional<std::int64_t> fops_id;
  for (const auto& [id, text] : strings) {
    if (text == "aic_mac_ratio") mac_id = id;
    if (text == "aic_cube_fops") fops_id = id;
  }
  if (!mac_id && !fops_id) return counters;
  OPMFU_ASSIGN_OR_RETURN(Statement read, db.Prepare("SELECT globalTaskId, name, value FROM TASK_PMU_INFO WHERE "
                                                    "name IN (?1, ?2) AND typeof(value) IN ('integer', 'real')"));
  OPMFU_RETURN_IF_ERROR(read.Bind(1, mac_id.value_or(-1)));
  OPMFU_RETURN_IF_ERROR(read.Bind(2, fops_id.value_or(-1)));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(const bool more, read.Step());
    if (!more) break;
    const double value = read.Double(2);
    if (!std::isfinite(value) || value < 0) continue;
    PmuCounters& task = counters[read.Int64(0)];
    if (read.Int64(1) == mac_id) {
      task.mac_ratio = value;
      signatures.has_mac_ratio = signatures.has_mac_ratio || value != 0;
    } else {
      task.cube_fops = value;
      signatures.has_cube_fops = signatures.has_cube_fops || value != 0;
    }
  }
  return counters;
}

}  // namespace

Result<KernelSignatures> ReadKernelSignatures(Database& db) {
  std::unordered_map<std::int64_t, std::string> strings;
  {
    OPMFU_ASSIGN_OR_RETURN(Statement read, db.Prepare("SELECT id, value FROM STRING_IDS"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(const bool more, read.Step());
      if (!more) break;
      strings.emplace(read.Int64(0), read.IsNull(1) ? std::string() : std::string(read.Text(1)));
    }
  }
  // Each kernel's time from TASK, joined in memory: SQLite would build an automatic index on TASK
  // for the JOIN, which costs more than one scan into a hash map (bench/run report).
  std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> task_times;
  {
    OPMFU_ASSIGN_OR_RETURN(Statement tasks, db.Prepare("SELECT globalTaskId, startNs, endNs FROM TASK"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(const bool more, tasks.Step());
      if (!more) break;
      task_times.try_emplace(tasks.Int64(0), tasks.Int64(1), tasks.Int64(2));
    }
  }
  KernelSignatures signatures;
  OPMFU_ASSIGN_OR_RETURN(const auto counters, ReadPmuCounters(db, strings, signatures));
  std::unordered_map<Signature, std::uint32_t, SignatureHash> index;
  OPMFU_ASSIGN_OR_RETURN(Statement kernels,
                         db.Prepare("SELECT name, opType, inputFormats, inputDataTypes, inputShapes, outputFormats, "
                                    "outputDataTypes, outputShapes, globalTaskId FROM COMPUTE_TASK_INFO"));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(const bool more, kernels.Step());
    if (!more) break;
    const auto task = task_times.find(kernels.Int64(8));
    if (task == task_times.end()) continue;  // no device task: not a kernel that ran
    Signature signature;
    for (int column = 0; column < 8; ++column) {
      signature.ids[static_cast<std::size_t>(column)] = kernels.IsNull(column) ? -1 : kernels.Int64(column);
    }
    auto [found, added] = index.try_emplace(signature, static_cast<std::uint32_t>(signatures.groups.size()));
    if (added) {
      KernelSignatureGroup& group = signatures.groups.emplace_back();
      for (std::size_t column = 0; column < 8; ++column) group.columns[column] = Text(strings, signature.ids[column]);
    }
    const auto [start, end] = task->second;
    KernelSignatureGroup& group = signatures.groups[found->second];
    ++group.count;
    group.duration = SaturatingAdd(group.duration, std::max<std::int64_t>(0, TaskDuration(start, end)));
    if (const auto counted = counters.find(kernels.Int64(8)); counted != counters.end()) {
      const std::int64_t duration = std::max<std::int64_t>(0, TaskDuration(start, end));
      if (counted->second.mac_ratio) {
        group.mac_ratio_time += *counted->second.mac_ratio * static_cast<double>(duration);
        group.mac_duration = SaturatingAdd(group.mac_duration, duration);
      }
      if (counted->second.cube_fops) {
        group.cube_fops += *counted->second.cube_fops;
        group.fops_duration = SaturatingAdd(group.fops_duration, duration);
      }
    }
    signatures.kernels.push_back({start, found->second});
  }
  return signatures;
}

}  // namespace opmfu::engine
