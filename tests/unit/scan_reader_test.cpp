// The scan reader (each table once, joined in memory) against the queries it replaces: on random
// databases full of ties (equal times, one flow id under several ops, several TASK rows per kernel,
// NULL keys, names missing from STRING_IDS), both ways must give the same rows in the same order.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "common/sqlite.h"
#include "engine/operator_mfu.h"
#include "engine/profiling_db_builder.h"
#include "engine/rank_reader.h"
#include "tests/test_support.h"

namespace opmfu::engine {
namespace {

namespace fs = std::filesystem;

enum class Schema {
  kDemo,       ///< as `opmfu demo` writes: no keys, no indexes (with COMMUNICATION_SCHEDULE_TASK_INFO)
  kCann,       ///< as newer CANN exports: globalTaskId and opId primary keys, TaskIndex, PYTORCH_API times as
               ///< text, COMMUNICATION_SCHEDULE_TASK_INFO keyed by globalTaskId
  kOlderCann,  ///< as kCann, but COMMUNICATION_TASK_INFO (which the analysis never reads) for the schedule
  /// As kCann, but TASK.globalTaskId an INTEGER PRIMARY KEY and no TaskIndex (a DB rebuilt by another
  /// tool): SQLite then searches TASK by its key instead of an automatic index (issue 47).
  kTaskPrimaryKey,
  kDemoTaskPrimaryKey,  ///< as kDemo, but TASK.globalTaskId an INTEGER PRIMARY KEY
};

bool TaskKeyed(Schema schema) { return schema == Schema::kTaskPrimaryKey || schema == Schema::kDemoTaskPrimaryKey; }

// A value of SQL text for a time: an integer, or (CANN) a 19-digit text.
std::string Time(Schema schema, std::int64_t t) {
  if (schema == Schema::kDemo || schema == Schema::kDemoTaskPrimaryKey) return std::to_string(t);
  return "'" + std::to_string(1700000000000000000 + t) + "'";
}

std::string Key(std::mt19937& random, int range, int null_percent) {
  if (static_cast<int>(random() % 100) < null_percent) return "NULL";
  return std::to_string(random() % range);
}

void WriteRandomDb(const fs::path& path, Schema schema, std::uint32_t seed) {
  std::mt19937 random(seed);
  const bool cann = schema != Schema::kDemo && schema != Schema::kDemoTaskPrimaryKey;
  const bool older = schema == Schema::kOlderCann;
  std::ostringstream sql;
  sql << "BEGIN;";
  sql << "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);";
  sql << "CREATE TABLE PYTORCH_API (startNs " << (cann ? "TEXT" : "INTEGER") << ", endNs "
      << (cann ? "TEXT" : "INTEGER") << ", globalTid INTEGER, connectionId INTEGER, name INTEGER, type INTEGER);";
  sql << "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);";
  sql << "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, "
         "globalTaskId INTEGER"
      << (TaskKeyed(schema) ? " PRIMARY KEY" : "") << ", streamId INTEGER);";
  sql << "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER" << (cann ? " PRIMARY KEY" : "")
      << ", opType INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputShapes INTEGER);";
  sql << "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
         "opId INTEGER"
      << (cann ? " PRIMARY KEY" : "") << ", opType INTEGER);";
  sql << "CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, message INTEGER, "
         "domainId INTEGER);";
  if (older) {
    sql << "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType INTEGER, "
           "planeId INTEGER, groupName INTEGER, opId INTEGER);";
  } else {
    sql << "CREATE TABLE COMMUNICATION_SCHEDULE_TASK_INFO (name INTEGER, globalTaskId INTEGER"
        << (cann ? " PRIMARY KEY" : "") << ", taskType INTEGER, opType INTEGER);";
  }
  if (cann && !TaskKeyed(schema)) sql << "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);";
  // Strings 1-30; 31 has a NULL value; 32-40 are missing.
  const char* const values[] = {"Module", "mfu_flops",       "other", "aten::mm",  "aten::add", "MatMulV2",
                                "Add",    "FLOAT16;FLOAT16", "INT8",  "\"16,16\"", "N/A",       "'4,4'"};
  for (int id = 1; id <= 30; ++id) {
    std::string value = values[id % 12];
    for (std::size_t at = value.find('\''); at != std::string::npos; at = value.find('\'', at + 2))
      value.insert(at, "'");
    sql << "INSERT INTO STRING_IDS VALUES (" << id << ", '" << value << "');";
  }
  sql << "INSERT INTO STRING_IDS VALUES (31, NULL);";
  const auto name = [&] { return Key(random, 41, 5); };
  for (int i = 0; i < 60; ++i) {
    const std::int64_t start = random() % 12;
    sql << "INSERT INTO PYTORCH_API VALUES (" << Time(schema, start) << ", " << Time(schema, start + random() % 4)
        << ", 1, " << Key(random, 25, 5) << ", " << name() << ", 50001);";
  }
  for (int i = 0; i < 80; ++i)
    sql << "INSERT INTO CONNECTION_IDS VALUES (" << Key(random, 25, 3) << ", " << Key(random, 30, 3) << ");";
  // Under a primary key each globalTaskId once, inserted out of key order (so rowid order, which
  // is key order, differs from insertion order); some kernels find no task.
  std::vector<int> task_ids(50);
  std::iota(task_ids.begin(), task_ids.end(), 0);
  if (TaskKeyed(schema)) std::shuffle(task_ids.begin(), task_ids.end(), random);
  for (int i = 0; i < 70; ++i) {
    if (TaskKeyed(schema) && i >= 45) break;
    const std::int64_t start = 100 + random() % 10;
    sql << "INSERT INTO TASK VALUES (" << start << ", " << start + random() % 5 << ", 0, " << Key(random, 30, 5) << ", "
        << (TaskKeyed(schema) ? std::to_string(task_ids[static_cast<std::size_t>(i)]) : Key(random, 50, 3)) << ", 1);";
  }
  for (int i = 0; i < 50; ++i) {
    sql << "INSERT INTO COMPUTE_TASK_INFO VALUES (" << name() << ", " << (cann ? std::to_string(i) : Key(random, 50, 3))
        << ", 6, " << name() << ", " << name() << ", " << name() << ");";
  }
  for (int i = 0; i < 10; ++i) {
    const std::int64_t start = 200 + random() % 3;
    sql << "INSERT INTO COMMUNICATION_OP VALUES (1, " << start << ", " << start + 5 << ", " << Key(random, 30, 5)
        << ", " << i << ", " << name() << ");";
  }
  // Schedule (or older communication) tasks on TASK rows the compute kernels use too: more ties.
  for (int i = 0; i < 20; ++i) {
    sql << "INSERT INTO " << (older ? "COMMUNICATION_TASK_INFO" : "COMMUNICATION_SCHEDULE_TASK_INFO") << " VALUES ("
        << name() << ", " << (cann ? std::to_string(30 + i) : Key(random, 50, 3)) << ", 1, " << (older ? "0, 0, " : "")
        << name() << ");";
  }
  const char* const domains[] = {"NULL", "0", "1", "2", "12", "24"};  // none, missing, mfu_flops, other, Module
  for (int i = 0; i < 40; ++i) {
    const std::int64_t start = random() % 12;
    sql << "INSERT INTO MSTX_EVENTS VALUES (" << start << ", " << start + random() % 6 << ", " << random() % 4 << ", "
        << name() << ", " << domains[random() % 6] << ");";
  }
  sql << "COMMIT;";
  fs::create_directories(path.parent_path());
  auto db = Database::OpenForWrite(path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->Execute(sql.str()).ok());
}

// Everything ReadRank returns, as text (string ids differ between two pools).
std::string Render(const RankData& data) {
  const StringPool& s = *data.strings;
  const auto text = [&](StringId id) {
    return id == kNoString ? std::string("None") : "'" + std::string(s.View(id)) + "'";
  };
  const auto optional = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "None"; };
  std::ostringstream out;
  for (const ModuleRange& m : data.modules) out << "module " << m.start << " " << m.end << " " << text(m.name) << "\n";
  if (data.flops_ranges) {
    for (const FlopsRange& r : *data.flops_ranges)
      out << "flops " << r.start << " " << r.end << " " << text(r.message) << "\n";
  }
  for (std::size_t i = 0; i < data.kernel_links.size(); ++i) {
    const KernelLink& l = data.kernel_links[i];
    out << (i < data.compute_link_count ? "compute " : "communication ") << text(l.kernel_name) << " " << l.kernel_ts
        << " " << l.kernel_end << " " << text(l.op_name) << " " << l.op_ts << " " << l.op_end << "\n";
  }
  for (const KernelShape& k : data.shapes) {
    out << "shape " << text(k.kernel_name) << " " << optional(k.kernel_ts) << " " << optional(k.kernel_end) << " "
        << k.task_duration << " " << text(k.input_types) << " " << text(k.input_shapes) << " " << text(k.output_shapes)
        << "\n";
  }
  out << "shapes returned rows: " << data.shapes_query_returned_rows << "\n";
  return out.str();
}

TEST(ScanReader, EqualsTheQueriesRowForRowOnTiesInBothSchemas) {
  testing::TempDir temp;
  for (Schema schema :
       {Schema::kDemo, Schema::kCann, Schema::kOlderCann, Schema::kTaskPrimaryKey, Schema::kDemoTaskPrimaryKey}) {
    for (std::uint32_t seed = 1; seed <= 25; ++seed) {
      const fs::path path =
          temp.path() / ("r" + std::to_string(seed) + "-" + std::to_string(static_cast<int>(schema)) + ".db");
      WriteRandomDb(path, schema, seed);
      std::vector<RankNote> query_notes;
      std::vector<RankNote> scan_notes;
      auto by_queries = ReadRank(path, query_notes, 1, ReadMethod::kQueries);
      auto by_scan = ReadRank(path, scan_notes, 2, ReadMethod::kScan);
      ASSERT_TRUE(by_queries.ok()) << by_queries.error().message;
      ASSERT_TRUE(by_scan.ok()) << by_scan.error().message;
      EXPECT_FALSE(by_queries->kernel_links.empty());
      EXPECT_GT(by_queries->kernel_links.size(), by_queries->compute_link_count) << "seed " << seed;
      EXPECT_EQ(Render(*by_scan), Render(*by_queries)) << "seed " << seed;
      EXPECT_TRUE(scan_notes.empty());
    }
  }
}

// The kernel joins probe in slices, one per thread: any thread count gives the one-thread result.
// The ranks are tie-heavy on purpose: op and kernel times from a few values, two kernel names, and
// kernels launched by two ops, so that many links share one (name, start, end) key.
TEST(ScanReader, TheKernelJoinsGiveTheSameResultsOnAnyThreadCount) {
  testing::TempDir temp;
  const ChipInfo chip{20, 1800, {}};
  std::size_t results = 0;
  std::size_t repeated_keys = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    const auto draw = [&](int below) { return static_cast<std::int64_t>(random() % below); };
    ProfilingDbBuilder builder;
    std::vector<std::int64_t> ops;
    for (int i = 0; i < 200; ++i) {
      const std::int64_t start = 1000 + draw(60) * 10;
      ops.push_back(builder.AddOp(i % 3 == 0 ? "aten::mm" : "aten::add", start, start + 5 + draw(3) * 5));
    }
    for (int i = 0; i < 400; ++i) {
      const std::int64_t start = 1000 + draw(80) * 10;
      std::vector<std::int64_t> launched{ops[random() % ops.size()]};
      if (random() % 4 == 0) launched.push_back(ops[random() % ops.size()]);
      builder.AddKernel(launched, {random() % 2 ? "MatMulV2" : "Add", start, start + 2 + draw(3)});
    }
    for (int i = 0; i < 60; ++i) {
      const std::int64_t start = 1000 + draw(60) * 10;
      builder.AddMstx("mfu_flops", std::to_string(1 + draw(5) * 1000000) + "-aten::mm", start, start + draw(40) * 10);
    }
    const fs::path path = temp.path() / ("t" + std::to_string(seed) + ".db");
    ASSERT_TRUE(builder.Write(path).ok());
    std::vector<std::string> rendered;
    for (unsigned threads : {1U, 2U, 3U, 7U}) {
      std::vector<RankNote> notes;
      auto data = ReadRank(path, notes, 1, ReadMethod::kScan);
      ASSERT_TRUE(data.ok()) << data.error().message;
      auto calculation = CalculateMfu(*data, chip, notes, threads);
      ASSERT_TRUE(calculation.ok()) << calculation.error().message;
      const std::vector<MergedKernel> merged = MergeMfu(*data, *calculation, threads);
      std::ostringstream out;
      for (const KernelMfu& r : calculation->results) out << "result " << r.link << " " << r.range << "\n";
      for (const ChargedRange& r : calculation->charged_ranges) out << "range " << r.flops << "\n";
      for (const MergedKernel& m : merged)
        out << "merged " << m.link << " " << (m.mfu ? std::to_string(*m.mfu) : "-") << "\n";
      if (threads == 1) {
        results += calculation->results.size();
        repeated_keys += merged.size() - data->kernel_links.size();
      }
      rendered.push_back(out.str());
    }
    for (std::size_t i = 1; i < rendered.size(); ++i) EXPECT_EQ(rendered[i], rendered[0]) << "seed " << seed;
  }
  EXPECT_GT(results, 1000U) << "too few charged kernels for the comparison to say much";
  EXPECT_GT(repeated_keys, 100U) << "too few links matching several results";
}

