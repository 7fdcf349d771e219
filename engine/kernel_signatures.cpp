#include "engine/kernel_signatures.h"

#include <algorithm>
#include <array>
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
    signatures.kernels.push_back({start, found->second});
  }
  return signatures;
}

}  // namespace opmfu::engine
