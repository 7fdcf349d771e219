#pragma once
// What `opmfu analyze` and `opmfu merge` print about an analysis: the same lines for the same
// ranks, whether the ranks were analysed in one run or in shards that were merged.

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/analyze.h"

namespace opmfu::cli {

/// `--export-type` of analyze and merge: db, text, csv or json; anything else is a usage error
/// with a did-you-mean.
Result<engine::ExportType> ParseExportType(const std::string& name);

/// The warnings and per-rank lines on stderr ("opmfu: rank N: error: <file>: <cause>"); with
/// `verbose` also every rank's notes and stage times. Returns the same lines (without the
/// "opmfu: " prefix). `full_log`, when given, gets every line -v would print, whatever `verbose`
/// says (--agent's log file holds the run's whole log).
std::string PrintAnalysisLog(const engine::AnalyzeReport& report, bool verbose, std::string* full_log = nullptr);

/// The text summary on stdout: ranks, row counts, MFU bands, lowest and highest kernels, files written.
void PrintAnalysisSummary(const engine::AnalyzeReport& report);

/// docs/schema/analyze.schema.json on stdout: what was analysed and written, rank by rank (with
/// `derived_rows`, the DerivedMFU rows `analyze --derived` wrote).
void PrintAnalysisJson(const engine::AnalyzeReport& report, const std::string& export_type,
                       std::optional<std::size_t> derived_rows = std::nullopt);

/// engine::AnalyzeOptions::on_rank_done for a command line: "done total" lines to the pipe
/// $OPMFU_PROGRESS_FD names (`opmfu mcp` turns them into progress notifications), else a
/// progress bar on a terminal's stderr once the run has taken more than a second (not with
/// --agent, whose stderr is a log).
class RankProgress {
 public:
  explicit RankProgress(bool agent);
  RankProgress(const RankProgress&) = delete;
  RankProgress& operator=(const RankProgress&) = delete;
  /// Empty when there is nowhere to show progress. Valid while this object lives. A usage error
  /// naming $OPMFU_PROGRESS_FD when it is set to something else than an open file descriptor.
  Result<std::function<void(std::size_t, std::size_t)>> Callback();
  /// Ends the bar's line, if a bar was drawn.
  void Finish();

 private:
  bool agent_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  bool shown_ = false;
};

}  // namespace opmfu::cli
