#include "engine/scan_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <numeric>
#include <span>
#include <tuple>
#include <unordered_map>

#include "common/parallel.h"
#include "common/sqlite.h"
#include "engine/group_index.h"
#include "engine/join_limit.h"
#include "engine/numeric.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

namespace {

// ---- what SQLite would do: the query plans the scan reproduces --------------------------------

// EXPLAIN QUERY PLAN of each query in AnalysisQueries() order. A Bloom filter only skips lookups
// that find nothing, so it changes no order and is left out.
Result<std::vector<std::string>> PlanOf(Database& db, const std::string& sql) {
  OPMFU_ASSIGN_OR_RETURN(Statement statement, db.Prepare("EXPLAIN QUERY PLAN " + sql));
  std::vector<std::string> lines;
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
    if (!row) break;
    std::string detail(statement.Text(3));
    if (detail.rfind("BLOOM FILTER ON ", 0) == 0) continue;
    // The shapes query's scalar sub-selects of STRING_IDS by primary key cannot reorder rows.
    if (detail.rfind("CORRELATED SCALAR SUBQUERY ", 0) == 0 ||
        detail == "SEARCH STRING_IDS USING INTEGER PRIMARY KEY (rowid=?)")
      continue;
    lines.push_back(std::move(detail));
  }
  return lines;
}

using Plan = std::vector<std::string>;

const Plan kMstxPlan = {"SCAN e", "SEARCH message USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
                        "SEARCH domain USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR ORDER BY"};
// For each kernel in storage order: its TASK rows by the automatic index (globalTaskId, startNs,
// endNs, connectionId, rowid), their CONNECTION_IDS rows by (connectionId, id, rowid), their
// PYTORCH_API rows by (connectionId, startNs, endNs, name, rowid); then a stable sort.
const Plan kComputeLinkPlan = {"SCAN k",
                               "SEARCH t USING AUTOMATIC COVERING INDEX (globalTaskId=?) LEFT-JOIN",
                               "SEARCH kernel_string USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
                               "SEARCH c USING AUTOMATIC COVERING INDEX (connectionId=?)",
                               "SEARCH api USING AUTOMATIC COVERING INDEX (connectionId=?)",
                               "SEARCH op_string USING INTEGER PRIMARY KEY (rowid=?)",
                               "USE TEMP B-TREE FOR ORDER BY"};
// The same join where TASK.globalTaskId is an INTEGER PRIMARY KEY (no automatic index is built):
// each kernel finds at most one TASK row, so the order within a kernel's TASK rows is moot and the
// in-memory join gives the rows in the same order.
const std::string_view kTaskByAutomaticIndex = "SEARCH t USING AUTOMATIC COVERING INDEX (globalTaskId=?) LEFT-JOIN";
const std::string_view kTaskByPrimaryKey = "SEARCH t USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN";

bool IsComputeLinkPlan(const std::optional<Plan>& plan) {
  if (!plan || plan->size() != kComputeLinkPlan.size()) return false;
  for (std::size_t i = 0; i < plan->size(); ++i) {
    const bool same = (*plan)[i] == kComputeLinkPlan[i] ||
                      (kComputeLinkPlan[i] == kTaskByAutomaticIndex && (*plan)[i] == kTaskByPrimaryKey);
    if (!same) return false;
  }
  return true;
}

const Plan kCommunicationLinkPlan = {"SCAN m",
                                     "SEARCH kernel_string USING INTEGER PRIMARY KEY (rowid=?)",
                                     "SEARCH c USING AUTOMATIC COVERING INDEX (connectionId=?)",
                                     "SEARCH api USING AUTOMATIC COVERING INDEX (connectionId=?)",
                                     "SEARCH op_string USING INTEGER PRIMARY KEY (rowid=?)",
                                     "USE TEMP B-TREE FOR ORDER BY"};

// The shapes query's plans, and the order each gives to rows of equal TASK.startNs.
enum class ShapesPlan {
  kKernelsThenTasks,  ///< kernels in storage order, TASK by (globalTaskId, startNs, endNs, rowid), stable sort
  kTaskIndex,         ///< TASK by an index on (startNs, globalTaskId); kernels by primary key
  kTasksThenSort,     ///< TASK in storage order, kernels by primary key, stable sort
};