TEST(ScanReader, DeclinesWhatItCannotReproduceAndTheQueriesRunInstead) {
  testing::TempDir temp;
  const fs::path path = temp.path() / "r.db";
  WriteRandomDb(path, Schema::kDemo, 7);
  std::vector<RankNote> notes;
  auto expected = ReadRank(path, notes, 1, ReadMethod::kQueries);
  ASSERT_TRUE(expected.ok());
  const std::string rendered = Render(*expected);
  // An index SQLite would use changes its tie order; a real in a key column compares by affinity.
  for (const char* change : {"CREATE INDEX api_connection ON PYTORCH_API (connectionId)",
                             "UPDATE TASK SET startNs = startNs + 0.5 WHERE rowid = 3",
                             "UPDATE CONNECTION_IDS SET id = 'one' WHERE rowid = 2"}) {
    const fs::path changed = temp.path() / "changed.db";
    fs::copy_file(path, changed, fs::copy_options::overwrite_existing);
    {
      auto db = Database::OpenForWrite(changed);
      ASSERT_TRUE(db.ok());
      ASSERT_TRUE(db->Execute(change).ok());
    }
    std::vector<RankNote> scan_notes;
    EXPECT_FALSE(ReadRank(changed, scan_notes, 2, ReadMethod::kScan).ok()) << change;
    std::vector<RankNote> auto_notes;
    std::vector<RankNote> query_notes;
    auto automatic = ReadRank(changed, auto_notes, 2, ReadMethod::kAuto);
    auto queries = ReadRank(changed, query_notes, 2, ReadMethod::kQueries);
    ASSERT_TRUE(automatic.ok() && queries.ok());
    EXPECT_EQ(Render(*automatic), Render(*queries)) << change;
    ASSERT_FALSE(auto_notes.empty());
    EXPECT_NE(auto_notes.back().text.find("Read with SQL joins"), std::string::npos) << change;
  }
}

