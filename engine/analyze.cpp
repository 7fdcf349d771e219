#include "engine/analyze.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <unordered_map>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "common/output_file.h"
#include "common/parallel.h"
#include "engine/coverage.h"
#include "engine/partial.h"
#include "engine/xlsx_export.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

std::size_t AnalyzeReport::failed_ranks() const {
  return static_cast<std::size_t>(
      std::count_if(ranks.begin(), ranks.end(), [](const RankOutcome& r) { return r.failure.has_value(); }));
}

bool AnalyzeReport::clean() const {
  return failed_ranks() == 0 && discovery.problems.empty() &&
         std::none_of(ranks.begin(), ranks.end(), [](const RankOutcome& r) { return !r.analysis.data_errors.empty(); });
}

std::string DescribeFailure(const RankOutcome& outcome) {
  if (!outcome.failure) return {};
  const std::string& cause = *outcome.failure;
  const std::string db = outcome.location.db_path.string();
  const std::string directory = outcome.location.rank_directory.string();
  if (cause.find(db) != std::string::npos || (!directory.empty() && cause.rfind(directory, 0) == 0)) return cause;
  return db + ": " + cause;
}

void RowFigures::Add(const OperatorMfuRow& row) {
  const std::size_t position = operator_rows_++;
  const double m = row.mfu;
  bands_[m < 0.2 ? 0 : m < 0.3 ? 1 : m < 0.6 ? 2 : m < 0.7 ? 3 : 4]++;
  const double time = static_cast<double>(row.kernel_duration);
  weighted_ += row.mfu * time;
  duration_ += time;
  const auto lower = [](const Ranked& a, const Ranked& b) { return a.mfu != b.mfu ? a.mfu < b.mfu : a.row < b.row; };
  const auto higher = [&](const Ranked& a, const Ranked& b) { return lower(b, a); };
  if (!IsComputeKernelName(row.kernel_name().value_or(""))) {
    ++auxiliary_rows_;
    auxiliary_weighted_ += row.mfu * time;
    auxiliary_duration_ += time;
    Keep(highest_auxiliary_, row, position, higher);
    return;
  }
  compute_weighted_ += row.mfu * time;
  compute_duration_ += time;
  Keep(lowest_, row, position, lower);
  Keep(highest_, row, position, higher);
}

// Keeps `row` among the first kListed of `kept` (ordered by `before`) if it belongs there; its
// strings are copied only then.
template <typename Before>
void RowFigures::Keep(std::vector<Ranked>& kept, const OperatorMfuRow& row, std::size_t position, Before before) {
  Ranked candidate{row.mfu, position, {}};
  if (kept.size() == kListed && !before(candidate, kept.back())) return;
  const auto optional_copy = [](std::optional<std::string_view> text) {
    return text ? std::optional<std::string>(*text) : std::nullopt;
  };
  candidate.line = {row.mfu,
                    row.rank_id,
                    optional_copy(row.op_name()),
                    optional_copy(row.kernel_name()),
                    row.kernel_duration,
                    row.actual_tflops,
                    optional_copy(row.input_shapes())};
  const auto at = std::upper_bound(kept.begin(), kept.end(), candidate, before);
  kept.insert(at, std::move(candidate));
  if (kept.size() > kListed) kept.pop_back();
}

std::optional<double> RowFigures::time_weighted_mfu() const {
  return duration_ > 0 ? std::optional<double>(weighted_ / duration_) : std::nullopt;
}

std::optional<double> RowFigures::compute_time_weighted_mfu() const {
  return compute_duration_ > 0 ? std::optional<double>(compute_weighted_ / compute_duration_) : std::nullopt;
}

std::optional<double> RowFigures::auxiliary_time_weighted_mfu() const {
  return auxiliary_duration_ > 0 ? std::optional<double>(auxiliary_weighted_ / auxiliary_duration_) : std::nullopt;
}

std::vector<KernelLine> RowFigures::highest_auxiliary() const {
  std::vector<KernelLine> lines;
  for (const Ranked& ranked : highest_auxiliary_) lines.push_back(ranked.line);
  return lines;
}

std::vector<KernelLine> RowFigures::lowest() const {
  std::vector<KernelLine> lines;
  for (const Ranked& ranked : lowest_) lines.push_back(ranked.line);
  return lines;
}

std::vector<KernelLine> RowFigures::highest() const {
  std::vector<KernelLine> lines;
  for (const Ranked& ranked : highest_) lines.push_back(ranked.line);
  return lines;
}