Result<std::optional<ShapesPlan>> ShapesPlanOf(Database& db, const Plan& plan) {
  // TASK by an automatic index or by its INTEGER PRIMARY KEY: either way each kernel's TASK rows
  // in (globalTaskId, startNs, ...) order, a single row under the key.
  if (plan ==
          Plan{"SCAN k", "SEARCH t USING AUTOMATIC COVERING INDEX (globalTaskId=?)", "USE TEMP B-TREE FOR ORDER BY"} ||
      plan == Plan{"SCAN k", "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR ORDER BY"})
    return std::optional(ShapesPlan::kKernelsThenTasks);
  if (plan == Plan{"SCAN t", "SEARCH k USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR ORDER BY"})
    return std::optional(ShapesPlan::kTasksThenSort);
  constexpr std::string_view kIndexScan = "SCAN t USING INDEX ";
  if (plan.size() != 2 || plan[0].rfind(kIndexScan, 0) != 0 ||
      plan[1] != "SEARCH k USING INTEGER PRIMARY KEY (rowid=?)")
    return std::optional<ShapesPlan>();
  // Only an index whose keys are exactly (startNs, globalTaskId), ascending, binary, not partial.
  const std::string index = plan[0].substr(kIndexScan.size());
  OPMFU_ASSIGN_OR_RETURN(Statement list, db.Prepare("SELECT partial FROM pragma_index_list('TASK') WHERE name = ?1"));
  OPMFU_RETURN_IF_ERROR(list.Bind(1, std::string_view(index)));
  OPMFU_ASSIGN_OR_RETURN(bool listed, list.Step());
  if (!listed || list.Int64(0) != 0) return std::optional<ShapesPlan>();
  OPMFU_ASSIGN_OR_RETURN(
      Statement columns,
      db.Prepare("SELECT name, desc, coll FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno"));
  OPMFU_RETURN_IF_ERROR(columns.Bind(1, std::string_view(index)));
  std::vector<std::string> keys;
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, columns.Step());
    if (!row) break;
    if (columns.Int64(1) != 0 || columns.Text(2) != "BINARY") return std::optional<ShapesPlan>();
    keys.emplace_back(columns.Text(0));
  }
  if (keys != std::vector<std::string>{"startNs", "globalTaskId"}) return std::optional<ShapesPlan>();
  return std::optional(ShapesPlan::kTaskIndex);
}

// ---- reading values as the queries would see them ---------------------------------------------

struct Declined {
  std::string reason;
};

// A join key: an integer, or NULL (joins nothing). Anything else would compare by SQLite's
// affinity rules, which the scan does not model.
bool ReadKey(sqlite3_stmt* row, int column, std::optional<std::int64_t>& out) {
  switch (sqlite3_column_type(row, column)) {
    case SQLITE_INTEGER:
      out = sqlite3_column_int64(row, column);
      return true;
    case SQLITE_NULL:
      out.reset();
      return true;
    default:
      return false;
  }
}

// A time column that an ORDER BY or an automatic index sorts on. Its values order like their
// integer values when every kept row holds an integer, or every one holds a text of the same
// number of decimal digits (CANN writes PYTORCH_API's times as 19-digit text). Anything else
// (NULL, reals, mixed storage classes or widths) is declined.
class TimeColumn {
 public:
  explicit TimeColumn(bool integers_only = false) : integers_only_(integers_only) {}

  bool Read(sqlite3_stmt* row, int column, std::int64_t& out) {
    const int type = sqlite3_column_type(row, column);
    if (type == SQLITE_INTEGER) {
      if (mode_ == Mode::kText) return false;
      mode_ = Mode::kInteger;
      out = sqlite3_column_int64(row, column);
      return true;
    }
    if (type != SQLITE_TEXT || integers_only_ || mode_ == Mode::kInteger) return false;
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(row, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(row, column));
    if (size == 0 || size > 19 || (mode_ == Mode::kText && size != text_size_)) return false;
    if (!std::all_of(text, text + size, [](char c) { return c >= '0' && c <= '9'; })) return false;
    auto [end, error] = std::from_chars(text, text + size, out);
    if (error != std::errc() || end != text + size) return false;
    mode_ = Mode::kText;
    text_size_ = size;
    return true;
  }

 private:
  enum class Mode { kUnset, kInteger, kText };
  bool integers_only_;
  Mode mode_ = Mode::kUnset;
  std::size_t text_size_ = 0;
};

// "NULL->0 int" of any value, as rank_reader's Coerced.
std::int64_t Coerced(sqlite3_stmt* row, int column) {
  const int type = sqlite3_column_type(row, column);
  if (type == SQLITE_TEXT) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(row, column));
    return CoerceInt(type, 0, 0.0, std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(row, column))));
  }
  return CoerceInt(type, sqlite3_column_int64(row, column), sqlite3_column_double(row, column), {});
}

// How many rows a table has at most (its largest rowid, found without a scan): what the vector
// its rows go into is reserved for, so that it is not grown by doubling (and copied) on the way.
std::size_t RowsAtMost(Database& db, std::string_view table) {
  auto statement = db.Prepare("SELECT max(rowid) FROM " + std::string(table));
  if (!statement.ok()) return 0;
  auto row = statement->Step();
  if (!row.ok() || !*row) return 0;
  return static_cast<std::size_t>(std::clamp<std::int64_t>(statement->Int64(0), 0, std::int64_t{1} << 26));
}

