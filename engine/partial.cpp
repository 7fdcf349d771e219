#include "engine/partial.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "common/file_io.h"
#include "common/output_file.h"
#include "common/sqlite.h"
#include "engine/stage_clock.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSchema =
    "CREATE TABLE shard_info (key TEXT PRIMARY KEY, value);"
    "CREATE TABLE input_ranks (position INTEGER PRIMARY KEY, rank_id INTEGER, shard INTEGER, path TEXT, "
    "never_parsed INTEGER, size INTEGER, mtime_ns INTEGER);"
    "CREATE TABLE discovery_notes (seq INTEGER PRIMARY KEY, text TEXT);"
    "CREATE TABLE unknown_ranks (seq INTEGER PRIMARY KEY, rank_id INTEGER);"
    "CREATE TABLE ranks (position INTEGER PRIMARY KEY, rank_id INTEGER, rank_directory TEXT, db_path TEXT, "
    "never_parsed INTEGER, text_export INTEGER, status TEXT, failure TEXT, no_rows_reason TEXT, all_kernels_matched "
    "INTEGER, "
    "all_messages_parsed INTEGER, operator_rows INTEGER, module_rows INTEGER);"
    "CREATE TABLE rank_notes (position INTEGER, level TEXT, text TEXT);"
    "CREATE TABLE rank_stages (position INTEGER, stage TEXT, wall_seconds REAL, cpu_seconds REAL, peak_rss_bytes "
    "INTEGER);"
    // Doubles as their IEEE-754 bits (an INTEGER): SQLite would store -0.0 as 0 and NaN as NULL.
    "CREATE TABLE operator_mfu (position INTEGER, rank_id INTEGER, op_name TEXT, kernel_name TEXT, "
    "kernel_start INTEGER, kernel_end INTEGER, kernel_duration INTEGER, mfu_bits INTEGER, actual_tflops_bits "
    "INTEGER, chip_peak_tflops_bits INTEGER, flops INTEGER, flops_op_name TEXT, input_shapes TEXT, "
    "output_shapes TEXT);"
    "CREATE TABLE module_mfu (position INTEGER, rank_id INTEGER, parent_module TEXT, module TEXT, op_name TEXT, "
    "kernel_list TEXT, total_kernel_duration_bits INTEGER, avg_kernel_duration_bits INTEGER, op_count INTEGER, "
    "avg_mfu TEXT);";

std::int64_t Bits(double value) { return std::bit_cast<std::int64_t>(value); }
double FromBits(std::int64_t bits) { return std::bit_cast<double>(bits); }
std::int64_t Int(std::size_t value) { return static_cast<std::int64_t>(value); }

Status BindOne(Statement& statement, int index, std::int64_t value) { return statement.Bind(index, value); }
Status BindOne(Statement& statement, int index, double value) { return statement.Bind(index, value); }
Status BindOne(Statement& statement, int index, std::string_view value) { return statement.Bind(index, value); }
Status BindOne(Statement& statement, int index, const std::optional<std::string_view>& value) {
  return value ? statement.Bind(index, *value) : statement.BindNull(index);
}
Status BindOne(Statement& statement, int index, const std::optional<std::int64_t>& value) {
  return value ? statement.Bind(index, *value) : statement.BindNull(index);
}

// Binds `values` to ?1, ?2, ... and runs the statement once.
template <typename... Values>
Status Insert(Statement& statement, const Values&... values) {
  int index = 0;
  Status bound = Ok();
  ((bound = bound.ok() ? BindOne(statement, ++index, values) : bound), ...);
  OPMFU_RETURN_IF_ERROR(bound);
  OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
  (void)row;
  return statement.Reset();
}

std::optional<std::string_view> OptionalText(const std::optional<std::string>& text) {
  return text ? std::optional<std::string_view>(*text) : std::nullopt;
}

const char* LevelName(RankNote::Level level) {
  switch (level) {
    case RankNote::Level::kInfo:
      return "info";
    case RankNote::Level::kWarning:
      return "warning";
    case RankNote::Level::kError:
      return "error";
  }
  return "info";
}

// RankAnalysis::data_errors, kept beside the notes in rank_notes.
constexpr std::string_view kDataErrorLevel = "data_error";

RankNote::Level LevelOf(std::string_view name) {
  if (name == "error") return RankNote::Level::kError;
  if (name == "warning") return RankNote::Level::kWarning;
  return RankNote::Level::kInfo;
}