// The kernels by signature (ReadRank's with_kernel_signatures) against SQL written here: every
// COMPUTE_TASK_INFO row in storage order with the first TASK row of its globalTaskId, grouped by the
// text of its eight signature columns. The random DBs have duplicate and NULL globalTaskIds, NULL
// names, ids missing from STRING_IDS and one whose value is NULL.
std::string ExpectedSignatures(Database& db) {
  auto rows = db.Prepare(
      "SELECT (SELECT value FROM STRING_IDS WHERE id = k.name), (SELECT value FROM STRING_IDS WHERE id = k.opType), "
      "(SELECT value FROM STRING_IDS WHERE id = k.inputFormats), "
      "(SELECT value FROM STRING_IDS WHERE id = k.inputDataTypes), "
      "(SELECT value FROM STRING_IDS WHERE id = k.inputShapes), "
      "(SELECT value FROM STRING_IDS WHERE id = k.outputFormats), "
      "(SELECT value FROM STRING_IDS WHERE id = k.outputDataTypes), "
      "(SELECT value FROM STRING_IDS WHERE id = k.outputShapes), t.startNs, t.endNs FROM COMPUTE_TASK_INFO k "
      "JOIN TASK t ON t.rowid = (SELECT MIN(rowid) FROM TASK WHERE globalTaskId = k.globalTaskId) ORDER BY k.rowid");
  EXPECT_TRUE(rows.ok());
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::size_t, std::int64_t>> groups;
  std::ostringstream kernels;
  while (*rows->Step()) {
    std::string key;
    for (int column = 0; column < 8; ++column) key += std::string(rows->IsNull(column) ? "" : rows->Text(column)) + "|";
    auto [group, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    ++group->second.first;
    group->second.second += std::max<std::int64_t>(0, rows->Int64(9) - rows->Int64(8));
    kernels << rows->Int64(8) << ":" << std::find(order.begin(), order.end(), key) - order.begin() << " ";
  }
  std::ostringstream out;
  for (const std::string& key : order) out << key << " " << groups[key].first << " " << groups[key].second << "\n";
  return out.str() + kernels.str();
}

std::string Render(const KernelSignatures& signatures) {
  std::ostringstream out;
  for (const KernelSignatureGroup& group : signatures.groups) {
    for (const std::string& column : group.columns) out << column << "|";
    out << " " << group.count << " " << group.duration << "\n";
  }
  for (const KernelStart& kernel : signatures.kernels) out << kernel.start << ":" << kernel.group << " ";
  return out.str();
}

TEST(ScanReader, GroupsTheKernelsBySignatureWhenAskedWithoutChangingTheRest) {
  testing::TempDir temp;
  for (Schema schema : {Schema::kDemo, Schema::kCann}) {
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
      const fs::path path = temp.path() / ("s" + std::to_string(seed) + (schema == Schema::kCann ? "c" : "d") + ".db");
      WriteRandomDb(path, schema, seed);
      std::mt19937 random(seed);
      {
        auto db = Database::OpenForWrite(path);
        ASSERT_TRUE(db.ok());
        for (const char* column : {"inputFormats", "outputFormats", "outputDataTypes"}) {
          ASSERT_TRUE(db->Execute(std::string("ALTER TABLE COMPUTE_TASK_INFO ADD COLUMN ") + column + " INTEGER").ok());
        }
        std::ostringstream sql;
        for (int row = 1; row <= 50; ++row) {
          sql << "UPDATE COMPUTE_TASK_INFO SET opType = " << Key(random, 41, 5)
              << ", inputFormats = " << Key(random, 41, 5) << ", outputFormats = " << Key(random, 4, 0)
              << ", outputDataTypes = " << Key(random, 4, 0) << " WHERE rowid = " << row << ";";
        }
        ASSERT_TRUE(db->Execute(sql.str()).ok());
      }
      std::vector<RankNote> plain_notes;
      std::vector<RankNote> notes;
      auto plain = ReadRank(path, plain_notes, 2, ReadMethod::kScan);
      auto with = ReadRank(path, notes, 2, ReadMethod::kScan, /*with_kernel_signatures=*/true);
      ASSERT_TRUE(plain.ok() && with.ok());
      EXPECT_FALSE(plain->kernel_signatures.has_value());
      ASSERT_TRUE(with->kernel_signatures.has_value()) << "seed " << seed;
      EXPECT_EQ(Render(*with), Render(*plain)) << "seed " << seed;
      auto db = Database::OpenReadOnly(path);
      ASSERT_TRUE(db.ok());
      const std::string expected = ExpectedSignatures(*db);
      EXPECT_NE(expected.find('\n'), std::string::npos);
      EXPECT_EQ(Render(*with->kernel_signatures), expected) << "seed " << seed;
      // The queries never group: the derived section then reads the rank itself.
      std::vector<RankNote> query_notes;
      auto queries = ReadRank(path, query_notes, 1, ReadMethod::kQueries, true);
      ASSERT_TRUE(queries.ok());
      EXPECT_FALSE(queries->kernel_signatures.has_value());
    }
  }
}