// Steps through `sql` (a plain scan in rowid order); `on_row` returns false to decline.
template <typename OnRow>
Result<std::optional<Declined>> Scan(Database& db, const std::string& sql, std::string_view table, OnRow&& on_row) {
  OPMFU_ASSIGN_OR_RETURN(Statement statement, db.Prepare(sql));
  std::uint32_t ordinal = 0;
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
    if (!row) return std::optional<Declined>();
    if (!on_row(statement.handle(), ordinal++)) {
      return std::optional(
          Declined{std::string(table) + " holds a value the scan cannot order or join as SQLite would"});
    }
  }
}

// ---- the tables, as far as the joins need them (rows that can join nothing are left out) -------

struct ApiRow {
  std::int64_t start, end, connection, name;
  StringId name_id;
  std::uint32_t ordinal;
};
struct ConnectionRow {
  std::int64_t id, connection;
  std::uint32_t ordinal;
};
struct TaskRow {
  std::int64_t start, end, connection, global_task_id;
  std::uint32_t ordinal;
  bool has_connection;
};
struct ComputeRow {
  std::int64_t global_task_id;
  StringId name, input_shapes, input_types, output_shapes;
};
struct CommunicationRow {
  std::int64_t start, end, connection;
  StringId op_type;
};
// A COMMUNICATION_SCHEDULE_TASK_INFO row: joined to TASK as a compute kernel is (Q3).
struct ScheduleRow {
  std::int64_t global_task_id;
  StringId name;
};

struct Tables {
  std::vector<ModuleRange> modules;
  std::vector<FlopsRange> flops_ranges;
  std::vector<ApiRow> apis;
  std::vector<ConnectionRow> connections;
  std::vector<TaskRow> tasks;
  std::vector<ComputeRow> computes;
  std::vector<CommunicationRow> communications;
  std::vector<ScheduleRow> schedules;
  // With kernel signatures: beside each of `computes`, opType, inputFormats, outputFormats and
  // outputDataTypes (kept apart so that ComputeRow does not grow for the analysis alone).
  std::vector<std::array<StringId, 4>> signature_ids;
  bool signature_unreadable = false;  ///< a signature column held something else than an id
};

// COMPUTE_TASK_INFO's columns as the scan reads them: the analysis' five, then with kernel
// signatures the four more a signature needs.
constexpr const char* kComputeColumns = "name, globalTaskId, inputShapes, inputDataTypes, outputShapes";
constexpr const char* kSignatureColumns = ", opType, inputFormats, outputFormats, outputDataTypes";

struct SignatureKeyHash {
  std::size_t operator()(const std::array<StringId, 8>& key) const {
    std::size_t hash = 0;
    for (StringId id : key) hash = hash * 1000003U ^ std::hash<StringId>()(id);
    return hash;
  }
};

// The kernels by signature (kernel_signatures.h), from the rows the scan already holds.
KernelSignatures GroupBySignature(const Tables& tables, const GroupIndex& tasks_by_id, const StringPool& pool) {
  KernelSignatures signatures;
  std::unordered_map<std::array<StringId, 8>, std::uint32_t, SignatureKeyHash> index;
  std::vector<std::array<StringId, 8>> keys;
  signatures.kernels.reserve(tables.computes.size());
  for (std::size_t k = 0; k < tables.computes.size(); ++k) {
    const ComputeRow& kernel = tables.computes[k];
    const TaskRow* task = nullptr;  // the first of its id in storage order
    for (std::uint32_t t : tasks_by_id.Find(kernel.global_task_id)) {
      if (task == nullptr || tables.tasks[t].ordinal < task->ordinal) task = &tables.tasks[t];
    }
    if (task == nullptr) continue;  // no device task: not a kernel that ran
    const std::array<StringId, 4>& more = tables.signature_ids[k];
    const std::array<StringId, 8> key = {kernel.name,         more[0], more[1], kernel.input_types,
                                         kernel.input_shapes, more[2], more[3], kernel.output_shapes};
    auto [found, added] = index.try_emplace(key, static_cast<std::uint32_t>(keys.size()));
    if (added) {
      keys.push_back(key);
      signatures.groups.emplace_back();
    }
    KernelSignatureGroup& group = signatures.groups[found->second];
    ++group.count;
    group.duration = SaturatingAdd(group.duration, std::max<std::int64_t>(0, TaskDuration(task->start, task->end)));
    signatures.kernels.push_back({task->start, found->second});
  }
  for (std::size_t g = 0; g < keys.size(); ++g) {
    for (std::size_t column = 0; column < keys[g].size(); ++column) {
      signatures.groups[g].columns[column] = std::string(pool.View(keys[g][column]));
    }
  }
  return signatures;
}