Status WriteContent(Database& db, const ShardSpec& shard, const InputIdentity& input, const AnalyzeReport& report) {
  OPMFU_RETURN_IF_ERROR(db.Execute(kSchema));
  {
    OPMFU_ASSIGN_OR_RETURN(Statement info, db.Prepare("INSERT INTO shard_info VALUES (?1, ?2)"));
    const auto text = [&](std::string_view key, std::string_view value) { return Insert(info, key, value); };
    const auto number = [&](std::string_view key, std::optional<std::int64_t> value) {
      return Insert(info, key, value);
    };
    OPMFU_RETURN_IF_ERROR(text("format", kPartialFormat));
    OPMFU_RETURN_IF_ERROR(number("shard_index", Int(shard.index)));
    OPMFU_RETURN_IF_ERROR(number("shard_count", Int(shard.count)));
    OPMFU_RETURN_IF_ERROR(text("input_digest", input.digest));
    OPMFU_RETURN_IF_ERROR(text("root", report.discovery.root.string()));
    OPMFU_RETURN_IF_ERROR(text("correction", report.discovery.correction));
    OPMFU_RETURN_IF_ERROR(number("step_id", input.step_id));
    OPMFU_RETURN_IF_ERROR(text("rank_list", input.rank_list));
    OPMFU_RETURN_IF_ERROR(number("input_ranks", Int(input.ranks.size())));
    OPMFU_RETURN_IF_ERROR(number("analysed_ranks", Int(report.ranks.size())));
    OPMFU_RETURN_IF_ERROR(number("failed_ranks", Int(report.failed_ranks())));
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO input_ranks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    for (const InputRank& rank : input.ranks) {
      OPMFU_RETURN_IF_ERROR(Insert(insert, Int(rank.position), rank.rank_id, Int(ShardOf(rank.position, shard.count)),
                                   std::string_view(rank.path), Int(rank.never_parsed ? 1 : 0), rank.size,
                                   rank.mtime_ns));
    }
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO discovery_notes VALUES (?1, ?2)"));
    // Discovery problems (each an exit 1) under negative numbers, notes from 0: one table for both.
    for (std::size_t i = 0; i < report.discovery.problems.size(); ++i) {
      OPMFU_RETURN_IF_ERROR(Insert(insert, -1 - Int(i), std::string_view(report.discovery.problems[i])));
    }
    for (std::size_t i = 0; i < report.discovery.notes.size(); ++i) {
      OPMFU_RETURN_IF_ERROR(Insert(insert, Int(i), std::string_view(report.discovery.notes[i])));
    }
    OPMFU_ASSIGN_OR_RETURN(Statement unknown, db.Prepare("INSERT INTO unknown_ranks VALUES (?1, ?2)"));
    for (std::size_t i = 0; i < report.unknown_ranks.size(); ++i) {
      OPMFU_RETURN_IF_ERROR(Insert(unknown, Int(i), report.unknown_ranks[i]));
    }
  }
  OPMFU_ASSIGN_OR_RETURN(
      Statement rank_insert,
      db.Prepare("INSERT INTO ranks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
  OPMFU_ASSIGN_OR_RETURN(Statement note_insert, db.Prepare("INSERT INTO rank_notes VALUES (?1, ?2, ?3)"));
  OPMFU_ASSIGN_OR_RETURN(Statement stage_insert, db.Prepare("INSERT INTO rank_stages VALUES (?1, ?2, ?3, ?4, ?5)"));
  OPMFU_ASSIGN_OR_RETURN(Statement operator_insert,
                         db.Prepare("INSERT INTO operator_mfu VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                                    "?12, ?13, ?14)"));
  OPMFU_ASSIGN_OR_RETURN(Statement module_insert,
                         db.Prepare("INSERT INTO module_mfu VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  // The tables hold the ranks' rows one rank after the other, in report.ranks order.
  auto operator_row = report.tables.operator_rows.begin();
  std::size_t module_row = 0;
  for (std::size_t j = 0; j < report.ranks.size(); ++j) {
    const RankOutcome& rank = report.ranks[j];
    const std::int64_t position = Int(shard.index + j * shard.count);
    const RankAnalysis& analysis = rank.analysis;
    OPMFU_RETURN_IF_ERROR(Insert(
        rank_insert, position, rank.location.rank_id, std::string_view(rank.location.rank_directory.native()),
        std::string_view(rank.location.db_path.native()), Int(rank.location.never_parsed ? 1 : 0),
        Int(rank.location.text_export ? 1 : 0), std::string_view(rank.failure ? "failed" : "ok"),
        OptionalText(rank.failure), OptionalText(analysis.no_rows_reason), Int(analysis.all_kernels_matched ? 1 : 0),
        Int(analysis.all_messages_parsed ? 1 : 0), Int(rank.operator_rows), Int(rank.module_rows)));
    for (const RankNote& note : analysis.notes) {
      OPMFU_RETURN_IF_ERROR(
          Insert(note_insert, position, std::string_view(LevelName(note.level)), std::string_view(note.text)));
    }
    for (const std::string& error : analysis.data_errors) {
      OPMFU_RETURN_IF_ERROR(Insert(note_insert, position, std::string_view(kDataErrorLevel), std::string_view(error)));
    }
    for (const StageTime& stage : analysis.stages) {
      OPMFU_RETURN_IF_ERROR(Insert(stage_insert, position, std::string_view(stage.name), stage.wall_seconds,
                                   stage.cpu_seconds, Int(stage.peak_rss_bytes)));
    }
    for (std::size_t k = 0; k < rank.operator_rows; ++k, ++operator_row) {
      const OperatorMfuRow& row = *operator_row;
      OPMFU_RETURN_IF_ERROR(Insert(operator_insert, position, row.rank_id, row.op_name(), row.kernel_name(),
                                   row.kernel_start, row.kernel_end, row.kernel_duration, Bits(row.mfu),
                                   Bits(row.actual_tflops), Bits(row.chip_peak_tflops), row.flops, row.flops_op_name(),
                                   row.input_shapes(), row.output_shapes()));
    }
    for (std::size_t k = 0; k < rank.module_rows; ++k, ++module_row) {
      const ModuleMfuRow& row = report.tables.module_rows[module_row];
      OPMFU_RETURN_IF_ERROR(Insert(module_insert, position, row.rank_id, std::string_view(row.parent_module),
                                   std::string_view(row.module), std::string_view(row.op_name),
                                   std::string_view(row.kernel_list), Bits(row.total_kernel_duration),
                                   Bits(row.avg_kernel_duration), row.op_count, std::string_view(row.avg_mfu)));
    }
  }
  return Ok();
}

}  // namespace

Status WritePartial(const fs::path& path, const fs::path& tree, const ShardSpec& shard, const InputIdentity& input,
                    const AnalyzeReport& report) {
  return WriteDatabaseAtomically(
      path, AtomicDatabaseStart::kEmpty, [&](Database& db) { return WriteContent(db, shard, input, report); }, tree);
}

namespace {

struct Partial {
  fs::path path;
  ShardSpec spec;
  InputIdentity input;
  std::string root;
  std::string correction;
  std::optional<Database> db;

  std::string Name() const {
    return path.string() + " (shard " + std::to_string(spec.index) + " of " + std::to_string(spec.count) + ")";
  }
};

Error NotAPartial(const fs::path& path, const std::string& why) {
  return Error::Usage(path.string() + ": not an opmfu shard partial (" + why +
                      "); opmfu analyze --shard I/N -o DIR writes DIR/" + kPartialDirectory + "/shard_<I>_of_<N>.db");
}

Error Damaged(const fs::path& path, const std::string& why) {
  return Error::Usage(path.string() + ": damaged shard partial: " + why + "; run that shard again");
}

// Each argument as partial files: a shard's -o folder, its opmfu_partial folder, or a file.
Result<std::vector<fs::path>> ExpandPartials(const std::vector<fs::path>& arguments) {
  std::vector<fs::path> files;
  for (const fs::path& argument : arguments) {
    std::error_code ec;
    const fs::file_status status = fs::status(argument, ec);
    if (!fs::exists(status)) return Error::Usage(argument.string() + ": No such file or directory");
    if (!fs::is_directory(status)) {
      files.push_back(argument);
      continue;
    }
    fs::path folder = argument.has_filename() ? argument : argument.parent_path();
    if (folder.filename() != kPartialDirectory) folder /= kPartialDirectory;
    std::vector<std::pair<ShardSpec, fs::path>> found;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (auto spec = ShardOfPartialName(it->path().filename().string())) found.emplace_back(*spec, it->path());
    }
    if (found.empty()) {
      return Error::Usage(argument.string() + ": not a shard output: no " + kPartialDirectory +
                          "/shard_<I>_of_<N>.db in it (opmfu analyze --shard I/N -o " + argument.string() +
                          " writes one)");
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first.count, a.first.index, a.second) < std::tie(b.first.count, b.first.index, b.second);
    });
    for (auto& [spec, path] : found) files.push_back(std::move(path));
  }
  return files;
}

std::optional<std::int64_t> ParseInt(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

Result<Partial> OpenPartial(const fs::path& path) {
  Partial partial;
  partial.path = path;
  NoteRunInput(path);  // merge's inputs: no output may replace one
  auto db = Database::OpenReadOnly(path);
  if (!db.ok()) return NotAPartial(path, db.error().message);
  OPMFU_ASSIGN_OR_RETURN(bool has_info, db->HasTable("shard_info"));
  if (!has_info) return NotAPartial(path, "no shard_info table");
  std::map<std::string, std::optional<std::string>> info;
  {
    OPMFU_ASSIGN_OR_RETURN(Statement statement, db->Prepare("SELECT key, value FROM shard_info"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      info[std::string(statement.Text(0))] =
          statement.IsNull(1) ? std::nullopt : std::optional<std::string>(statement.Text(1));
    }
  }
  const auto format = info.find("format");
  if (format == info.end() || !format->second) return NotAPartial(path, "no format in shard_info");
  if (*format->second != kPartialFormat) {
    return Error::Usage(path.string() + ": a shard partial in format " + *format->second + ", this opmfu reads " +
                        kPartialFormat + "; run every shard with the same opmfu");
  }
  const auto index = ParseInt(info["shard_index"]);
  const auto count = ParseInt(info["shard_count"]);
  if (!index || !count || *count < 1 || *index < 0 || *index >= *count) {
    return Damaged(path, "no valid shard_index/shard_count");
  }
  // Checked before anything is sized by it (merging allocates per shard: 2^31 took 12 GB).
  if (static_cast<std::uint64_t>(*count) > kMaxShards) {
    return Damaged(path, "shard_count " + std::to_string(*count) + " is above the " + std::to_string(kMaxShards) +
                             " shards opmfu writes");
  }
  partial.spec = {static_cast<std::size_t>(*index), static_cast<std::size_t>(*count)};
  partial.root = info["root"].value_or("");
  partial.correction = info["correction"].value_or("");
  partial.input.step_id = ParseInt(info["step_id"]);
  partial.input.rank_list = info["rank_list"].value_or("");
  {
    OPMFU_ASSIGN_OR_RETURN(
        Statement statement,
        db->Prepare("SELECT position, rank_id, path, never_parsed, size, mtime_ns FROM input_ranks ORDER BY position"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      InputRank rank;
      rank.position = static_cast<std::size_t>(statement.Int64(0));
      rank.rank_id = statement.Int64(1);
      rank.path = std::string(statement.Text(2));
      rank.never_parsed = statement.Int64(3) != 0;
      rank.size = statement.Int64(4);
      rank.mtime_ns = statement.Int64(5);
      if (rank.position != partial.input.ranks.size()) return Damaged(path, "input_ranks has a gap");
      partial.input.ranks.push_back(std::move(rank));
    }
  }
  {
    // Discovery keeps one database per rank id: a repeated id is an edited file, and merging it
    // would count that rank's rows twice.
    std::set<std::int64_t> parsed_ids;
    for (const InputRank& rank : partial.input.ranks) {
      if (!rank.never_parsed && !parsed_ids.insert(rank.rank_id).second) {
        return Damaged(path, "input_ranks lists rank " + std::to_string(rank.rank_id) + " twice");
      }
    }
  }
  partial.input.digest = DigestOf(partial.input);
  if (partial.input.digest != info["input_digest"].value_or("")) {
    return Damaged(path, "its input list does not match its digest");
  }
  partial.db = std::move(*db);
  return partial;
}

std::string RankIds(const InputIdentity& input, std::size_t shard, std::size_t count) {
  std::string ids;
  std::size_t listed = 0;
  std::size_t total = 0;
  for (std::size_t position = shard; position < input.ranks.size(); position += count) {
    ++total;
    if (listed < 10) {
      ids += (ids.empty() ? "" : ", ") + std::to_string(input.ranks[position].rank_id);
      ++listed;
    }
  }
  if (total == 0) return "no ranks";
  if (total > listed) ids += ", ... (" + std::to_string(total) + " in all)";
  return (total == 1 ? "rank " : "ranks ") + ids;
}

// Checks that the partials are exactly one complete set: same N, same input, every shard once.
Status CheckSet(const std::vector<Partial>& partials) {
  const Partial& first = partials.front();
  for (const Partial& partial : partials) {
    if (partial.spec.count != first.spec.count) {
      return Error::Usage("shards of different N: " + first.Name() + " and " + partial.Name());
    }
  }
  for (const Partial& partial : partials) {
    if (partial.input.digest != first.input.digest) {
      return Error::Usage("shards of different inputs: " + first.Name() + " and " + partial.Name() + ": " +
                          DescribeDifference(first.input, partial.input, first.Name(), partial.Name()));
    }
  }
  const std::size_t count = first.spec.count;
  std::vector<const Partial*> by_index(count, nullptr);
  for (const Partial& partial : partials) {
    const Partial*& slot = by_index[partial.spec.index];
    if (slot != nullptr) {
      return Error::Usage("shard " + std::to_string(partial.spec.index) + " of " + std::to_string(count) +
                          " given twice: " + slot->path.string() + " and " + partial.path.string());
    }
    slot = &partial;
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < count; ++i) {
    if (by_index[i] == nullptr) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string text;
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i) {
      text += (i == 0 ? "" : ", ") + std::to_string(missing[i]) + " (" + RankIds(first.input, missing[i], count) + ")";
    }
    if (missing.size() > 10) text += ", ... (" + std::to_string(missing.size()) + " in all)";
    return Error::Usage("incomplete set of shards: missing shard" + std::string(missing.size() == 1 ? " " : "s ") +
                        text + " of " + std::to_string(count) + " (shards are numbered from 0)");
  }
  return Ok();
}

// One rank as its shard recorded it, with its rows.
struct MergedRank {
  bool present = false;
  RankOutcome outcome;
  std::shared_ptr<StringPool> strings;
  std::vector<OperatorMfuRow> operator_rows;
  std::vector<ModuleMfuRow> module_rows;
};

std::optional<std::string> OptionalColumn(const Statement& statement, int column) {
  if (statement.IsNull(column)) return std::nullopt;
  return std::string(statement.Text(column));
}

// Reads one partial's ranks and rows into their positions of `ranks`.
Status ReadPartial(Partial& partial, std::vector<MergedRank>& ranks) {
  Database& db = *partial.db;
  const std::size_t count = partial.spec.count;
  const auto slot = [&](std::int64_t position, std::string_view table) -> Result<MergedRank*> {
    if (position < 0 || static_cast<std::size_t>(position) >= ranks.size() ||
        ShardOf(static_cast<std::size_t>(position), count) != partial.spec.index) {
      return Damaged(partial.path, std::string(table) + " holds a rank of another shard");
    }
    return &ranks[static_cast<std::size_t>(position)];
  };
  std::size_t seen = 0;
  {
    OPMFU_ASSIGN_OR_RETURN(
        Statement statement,
        db.Prepare("SELECT position, rank_id, rank_directory, db_path, never_parsed, text_export, failure, "
                   "no_rows_reason, all_kernels_matched, all_messages_parsed, operator_rows, "
                   "module_rows FROM ranks ORDER BY position"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      OPMFU_ASSIGN_OR_RETURN(MergedRank * rank, slot(statement.Int64(0), "ranks"));
      if (rank->present) return Damaged(partial.path, "a rank listed twice");
      const auto position = static_cast<std::size_t>(statement.Int64(0));
      const std::int64_t listed = position < partial.input.ranks.size() ? partial.input.ranks[position].rank_id : -1;
      if (statement.Int64(1) != listed) {
        return Damaged(partial.path, "ranks holds rank " + std::to_string(statement.Int64(1)) +
                                         " where input_ranks has rank " + std::to_string(listed));
      }
      rank->present = true;
      ++seen;
      RankOutcome& outcome = rank->outcome;
      outcome.location.rank_id = statement.Int64(1);
      outcome.location.rank_directory = std::string(statement.Text(2));
      outcome.location.db_path = std::string(statement.Text(3));
      outcome.location.never_parsed = statement.Int64(4) != 0;
      outcome.location.text_export = statement.Int64(5) != 0;
      outcome.failure = OptionalColumn(statement, 6);
      outcome.analysis.rank_id = outcome.location.rank_id;
      outcome.analysis.no_rows_reason = OptionalColumn(statement, 7);
      outcome.analysis.all_kernels_matched = statement.Int64(8) != 0;
      outcome.analysis.all_messages_parsed = statement.Int64(9) != 0;
      outcome.operator_rows = static_cast<std::size_t>(statement.Int64(10));
      outcome.module_rows = static_cast<std::size_t>(statement.Int64(11));
      rank->strings = std::make_shared<StringPool>();
      rank->operator_rows.reserve(outcome.operator_rows);
      rank->module_rows.reserve(outcome.module_rows);
    }
  }
  std::size_t expected = 0;
  for (std::size_t position = partial.spec.index; position < ranks.size(); position += count) ++expected;
  if (seen != expected) {
    return Damaged(partial.path,
                   "it records " + std::to_string(seen) + " of its " + std::to_string(expected) + " ranks");
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement statement,
                           db.Prepare("SELECT position, level, text FROM rank_notes ORDER BY rowid"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      OPMFU_ASSIGN_OR_RETURN(MergedRank * rank, slot(statement.Int64(0), "rank_notes"));
      if (statement.Text(1) == kDataErrorLevel) {
        rank->outcome.analysis.data_errors.emplace_back(statement.Text(2));
      } else {
        rank->outcome.analysis.notes.push_back({LevelOf(statement.Text(1)), std::string(statement.Text(2))});
      }
    }
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement statement,
                           db.Prepare("SELECT position, stage, wall_seconds, cpu_seconds, peak_rss_bytes FROM "
                                      "rank_stages ORDER BY rowid"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      OPMFU_ASSIGN_OR_RETURN(MergedRank * rank, slot(statement.Int64(0), "rank_stages"));
      rank->outcome.analysis.stages.push_back({std::string(statement.Text(1)), statement.Double(2), statement.Double(3),
                                               static_cast<std::size_t>(statement.Int64(4))});
    }
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement statement,
                           db.Prepare("SELECT position, rank_id, op_name, kernel_name, kernel_start, kernel_end, "
                                      "kernel_duration, mfu_bits, actual_tflops_bits, chip_peak_tflops_bits, flops, "
                                      "flops_op_name, input_shapes, output_shapes FROM operator_mfu ORDER BY rowid"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      OPMFU_ASSIGN_OR_RETURN(MergedRank * rank, slot(statement.Int64(0), "operator_mfu"));
      StringPool& strings = *rank->strings;
      const auto text = [&](int column) {
        return statement.IsNull(column) ? kNoString : strings.Intern(statement.Text(column));
      };
      OperatorMfuRow out;
      out.strings = rank->strings.get();
      out.rank_id = statement.Int64(1);
      out.op_name_id = text(2);
      out.kernel_name_id = text(3);
      out.kernel_start = statement.Int64(4);
      out.kernel_end = statement.Int64(5);
      out.kernel_duration = statement.Int64(6);
      out.mfu = FromBits(statement.Int64(7));
      out.actual_tflops = FromBits(statement.Int64(8));
      out.chip_peak_tflops = FromBits(statement.Int64(9));
      out.flops = statement.Int64(10);
      out.flops_op_name_id = text(11);
      out.input_shapes_id = text(12);
      out.output_shapes_id = text(13);
      rank->operator_rows.push_back(out);
    }
  }
  {
    OPMFU_ASSIGN_OR_RETURN(Statement statement,
                           db.Prepare("SELECT position, rank_id, parent_module, module, op_name, kernel_list, "
                                      "total_kernel_duration_bits, avg_kernel_duration_bits, op_count, avg_mfu "
                                      "FROM module_mfu ORDER BY rowid"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      OPMFU_ASSIGN_OR_RETURN(MergedRank * rank, slot(statement.Int64(0), "module_mfu"));
      ModuleMfuRow out;
      out.rank_id = statement.Int64(1);
      out.parent_module = std::string(statement.Text(2));
      out.module = std::string(statement.Text(3));
      out.op_name = std::string(statement.Text(4));
      out.kernel_list = std::string(statement.Text(5));
      out.total_kernel_duration = FromBits(statement.Int64(6));
      out.avg_kernel_duration = FromBits(statement.Int64(7));
      out.op_count = statement.Int64(8);
      out.avg_mfu = std::string(statement.Text(9));
      rank->module_rows.push_back(std::move(out));
    }
  }
  for (std::size_t position = partial.spec.index; position < ranks.size(); position += count) {
    const MergedRank& rank = ranks[position];
    if (rank.operator_rows.size() != rank.outcome.operator_rows ||
        rank.module_rows.size() != rank.outcome.module_rows) {
      return Damaged(partial.path,
                     "rank " + std::to_string(rank.outcome.location.rank_id) + "'s rows do not match its row counts");
    }
  }
  return Ok();
}

Status ReadDiscovery(Partial& partial, AnalyzeReport& report) {
  Database& db = *partial.db;
  report.discovery.root = partial.root;
  report.discovery.correction = partial.correction;
  OPMFU_ASSIGN_OR_RETURN(Statement notes, db.Prepare("SELECT seq, text FROM discovery_notes ORDER BY seq DESC"));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, notes.Step());
    if (!row) break;
    (notes.Int64(0) < 0 ? report.discovery.problems : report.discovery.notes).emplace_back(notes.Text(1));
  }
  std::reverse(report.discovery.notes.begin(), report.discovery.notes.end());
  OPMFU_ASSIGN_OR_RETURN(Statement unknown, db.Prepare("SELECT rank_id FROM unknown_ranks ORDER BY seq"));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, unknown.Step());
    if (!row) break;
    report.unknown_ranks.push_back(unknown.Int64(0));
  }
  return Ok();
}

}  // namespace

Result<AnalyzeReport> RunMerge(const MergeOptions& options) {
  if (options.partials.empty()) return Error::Usage("name the shards' output folders to merge");
  OPMFU_ASSIGN_OR_RETURN(const std::vector<fs::path> files, ExpandPartials(options.partials));
  std::vector<Partial> partials;
  partials.reserve(files.size());
  for (const fs::path& file : files) {
    OPMFU_ASSIGN_OR_RETURN(Partial partial, OpenPartial(file));
    partials.push_back(std::move(partial));
  }
  OPMFU_RETURN_IF_ERROR(CheckSet(partials));
  std::sort(partials.begin(), partials.end(),
            [](const Partial& a, const Partial& b) { return a.spec.index < b.spec.index; });

  AnalyzeReport report;
  OPMFU_RETURN_IF_ERROR(ReadDiscovery(partials.front(), report));
  std::vector<MergedRank> ranks(partials.front().input.ranks.size());
  for (Partial& partial : partials) {
    OPMFU_RETURN_IF_ERROR(ReadPartial(partial, ranks));
    report.partials.push_back(partial.path);
  }
  // As RunAnalyze assembles them: ranks in analysis order, rows appended rank by rank.
  report.ranks.reserve(ranks.size());
  for (MergedRank& rank : ranks) {
    RankOutcome& outcome = rank.outcome;
    if (outcome.operator_rows > 0) {
      report.tables.duration_integer = report.tables.duration_integer && outcome.analysis.all_kernels_matched;
      report.tables.flops_integer =
          report.tables.flops_integer && outcome.analysis.all_kernels_matched && outcome.analysis.all_messages_parsed;
    }
    report.tables.string_pools.push_back(rank.strings);
    outcome.analysis.strings = rank.strings;
    report.tables.operator_rows.Append(std::move(rank.operator_rows));
    report.tables.module_rows.insert(report.tables.module_rows.end(), std::make_move_iterator(rank.module_rows.begin()),
                                     std::make_move_iterator(rank.module_rows.end()));
    report.ranks.push_back(std::move(outcome));
  }
  report.output_directory = options.output_path / "cluster_analysis_output";
  report.figures = FigureRows(report.tables);
  report.nothing_to_write = report.tables.operator_rows.empty() && report.tables.module_rows.empty();
  if (report.nothing_to_write) return report;
  StageClock write_clock;
  OPMFU_ASSIGN_OR_RETURN(
      report.written, WriteTables(options.export_type, report.output_directory, report.tables, options.stale_tables));
  report.write = write_clock.Lap("write");
  return report;
}

}  // namespace opmfu::engine
