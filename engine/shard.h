#pragma once
// Splitting one analysis into shards a scheduler runs (`opmfu analyze --shard I/N`), and what
// makes shards of one input recognisable as such (docs/sharding.md).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/discovery.h"

namespace opmfu::engine {

/// Shard `index` of `count`, 0-based: Slurm's SLURM_ARRAY_TASK_ID under `--array=0-<N-1>` and
/// Kubernetes' JOB_COMPLETION_INDEX are used as they are.
struct ShardSpec {
  std::size_t index = 0;
  std::size_t count = 1;
  bool operator==(const ShardSpec&) const = default;
};

/// "I/N" with 0 <= I < N (N at most kMaxShards); a usage error naming what is wrong otherwise.
Result<ShardSpec> ParseShardSpec(std::string_view text);
inline constexpr std::size_t kMaxShards = 1000000;

/// The shard that analyses the rank at `position` of the analysis order (ranks sorted by id, the
/// order every shard computes alike): round robin, so neighbouring ranks, which often do the same
/// work (one pipeline stage), spread over all shards.
inline std::size_t ShardOf(std::size_t position, std::size_t count) { return position % count; }

/// Where a shard writes its partial result below its `-o`: opmfu_partial/shard_<I>_of_<N>.db.
inline constexpr const char* kPartialDirectory = "opmfu_partial";
std::filesystem::path PartialPath(const std::filesystem::path& output, const ShardSpec& shard);
/// The shard a partial's file name says, for a name written by PartialPath.
std::optional<ShardSpec> ShardOfPartialName(std::string_view file_name);

/// One rank of the whole input as each shard sees it; the list of them (with the options that
/// change rows) is the input's identity.
struct InputRank {
  std::size_t position = 0;
  std::int64_t rank_id = 0;
  std::string path;  ///< the rank's database, relative to the profiling directory
  bool never_parsed = false;
  std::int64_t size = -1;      ///< bytes of the database; -1 when it does not exist
  std::int64_t mtime_ns = -1;  ///< its modification time; -1 when it does not exist
  bool operator==(const InputRank&) const = default;
};

struct InputIdentity {
  std::vector<InputRank> ranks;         ///< the whole selection, in analysis order
  std::optional<std::int64_t> step_id;  ///< --step-id, which changes the rows
  std::string rank_list;                ///< --rank-list as given ("" for all)
  std::string digest;                   ///< 16 hex digits over all of the above
};

/// The identity of `selection` (every rank to analyse, in analysis order) under `root`. Paths are
/// taken relative to `root`, so shards that see the same data mounted at different places agree.
InputIdentity IdentifyInput(const std::vector<RankLocation>& selection, const std::filesystem::path& root,
                            std::optional<std::int64_t> step_id, std::string rank_list);

/// The 16-hex-digit digest of an identity's ranks and options (what IdentifyInput fills in).
std::string DigestOf(const InputIdentity& identity);

/// The first difference between two identities, in words, naming each side by `a_name` and
/// `b_name` (e.g. the partials they come from): "rank 3's database
/// a/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_3.db differs: 1,024 bytes modified at ... in
/// shard_1_of_4.db, 2,048 bytes ... in shard_2_of_4.db". Empty when equal.
std::string DescribeDifference(const InputIdentity& a, const InputIdentity& b, const std::string& a_name = "one",
                               const std::string& b_name = "the other");

}  // namespace opmfu::engine