// ---- the steps of ReadRankByScan ------------------------------------------------------------

// What the database holds beside the six tables every rank has, and how SQLite orders the shapes.
struct Layout {
  bool has_communication = false;  ///< COMMUNICATION_OP (both schemas)
  bool has_schedule = false;       ///< COMMUNICATION_SCHEDULE_TASK_INFO (newer CANN)
  ShapesPlan shapes_plan = ShapesPlan::kKernelsThenTasks;
  bool signatures = false;  ///< kernel signatures asked for, and COMPUTE_TASK_INFO has their columns
  std::string compute_sql;
};

// The tables present and the plans SQLite would run: a layout the scan reproduces, or why not.
Result<std::optional<Layout>> CheckLayout(Database& db, bool with_kernel_signatures, std::string& declined) {
  const auto decline = [&](std::string reason) {
    declined = std::move(reason);
    return std::optional<Layout>();
  };
  for (const char* table :
       {"STRING_IDS", "MSTX_EVENTS", "PYTORCH_API", "CONNECTION_IDS", "TASK", "COMPUTE_TASK_INFO"}) {
    OPMFU_ASSIGN_OR_RETURN(bool present, db.HasTable(table));
    if (!present) return decline(std::string("no ") + table + " table");
  }
  Layout layout;
  OPMFU_ASSIGN_OR_RETURN(layout.has_schedule, db.HasTable("COMMUNICATION_SCHEDULE_TASK_INFO"));
  OPMFU_ASSIGN_OR_RETURN(layout.has_communication, db.HasTable("COMMUNICATION_OP"));

  // The plans SQLite would run; a plan the scan does not reproduce means the queries run instead.
  const std::vector<std::string> queries = AnalysisQueries();
  const auto plan_of = [&](std::size_t query) -> Result<std::optional<Plan>> {
    auto plan = PlanOf(db, queries[query]);
    if (!plan.ok()) return std::optional<Plan>();  // e.g. a missing column: the queries report it
    return std::optional(std::move(*plan));
  };
  for (std::size_t query = 0; query < 2; ++query) {
    OPMFU_ASSIGN_OR_RETURN(auto plan, plan_of(query));
    if (plan != kMstxPlan) return decline("SQLite plans the MSTX_EVENTS query differently");
  }
  {
    OPMFU_ASSIGN_OR_RETURN(auto plan, plan_of(2));
    if (!IsComputeLinkPlan(plan)) return decline("SQLite plans the op-to-kernel query differently");
  }
  if (layout.has_communication) {
    OPMFU_ASSIGN_OR_RETURN(auto plan, plan_of(3));
    if (plan != kCommunicationLinkPlan) return decline("SQLite plans the HCCL op-to-kernel query differently");
  }
  if (layout.has_schedule) {
    // The same join as the compute kernels' (Q3), on COMMUNICATION_SCHEDULE_TASK_INFO.
    OPMFU_ASSIGN_OR_RETURN(auto plan, plan_of(4));
    if (!IsComputeLinkPlan(plan))
      return decline("SQLite plans the COMMUNICATION_SCHEDULE_TASK_INFO op-to-kernel query differently");
  }
  OPMFU_ASSIGN_OR_RETURN(auto shapes_plan_lines, plan_of(5));
  if (!shapes_plan_lines) return decline("the shapes query does not prepare");
  OPMFU_ASSIGN_OR_RETURN(std::optional<ShapesPlan> shapes_plan, ShapesPlanOf(db, *shapes_plan_lines));
  if (!shapes_plan) return decline("SQLite plans the shapes query differently");
  layout.shapes_plan = *shapes_plan;

  // Signatures only where COMPUTE_TASK_INFO has their columns; the analysis reads on without them.
  const std::string with_signatures =
      std::string("SELECT ") + kComputeColumns + kSignatureColumns + " FROM COMPUTE_TASK_INFO ORDER BY rowid";
  layout.signatures = with_kernel_signatures && db.Prepare(with_signatures).ok();
  layout.compute_sql = layout.signatures
                           ? with_signatures
                           : std::string("SELECT ") + kComputeColumns + " FROM COMPUTE_TASK_INFO ORDER BY rowid";
  return std::optional(std::move(layout));
}

// ---- each table once, in storage order (rows that can join nothing are left out) -------------

using Scanned = Result<std::optional<Declined>>;

