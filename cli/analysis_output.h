#pragma once
// What `opmfu analyze` and `opmfu merge` print about an analysis: the same lines for the same
// ranks, whether the ranks were analysed in one run or in shards that were merged.

#include <cstddef>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/analyze.h"
#include "report/torch_analysis.h"

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

/// The text summary of an analysis of PyTorch profiler traces (`analyze -d TRACE`), with the
/// DerivedMFU rows --derived wrote; its failed ranks on stderr. Returns the exit code.
int PrintTraceAnalysis(const report::TraceWriteResult& done);

}  // namespace opmfu::cli
