#include "engine/output.h"

#include "engine/mfu_columns.h"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <random>
#include <span>

#include "common/file_io.h"
#include "common/sqlite.h"
#include "common/text.h"
#include "engine/numeric.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

// The rows outlive the statement's step, so their strings are bound without a copy.
Status BindOptional(Statement& statement, int index, std::optional<std::string_view> value) {
  return value ? statement.BindUncopied(index, *value) : statement.BindNull(index);
}

std::string CsvNumber(double value) { return PythonFloatRepr(value); }

// A table name as an SQL identifier: in double quotes, a quote inside doubled.
std::string QuoteIdentifier(std::string_view name) {
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

bool AnalysisTables::with_avg_mfu() const {
  return std::any_of(module_rows.begin(), module_rows.end(), [](const ModuleMfuRow& r) { return !r.avg_mfu.empty(); });
}

struct ClusterDbWriter::Open {
  std::unique_ptr<AtomicDatabaseWrite> write;
  std::optional<Statement> insert_operator;
  std::optional<Statement> insert_module;
};

ClusterDbWriter::ClusterDbWriter(fs::path db_path, std::vector<std::string> stale_tables, fs::path tree)
    : db_path_(std::move(db_path)), stale_tables_(std::move(stale_tables)), tree_(std::move(tree)) {}

ClusterDbWriter::~ClusterDbWriter() { Abandon(); }

// Statements before the database they belong to; the write's end removes its temporary file.
void ClusterDbWriter::Abandon() {
  if (!open_) return;
  open_->insert_operator.reset();
  open_->insert_module.reset();
  open_.reset();
}

bool ClusterDbWriter::started() const { return open_ != nullptr; }

Status ClusterDbWriter::Start() {
  if (open_) return Ok();
  auto open = std::make_unique<Open>();
  OPMFU_ASSIGN_OR_RETURN(open->write,
                         AtomicDatabaseWrite::Begin(db_path_, AtomicDatabaseStart::kCopyOfExisting, tree_));
  Database& db = open->write->db();
  const auto created = [&]() -> Status {
    OPMFU_RETURN_IF_ERROR(db.Execute("DROP TABLE IF EXISTS \"OperatorMFU\"; DROP TABLE IF EXISTS \"ModuleMFU\""));
    for (const std::string& table : stale_tables_) {
      OPMFU_RETURN_IF_ERROR(db.Execute("DROP TABLE IF EXISTS " + QuoteIdentifier(table)));
    }
    // OperatorMFU first, as upstream writes it: the tables keep that order in sqlite_master.
    OPMFU_RETURN_IF_ERROR(db.Execute(OperatorTableSql(true, true)));
    OPMFU_RETURN_IF_ERROR(db.Execute(ModuleTableSql()));
    OPMFU_ASSIGN_OR_RETURN(Statement insert_operator,
                           db.Prepare("INSERT INTO \"OperatorMFU\" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                                      "?11, ?12, ?13)"));
    OPMFU_ASSIGN_OR_RETURN(Statement insert_module,
                           db.Prepare("INSERT INTO \"ModuleMFU\" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
    open->insert_operator.emplace(std::move(insert_operator));
    open->insert_module.emplace(std::move(insert_module));
    return Ok();
  }();
  if (!created.ok()) return open->write->Failed(created.error());
  open_ = std::move(open);
  return Ok();
}

Status ClusterDbWriter::Append(const OperatorMfuRow& row) {
  OPMFU_RETURN_IF_ERROR(Start());
  Statement& insert = *open_->insert_operator;
  const auto inserted = [&]() -> Status {
    OPMFU_RETURN_IF_ERROR(insert.Bind(1, row.rank_id));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, 2, row.op_name()));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, 3, row.kernel_name()));
    OPMFU_RETURN_IF_ERROR(insert.Bind(4, row.kernel_start));
    OPMFU_RETURN_IF_ERROR(insert.Bind(5, row.kernel_end));
    OPMFU_RETURN_IF_ERROR(insert.Bind(6, row.kernel_duration));
    OPMFU_RETURN_IF_ERROR(insert.Bind(7, row.mfu));
    OPMFU_RETURN_IF_ERROR(insert.Bind(8, row.actual_tflops));
    OPMFU_RETURN_IF_ERROR(insert.Bind(9, row.chip_peak_tflops));
    OPMFU_RETURN_IF_ERROR(insert.Bind(10, row.flops));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(11, row.flops_op_name()));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, 12, row.input_shapes()));
    OPMFU_RETURN_IF_ERROR(BindOptional(insert, 13, row.output_shapes()));
    OPMFU_ASSIGN_OR_RETURN(bool more, insert.Step());
    (void)more;
    return insert.Reset();
  }();
  if (!inserted.ok()) return open_->write->Failed(inserted.error());
  ++operator_rows_;
  return Ok();
}