// Q1 and Q2's rows: the Module ranges (eventType 2) and the mfu_flops events, unsorted.
Scanned ScanMstx(Database& in, const StringPool& pool, Tables& tables) {
  TimeColumn start;
  return Scan(in, "SELECT startNs, endNs, eventType, message, domainId FROM MSTX_EVENTS ORDER BY rowid", "MSTX_EVENTS",
              [&](sqlite3_stmt* row, std::uint32_t) {
                std::optional<std::int64_t> event_type, message, domain;
                if (!ReadKey(row, 2, event_type) || !ReadKey(row, 3, message) || !ReadKey(row, 4, domain)) return false;
                if (!domain) return true;
                const std::string_view domain_name = pool.View(pool.FromDb(*domain));
                const bool module = domain_name == "Module" && event_type == 2;
                const bool flops = domain_name == "mfu_flops";
                if (!module && !flops) return true;
                std::int64_t begin = 0;
                if (!start.Read(row, 0, begin)) return false;
                const StringId text = message ? pool.FromDb(*message) : kNoString;
                if (module) tables.modules.push_back({begin, Coerced(row, 1), text});
                if (flops) tables.flops_ranges.push_back({begin, Coerced(row, 1), text});
                return true;
              });
}

Scanned ScanApis(Database& in, const StringPool& pool, Tables& tables) {
  TimeColumn start;
  TimeColumn end;
  tables.apis.reserve(RowsAtMost(in, "PYTORCH_API"));
  return Scan(in, "SELECT startNs, endNs, connectionId, name FROM PYTORCH_API ORDER BY rowid", "PYTORCH_API",
              [&](sqlite3_stmt* row, std::uint32_t ordinal) {
                std::optional<std::int64_t> connection, name;
                if (!ReadKey(row, 2, connection) || !ReadKey(row, 3, name)) return false;
                if (!connection || !name || !pool.HasDbId(*name)) return true;  // the inner joins drop it
                ApiRow api{0, 0, *connection, *name, pool.FromDb(*name), ordinal};
                return start.Read(row, 0, api.start) && end.Read(row, 1, api.end) && (tables.apis.push_back(api), true);
              });
}

Scanned ScanConnections(Database& in, Tables& tables) {
  tables.connections.reserve(RowsAtMost(in, "CONNECTION_IDS"));
  return Scan(in, "SELECT id, connectionId FROM CONNECTION_IDS ORDER BY rowid", "CONNECTION_IDS",
              [&](sqlite3_stmt* row, std::uint32_t ordinal) {
                std::optional<std::int64_t> id, connection;
                if (!ReadKey(row, 0, id) || !ReadKey(row, 1, connection)) return false;
                if (id && connection) tables.connections.push_back({*id, *connection, ordinal});
                return true;
              });
}

// Every TASK row, the HCCL ones included (a kernel table's join finds its own).
Scanned ScanTasks(Database& in, Tables& tables) {
  // Q5 keeps TASK times as stored, so only integers compare with the links' coerced ones.
  TimeColumn start(true);
  TimeColumn end(true);
  tables.tasks.reserve(RowsAtMost(in, "TASK"));
  return Scan(in, "SELECT startNs, endNs, connectionId, globalTaskId FROM TASK ORDER BY rowid", "TASK",
              [&](sqlite3_stmt* row, std::uint32_t ordinal) {
                std::optional<std::int64_t> connection, task;
                if (!ReadKey(row, 2, connection) || !ReadKey(row, 3, task)) return false;
                if (!task) return true;
                TaskRow t{0, 0, connection.value_or(0), *task, ordinal, connection.has_value()};
                return start.Read(row, 0, t.start) && end.Read(row, 1, t.end) && (tables.tasks.push_back(t), true);
              });
}

Scanned ScanComputes(Database& in, const Layout& layout, const StringPool& pool, Tables& tables) {
  tables.computes.reserve(RowsAtMost(in, "COMPUTE_TASK_INFO"));
  if (layout.signatures) tables.signature_ids.reserve(tables.computes.capacity());
  return Scan(in, layout.compute_sql, "COMPUTE_TASK_INFO", [&](sqlite3_stmt* row, std::uint32_t) {
    std::optional<std::int64_t> values[5];
    for (int i = 0; i < 5; ++i) {
      if (!ReadKey(row, i, values[i])) return false;
    }
    if (!values[1]) return true;
    const auto id = [&](int i) { return values[i] ? pool.FromDb(*values[i]) : kNoString; };
    tables.computes.push_back({*values[1], id(0), id(2), id(3), id(4)});
    if (layout.signatures) {
      std::array<StringId, 4>& more = tables.signature_ids.emplace_back();
      for (int i = 0; i < 4; ++i) {
        std::optional<std::int64_t> value;
        if (!ReadKey(row, 5 + i, value)) tables.signature_unreadable = true;
        more[static_cast<std::size_t>(i)] = value ? pool.FromDb(*value) : kNoString;
      }
    }
    return true;
  });
}

