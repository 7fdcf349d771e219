// The flags and checks several subcommands share.

#include "cli/cli_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "common/input_file.h"
#include "common/output_file.h"
#include "common/sqlite.h"
#include "common/text.h"
#include "report/torch_analysis.h"

namespace opmfu::cli {

Status RefuseOutputOverInput(const std::string& output_path, const std::vector<std::filesystem::path>& inputs) {
  // The writer refuses them too, on the file it finally opens (a link or a rename made meanwhile).
  for (const std::filesystem::path& input : inputs) NoteRunInput(input);
  if (output_path.empty() || output_path == "-") return Ok();
  struct stat output {};
  // Only an existing regular file can be lost; a device such as /dev/null is written, not replaced.
  if (::stat(output_path.c_str(), &output) != 0 || !S_ISREG(output.st_mode)) return Ok();
  for (const std::filesystem::path& input : inputs) {
    struct stat read {};
    if (::stat(input.c_str(), &read) != 0) continue;
    if (read.st_dev == output.st_dev && read.st_ino == output.st_ino) {
      const std::string also = input.string() == output_path ? "" : " (" + input.string() + ")";
      return Error::Usage(output_path + ": is an input of this command" + also +
                          ", and writing there would replace it; choose another output path (nothing was written)");
    }
  }
  return Ok();
}

std::vector<std::filesystem::path> InputFiles(const report::ReportData& data) {
  std::vector<std::filesystem::path> files{data.path};
  files.insert(files.end(), data.artifacts.begin(), data.artifacts.end());
  for (const engine::RankOutcome& rank : data.analysis.ranks) files.push_back(rank.location.db_path);
  return files;
}

CLI::Validator Choices(const std::vector<std::string>& choices) {
  std::string listed;
  for (const std::string& choice : choices) listed += (listed.empty() ? "" : ",") + choice;
  return {[](const std::string&) { return std::string(); }, "{" + listed + "}", "choices"};
}

std::vector<std::string> ChipNames() {
  std::vector<std::string> names;
  for (const report::ChipSpec& chip : report::KnownChips()) names.emplace_back(chip.name);
  return names;
}

void AddFormatOption(CLI::App& command, std::string& format) {
  command.add_option("--format", format, "text or json (docs/schema/)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
}

const CLI::Validator& NonEmptyPath() {
  // `-d "$PROF_DIR"` with the variable unset: say so, not ": No such file or directory".
  static const CLI::Validator validator(
      [](const std::string& value) {
        return value.empty() ? std::string("an empty path (is the variable meant to name it, e.g. $PROF_DIR, unset?)")
                             : std::string();
      },
      "");
  return validator;
}

void AddProfilingPathOption(CLI::App& command, std::string& path, const std::string& help) {
  command.add_option("-d,--profiling-path,--profiling_path", path, help)->required()->check(NonEmptyPath());
}

std::optional<std::string> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

Status CheckEnvironment() {
  if (auto size = InputSizeLimit(); !size.ok()) return size.take_error();
  if (auto seconds = InputQueryTimeLimit(0); !seconds.ok()) return seconds.take_error();
  return Ok();
}

bool UseColor(std::string_view mode, bool writing_to_file) {
  if (mode == "always") return true;
  if (mode == "never" || writing_to_file) return false;
  const auto no_color = GetEnv("NO_COLOR");
  return (!no_color || no_color->empty()) && ::isatty(STDOUT_FILENO) == 1;
}

void DiagnosticFlags::Add(CLI::App& command) {
  command
      .add_option("--output-format,--format", output_format,
                  "full, concise, gcc, json, sarif, github, gitlab (a Code Quality report), junit, rdjson "
                  "(reviewdog), json-lines, pylint, grouped or azure (Azure Pipelines)")
      ->capture_default_str()
      ->check(Choices(OutputFormatNames()));
  command.add_option("-o,--output,--output-file", output, "write findings to FILE (atomically) instead of stdout");
  command.add_option("--color", color, "colour in the full format: auto, always or never")
      ->capture_default_str()
      ->check(Choices({"auto", "always", "never"}));
  command.add_option("--select", select, "only these rules (ids, names, prefixes like OPM5, or ALL)")
      ->delimiter(',')
      ->allow_extra_args(false);
  command.add_option("--ignore", ignore, "skip these rules")->delimiter(',')->allow_extra_args(false);
  command.add_option("--severity", severity, "override a rule's severity: OPM506=error")
      ->delimiter(',')
      ->allow_extra_args(false);
  command.add_option("--fail-on", fail_on, "lowest severity that makes the exit code 1 (default: warning)")
      ->check(Choices({"error", "warning", "info"}));
  command.add_flag("--no-config", no_config, "ignore .opmfu.yaml files");
}

Result<DiagnosticFlags::Parsed> DiagnosticFlags::Parse(std::span<const RuleDescriptor> rules) const {
  Parsed parsed;
  OPMFU_ASSIGN_OR_RETURN(parsed.format, ParseOutputFormat(output_format));
  if (!fail_on.empty()) {
    OPMFU_ASSIGN_OR_RETURN(Severity threshold, ParseSeverity(fail_on));
    parsed.fail_on = threshold;
  }
  RuleOverrides& overrides = parsed.overrides;
  for (const std::string& selector : select) OPMFU_RETURN_IF_ERROR(ValidateSelector(selector, rules));
  for (const std::string& selector : ignore) OPMFU_RETURN_IF_ERROR(ValidateSelector(selector, rules));
  overrides.select = select;
  overrides.ignore = ignore;
  for (const std::string& text : severity) {
    OPMFU_ASSIGN_OR_RETURN(auto entry, ParseSeverityOverride(text));
    OPMFU_RETURN_IF_ERROR(ValidateSelector(entry.first, rules));
    overrides.severity.push_back(entry);
  }
  return parsed;
}

Result<std::optional<std::vector<std::int64_t>>> ParseRankList(const std::string& text) {
  if (text.empty() || text == "all") return std::optional<std::vector<std::int64_t>>{};
  // msprof-analyze keeps a token only if every character is a digit and drops the rest silently
  // (docs/cli.md): an empty entry ("1,,2") is ignored as there; a padded one (" 3") is kept here,
  // with a warning that upstream drops it; anything else is an error rather than a silent drop.
  std::vector<std::int64_t> ranks;
  for (const std::string& token : SplitString(text, ',')) {
    const std::string_view trimmed = TrimWhitespace(token);
    if (trimmed.empty()) continue;
    if (trimmed.size() > 9 ||
        !std::all_of(trimmed.begin(), trimmed.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return Error::Usage("--rank-list: '" + token + "' is not a rank id (expected e.g. 0,1,3 or all)");
    }
    if (trimmed.size() != token.size()) {
      ReportWarning("--rank-list: '" + token + "' is read as rank " + std::string(trimmed) +
                    "; msprof-analyze drops an entry with spaces and would not analyse it");
    }
    ranks.push_back(std::stoll(std::string(trimmed)));
  }
  if (ranks.empty()) return Error::Usage("--rank-list '" + text + "' names no rank (expected e.g. 0,1,3 or all)");
  return std::optional<std::vector<std::int64_t>>(ranks);
}

void AddExportSourceOption(CLI::App& command, std::string& source) {
  command
      .add_option("--source", source,
                  "db or text: the export read where a rank directory holds both (default db, as msprof-analyze)")
      ->check(CLI::IsMember({"db", "text"}));
}

engine::ExportSource ExportSourceOf(const std::string& source) {
  return source == "text" ? engine::ExportSource::kText : engine::ExportSource::kDb;
}

void MfuSourceFlags::Add(CLI::App& command, bool db_allowed) {
  CLI::Option* directory = command
                               .add_option("-d,--profiling-path,--profiling_path", profiling_path,
                                           "the profiling directory (analysed in memory; nothing is written)")
                               ->check(NonEmptyPath());
  if (db_allowed) {
    CLI::Option* db =
        command.add_option("--db", cluster_db, "a cluster_analysis.db written by analyze or msprof-analyze")
            ->check(NonEmptyPath());
    directory->excludes(db);
  }
  command.add_option("--rank-list,--rank_list", rank_list, "ranks to read, e.g. 0,1,3 (default: all)");
  command.add_option("--step-id,--step_id", step_id, "only what starts inside this STEP_TIME step");
  command.add_option("--jobs", jobs, "ranks analysed at once (default: one per core)");
  AddExportSourceOption(command, source);
}

void ReportFailedRanks(const engine::AnalyzeReport& analysis, std::string_view consequence) {
  for (const std::string& problem : engine::DescribeProblems(analysis.discovery)) {
    std::cerr << "opmfu: error: " << EscapeControlCharacters(problem) << "\n";
  }
  for (const engine::RankOutcome& rank : analysis.ranks) {
    // The same line as `opmfu analyze` prints, plus what the failure means for this command.
    const std::string who = "opmfu: rank " + std::to_string(rank.location.rank_id) + ": ";
    const std::string db = EscapeControlCharacters(rank.location.db_path.string());
    for (const std::string& error : rank.analysis.data_errors) {
      std::cerr << who << "error: " << db << ": " << EscapeControlCharacters(error) << "\n";
    }
    if (rank.failure) {
      std::cerr << who << "error: " << EscapeControlCharacters(engine::DescribeFailure(rank)) << " (" << consequence
                << ")\n";
    } else if (rank.operator_rows == 0 && rank.analysis.no_rows_reason) {
      std::cerr << who << "warning: " << db << ": " << EscapeControlCharacters(*rank.analysis.no_rows_reason) << "\n";
    }
  }
}

Result<report::ReportData> MfuSourceFlags::Load(bool with_kernel_signatures) const {
  if (!cluster_db.empty()) {
    if (!rank_list.empty() || step_id) {
      return Error::Usage("--rank-list and --step-id need -d: a cluster DB holds only the finished rows");
    }
    return report::LoadClusterDb(cluster_db);
  }
  if (profiling_path.empty()) return Error::Usage("name the data: -d PROFILING_DIR or --db cluster_analysis.db");
  if (auto traces = report::TorchTraceInputs(profiling_path)) {
    if (!rank_list.empty() || step_id) return Error::Usage("--rank-list and --step-id are for Ascend profiling data");
    return report::LoadTorchTraces(*traces, profiling_path, {trace_peak_tflops, jobs});
  }
  engine::AnalyzeOptions options;
  options.profiling_path = profiling_path;
  OPMFU_ASSIGN_OR_RETURN(options.rank_list, ParseRankList(rank_list));
  options.step_id = step_id;
  options.jobs = jobs;
  options.with_kernel_signatures = with_kernel_signatures;
  options.source = ExportSourceOf(source);
  return report::LoadReportData(options);
}

}  // namespace opmfu::cli
