#include "cli/agent_output.h"

#include <chrono>
#include <ctime>
#include <iostream>

#include "cli/cli_support.h"
#include "common/file_io.h"

namespace opmfu::cli {

std::filesystem::path AgentLogPath() {
  if (auto named = GetEnv("MSPROF_ANALYZE_LOG_FILE"); named && !named->empty()) return *named;
  std::error_code ec;
  std::filesystem::path directory = std::filesystem::temp_directory_path(ec);
  if (ec) directory = "/tmp";
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return directory / ("opmfu_analyze_" + std::to_string(seconds) + ".log");
}

void WriteAgentLog(std::string_view lines, nlohmann::ordered_json& answer) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  const std::size_t stamp_size = std::strftime(stamp, sizeof stamp, "[%Y-%m-%d %H:%M:%S] ", &local);
  std::string stamped;
  while (!lines.empty()) {
    const std::size_t end = lines.find('\n');
    stamped.append(stamp, stamp_size).append(lines.substr(0, end)).append("\n");
    lines.remove_prefix(end == std::string_view::npos ? lines.size() : end + 1);
  }
  const std::filesystem::path path = AgentLogPath();
  // The default name is in a shared directory, and predictable (as upstream's): only a file of this
  // user's is appended to there.
  const auto named = GetEnv("MSPROF_ANALYZE_LOG_FILE");
  if (Status logged = AppendToFile(path, stamped, !named || named->empty()); !logged.ok()) {
    ReportWarning(logged.error().message);
    return;
  }
  answer["log_path"] = path.string();
}

std::string AgentErrorLine(const Error& error, int exit_code) {
  nlohmann::ordered_json answer{
      {"status", "error"},
      {"code", exit_code},
      {"message", {{"err", error.message}}},
      {"suggestion", exit_code == kExitUsage ? "nothing was analysed: fix the option or input message.err names"
                                             : "nothing was analysed: an opmfu bug, please report it"}};
  WriteAgentLog("error: " + error.message + "\n", answer);
  return answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::ordered_json AgentAnswer(const engine::AnalyzeReport& report, const std::string& export_type, bool derived) {
  nlohmann::ordered_json message = nlohmann::ordered_json::object();
  nlohmann::ordered_json failures = nlohmann::ordered_json::array();
  for (const engine::RankOutcome& rank : report.ranks) {
    if (rank.failure) {
      failures.push_back({{"rank_id", rank.location.rank_id}, {"error", engine::DescribeFailure(rank)}});
    }
  }
  if (!report.written.empty()) {
    if (export_type == "db") {
      message = {{"db_path", report.written.front().string()}, {"tables", {"OperatorMFU", "ModuleMFU"}}};
      if (derived) message["tables"].push_back("DerivedMFU");
    } else if (export_type == "text") {
      message = {{"csv_dir", (report.output_directory / "OperatorMfu").string()}};  // upstream's key
    } else {
      message = {{"csv_dir", report.output_directory.string()}};
    }
  }
  if (!failures.empty()) message["failed_ranks"] = failures;
  const bool failed = !report.clean();
  nlohmann::ordered_json answer{
      {"status", failed ? "partial" : "success"},
      {"code", failed ? 1 : 0},
      {"message", message},
      // Upstream's suggestion, word for word, when all went well; ours says where the reasons are.
      {"suggestion", failed ? "some ranks failed: message.failed_ranks and the log at log_path say why"
                            : "kernel级或者module级MFU统计，后者仅当采集数据包含Module domain的msTX Range时生成。"}};
  return answer;
}

}  // namespace opmfu::cli