// Q4's rows: the inner joins drop an op without a flow id or an opType string.
Scanned ScanCommunicationOps(Database& in, const StringPool& pool, Tables& tables) {
  TimeColumn start;
  return Scan(in, "SELECT startNs, endNs, connectionId, opType FROM COMMUNICATION_OP ORDER BY rowid",
              "COMMUNICATION_OP", [&](sqlite3_stmt* row, std::uint32_t) {
                std::optional<std::int64_t> connection, op_type;
                if (!ReadKey(row, 2, connection) || !ReadKey(row, 3, op_type)) return false;
                if (!connection || !op_type || !pool.HasDbId(*op_type)) return true;
                CommunicationRow m{0, Coerced(row, 1), *connection, pool.FromDb(*op_type)};
                return start.Read(row, 0, m.start) && (tables.communications.push_back(m), true);
              });
}

// Q3's kernels of the newer schema's schedule table (a NULL name stays, as the LEFT JOIN keeps it).
Scanned ScanScheduleTasks(Database& in, const StringPool& pool, Tables& tables) {
  tables.schedules.reserve(RowsAtMost(in, "COMMUNICATION_SCHEDULE_TASK_INFO"));
  return Scan(in, "SELECT name, globalTaskId FROM COMMUNICATION_SCHEDULE_TASK_INFO ORDER BY rowid",
              "COMMUNICATION_SCHEDULE_TASK_INFO", [&](sqlite3_stmt* row, std::uint32_t) {
                std::optional<std::int64_t> name, task;
                if (!ReadKey(row, 0, name) || !ReadKey(row, 1, task)) return false;
                if (task) tables.schedules.push_back({*task, name ? pool.FromDb(*name) : kNoString});
                return true;
              });
}

// The tables on `jobs` threads, one connection each.
Scanned ScanTables(const std::filesystem::path& db_path, unsigned jobs, const Layout& layout, const StringPool& pool,
                   Tables& tables) {
  const Scanned none = std::optional<Declined>();
  using Reader = std::function<Scanned(Database&)>;
  const std::vector<Reader> readers = {
      [&](Database& in) { return ScanMstx(in, pool, tables); },
      [&](Database& in) { return ScanApis(in, pool, tables); },
      [&](Database& in) { return ScanConnections(in, tables); },
      [&](Database& in) { return ScanTasks(in, tables); },
      [&](Database& in) { return ScanComputes(in, layout, pool, tables); },
      [&](Database& in) { return layout.has_communication ? ScanCommunicationOps(in, pool, tables) : none; },
      [&](Database& in) { return layout.has_schedule ? ScanScheduleTasks(in, pool, tables) : none; },
  };
  std::vector<Result<std::optional<Declined>>> outcomes(readers.size(), std::optional<Declined>());
  ForEachInParallel(readers.size(), jobs, [&](std::size_t i) {
    auto connection = Database::OpenReadOnly(db_path);
    if (!connection.ok()) {
      outcomes[i] = connection.take_error();
      return;
    }
    outcomes[i] = readers[i](*connection);
  });
  for (auto& outcome : outcomes) {
    if (!outcome.ok()) return std::optional(Declined{"a table cannot be scanned: " + outcome.error().message});
    if (*outcome) return std::move(outcome);
  }
  return std::optional<Declined>();
}

// The build sides of the joins, in the order of SQLite's automatic indexes (see the plans).
struct JoinIndexes {
  std::optional<GroupIndex> tasks_by_id;
  std::optional<GroupIndex> connections_by_flow;
  std::optional<GroupIndex> apis_by_connection;
};

JoinIndexes BuildJoinIndexes(const Tables& tables, unsigned jobs) {
  const auto by_task = [](const TaskRow& a, const TaskRow& b) {
    return std::tuple(a.start, a.end, a.has_connection, a.connection, a.ordinal) <
           std::tuple(b.start, b.end, b.has_connection, b.connection, b.ordinal);
  };
  JoinIndexes indexes;
  ForEachInParallel(3, jobs, [&](std::size_t i) {
    if (i == 0) {
      indexes.tasks_by_id.emplace(
          tables.tasks, [](const TaskRow& t) { return t.global_task_id; }, by_task);
    } else if (i == 1) {
      indexes.connections_by_flow.emplace(
          tables.connections, [](const ConnectionRow& c) { return c.connection; },
          [](const ConnectionRow& a, const ConnectionRow& b) {
            return std::tie(a.id, a.ordinal) < std::tie(b.id, b.ordinal);
          });
    } else {
      indexes.apis_by_connection.emplace(
          tables.apis, [](const ApiRow& a) { return a.connection; },
          [](const ApiRow& a, const ApiRow& b) {
            return std::tie(a.start, a.end, a.name, a.ordinal) < std::tie(b.start, b.end, b.name, b.ordinal);
          });
    }
  });
  return indexes;
}

