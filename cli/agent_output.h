#pragma once
// `analyze --agent`: msprof-analyze's one JSON line on stdout, whatever happens, and its log file
// (docs/cli.md): `{"status", "code", "message", "suggestion", "log_path"}`.

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "engine/analyze.h"

namespace opmfu::cli {

/// Where --agent's log goes, as upstream decides it: $MSPROF_ANALYZE_LOG_FILE when set, else
/// `<tmp>/opmfu_analyze_<seconds since 1970>.log` (upstream: `msprof_analyze_<seconds>.log`). Runs
/// append to it; like upstream, opmfu never deletes it (it is what `log_path` points to).
std::filesystem::path AgentLogPath();

/// Appends the run's log `lines` (one per line, without "opmfu: ") to AgentLogPath(), each
/// stamped as upstream's logger stamps its lines (`[2026-12-01 21:03:04] ...`), and sets
/// `answer["log_path"]`. A log that cannot be written is a warning: the line still goes out.
void WriteAgentLog(std::string_view lines, nlohmann::ordered_json& answer);

/// The line for an error that stopped the run (upstream: status "error", message.err), with the
/// error in the log file too. `exit_code` is opmfu's (2 usage or input, 3 internal).
std::string AgentErrorLine(const Error& error, int exit_code);

/// The line for a run that finished (before WriteAgentLog adds `log_path`): status "success", or
/// "partial" with `message.failed_ranks` when a rank failed; where the tables went (`db_path` and
/// its tables, with DerivedMFU when `derived`, or upstream's `csv_dir`).
nlohmann::ordered_json AgentAnswer(const engine::AnalyzeReport& report, const std::string& export_type, bool derived);

}  // namespace opmfu::cli
