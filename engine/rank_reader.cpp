#include "engine/rank_reader.h"

#include <atomic>

#include <charconv>
#include <cmath>
#include <future>
#include <type_traits>
#include <unordered_map>

#include "common/sqlite.h"
#include "common/text.h"
#include "engine/join_limit.h"
#include "engine/scan_reader.h"

namespace opmfu::engine {

namespace {

// The queries keep upstream's join structure and ORDER BY, so SQLite returns ties in the same
// order (shared/spec/mfu-analysis.md section 2 and B17).
constexpr const char* kModuleQuery =
    "SELECT e.startNs, e.endNs, message.id FROM MSTX_EVENTS e "
    "LEFT JOIN STRING_IDS message ON e.message = message.id "
    "LEFT JOIN STRING_IDS domain ON e.domainId = domain.id "
    "WHERE e.eventType = 2 AND domain.value = 'Module' ORDER BY e.startNs";

constexpr const char* kFlopsQuery =
    "SELECT e.startNs, e.endNs, message.id FROM MSTX_EVENTS e "
    "LEFT JOIN STRING_IDS message ON e.message = message.id "
    "LEFT JOIN STRING_IDS domain ON e.domainId = domain.id "
    "WHERE domain.value = 'mfu_flops' ORDER BY e.startNs";

std::string TaskLinkQuery(std::string_view kernel_table) {
  return "WITH links AS (SELECT kernel_string.id AS name, t.startNs, t.endNs, c.id AS api_connection "
         "FROM " +
         std::string(kernel_table) +
         " k LEFT JOIN TASK t ON k.globalTaskId = t.globalTaskId "
         "LEFT JOIN STRING_IDS kernel_string ON kernel_string.id = k.name "
         "LEFT JOIN CONNECTION_IDS c ON c.connectionId = t.connectionId) "
         "SELECT links.name AS kernel_name, links.startNs AS kernel_ts, links.endNs AS kernel_end, "
         "op_string.id AS op_name, api.startNs AS op_ts, api.endNs AS op_end FROM links "
         "JOIN PYTORCH_API api ON links.api_connection = api.connectionId "
         "JOIN STRING_IDS op_string ON api.name = op_string.id ORDER BY op_ts, kernel_ts";
}

constexpr const char* kCommunicationLinkQuery =
    "WITH links AS (SELECT kernel_string.id AS name, m.startNs, m.endNs, c.id AS api_connection "
    "FROM COMMUNICATION_OP m JOIN STRING_IDS kernel_string ON kernel_string.id = m.opType "
    "JOIN CONNECTION_IDS c ON c.connectionId = m.connectionId) "
    "SELECT links.name AS kernel_name, links.startNs AS kernel_ts, links.endNs AS kernel_end, "
    "op_string.id AS op_name, api.startNs AS op_ts, api.endNs AS op_end FROM links "
    "JOIN PYTORCH_API api ON links.api_connection = api.connectionId "
    "JOIN STRING_IDS op_string ON api.name = op_string.id ORDER BY op_ts, kernel_ts";

constexpr const char* kShapesQuery =
    "WITH kernels AS (SELECT (SELECT id FROM STRING_IDS WHERE id = k.name) AS kernel_name, k.globalTaskId, "
    "(SELECT id FROM STRING_IDS WHERE id = k.opType) AS type, "
    "(SELECT id FROM STRING_IDS WHERE id = k.inputShapes) AS input_shapes, "
    "(SELECT id FROM STRING_IDS WHERE id = k.inputDataTypes) AS input_types, "
    "(SELECT id FROM STRING_IDS WHERE id = k.outputShapes) AS output_shapes FROM COMPUTE_TASK_INFO k) "
    "SELECT kernels.kernel_name, kernels.input_shapes, kernels.input_types, kernels.output_shapes, "
    "t.startNs AS kernel_ts, t.endNs AS kernel_end, t.endNs - t.startNs AS task_duration "
    "FROM kernels JOIN TASK t ON kernels.globalTaskId = t.globalTaskId ORDER BY t.startNs";

// The pool id of a STRING_IDS id column (the queries join STRING_IDS as upstream's do and select
// the id rather than the value).
StringId StringColumn(const StringPool& strings, const Statement& row, int column) {
  if (sqlite3_column_type(row.handle(), column) != SQLITE_INTEGER) return kNoString;
  return strings.FromDb(row.Int64(column));
}

std::int64_t Coerced(const Statement& row, int column) {
  const int type = sqlite3_column_type(row.handle(), column);
  if (type == SQLITE_TEXT) return CoerceInt(type, 0, 0.0, row.Text(column));
  return CoerceInt(type, row.Int64(column), row.Double(column), {});
}

std::optional<std::int64_t> Raw(const Statement& row, int column) {
  const int type = sqlite3_column_type(row.handle(), column);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type == SQLITE_INTEGER) return row.Int64(column);
  if (type == SQLITE_FLOAT) {
    const double value = row.Double(column);
    if (value == std::trunc(value) && std::abs(value) < 9.2e18) return static_cast<std::int64_t>(value);
  }
  return std::nullopt;  // text or fractional: never equal to a coerced integer key
}

// Strips every leading and trailing quote character, as Python's str.strip("\"'") does.
std::string StripQuotes(std::string_view text) {
  const std::size_t first = text.find_first_not_of("\"'");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of("\"'");
  return std::string(text.substr(first, last - first + 1));
}

// Runs a query; on failure logs upstream's "read failed" error and returns SQLite's message. An
// `on_row` that returns bool stops the query when it returns false.
template <typename OnRow>
std::optional<std::string> RunQuery(Database& db, const std::string& sql, std::vector<RankNote>& notes,
                                    OnRow&& on_row) {
  auto statement = db.Prepare(sql);
  if (!statement.ok()) {
    notes.push_back(
        {RankNote::Level::kError, "File " + db.path() + " read failed error: " + statement.error().message});
    return statement.error().message;
  }
  while (true) {
    auto row = statement->Step();
    if (!row.ok()) {
      notes.push_back({RankNote::Level::kError, "File " + db.path() + " read failed error: " + row.error().message});
      return row.error().message;
    }
    if (!*row) return std::nullopt;
    if constexpr (std::is_same_v<decltype(on_row(*statement)), bool>) {
      if (!on_row(*statement)) return std::nullopt;
    } else {
      on_row(*statement);
    }
  }
}

// The tables the analysis reads; MSTX_EVENTS first, since without it nothing else matters.
constexpr const char* kReadTables[] = {"MSTX_EVENTS",    "STRING_IDS", "PYTORCH_API",
                                       "CONNECTION_IDS", "TASK",       "COMPUTE_TASK_INFO"};

}  // namespace