RowFigures FigureRows(const AnalysisTables& tables) {
  RowFigures figures;
  for (const OperatorMfuRow& row : tables.operator_rows) figures.Add(row);
  figures.AddModuleRows(tables.module_rows.size());
  return figures;
}

namespace {

// Keeps only the strings a rank's OperatorMFU rows point at. A rank's STRING_IDS (every MSTX
// message, every name) is many times what its rows need, and 64 ranks' full pools were most of
// a large analysis's memory.
void KeepOnlyRowStrings(RankAnalysis& analysis) {
  if (!analysis.strings) return;
  auto compact = std::make_shared<StringPool>();
  std::unordered_map<StringId, StringId> remapped;
  const auto remap = [&](StringId& id) {
    if (id == kNoString) return;
    auto [found, added] = remapped.try_emplace(id, kNoString);
    if (added) found->second = compact->Intern(analysis.strings->View(id));
    id = found->second;
  };
  for (OperatorMfuRow& row : analysis.operator_rows) {
    remap(row.op_name_id);
    remap(row.kernel_name_id);
    remap(row.flops_op_name_id);
    remap(row.input_shapes_id);
    remap(row.output_shapes_id);
    row.strings = compact.get();
  }
  analysis.strings = std::move(compact);
}

}  // namespace

Result<std::vector<fs::path>> WriteTables(ExportType export_type, const fs::path& output_directory,
                                          const AnalysisTables& tables, const std::vector<std::string>& stale_tables) {
  // The directory the user named (or the profiling directory): cluster_analysis_output/ and what
  // is in it are opmfu's, never entered through a link (docs/reliability.md).
  const fs::path tree = output_directory.parent_path();
  switch (export_type) {
    case ExportType::kDb: {
      const fs::path db = output_directory / "cluster_analysis.db";
      OPMFU_RETURN_IF_ERROR(WriteClusterDb(db, tables, stale_tables, tree));
      return std::vector<fs::path>{db};
    }
    case ExportType::kText:
      // msprof-analyze's folder is named after its recipe class, OperatorMfu.
      return WriteWorkbooks(output_directory / "OperatorMfu", tables, tree);
    case ExportType::kCsv:
      return WriteCsv(output_directory, tables, tree);
    case ExportType::kJson:
      return WriteJson(output_directory, tables, tree);
    case ExportType::kNone:
      break;
  }
  return std::vector<fs::path>{};
}

namespace {

// One malloc arena for the whole analysis. glibc gives each reader thread an arena of its own, and
// the tables a reader frees stay there, where the calculate and module stages (on the calling
// thread) never reuse them: a 1M-kernel rank peaked anywhere from 253 to 318 MB depending on which
// thread read which table, and at 244-258 MB with one arena, at the same CPU; 16 ranks with
// --jobs 2 took the same CPU too (docs/performance.md). Allocations here are mostly large
// tables, so the shared lock is not contended. Set before the analysis starts a thread; lint
// never calls this, so its many small allocations keep their per-thread arenas.
void UseOneMallocArena() {
#if defined(__GLIBC__)
  static const bool kSet = mallopt(M_ARENA_MAX, 1) == 1;
  (void)kSet;
#endif
}

}  // namespace

