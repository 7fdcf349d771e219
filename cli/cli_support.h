#pragma once
// What every subcommand shares at the CLI boundary: exit codes, error printing, output routing.

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/diagnostic.h"
#include "common/diagnostic_format.h"
#include "common/result.h"
#include "common/text_sink.h"
#include "report/report.h"

namespace opmfu::cli {

/// Documented in `opmfu --help` and docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,        ///< ran; nothing at or above the failure threshold
  kExitFindings = 1,  ///< ran; findings, or a check failed
  kExitUsage = 2,     ///< usage or input error: the result is not to be trusted
  kExitInternal = 3,  ///< a bug in opmfu
};

/// A subcommand sets this while its options are parsed; main runs it afterwards.
using Action = std::function<int()>;

/// Prints "opmfu: error: <message>" on stderr and returns the matching exit code. In JSON mode
/// (SetJsonMode) the first error also becomes the error object (docs/schema/error.schema.json)
/// that FinishJsonOutput prints when the command wrote nothing on stdout.
int ReportError(const Error& error);
/// At exit, in JSON mode: stdout holds exactly one JSON document, the command's result or else
/// the error object of the first error.
void FinishJsonOutput();
/// Prints "opmfu: warning: <message>" on stderr.
void ReportWarning(std::string_view message);

/// The exit code an error kind maps to (2 for input and usage errors, 3 for internal ones).
int ExitCodeFor(Error::Kind kind);
/// The one error object every command prints in JSON mode:
/// {"error": {"kind": "input"|"usage"|"internal", "exit_code": 2|3, "message": "..."}}.
std::string ErrorObjectJson(const Error& error);
/// JSON mode: the command line asked for `--format json` / `--output-format json`. Set by main
/// before parsing, so usage errors are JSON too. Counts what reaches stdout from here on.
void SetJsonMode(bool on);
bool JsonMode();
/// `analyze --agent`: JSON mode whose error is msprof-analyze's agent line (cli/agent_output.h),
/// so every way the run can end prints its one line.
void SetAgentMode();

/// Lists `choices` in --help (`TEXT:{a,b}`) and in the shell completions (`opmfu completion`),
/// leaving the check to the command, whose error has a did-you-mean.
CLI::Validator Choices(const std::vector<std::string>& choices);

/// The chips `--chip` knows (report::KnownChips()), for Choices.
std::vector<std::string> ChipNames();

/// `--format text|json` for a command whose text output has a JSON twin (docs/schema/).
void AddFormatOption(CLI::App& command, std::string& format);

/// Gives std::cout a buffer whose writes are checked; main calls it before anything is printed.
void InstallCheckedStdout();
/// Flushes stdout. The first time after a write failed (a full disk, `> /dev/full`), the error
/// naming its cause; later calls, and calls with nothing failed, are Ok.
Status StdoutStatus();

/// Refuses an output path that is one of `inputs` after symlinks (`registry check F.py -o F.py`,
/// `report --db X -o X`): a usage error naming both, returned before anything is written.
Status RefuseOutputOverInput(const std::string& output_path, const std::vector<std::filesystem::path>& inputs);
/// Every file `data` was read from: what -d or --db named, the rank databases, the artifacts.
std::vector<std::filesystem::path> InputFiles(const report::ReportData& data);

/// Writes to `output_path` atomically, or to stdout when it is empty or "-".
Status EmitOutput(std::string_view content, const std::string& output_path);
/// EmitOutput of what `render` writes, written as it is rendered.
Status EmitOutputInPieces(const std::string& output_path, const std::function<void(TextSink&)>& render);

std::optional<std::string> GetEnv(const char* name);
/// The environment variables every command reads ($OPMFU_MAX_FILE_SIZE, $OPMFU_QUERY_SECONDS),
/// checked before the command starts: a usage error naming the variable, never a failure midway.
Status CheckEnvironment();

/// Colour for the `full` format: --color always|never|auto (auto: a terminal, and NO_COLOR unset).
bool UseColor(std::string_view mode, bool writing_to_file);

