#include "report/derived_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <utility>

#include "common/file_io.h"
#include "common/sqlite.h"
#include "report/report.h"

namespace opmfu::report {

const char* const kDerivedTableName = "DerivedMFU";

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kCreate =
    "CREATE TABLE \"DerivedMFU\" (\"rank_id\" INTEGER, \"kernel_name\" TEXT, \"op_type\" TEXT, \"family\" TEXT, "
    "\"input_formats\" TEXT, \"input_types\" TEXT, \"input_shapes\" TEXT, \"output_formats\" TEXT, "
    "\"output_types\" TEXT, \"output_shapes\" TEXT, \"kernel_count\" INTEGER, \"total_duration(ns)\" INTEGER, "
    "\"flops\" REAL, \"formula\" TEXT, \"padded\" INTEGER, \"bytes_read\" REAL, \"bytes_written\" REAL, "
    "\"chip_peak_tflops\" REAL, \"actual_tflops\" REAL, \"mfu\" REAL, \"arithmetic_intensity\" REAL, "
    "\"achieved_tbps\" REAL, \"roofline\" TEXT, \"skip_reason\" TEXT, \"basis\" TEXT)";
constexpr int kColumns = 25;

Status BindOptional(Statement& insert, int index, std::optional<double> value) {
  return value ? insert.Bind(index, *value) : insert.BindNull(index);
}

Status BindText(Statement& insert, int index, std::string_view value) {
  return value.empty() ? insert.BindNull(index) : insert.Bind(index, value);
}

Status InsertRows(Database& db, const DerivedSection& section) {
  OPMFU_RETURN_IF_ERROR(db.Execute("DROP TABLE IF EXISTS \"DerivedMFU\""));
  OPMFU_RETURN_IF_ERROR(db.Execute(kCreate));
  std::string sql = "INSERT INTO \"DerivedMFU\" VALUES (?";
  for (int i = 1; i < kColumns; ++i) sql += ",?";
  sql += ")";
  OPMFU_ASSIGN_OR_RETURN(Statement insert, db.Prepare(sql));
  for (const DerivedGroup& g : section.rank_groups) {
    const bool derived = g.derived.flops.has_value();
    const auto bandwidth = g.achieved_bytes_per_second();
    int column = 0;
    OPMFU_RETURN_IF_ERROR(insert.Bind(++column, g.rank_id));
    OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, g.kernel_name));
    OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, g.op_type));
    OPMFU_RETURN_IF_ERROR(insert.Bind(++column, std::string_view(FamilyName(g.derived.family))));
    for (const std::string* text :
         {&g.input_formats, &g.input_types, &g.input_shapes, &g.output_formats, &g.output_types, &g.output_shapes}) {
      OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, *text));
    }
    OPMFU_RETURN_IF_ERROR(insert.Bind(++column, static_cast<std::int64_t>(g.count)));
    OPMFU_RETURN_IF_ERROR(insert.Bind(++column, g.duration));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, ++column, g.derived.flops));
    OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, g.derived.formula));
    OPMFU_RETURN_IF_ERROR(derived ? insert.Bind(++column, std::int64_t{g.derived.padded ? 1 : 0})
                                  : insert.BindNull(++column));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, ++column, g.derived.bytes_read));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, ++column, g.derived.bytes_written));
    OPMFU_RETURN_IF_ERROR(
        BindOptional(insert, ++column, g.peak_flops ? std::optional(*g.peak_flops / 1e12) : std::nullopt));
    OPMFU_RETURN_IF_ERROR(BindOptional(
        insert, ++column, derived && g.duration > 0 ? std::optional(g.achieved_flops() / 1e12) : std::nullopt));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, ++column, g.mfu()));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, ++column, g.intensity()));
    OPMFU_RETURN_IF_ERROR(
        BindOptional(insert, ++column, derived && bandwidth ? std::optional(*bandwidth / 1e12) : std::nullopt));
    OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, derived ? RooflineNote(section, g) : std::string()));
    OPMFU_RETURN_IF_ERROR(BindText(insert, ++column, derived ? std::string() : g.derived.skip_reason));
    OPMFU_RETURN_IF_ERROR(insert.Bind(++column, std::string_view(kDerivedLabel)));
    OPMFU_ASSIGN_OR_RETURN(const bool more, insert.Step());
    (void)more;
    OPMFU_RETURN_IF_ERROR(insert.Reset());
  }
  return Ok();
}

}  // namespace

Status WriteDerivedMfuTable(const fs::path& db_path, const DerivedSection& section) {
  // Below the -o directory the user named, cluster_analysis_output/ is never entered through a link.
  return WriteDatabaseAtomically(
      db_path, AtomicDatabaseStart::kCopyOfExisting, [&](Database& db) { return InsertRows(db, section); },
      db_path.parent_path().parent_path());
}

Result<std::size_t> WriteDerivedForAnalysis(engine::AnalyzeReport& analysis, const fs::path& profiling_path,
                                            DerivedOptions options) {
  const fs::path db_path = analysis.output_directory / "cluster_analysis.db";
  const bool written_now =
      std::find(analysis.written.begin(), analysis.written.end(), db_path) != analysis.written.end();
  std::error_code ec;
  if (!written_now && fs::exists(db_path, ec)) {
    OPMFU_ASSIGN_OR_RETURN(Database earlier, Database::OpenReadOnly(db_path));
    OPMFU_ASSIGN_OR_RETURN(const bool has_operator, earlier.HasTable("OperatorMFU"));
    OPMFU_ASSIGN_OR_RETURN(const bool has_module, earlier.HasTable("ModuleMFU"));
    if (has_operator || has_module) {
      return Error::Input(db_path.string() +
                          ": holds an earlier analysis' tables, which this run did not replace (no rank produced a "
                          "row); DerivedMFU is not written beside them (remove the file, or pass -o elsewhere)");
    }
  }
  ReportData data;
  data.source = ReportData::Source::kProfilingDirectory;
  data.path = profiling_path;
  data.analysis = std::move(analysis);
  options.keep_rank_groups = true;
  auto section = BuildDerivedSection(data, options);
  analysis = std::move(data.analysis);
  if (!section.ok()) return section.take_error();
  OPMFU_RETURN_IF_ERROR(WriteDerivedMfuTable(db_path, *section));
  if (!written_now) {
    // The DB now exists, holding DerivedMFU alone: the summary says "Wrote", not "Nothing written".
    analysis.written.push_back(db_path);
    analysis.nothing_to_write = false;
  }
  return section->rank_groups.size();
}

}  // namespace opmfu::report