Result<AnalyzeReport> RunAnalyze(const AnalyzeOptions& options) {
  UseOneMallocArena();
  AnalyzeReport report;
  OPMFU_ASSIGN_OR_RETURN(report.discovery, DiscoverRanks(options.profiling_path, options.source));

  // Never-parsed directories are ranks too: each becomes a failed rank that says how to parse it.
  std::vector<RankLocation> candidates = report.discovery.ranks;
  candidates.insert(candidates.end(), report.discovery.unparsed.begin(), report.discovery.unparsed.end());
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const RankLocation& a, const RankLocation& b) { return a.rank_id < b.rank_id; });
  std::vector<RankLocation> selected = candidates;
  if (options.rank_list) {
    selected.clear();
    for (std::int64_t id : *options.rank_list) {
      auto found =
          std::find_if(candidates.begin(), candidates.end(), [&](const RankLocation& l) { return l.rank_id == id; });
      if (found == candidates.end()) {
        report.unknown_ranks.push_back(id);
      } else if (std::none_of(selected.begin(), selected.end(),
                              [&](const RankLocation& l) { return l.rank_id == id; })) {
        selected.push_back(*found);
      }
    }
    std::sort(selected.begin(), selected.end(),
              [](const RankLocation& a, const RankLocation& b) { return a.rank_id < b.rank_id; });
    if (selected.empty())
      return Error::Usage("--rank-list names no rank found under " + options.profiling_path.string());
  }

  // A shard keeps every ShardOf(position) == index rank of the whole selection; every shard
  // computes the same selection, so together they cover it once.
  std::optional<InputIdentity> input;
  if (options.shard) {
    std::string rank_list;
    if (options.rank_list) {
      for (std::int64_t id : *options.rank_list) rank_list += (rank_list.empty() ? "" : ",") + std::to_string(id);
    }
    input = IdentifyInput(selected, report.discovery.root, options.step_id, rank_list);
    report.shard = options.shard;
    report.input_ranks = selected.size();
    std::vector<RankLocation> mine;
    for (std::size_t i = options.shard->index; i < selected.size(); i += options.shard->count) {
      mine.push_back(selected[i]);
    }
    selected = std::move(mine);
  }

  const fs::path out = options.output_path ? *options.output_path : report.discovery.root;
  report.output_directory = out / "cluster_analysis_output";
  // The cluster DB is written rank by rank while later ranks are analysed, and each rank's rows
  // freed once written; --shard and the other export types keep every row until the end.
  const bool streamed = options.export_type == ExportType::kDb && !options.shard && !options.keep_rows;
  const fs::path db_path = report.output_directory / "cluster_analysis.db";
  ClusterDbWriter writer(db_path, options.stale_tables, out);
  // The rank databases are this run's inputs: no output may replace one (a hard link, an output
  // path that names the profiling data).
  for (const RankLocation& location : selected) NoteRunInput(location.db_path);
  std::optional<Error> write_error;       // set by the writing thread, read after the workers stop
  std::atomic<bool> write_failed{false};  // ...and seen by the workers, which then stop analysing
  const unsigned workers = WorkerCount(selected.size(), options.jobs);
  // A single rank leaves a core idle after its read: its OperatorMFU rows are written there while
  // its module pass runs (several ranks already keep every core busy). They are written before
  // the rank is known to succeed: if it then fails, nothing is written at all (it was the only rank).
  const bool write_early = streamed && selected.size() == 1 && HardwareCores() > 1;
  // The folders an early write may create, to remove again (when still empty) if nothing is written.
  std::vector<fs::path> new_folders;
  if (write_early) {
    std::error_code ec;
    for (const fs::path& folder : {out, report.output_directory}) {
      if (!fs::exists(folder, ec)) new_folders.push_back(folder);
    }
  }
  bool written_early = false;
  const auto write_operator_rows = [&](const std::vector<OperatorMfuRow>& rows) {
    if (write_failed) return;
    if (Status written = writer.Append(rows, {}); !written.ok()) {
      write_error = written.take_error();
      write_failed = true;
      return;
    }
    for (const OperatorMfuRow& row : rows) report.figures.Add(row);
    written_early = true;
  };
  RankOrderedWrites handoff(selected.size(), 2 * static_cast<std::size_t>(workers), [&](std::size_t i) {
    RankAnalysis& analysis = report.ranks[i].analysis;
    if (!write_failed) {
      Status written = written_early ? writer.Append({}, analysis.module_rows)
                                     : writer.Append(analysis.operator_rows, analysis.module_rows);
      if (written.ok()) {
        if (!analysis.operator_rows.empty() || analysis.operator_rows_handed_over > 0) {
          writer.NoteTypes(analysis.all_kernels_matched, analysis.all_kernels_matched && analysis.all_messages_parsed);
        }
        if (!written_early) {
          for (const OperatorMfuRow& row : analysis.operator_rows) report.figures.Add(row);
        }
        report.figures.AddModuleRows(analysis.module_rows.size());
      } else {
        write_error = written.take_error();
        write_failed = true;
      }
    }
    // Freed, not only emptied: `= {}` would assign an empty list and keep the capacity.
    std::vector<OperatorMfuRow>().swap(analysis.operator_rows);
    std::vector<ModuleMfuRow>().swap(analysis.module_rows);
    analysis.strings.reset();
  });

  report.ranks.resize(selected.size());
  // The cores not taken by ranks running side by side read one rank's tables in parallel.
  const unsigned read_threads = std::max(1U, HardwareCores() / WorkerCount(selected.size(), options.jobs));
  std::atomic<std::size_t> done{0};
  const auto analyze_rank = [&](std::size_t i) {
    RankOutcome& outcome = report.ranks[i];
    outcome.location = selected[i];
    if (selected[i].never_parsed) {
      outcome.analysis.rank_id = selected[i].rank_id;
      outcome.failure = NeverParsedCause(selected[i]);
      if (options.on_rank_done) options.on_rank_done(++done, selected.size());
      return;
    }
    if (streamed && write_failed) return;  // the run fails: the remaining ranks are not needed
    std::function<void(const std::vector<OperatorMfuRow>&)> early_rows;
    if (write_early) early_rows = write_operator_rows;
    auto analysis = AnalyzeRank({selected[i].rank_id, selected[i].rank_directory, selected[i].db_path, options.step_id,
                                 options.with_coverage, read_threads, options.with_kernel_signatures, early_rows,
                                 selected[i].text_export});
    if (analysis.ok()) {
      outcome.analysis = std::move(*analysis);
      outcome.failure = outcome.analysis.failure;
      if (!streamed) KeepOnlyRowStrings(outcome.analysis);
    } else {
      outcome.analysis.rank_id = selected[i].rank_id;
      outcome.failure = analysis.error().message;
    }
    outcome.operator_rows = outcome.analysis.operator_rows.size() + outcome.analysis.operator_rows_handed_over;
    outcome.module_rows = outcome.analysis.module_rows.size();
    const std::size_t finished = ++done;
    if (options.on_rank_done) options.on_rank_done(finished, selected.size());
  };
  if (streamed) {
    ForEachInParallel(selected.size(), options.jobs, [&](std::size_t i) {
      if (!handoff.WaitToStart(i)) return;
      try {
        analyze_rank(i);
      } catch (...) {
        handoff.Abort();  // this rank will never be written: release the workers waiting on it
        throw;
      }
      handoff.Finished(i);
    });
    if (write_error) return *std::move(write_error);
    // The one rank's rows went out early and then the rank failed: the writer is dropped unfinished,
    // which removes its temporary file and leaves an earlier output as it was.
    const bool rank_failed_after_writing = written_early && report.ranks.front().failure.has_value();
    if (rank_failed_after_writing) {
      report.figures = {};  // of rows that are not written after all
      writer.Abandon();     // the temporary file goes; the folders it needed are removed below
      for (auto folder = new_folders.rbegin(); folder != new_folders.rend(); ++folder) {
        std::error_code ec;
        fs::remove(*folder, ec);  // only if empty; nothing else was put there by this run
      }
    }
    report.nothing_to_write = !writer.started() || rank_failed_after_writing;
    if (report.nothing_to_write) return report;
    StageClock write_clock;  // what is left after the last rank: settling the types, committing
    OPMFU_RETURN_IF_ERROR(writer.Finish());
    report.written.push_back(db_path);
    report.write = write_clock.Lap("write");
    return report;
  }
  ForEachInParallel(selected.size(), options.jobs, analyze_rank);

  for (RankOutcome& outcome : report.ranks) {
    // A failed rank has no OperatorMFU rows; the ModuleMFU rows it produced are kept, as upstream keeps them.
    RankAnalysis& analysis = outcome.analysis;
    if (analysis.strings) report.tables.string_pools.push_back(analysis.strings);
    report.tables.operator_rows.Append(std::move(analysis.operator_rows));
    report.tables.module_rows.insert(report.tables.module_rows.end(),
                                     std::make_move_iterator(analysis.module_rows.begin()),
                                     std::make_move_iterator(analysis.module_rows.end()));
    analysis.operator_rows = {};  // moved from: leave it empty, not merely unspecified
    analysis.module_rows = {};
    if (outcome.operator_rows > 0) {
      report.tables.duration_integer = report.tables.duration_integer && analysis.all_kernels_matched;
      report.tables.flops_integer =
          report.tables.flops_integer && analysis.all_kernels_matched && analysis.all_messages_parsed;
    }  // ranks without rows are left out before upstream concatenates: they do not change types
  }

  report.figures = FigureRows(report.tables);
  if (options.shard) {
    // A shard always writes its partial, with or without rows: its failed ranks are results too.
    const fs::path partial = PartialPath(out, *options.shard);
    report.output_directory = partial.parent_path();
    StageClock write_clock;
    OPMFU_RETURN_IF_ERROR(WritePartial(partial, out, *options.shard, *input, report));
    report.written.push_back(partial);
    report.write = write_clock.Lap("write");
    return report;
  }
  // No rows from any rank: nothing is written (no empty or table-less file that looks like a
  // result), and an earlier output is left as it was.
  report.nothing_to_write = report.tables.operator_rows.empty() && report.tables.module_rows.empty();
  if (report.nothing_to_write) return report;
  StageClock write_clock;
  OPMFU_ASSIGN_OR_RETURN(
      report.written, WriteTables(options.export_type, report.output_directory, report.tables, options.stale_tables));
  report.write = write_clock.Lap("write");
  return report;
}

}  // namespace opmfu::engine