TEST(ScanReader, WithoutUsableSignatureColumnsReadsOnWithoutSignatures) {
  testing::TempDir temp;
  const fs::path path = temp.path() / "r.db";
  WriteRandomDb(path, Schema::kDemo, 3);  // no inputFormats, outputFormats, outputDataTypes columns
  std::vector<RankNote> notes;
  auto read = ReadRank(path, notes, 2, ReadMethod::kScan, true);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_FALSE(read->kernel_signatures.has_value());
  EXPECT_FALSE(read->kernel_links.empty());
  // A signature column holding text, not a STRING_IDS id: no signatures, the same rows.
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db.ok());
    for (const char* column : {"inputFormats", "outputFormats", "outputDataTypes"}) {
      ASSERT_TRUE(db->Execute(std::string("ALTER TABLE COMPUTE_TASK_INFO ADD COLUMN ") + column + " INTEGER").ok());
    }
    ASSERT_TRUE(db->Execute("UPDATE COMPUTE_TASK_INFO SET opType = 'MatMulV2' WHERE rowid = 4").ok());
  }
  std::vector<RankNote> text_notes;
  auto with_text = ReadRank(path, text_notes, 2, ReadMethod::kScan, true);
  ASSERT_TRUE(with_text.ok()) << with_text.error().message;
  EXPECT_FALSE(with_text->kernel_signatures.has_value());
  EXPECT_EQ(Render(*with_text), Render(*read));
}

}  // namespace
}  // namespace opmfu::engine