/// The finding options `registry check` and `lint` share (`--format` is the same option as
/// `--output-format`, so `--format json` works on every command).
struct DiagnosticFlags {
  std::string output_format = "full";
  std::string output;
  std::string color = "auto";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::vector<std::string> severity;
  std::string fail_on;
  bool no_config = false;

  /// The flags checked against the command's rules.
  struct Parsed {
    OutputFormat format = OutputFormat::kFull;
    RuleOverrides overrides;
    std::optional<Severity> fail_on;  ///< when --fail-on was given
  };

  void Add(CLI::App& command);
  Result<Parsed> Parse(std::span<const RuleDescriptor> rules) const;
};

/// The `-d` option every command on profiling data takes, with msprof-analyze's spellings too.
/// Refuses an empty path argument, naming the likely cause (an unset shell variable).
const CLI::Validator& NonEmptyPath();
void AddProfilingPathOption(CLI::App& command, std::string& path, const std::string& help);

/// --source db|text: which export a rank directory holding both a DB and a Text export is read
/// from (default db, as msprof-analyze). A directory with only one of them is read either way.
void AddExportSourceOption(CLI::App& command, std::string& source);
engine::ExportSource ExportSourceOf(const std::string& source);

/// --rank-list: "0,1,3" or "all" (nullopt).
Result<std::optional<std::vector<std::int64_t>>> ParseRankList(const std::string& text);

/// One line on stderr per failed rank, "opmfu: rank N: error: <file>: <root cause> (<consequence>)",
/// and one warning per rank whose valid FLOPs records matched no kernel: the rank policy every
/// command on profiling data shares.
void ReportFailedRanks(const engine::AnalyzeReport& analysis, std::string_view consequence);

/// Where `report`, `gate` and `audit` read MFU rows: a profiling directory (analysed in memory)
/// or a cluster_analysis.db.
struct MfuSourceFlags {
  std::string profiling_path;
  std::string cluster_db;
  std::string rank_list;
  std::optional<std::int64_t> step_id;
  unsigned jobs = 0;
  std::string source = "db";
  /// For PyTorch profiler traces: the command's --peak-tflops, every op measured against it.
  std::optional<double> trace_peak_tflops;

  /// `db_allowed`: whether --db is offered (audit needs the rank DBs).
  void Add(CLI::App& command, bool db_allowed = true);
  /// `with_kernel_signatures`: for a derived section, which then needs no second read of the rank
  /// DBs (engine::AnalyzeOptions::with_kernel_signatures).
  Result<report::ReportData> Load(bool with_kernel_signatures = false) const;
};

/// Adds `opmfu registry ...` to the app.
void AddRegistryCommand(CLI::App& app, Action& action);
/// Adds `opmfu analyze` to the app.
void AddAnalyzeCommand(CLI::App& app, Action& action);
/// Adds `opmfu merge` to the app.
void AddMergeCommand(CLI::App& app, Action& action);
/// Adds `opmfu check-db` to the app.
void AddCheckDbCommand(CLI::App& app, Action& action);
/// Adds `opmfu demo` to the app.
void AddDemoCommand(CLI::App& app, Action& action);
/// Adds `opmfu flops` to the app.
void AddFlopsCommand(CLI::App& app, Action& action);
/// Adds `opmfu audit` to the app.
void AddAuditCommand(CLI::App& app, Action& action);
/// Adds `opmfu diff` to the app.
void AddDiffCommand(CLI::App& app, Action& action);
/// Adds `opmfu gate` to the app.
void AddGateCommand(CLI::App& app, Action& action);
/// Adds `opmfu report` to the app.
void AddReportCommand(CLI::App& app, Action& action);
/// Adds `opmfu lint` to the app.
void AddLintCommand(CLI::App& app, Action& action);
/// Adds `opmfu completion` to the app.
void AddCompletionCommand(CLI::App& app, Action& action);
/// Adds `opmfu rule` to the app.
void AddRuleCommand(CLI::App& app, Action& action);
/// Adds `opmfu mcp` to the app.
void AddMcpCommand(CLI::App& app, Action& action);

}  // namespace opmfu::cli