std::vector<std::string> AnalysisQueries() {
  return {kModuleQuery,
          kFlopsQuery,
          TaskLinkQuery("COMPUTE_TASK_INFO"),
          kCommunicationLinkQuery,
          TaskLinkQuery("COMMUNICATION_SCHEDULE_TASK_INFO"),
          kShapesQuery};
}

std::int64_t CoerceInt(int sqlite_type, std::int64_t as_int, double as_double, std::string_view as_text) {
  switch (sqlite_type) {
    case SQLITE_INTEGER:
      return as_int;
    case SQLITE_FLOAT:
      if (!std::isfinite(as_double) || std::abs(as_double) >= 9.2e18) return 0;
      return static_cast<std::int64_t>(as_double);
    case SQLITE_TEXT: {
      const std::string_view text = TrimWhitespace(as_text);
      std::int64_t integer = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), integer);
      if (error == std::errc() && end == text.data() + text.size()) return integer;
      double real = 0.0;
      auto [real_end, real_error] = std::from_chars(text.data(), text.data() + text.size(), real);
      if (real_error == std::errc() && real_end == text.data() + text.size() && std::isfinite(real) &&
          std::abs(real) < 9.2e18) {
        return static_cast<std::int64_t>(real);
      }
      return 0;
    }
    default:
      return 0;
  }
}

