// The profiling-DB reader: a valid small `opmfu demo` rank, mutated by the input, then analysed
// (AnalyzeRank, then the report and audit built on it) and checked (CheckRank). The input is a list of 6-byte edits:
//   op 0: set a cell of a table row to an odd value (NULL, negative, huge, text, blob, real);
//   op 1: overwrite one byte of the database file;
//   op 2: truncate the file;
//   op 3: delete a table's rows, or drop a table.
// Row edits are applied with SQLite first, byte edits to the file after; so both the SQL layer
// (missing tables, NULLs, wrong types, end < start, absurd FLOPs) and the file format (corrupt
// pages, truncation) are exercised from inputs small enough to keep in the corpus.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/sqlite.h"
#include "engine/db_check.h"
#include "engine/demo.h"
#include "engine/rank_analysis.h"
#include "report/audit.h"
#include "report/report.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace fs = std::filesystem;

bool NextRow(opmfu::Statement& statement) {
  auto row = statement.Step();
  return row.ok() && *row;
}

struct Seed {
  fs::path rank_directory;
  std::string bytes;                                ///< the valid database
  std::vector<std::pair<std::string, int>> tables;  ///< name, column count
};

const Seed& TheSeed() {
  static const Seed seed = [] {
    Seed made;
    opmfu::engine::DemoOptions options;
    options.directory = opmfu::fuzz::ScratchDirectory() / "demo";
    options.ranks = 1;
    options.steps = 1;
    options.layers = 1;
    auto demo = opmfu::engine::WriteDemo(options);
    if (!demo.ok() || demo->rank_directories.empty()) std::abort();
    made.rank_directory = demo->rank_directories.front();
    fs::path db;
    for (const auto& entry : fs::recursive_directory_iterator(made.rank_directory)) {
      if (entry.path().extension() == ".db") db = entry.path();
    }
    std::ifstream in(db, std::ios::binary);
    made.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    auto database = opmfu::Database::OpenReadOnly(db);
    if (!database.ok()) std::abort();
    auto tables = database->Prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    if (!tables.ok()) std::abort();
    while (NextRow(*tables)) {
      const std::string name(tables->Text(0));
      auto columns = database->Prepare("SELECT count(*) FROM pragma_table_info('" + name + "')");
      int count = 1;
      if (columns.ok() && NextRow(*columns)) count = static_cast<int>(columns->Int64(0));
      made.tables.emplace_back(name, count);
    }
    return made;
  }();
  return seed;
}

std::string OddValue(std::uint8_t kind, std::uint8_t a, std::uint8_t b) {
  switch (kind % 10) {
    case 0:
      return "NULL";
    case 1:
      return "-1";
    case 2:
      return "0";
    case 3:
      return "9223372036854775807";
    case 4:
      return "1e300";
    case 5:
      return "'" + std::to_string(a * 256 + b) + "-aten::mm'";
    case 6:
      return "'not a number'";
    case 7:
      return "x'00ff'";
    case 8:
      return std::to_string(-(a * 256 + b));
    default:
      return std::to_string(a * 65536 + b * 256);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Seed& seed = TheSeed();
  const fs::path db_path = opmfu::fuzz::WriteScratchFile("ascend_pytorch_profiler_0.db", seed.bytes);
  constexpr std::size_t kEdit = 6;
  {
    auto database = opmfu::Database::OpenForWrite(db_path);
    if (!database.ok()) return 0;
    for (std::size_t at = 0; at + kEdit <= size; at += kEdit) {
      const std::uint8_t* edit = data + at;
      const auto& [table, columns] = seed.tables[edit[1] % seed.tables.size()];
      if (edit[0] % 4 == 0) {
        const std::string column_sql = "(SELECT name FROM pragma_table_info('" + table + "') LIMIT 1 OFFSET " +
                                       std::to_string(edit[2] % columns) + ")";
        // Column names cannot be bound; read the name, then update by rowid.
        auto name = database->Prepare("SELECT " + column_sql);
        if (!name.ok() || !NextRow(*name)) continue;
        const std::string column(name->Text(0));
        (void)database->Execute(
            "UPDATE \"" + table + "\" SET \"" + column + "\" = " + OddValue(edit[3], edit[4], edit[5]) +
            " WHERE rowid IN (SELECT rowid FROM \"" + table + "\" LIMIT 1 OFFSET " + std::to_string(edit[4]) + ")");
      } else if (edit[0] % 4 == 3) {
        (void)database->Execute(edit[2] % 2 == 0 ? "DELETE FROM \"" + table + "\"" : "DROP TABLE \"" + table + "\"");
      }
    }
  }
  std::string bytes;
  {
    std::ifstream in(db_path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (std::size_t at = 0; at + kEdit <= size && !bytes.empty(); at += kEdit) {
    const std::uint8_t* edit = data + at;
    const std::size_t offset = (std::size_t{edit[1]} << 16 | std::size_t{edit[2]} << 8 | edit[3]) % bytes.size();
    if (edit[0] % 4 == 1) bytes[offset] = static_cast<char>(edit[4]);
    if (edit[0] % 4 == 2) bytes.resize(offset);
  }
  opmfu::fuzz::WriteScratchFile("ascend_pytorch_profiler_0.db", bytes);
  opmfu::engine::RankInput input;
  input.rank_directory = seed.rank_directory;
  input.db_path = db_path;
  input.with_coverage = true;
  auto analysis = opmfu::engine::AnalyzeRank(input);
  if (analysis.ok()) {
    // Whatever the rank holds goes through the report, the audit and every renderer.
    opmfu::report::ReportData data;
    opmfu::engine::RankOutcome outcome;
    outcome.location.db_path = db_path;
    data.analysis.tables.string_pools.push_back(analysis->strings);
    data.analysis.tables.operator_rows.Append(std::move(analysis->operator_rows));
    data.analysis.tables.module_rows = std::move(analysis->module_rows);
    outcome.analysis = std::move(*analysis);
    data.analysis.ranks.push_back(std::move(outcome));
    const opmfu::report::MfuReport report = opmfu::report::BuildReport(data, {});
    for (auto format : {opmfu::report::ReportFormat::kText, opmfu::report::ReportFormat::kMarkdown,
                        opmfu::report::ReportFormat::kJson, opmfu::report::ReportFormat::kHtml}) {
      (void)opmfu::report::RenderReport(report, format, 5);
    }
    (void)opmfu::report::RenderAudit(opmfu::report::AuditFlops(data, 0.01), opmfu::report::AuditFormat::kJson);
  }
  opmfu::engine::RankLocation location;
  location.rank_directory = seed.rank_directory;
  location.db_path = db_path;
  (void)opmfu::engine::CheckRank(location);
  return 0;
}
