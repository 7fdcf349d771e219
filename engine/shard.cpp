#include "engine/shard.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdio>

#include "common/text.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

std::optional<std::size_t> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// FNV-1a, 64 bits: enough to tell inputs apart at a glance; equality is decided on the ranks
// themselves (DescribeDifference), not on the digest alone.
class Fnv1a {
 public:
  void Add(std::string_view bytes) {
    for (const char c : bytes) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= 0x100000001b3ULL;
    }
    // A separator byte that no field contains, so ("ab","c") and ("a","bc") differ.
    hash_ ^= 0xffU;
    hash_ *= 0x100000001b3ULL;
  }
  void Add(std::int64_t value) { Add(std::to_string(value)); }
  std::string Hex() const {
    char text[17];
    (void)std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

Result<ShardSpec> ParseShardSpec(std::string_view text) {
  const std::string given(text);
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return Error::Usage("--shard " + given + ": expected I/N, e.g. 0/4 (shard I of N, 0-based)");
  }
  const auto index = ParseCount(text.substr(0, slash));
  const auto count = ParseCount(text.substr(slash + 1));
  if (!index || !count) {
    return Error::Usage("--shard " + given + ": expected I/N with whole numbers, e.g. 0/4 (shard I of N, 0-based)");
  }
  if (*count == 0) return Error::Usage("--shard " + given + ": N must be at least 1");
  if (*count > kMaxShards) {
    return Error::Usage("--shard " + given + ": N must be at most " + std::to_string(kMaxShards));
  }
  if (*index >= *count) {
    return Error::Usage("--shard " + given + ": I must be below N (shards are numbered 0 to " +
                        std::to_string(*count - 1) + ", as SLURM_ARRAY_TASK_ID with --array=0-" +
                        std::to_string(*count - 1) + " and JOB_COMPLETION_INDEX count them)");
  }
  return ShardSpec{*index, *count};
}

fs::path PartialPath(const fs::path& output, const ShardSpec& shard) {
  return output / kPartialDirectory /
         ("shard_" + std::to_string(shard.index) + "_of_" + std::to_string(shard.count) + ".db");
}

std::optional<ShardSpec> ShardOfPartialName(std::string_view file_name) {
  // shard_<1-9 digits>_of_<1-9 digits>.db
  const std::size_t of = file_name.find("_of_");
  if (of == std::string_view::npos) return std::nullopt;
  const auto index_digits = DigitsBetween(file_name.substr(0, of), "shard_", "", 9);
  const auto count_digits = DigitsBetween(file_name.substr(of), "_of_", ".db", 9);
  if (!index_digits || !count_digits) return std::nullopt;
  const auto index = ParseCount(*index_digits);
  const auto count = ParseCount(*count_digits);
  if (!index || !count) return std::nullopt;
  return ShardSpec{*index, *count};
}

InputIdentity IdentifyInput(const std::vector<RankLocation>& selection, const fs::path& root,
                            std::optional<std::int64_t> step_id, std::string rank_list) {
  InputIdentity identity;
  identity.step_id = step_id;
  identity.rank_list = std::move(rank_list);
  identity.ranks.reserve(selection.size());
  for (std::size_t i = 0; i < selection.size(); ++i) {
    const RankLocation& location = selection[i];
    InputRank rank;
    rank.position = i;
    rank.rank_id = location.rank_id;
    const fs::path relative = location.db_path.lexically_relative(root);
    rank.path = (relative.empty() || *relative.begin() == "..") ? location.db_path.string() : relative.string();
    rank.never_parsed = location.never_parsed;
    // stat(2), not std::filesystem: no exception, and the nanoseconds of the modification time.
    struct stat info {};
    if (::stat(location.db_path.c_str(), &info) == 0) {
      rank.size = static_cast<std::int64_t>(info.st_size);
      rank.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    }
    identity.ranks.push_back(std::move(rank));
  }
  identity.digest = DigestOf(identity);
  return identity;
}

std::string DigestOf(const InputIdentity& identity) {
  Fnv1a hash;
  hash.Add(std::string_view("opmfu input 1"));
  hash.Add(identity.step_id ? std::to_string(*identity.step_id) : std::string("all steps"));
  hash.Add(std::string_view(identity.rank_list));
  for (const InputRank& rank : identity.ranks) {
    hash.Add(static_cast<std::int64_t>(rank.position));
    hash.Add(rank.rank_id);
    hash.Add(std::string_view(rank.path));
    hash.Add(static_cast<std::int64_t>(rank.never_parsed));
    hash.Add(rank.size);
    hash.Add(rank.mtime_ns);
  }
  return hash.Hex();
}

std::string DescribeDifference(const InputIdentity& a, const InputIdentity& b, const std::string& a_name,
                               const std::string& b_name) {
  const auto sides = [&](const std::string& in_a, const std::string& in_b) {
    return in_a + " in " + a_name + ", " + in_b + " in " + b_name;
  };
  if (a.step_id != b.step_id) {
    const auto text = [](const std::optional<std::int64_t>& step) {
      return step ? "--step-id " + std::to_string(*step) : std::string("no --step-id");
    };
    return "run with " + sides(text(a.step_id), text(b.step_id));
  }
  if (a.rank_list != b.rank_list) {
    const auto text = [](const std::string& list) {
      return list.empty() ? std::string("all ranks") : "--rank-list " + list;
    };
    return "run with " + sides(text(a.rank_list), text(b.rank_list));
  }
  const std::size_t common = std::min(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < common; ++i) {
    const InputRank& x = a.ranks[i];
    const InputRank& y = b.ranks[i];
    if (x == y) continue;
    const std::string position = "the input's rank #" + std::to_string(i + 1);
    if (x.rank_id != y.rank_id) {
      return position + " is " +
             sides("rank " + std::to_string(x.rank_id) + " (" + x.path + ")",
                   "rank " + std::to_string(y.rank_id) + " (" + y.path + ")");
    }
    const std::string rank = "rank " + std::to_string(x.rank_id);
    if (x.path != y.path) return rank + " is read from " + sides(x.path, y.path);
    if (x.never_parsed != y.never_parsed) {
      const auto state = [](const InputRank& r) {
        return r.never_parsed ? std::string("raw data never parsed into a database") : std::string("a database");
      };
      return rank + " (" + x.path + ") has " + sides(state(x), state(y));
    }
    const auto file = [](const InputRank& r) {
      return std::to_string(r.size) + " bytes modified at " + std::to_string(r.mtime_ns) + " ns";
    };
    return rank + "'s database differs (size or modification time): " + x.path + ": " + sides(file(x), file(y));
  }
  if (a.ranks.size() != b.ranks.size()) {
    return "the input has " + sides(std::to_string(a.ranks.size()) + " ranks", std::to_string(b.ranks.size()));
  }
  if (a.digest != b.digest) return "input digest " + sides(a.digest, b.digest);
  return {};
}

}  // namespace opmfu::engine