Status ClusterDbWriter::Append(const ModuleMfuRow& row) {
  OPMFU_RETURN_IF_ERROR(Start());
  Statement& insert = *open_->insert_module;
  const auto inserted = [&]() -> Status {
    OPMFU_RETURN_IF_ERROR(insert.Bind(1, row.rank_id));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(2, row.parent_module));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(3, row.module));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(4, row.op_name));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(5, row.kernel_list));
    OPMFU_RETURN_IF_ERROR(insert.Bind(6, row.total_kernel_duration));
    OPMFU_RETURN_IF_ERROR(insert.Bind(7, row.avg_kernel_duration));
    OPMFU_RETURN_IF_ERROR(insert.Bind(8, row.op_count));
    OPMFU_RETURN_IF_ERROR(insert.BindUncopied(9, row.avg_mfu));
    OPMFU_ASSIGN_OR_RETURN(bool more, insert.Step());
    (void)more;
    return insert.Reset();
  }();
  if (!inserted.ok()) return open_->write->Failed(inserted.error());
  ++module_rows_;
  any_avg_mfu_ = any_avg_mfu_ || !row.avg_mfu.empty();
  return Ok();
}

Status ClusterDbWriter::Append(const std::vector<OperatorMfuRow>& operator_rows,
                               const std::vector<ModuleMfuRow>& module_rows) {
  for (const OperatorMfuRow& row : operator_rows) OPMFU_RETURN_IF_ERROR(Append(row));
  for (const ModuleMfuRow& row : module_rows) OPMFU_RETURN_IF_ERROR(Append(row));
  return Ok();
}

void ClusterDbWriter::NoteTypes(bool duration_integer, bool flops_integer) {
  duration_integer_ = duration_integer_ && duration_integer;
  flops_integer_ = flops_integer_ && flops_integer;
}

Status ClusterDbWriter::Finish() {
  if (!open_) return Error::Input(db_path_.string() + ": nothing was started to finish");
  open_->insert_operator.reset();
  open_->insert_module.reset();
  Database& db = open_->write->db();
  const auto settled = [&]() -> Status {
    // Upstream leaves out a table without rows (and an avg_mfu column empty everywhere); DROP
    // COLUMN leaves the CREATE text as if the column had never been declared.
    if (module_rows_ == 0) {
      OPMFU_RETURN_IF_ERROR(db.Execute("DROP TABLE \"ModuleMFU\""));
    } else if (!any_avg_mfu_) {
      OPMFU_RETURN_IF_ERROR(db.Execute("ALTER TABLE \"ModuleMFU\" DROP COLUMN \"avg_mfu\""));
    }
    if (operator_rows_ == 0) {
      OPMFU_RETURN_IF_ERROR(db.Execute("DROP TABLE \"OperatorMFU\""));
    } else if (!duration_integer_ || !flops_integer_) {
      // Only the declared type changes, INTEGER to REAL, which the stored records do not depend on
      // (a REAL column may hold integers; reads turn them into reals). Done last: this connection
      // keeps the schema it parsed, and commits and closes next.
      OPMFU_RETURN_IF_ERROR(db.Execute("PRAGMA writable_schema = ON"));
      OPMFU_ASSIGN_OR_RETURN(
          Statement update,
          db.Prepare("UPDATE sqlite_master SET sql = ?1 WHERE type = 'table' AND name = 'OperatorMFU'"));
      const std::string sql = OperatorTableSql(duration_integer_, flops_integer_);
      OPMFU_RETURN_IF_ERROR(update.Bind(1, std::string_view(sql)));
      OPMFU_ASSIGN_OR_RETURN(bool more, update.Step());
      (void)more;
      OPMFU_RETURN_IF_ERROR(db.Execute("PRAGMA writable_schema = OFF"));
    }
    return Ok();
  }();
  if (!settled.ok()) {
    Error error = open_->write->Failed(settled.error());
    open_.reset();
    return error;
  }
  Status committed = open_->write->Commit();
  open_.reset();
  return committed;
}

RankOrderedWrites::RankOrderedWrites(std::size_t count, std::size_t window, std::function<void(std::size_t)> write)
    : count_(count), window_(std::max<std::size_t>(1, window)), write_(std::move(write)), finished_(count, false) {}

bool RankOrderedWrites::WaitToStart(std::size_t item) {
  std::unique_lock lock(mutex_);
  advanced_.wait(lock, [&] { return aborted_ || item < next_ + window_; });
  return !aborted_;
}

void RankOrderedWrites::Finished(std::size_t item) {
  std::unique_lock lock(mutex_);
  finished_[item] = true;
  if (writing_) return;  // the writing thread checks finished_ again before it stops
  writing_ = true;
  while (next_ < count_ && finished_[next_]) {
    const std::size_t written = next_;
    lock.unlock();
    write_(written);
    lock.lock();
    ++next_;
    advanced_.notify_all();
  }
  writing_ = false;
}

void RankOrderedWrites::Abort() {
  const std::lock_guard lock(mutex_);
  aborted_ = true;
  advanced_.notify_all();
}

std::size_t RankOrderedWrites::written() const {
  const std::lock_guard lock(mutex_);
  return next_;
}