namespace {

// Strips quotes once per distinct shape string, and drops kernels whose shapes are N/A (Q5's
// post-processing, the same after either way of reading).
void FinishShapes(RankData& data) {
  StringPool& strings = *data.strings;
  std::unordered_map<StringId, StringId> stripped;
  const auto strip = [&](StringId id) {
    if (id == kNoString) return id;
    auto [it, inserted] = stripped.try_emplace(id, kNoString);
    if (inserted) it->second = strings.Intern(StripQuotes(strings.View(id)));
    return it->second;
  };
  const StringId not_available = strings.Intern("N/A");
  for (KernelShape& shape : data.shapes) {
    shape.input_shapes = strip(shape.input_shapes);
    shape.output_shapes = strip(shape.output_shapes);
  }
  std::erase_if(data.shapes, [&](const KernelShape& shape) {
    return shape.input_shapes == not_available || shape.output_shapes == not_available;
  });
}

// The TASK id with the most rows, for a fan-out error; nullopt when the query cannot say.
std::optional<SharedTaskId> WidestTaskId(Database& db) {
  std::optional<SharedTaskId> widest;
  std::vector<RankNote> ignored;
  RunQuery(db,
           "SELECT t.globalTaskId, t.n, (SELECT count(*) FROM COMPUTE_TASK_INFO c WHERE c.globalTaskId = "
           "t.globalTaskId) FROM (SELECT globalTaskId, count(*) AS n FROM TASK GROUP BY globalTaskId ORDER BY n "
           "DESC LIMIT 1) t",
           ignored, [&](const Statement& row) {
             widest = SharedTaskId{row.Int64(0), static_cast<std::uint64_t>(row.Int64(1)),
                                   static_cast<std::uint64_t>(row.Int64(2))};
           });
  return widest;
}

Result<RankData> ReadRankWithQueries(const std::filesystem::path& db_path, std::vector<RankNote>& notes) {
  OPMFU_ASSIGN_OR_RETURN(Database db, Database::OpenReadOnly(db_path));
  std::error_code size_error;
  const std::uintmax_t db_bytes = std::filesystem::file_size(db_path, size_error);
  const std::uint64_t limit = JoinRowLimit(size_error ? 0 : db_bytes);
  std::atomic<bool> shapes_past_limit = false;
  bool links_past_limit = false;
  RankData data;
  data.join_row_limit = limit;
  StringPool& strings = *data.strings;
  if (Status loaded = strings.Load(db); !loaded.ok()) {
    notes.push_back({RankNote::Level::kError, "File " + db.path() + " read failed error: " + loaded.error().message});
  }

  // The shapes query is one of the two big ones: it runs on a second read-only connection while
  // this one reads the rest. Only StringPool::FromDb (read-only) is used until both are done.
  std::vector<RankNote> shape_notes;
  auto shapes_read = std::async(std::launch::async, [&]() -> Status {
    OPMFU_ASSIGN_OR_RETURN(Database shapes_db, Database::OpenReadOnly(db_path));
    data.shapes_query_error = RunQuery(shapes_db, kShapesQuery, shape_notes, [&](const Statement& row) {
      data.shapes_query_returned_rows = true;
      if (data.shapes.size() >= limit) {
        shapes_past_limit = true;
        return false;
      }
      KernelShape shape;
      shape.kernel_name = StringColumn(strings, row, 0);
      shape.input_shapes = StringColumn(strings, row, 1);
      shape.input_types = StringColumn(strings, row, 2);
      shape.output_shapes = StringColumn(strings, row, 3);
      shape.kernel_ts = Raw(row, 4);
      shape.kernel_end = Raw(row, 5);
      for (const int column : {4, 5}) {
        if (data.text_task_time || sqlite3_column_type(row.handle(), column) != SQLITE_TEXT) continue;
        data.text_task_time = std::string(column == 4 ? "TASK.startNs" : "TASK.endNs") + " holds text (" +
                              QuoteForMessage(row.Text(column), 40) + ")";
      }
      shape.task_duration = Coerced(row, 6);
      data.shapes.push_back(shape);
      return true;
    });
    return Ok();
  });

  RunQuery(db, kModuleQuery, notes, [&](const Statement& row) {
    data.modules.push_back({Coerced(row, 0), Coerced(row, 1), StringColumn(strings, row, 2)});
  });

  OPMFU_ASSIGN_OR_RETURN(bool has_mstx, db.HasTable("MSTX_EVENTS"));
  if (has_mstx) {
    std::vector<FlopsRange> ranges;
    data.flops_query_error = RunQuery(db, kFlopsQuery, notes, [&](const Statement& row) {
      ranges.push_back({Coerced(row, 0), Coerced(row, 1), StringColumn(strings, row, 2)});
    });
    if (!data.flops_query_error) data.flops_ranges = std::move(ranges);
  }

  for (const char* table : kReadTables) {
    OPMFU_ASSIGN_OR_RETURN(bool present, db.HasTable(table));
    if (!present) data.missing_tables.emplace_back(table);
  }
  const auto read_links = [&](const std::string& sql) {
    auto error = RunQuery(db, sql, notes, [&](const Statement& row) {
      if (data.kernel_links.size() >= limit) {
        links_past_limit = true;
        return false;
      }
      data.kernel_links.push_back({StringColumn(strings, row, 0), StringColumn(strings, row, 3), Coerced(row, 1),
                                   Coerced(row, 2), Coerced(row, 4), Coerced(row, 5)});
      return true;
    });
    if (error && !data.link_query_error) data.link_query_error = std::move(error);
  };
  OPMFU_ASSIGN_OR_RETURN(bool has_compute, db.HasTable("COMPUTE_TASK_INFO"));
  OPMFU_ASSIGN_OR_RETURN(bool has_communication, db.HasTable("COMMUNICATION_OP"));
  OPMFU_ASSIGN_OR_RETURN(bool has_schedule, db.HasTable("COMMUNICATION_SCHEDULE_TASK_INFO"));
  if (has_compute) read_links(TaskLinkQuery("COMPUTE_TASK_INFO"));
  data.compute_link_count = data.kernel_links.size();
  if (has_communication) read_links(kCommunicationLinkQuery);
  if (has_schedule) read_links(TaskLinkQuery("COMMUNICATION_SCHEDULE_TASK_INFO"));

  OPMFU_RETURN_IF_ERROR(shapes_read.get());
  notes.insert(notes.end(), shape_notes.begin(), shape_notes.end());
  if (links_past_limit || shapes_past_limit) {
    return JoinFanOutError(db_path, links_past_limit ? "op-to-kernel join" : "kernel-shapes join", limit,
                           WidestTaskId(db));
  }
  return data;
}

// Non-UTF-8 bytes in STRING_IDS reach the output as they are; say so, once per rank.
void NoteInvalidUtf8(const RankData& data, std::vector<RankNote>& notes) {
  const StringPool& strings = *data.strings;
  if (strings.invalid_utf8_rows() == 0) return;
  const std::size_t rows = strings.invalid_utf8_rows();
  notes.push_back({RankNote::Level::kWarning,
                   "STRING_IDS holds " + std::to_string(rows) + (rows == 1 ? " value that is" : " values that are") +
                       " not valid UTF-8 (the first: id " + std::to_string(strings.first_invalid_utf8_id()) + ", " +
                       QuoteForMessage(strings.View(strings.FromDb(strings.first_invalid_utf8_id())), 40) +
                       "): copied into the output byte for byte, where msprof-analyze drops the rows that use them"});
}

}  // namespace

Result<RankData> ReadRank(const std::filesystem::path& db_path, std::vector<RankNote>& notes, unsigned threads,
                          ReadMethod method, bool with_kernel_signatures) {
  std::string scan_declined;
  if (method != ReadMethod::kQueries) {
    OPMFU_ASSIGN_OR_RETURN(ScanResult scan, ReadRankByScan(db_path, threads, with_kernel_signatures));
    if (scan.data) {
      FinishShapes(*scan.data);
      NoteInvalidUtf8(*scan.data, notes);
      return std::move(*scan.data);
    }
    if (method == ReadMethod::kScan)
      return Error::Input(db_path.string() + ": the scan does not apply: " + scan.declined);
    scan_declined = std::move(scan.declined);
  }
  OPMFU_ASSIGN_OR_RETURN(RankData data, ReadRankWithQueries(db_path, notes));
  FinishShapes(data);
  NoteInvalidUtf8(data, notes);
  if (method == ReadMethod::kAuto) notes.push_back({RankNote::Level::kInfo, "Read with SQL joins: " + scan_declined});
  return data;
}

}  // namespace opmfu::engine