// What BuildLinks and BuildShapes would give, counted by walking the same join without building
// it, stopping once `limit` is passed: their rows (and GroupBySignature's loop) stay bounded for a
// DB whose rows share one id. Returns the join that would pass the limit, if one would.
std::optional<std::string_view> JoinPastLimit(const Tables& tables, const JoinIndexes& indexes, std::uint64_t limit) {
  std::uint64_t pairs = 0;
  std::uint64_t steps = 0;  // connections visited and links made: the link join's work
  // BuildLinks' add_links for one flow id, counted: false once the work passes the limit.
  const auto count_links = [&](std::int64_t flow) {
    for (std::uint32_t c : indexes.connections_by_flow->Find(flow)) {
      steps += 1 + indexes.apis_by_connection->Find(tables.connections[c].id).size();
      if (steps > limit) return false;
    }
    return true;
  };
  const auto walk = [&](const auto& kernels) {
    for (const auto& kernel : kernels) {
      const std::span<const std::uint32_t> tasks = indexes.tasks_by_id->Find(kernel.global_task_id);
      pairs += tasks.size();
      if (pairs > limit) return false;
      for (std::uint32_t t : tasks) {
        if (tables.tasks[t].has_connection && !count_links(tables.tasks[t].connection)) return false;
      }
    }
    return true;
  };
  if (!walk(tables.computes)) return pairs > limit ? "kernel-shapes join" : "op-to-kernel join";
  pairs = 0;
  if (!walk(tables.schedules)) return "op-to-kernel join";
  for (const CommunicationRow& m : tables.communications) {
    if (!count_links(m.connection)) return "op-to-kernel join";
  }
  return std::nullopt;
}

// The TASK id with the most rows, and how many kernels carry it: what a fan-out error names.
SharedTaskId WidestTaskId(const Tables& tables, const JoinIndexes& indexes) {
  SharedTaskId widest;
  for (const ComputeRow& kernel : tables.computes) {
    const std::size_t rows = indexes.tasks_by_id->Find(kernel.global_task_id).size();
    if (rows > widest.task_rows) widest = {kernel.global_task_id, rows, 0};
  }
  for (const ComputeRow& kernel : tables.computes) widest.kernel_rows += kernel.global_task_id == widest.id ? 1 : 0;
  return widest;
}

// kernel_df: the compute links (Q3), then the HCCL links (Q4), then the schedule-task links (Q3 on
// COMMUNICATION_SCHEDULE_TASK_INFO), each part in its query's order. Frees PYTORCH_API and
// CONNECTION_IDS (and their indexes) before the sorts: nothing after reads them.
void BuildLinks(Tables& tables, JoinIndexes& indexes, RankData& data) {
  std::vector<KernelLink>& links = data.kernel_links;
  links.reserve(tables.computes.size() + tables.communications.size() + tables.schedules.size());
  const auto add_links = [&](StringId kernel, std::int64_t kernel_ts, std::int64_t kernel_end, std::int64_t flow) {
    for (std::uint32_t c : indexes.connections_by_flow->Find(flow)) {
      for (std::uint32_t a : indexes.apis_by_connection->Find(tables.connections[c].id)) {
        const ApiRow& api = tables.apis[a];
        links.push_back({kernel, api.name_id, kernel_ts, kernel_end, api.start, api.end});
      }
    }
  };
  // Kernel LEFT JOIN TASK LEFT JOIN CONNECTION_IDS, then the inner joins: a task without a flow id
  // links nothing.
  const auto add_task_links = [&](const auto& kernels) {
    for (const auto& kernel : kernels) {
      for (std::uint32_t t : indexes.tasks_by_id->Find(kernel.global_task_id)) {
        const TaskRow& task = tables.tasks[t];
        if (task.has_connection) add_links(kernel.name, task.start, task.end, task.connection);
      }
    }
  };
  add_task_links(tables.computes);
  const std::size_t compute_links = links.size();
  data.compute_link_count = compute_links;
  for (const CommunicationRow& m : tables.communications) add_links(m.op_type, m.start, m.end, m.connection);
  const std::size_t communication_links = links.size();
  add_task_links(tables.schedules);
  indexes.connections_by_flow.reset();
  indexes.apis_by_connection.reset();
  std::vector<ConnectionRow>().swap(tables.connections);
  std::vector<ApiRow>().swap(tables.apis);
  const auto by_op_then_kernel = [](const KernelLink& a, const KernelLink& b) {
    return std::tie(a.op_ts, a.kernel_ts) < std::tie(b.op_ts, b.kernel_ts);
  };
  const auto begin = links.begin();
  std::stable_sort(begin, begin + static_cast<std::ptrdiff_t>(compute_links), by_op_then_kernel);
  std::stable_sort(begin + static_cast<std::ptrdiff_t>(compute_links),
                   begin + static_cast<std::ptrdiff_t>(communication_links), by_op_then_kernel);
  std::stable_sort(begin + static_cast<std::ptrdiff_t>(communication_links), links.end(), by_op_then_kernel);
}