Status WriteClusterDb(const fs::path& db_path, const AnalysisTables& tables,
                      const std::vector<std::string>& stale_tables, const fs::path& tree) {
  ClusterDbWriter writer(db_path, stale_tables, tree);
  OPMFU_RETURN_IF_ERROR(writer.Start());
  for (const OperatorMfuRow& row : tables.operator_rows) OPMFU_RETURN_IF_ERROR(writer.Append(row));
  for (const ModuleMfuRow& row : tables.module_rows) OPMFU_RETURN_IF_ERROR(writer.Append(row));
  writer.NoteTypes(tables.duration_integer, tables.flops_integer);
  return writer.Finish();
}

namespace {

using Cells = std::vector<nlohmann::ordered_json>;

nlohmann::ordered_json Cell(std::optional<std::string_view> text) {
  return text ? nlohmann::ordered_json(*text) : nlohmann::ordered_json(nullptr);
}

// A row's values in column order: what both the CSV and the JSON export write.
Cells OperatorCells(const OperatorMfuRow& r) {
  return {r.rank_id,
          Cell(r.op_name()),
          Cell(r.kernel_name()),
          r.kernel_start,
          r.kernel_end,
          r.kernel_duration,
          r.mfu,
          r.actual_tflops,
          r.chip_peak_tflops,
          r.flops,
          r.flops_op_name(),
          Cell(r.input_shapes()),
          Cell(r.output_shapes())};
}

Cells ModuleCells(const ModuleMfuRow& r, bool with_avg_mfu) {
  Cells cells = {
      r.rank_id, r.parent_module, r.module, r.op_name, r.kernel_list, r.total_kernel_duration, r.avg_kernel_duration,
      r.op_count};
  if (with_avg_mfu) cells.emplace_back(r.avg_mfu);
  return cells;
}

std::string CsvCell(const nlohmann::ordered_json& cell) {
  if (cell.is_null()) return {};
  if (cell.is_string()) return CsvField(cell.get<std::string>());
  if (cell.is_number_float()) return CsvNumber(cell.get<double>());
  return cell.dump();
}

// A header line and one line per row.
template <typename Rows, typename ToCells>
std::string CsvTable(std::span<const MfuColumn> columns, const Rows& rows, ToCells&& to_cells) {
  std::string out;
  for (const MfuColumn& column : columns) out += std::string(out.empty() ? "" : ",") + CsvField(column.name);
  out += "\n";
  for (const auto& row : rows) {
    const Cells cells = to_cells(row);
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i == 0 ? "" : ",") + CsvCell(cells[i]);
    out += "\n";
  }
  return out;
}

// An array of objects keyed by column name.
template <typename Rows, typename ToCells>
nlohmann::ordered_json JsonTable(std::span<const MfuColumn> columns, const Rows& rows, ToCells&& to_cells) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    const Cells cells = to_cells(row);
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < cells.size(); ++i) object[std::string(columns[i].name)] = cells[i];
    array.push_back(std::move(object));
  }
  return array;
}

}  // namespace

Result<std::vector<fs::path>> WriteCsv(const fs::path& directory, const AnalysisTables& tables, const fs::path& tree) {
  // The directory is created beneath the tree (never through a link), by the writes below.
  const fs::path& top = tree.empty() ? directory : tree;
  const bool avg = tables.with_avg_mfu();
  const std::string operators = CsvTable(kOperatorColumns, tables.operator_rows, OperatorCells);
  const std::string modules =
      CsvTable(ModuleColumns(avg), tables.module_rows, [avg](const ModuleMfuRow& r) { return ModuleCells(r, avg); });
  const fs::path operator_path = directory / "operator_mfu.csv";
  const fs::path module_path = directory / "module_mfu.csv";
  OPMFU_RETURN_IF_ERROR(WriteFileAtomically(operator_path, operators, top));
  OPMFU_RETURN_IF_ERROR(WriteFileAtomically(module_path, modules, top));
  return std::vector<fs::path>{operator_path, module_path};
}

Result<std::vector<fs::path>> WriteJson(const fs::path& directory, const AnalysisTables& tables, const fs::path& tree) {
  using json = nlohmann::ordered_json;
  const fs::path& top = tree.empty() ? directory : tree;
  const bool avg = tables.with_avg_mfu();
  const json operators = JsonTable(kOperatorColumns, tables.operator_rows, OperatorCells);
  const json modules =
      JsonTable(ModuleColumns(avg), tables.module_rows, [avg](const ModuleMfuRow& r) { return ModuleCells(r, avg); });
  const fs::path operator_path = directory / "operator_mfu.json";
  const fs::path module_path = directory / "module_mfu.json";
  OPMFU_RETURN_IF_ERROR(
      WriteFileAtomically(operator_path, operators.dump(1, '\t', false, json::error_handler_t::replace) + "\n", top));
  OPMFU_RETURN_IF_ERROR(
      WriteFileAtomically(module_path, modules.dump(1, '\t', false, json::error_handler_t::replace) + "\n", top));
  return std::vector<fs::path>{operator_path, module_path};
}

}  // namespace opmfu::engine
