#include "engine/discovery.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/file_io.h"
#include "common/text.h"
#include "engine/profiler_info.h"
#include "engine/text_export.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDiscoveryDepth = 5;
const char* const kOutputDirectory = "ASCEND_PROFILER_OUTPUT";

// A name that is `ascend_pytorch_profiler[_<digits>].db`: its rank (-1 without a suffix), or
// nullopt when the digits are above INT64_MAX (upstream's int() would take them; the output's
// INTEGER rank_id could not).
struct DbName {
  std::optional<std::int64_t> rank;
};
std::optional<DbName> RankOfDbName(const std::string& name) {
  if (name == "ascend_pytorch_profiler.db") return DbName{-1};
  // Any number of digits, leading zeros included: upstream's rank is int(<digits>).
  const auto digits = DigitsBetween(name, "ascend_pytorch_profiler_", ".db", std::string::npos);
  if (!digits) return std::nullopt;
  return DbName{DecimalInt64(*digits)};
}

// Upstream's tie-break: int() of the third-from-last '_' token of the path, e.g. the timestamp of
// `{worker}_{timestamp}_ascend_pt`; as digits without leading zeros, so that any length compares.
std::optional<std::string> PathTimestamp(const fs::path& directory) {
  const std::vector<std::string> tokens = SplitString(directory.string(), '_');
  if (tokens.size() < 3) return std::nullopt;
  const std::string& token = tokens[tokens.size() - 3];
  if (token.empty() || !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const std::size_t first = std::min(token.find_first_not_of('0'), token.size() - 1);
  return token.substr(first);
}

bool LaterTimestamp(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

struct Walker {
  Discovery& discovery;
  ExportSource source = ExportSource::kDb;
  std::set<std::pair<dev_t, ino_t>> visited;
  std::map<std::int64_t, std::vector<RankLocation>> found;
  std::vector<RankLocation> unparsed;

  void Visit(const fs::path& directory, int depth) {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return;
    if (!visited.insert({info.st_dev, info.st_ino}).second) return;  // a symlink loop or a second path
    ++discovery.directories_searched;
    std::error_code ec;
    fs::directory_iterator it(directory, ec);
    if (ec) {
      discovery.problems.push_back(directory.string() + ": cannot read the directory: " + ec.message() +
                                   " (nothing below it was analysed)");
      return;
    }
    std::vector<fs::path> subdirectories;
    for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
      // An entry that cannot be stat'ed (a symlink loop) is skipped and said; it must not end
      // the scan of its siblings. Dangling symlinks are skipped quietly.
      std::error_code entry_error;
      if (it->is_directory(entry_error)) {
        subdirectories.push_back(it->path());
      } else if (entry_error && entry_error != std::errc::no_such_file_or_directory) {
        discovery.problems.push_back(it->path().string() + ": skipped: " + entry_error.message() +
                                     " (nothing below it was analysed)");
      }
    }
    std::sort(subdirectories.begin(), subdirectories.end());
    const fs::path output = directory / kOutputDirectory;
    bool registered = false;
    if (std::find(subdirectories.begin(), subdirectories.end(), output) != subdirectories.end()) {
      registered = Register(directory);
    }
    const bool raw_data = std::any_of(subdirectories.begin(), subdirectories.end(),
                                      [](const fs::path& p) { return p.filename().string().rfind("PROF_", 0) == 0; });
    if (!registered && raw_data) {
      const std::int64_t rank = RankFromProfilerInfoName(directory).value_or(-1);
      const std::string db_name =
          rank >= 0 ? "ascend_pytorch_profiler_" + std::to_string(rank) + ".db" : "ascend_pytorch_profiler.db";
      unparsed.push_back({rank, directory, output / db_name, {}, true});
    }
    const std::size_t located_before = Located();
    if (depth < kMaxDiscoveryDepth) {
      for (const fs::path& subdirectory : subdirectories) Visit(subdirectory, depth + 1);
    }
    // A rank directory by its name that gave no rank, here or below: say so rather than analyse
    // the others as if it were not there.
    if (!registered && !raw_data && Located() == located_before &&
        directory.filename().string().ends_with("_ascend_pt")) {
      const bool has_output = std::find(subdirectories.begin(), subdirectories.end(), output) != subdirectories.end();
      discovery.problems.push_back(
          directory.string() + ": " +
          (has_output ? std::string("its ASCEND_PROFILER_OUTPUT holds no ascend_pytorch_profiler[_<rank>].db and no "
                                    "Text export (kernel_details.csv, trace_view.json)")
                      : std::string("no ASCEND_PROFILER_OUTPUT and no raw PROF_* data")) +
          ", so this profiling directory gave no rank");
    }
  }

  std::size_t Located() const {
    std::size_t count = unparsed.size();
    for (const auto& [rank, locations] : found) count += locations.size();
    return count;
  }

  bool Register(const fs::path& directory) {
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(directory / kOutputDirectory, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    const fs::path output = directory / kOutputDirectory;
    const bool text = HoldsTextExport(output);
    if (text && source == ExportSource::kText) return RegisterText(directory);
    for (const std::string& name : names) {
      if (auto db_name = RankOfDbName(name)) {
        const std::optional<std::int64_t> rank = db_name->rank;
        if (!rank) {
          discovery.problems.push_back((directory / kOutputDirectory / name).string() +
                                       ": the rank number is above 9223372036854775807, so this database was not read");
          return true;
        }
        if (*rank == -1) {
          discovery.notes.push_back("No rank_id for " + (directory / kOutputDirectory / name).string() +
                                    ". Using default value -1.");
        }
        found[*rank].push_back({*rank, directory, directory / kOutputDirectory / name, {}, false});
        return true;
      }
    }
    // `ascend_pytorch_profiler_-1.db`, `..._x.db`: torch_npu's name with something other than a
    // rank in it. Said as such, not as a run that was never parsed (its PROF_* data is there).
    for (const std::string& name : names) {
      if (name.starts_with("ascend_pytorch_profiler_") && name.ends_with(".db") && !text) {
        const std::string middle = name.substr(24, name.size() - 24 - 3);
        discovery.problems.push_back((directory / kOutputDirectory / name).string() + ": '" + middle +
                                     "' in the name is not a rank number (digits, as torch_npu writes "
                                     "ascend_pytorch_profiler_<rank>.db), so this database was not read");
        return true;
      }
    }
    return text && RegisterText(directory);
  }

  bool RegisterText(const fs::path& directory) {
    const std::int64_t rank = RankFromProfilerInfoName(directory).value_or(-1);
    if (rank == -1) {
      discovery.notes.push_back("No rank_id for the Text export " + (directory / kOutputDirectory).string() +
                                " (no profiler_info_<rank>.json). Using default value -1.");
    }
    RankLocation location{rank, directory, directory / kOutputDirectory, {}, false};
    location.text_export = true;
    found[rank].push_back(std::move(location));
    return true;
  }
};

}  // namespace

const char* ExportName(const RankLocation& location) { return location.text_export ? "Text" : "Db"; }

Result<Discovery> DiscoverRanks(const fs::path& path, ExportSource source) {
  Discovery discovery;
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error::Input(path.string() + ": No such file or directory");
  fs::path root = fs::absolute(path, ec).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();
  if (fs::is_regular_file(root, ec)) {
    if (!RankOfDbName(root.filename().string()) || root.parent_path().filename() != kOutputDirectory) {
      return Error::Input(path.string() + ": not a profiling directory or an ascend_pytorch_profiler_<rank>.db");
    }
    root = root.parent_path().parent_path();
    discovery.correction =
        "-d names a database; -d should be the directory above ASCEND_PROFILER_OUTPUT: " + root.string();
  } else if (root.filename() == kOutputDirectory) {
    root = root.parent_path();
    discovery.correction =
        "-d names ASCEND_PROFILER_OUTPUT itself; -d should be the directory above it: " + root.string();
  }
  discovery.root = root;
  Walker walker{discovery, source, {}, {}, {}};
  walker.Visit(root, 0);
  for (auto& [rank, locations] : walker.found) {
    std::sort(locations.begin(), locations.end(),
              [](const RankLocation& a, const RankLocation& b) { return a.rank_directory < b.rank_directory; });
    std::size_t chosen = 0;
    if (locations.size() > 1) {
      // Newest by the path's timestamp token, as upstream picks; by file time when a path has none.
      const bool stamped = std::all_of(locations.begin(), locations.end(), [](const RankLocation& l) {
        return PathTimestamp(l.rank_directory).has_value();
      });
      for (std::size_t i = 1; i < locations.size(); ++i) {
        const bool newer = stamped ? LaterTimestamp(*PathTimestamp(locations[i].rank_directory),
                                                    *PathTimestamp(locations[chosen].rank_directory))
                                   : fs::last_write_time(locations[i].db_path, ec) >
                                         fs::last_write_time(locations[chosen].db_path, ec);
        if (newer) chosen = i;
      }
      std::string ignored;
      for (std::size_t i = 0; i < locations.size(); ++i) {
        if (i == chosen) continue;
        locations[chosen].ignored_directories.push_back(locations[i].rank_directory);
        ignored += (ignored.empty() ? "" : ", ") + locations[i].rank_directory.string();
      }
      discovery.notes.push_back("rank " + std::to_string(rank) + ": " + std::to_string(locations.size()) +
                                " profiling directories; used " + locations[chosen].rank_directory.string() +
                                (stamped ? " (latest timestamp)" : " (newest database)") + ", ignored " + ignored +
                                (stamped
                                     ? ""
                                     : "; msprof-analyze would drop this rank, since a directory name has no numeric "
                                       "{worker}_{timestamp}_ascend_pt timestamp"));
    }
    discovery.ranks.push_back(locations[chosen]);
  }
  std::sort(walker.unparsed.begin(), walker.unparsed.end(), [](const RankLocation& a, const RankLocation& b) {
    return std::tie(a.rank_id, a.rank_directory) < std::tie(b.rank_id, b.rank_directory);
  });
  for (RankLocation& location : walker.unparsed) {
    if (walker.found.contains(location.rank_id)) {
      discovery.notes.push_back("rank " + std::to_string(location.rank_id) + ": ignored " +
                                location.rank_directory.string() +
                                ", raw data that was never parsed (the rank's parsed directory is used)");
      continue;
    }
    discovery.unparsed.push_back(std::move(location));
  }
  if (discovery.ranks.empty() && discovery.unparsed.empty() && !discovery.problems.empty()) {
    // What was found and why it gave no rank, rather than that nothing was there.
    return Error::Input(discovery.problems.front() +
                        (discovery.problems.size() > 1
                             ? " (and " + std::to_string(discovery.problems.size() - 1) + " more problems like it)"
                             : std::string()) +
                        "; no rank to analyse under " + path.string() + " (" +
                        std::to_string(discovery.directories_searched) + " directories searched)");
  }
  if (discovery.ranks.empty() && discovery.unparsed.empty()) {
    return Error::Input("no profiling data under " + path.string() + ": looked for */ASCEND_PROFILER_OUTPUT/" +
                        "ascend_pytorch_profiler[_<rank>].db or a Text export (kernel_details.csv, trace_view.json) "
                        "up to 5 levels deep (" +
                        std::to_string(discovery.directories_searched) + " directories searched)");
  }
  return discovery;
}

std::vector<std::string> DescribeProblems(const Discovery& discovery, std::size_t limit) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < discovery.problems.size() && i < limit; ++i) lines.push_back(discovery.problems[i]);
  if (discovery.problems.size() > limit) {
    lines.push_back(discovery.root.string() + ": and " + std::to_string(discovery.problems.size() - limit) +
                    " more directories like these");
  }
  return lines;
}

std::string NeverParsedCause(const RankLocation& location) {
  std::string cause = location.rank_directory.string() + ": raw profiling data (PROF_*) but no " +
                      (location.db_path.parent_path().filename() / location.db_path.filename()).string() +
                      ": the run was never parsed";
  auto recorded = ReadRecordedConfig(location.rank_directory, location.rank_id);
  const std::vector<std::string>* recorded_types =
      recorded.ok() && *recorded ? (*recorded)->List(SettingId::kExportType) : nullptr;
  if (recorded_types != nullptr) {
    const auto& types = *recorded_types;
    if (std::none_of(types.begin(), types.end(), [](const std::string& t) { return t == "db"; })) {
      std::string list;
      for (const std::string& type : types) list += (list.empty() ? "" : ", ") + type;
      cause +=
          " to a database (this run had _export_type=[" + list + "], " + (*recorded)->file.filename().string() + ")";
    }
  }
  // torch_npu's documented offline parse; profiler_path is the directory holding the *_ascend_pt.
  return cause + "; parse it offline: python3 -c \"from torch_npu.profiler.profiler import analyse; analyse(" +
         "profiler_path='" + location.rank_directory.parent_path().string() + "', export_type=['db'])\"";
}

}  // namespace opmfu::engine