// The shapes (Q5): every compute kernel with each of its TASK rows, in the order `plan` gives.
void BuildShapes(const Tables& tables, const GroupIndex& tasks_by_id, ShapesPlan plan, RankData& data) {
  struct Pair {
    std::uint32_t kernel, task;
  };
  std::vector<Pair> pairs;
  pairs.reserve(tables.computes.size());
  for (std::uint32_t k = 0; k < tables.computes.size(); ++k) {
    for (std::uint32_t t : tasks_by_id.Find(tables.computes[k].global_task_id)) pairs.push_back({k, t});
  }
  const auto& tasks = tables.tasks;
  switch (plan) {
    case ShapesPlan::kKernelsThenTasks:
      std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
        const TaskRow& x = tasks[a.task];
        const TaskRow& y = tasks[b.task];
        return std::tuple(x.start, a.kernel, x.end, x.ordinal) < std::tuple(y.start, b.kernel, y.end, y.ordinal);
      });
      break;
    case ShapesPlan::kTaskIndex:
      std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
        const TaskRow& x = tasks[a.task];
        const TaskRow& y = tasks[b.task];
        return std::tie(x.start, x.global_task_id, x.ordinal) < std::tie(y.start, y.global_task_id, y.ordinal);
      });
      break;
    case ShapesPlan::kTasksThenSort:
      std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
        const TaskRow& x = tasks[a.task];
        const TaskRow& y = tasks[b.task];
        return std::tie(x.start, x.ordinal) < std::tie(y.start, y.ordinal);
      });
      break;
  }
  data.shapes.reserve(pairs.size());
  for (const Pair& pair : pairs) {
    const ComputeRow& kernel = tables.computes[pair.kernel];
    const TaskRow& task = tasks[pair.task];
    KernelShape shape;
    shape.kernel_name = kernel.name;
    shape.input_shapes = kernel.input_shapes;
    shape.input_types = kernel.input_types;
    shape.output_shapes = kernel.output_shapes;
    shape.kernel_ts = task.start;
    shape.kernel_end = task.end;
    shape.task_duration = TaskDuration(task.start, task.end);
    data.shapes.push_back(shape);
  }
  data.shapes_query_returned_rows = !pairs.empty();
}

}  // namespace

Result<ScanResult> ReadRankByScan(const std::filesystem::path& db_path, unsigned jobs, bool with_kernel_signatures) {
  ScanResult result;
  RankData data;
  Layout layout;
  {
    OPMFU_ASSIGN_OR_RETURN(Database db, Database::OpenReadOnly(db_path));
    OPMFU_ASSIGN_OR_RETURN(std::optional<Layout> checked, CheckLayout(db, with_kernel_signatures, result.declined));
    if (!checked) return result;
    layout = std::move(*checked);
    OPMFU_RETURN_IF_ERROR(data.strings->Load(db));
  }
  const StringPool& pool = *data.strings;

  Tables tables;
  OPMFU_ASSIGN_OR_RETURN(std::optional<Declined> declined, ScanTables(db_path, jobs, layout, pool, tables));
  if (declined) {
    result.declined = std::move(declined->reason);
    return result;
  }
  JoinIndexes indexes = BuildJoinIndexes(tables, jobs);
  std::error_code size_error;
  const std::uintmax_t db_bytes = std::filesystem::file_size(db_path, size_error);
  const std::uint64_t limit = JoinRowLimit(size_error ? 0 : db_bytes);
  if (const std::optional<std::string_view> join = JoinPastLimit(tables, indexes, limit)) {
    return JoinFanOutError(db_path, *join, limit, WidestTaskId(tables, indexes));
  }
  data.join_row_limit = limit;

  // Links on one thread; shapes and the MSTX orders on the other; with kernel signatures, the
  // grouping on a third.
  ForEachInParallel(layout.signatures ? 3 : 2, jobs, [&](std::size_t part) {
    if (part == 0) {
      BuildLinks(tables, indexes, data);
    } else if (part == 1) {
      BuildShapes(tables, *indexes.tasks_by_id, layout.shapes_plan, data);
      const auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
      std::stable_sort(tables.modules.begin(), tables.modules.end(), by_start);
      std::stable_sort(tables.flops_ranges.begin(), tables.flops_ranges.end(), by_start);
    } else if (!tables.signature_unreadable) {
      data.kernel_signatures = GroupBySignature(tables, *indexes.tasks_by_id, pool);
    }
  });
  data.modules = std::move(tables.modules);
  data.flops_ranges = std::move(tables.flops_ranges);
  result.data = std::move(data);
  return result;
}

}  // namespace opmfu::engine
