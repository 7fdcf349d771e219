// The cluster-DB writer that `analyze` feeds rank by rank (engine/output.h): its tables must read
// back exactly as the ones written at the end from every rank's rows, and ranks finishing in any
// order are written in rank order.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/parallel.h"
#include "common/sqlite.h"
#include "engine/output.h"
#include "tests/test_support.h"

namespace opmfu::engine {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Every row of `table` with typeof() and quote() of each value, in rowid order.
std::vector<std::string> TypedRows(const fs::path& db_path, const std::string& table) {
  auto db = Database::OpenReadOnly(db_path);
  EXPECT_TRUE(db.ok()) << db.error().message;
  std::vector<std::string> rows;
  auto columns = db->Prepare("SELECT name FROM pragma_table_info('" + table + "')");
  EXPECT_TRUE(columns.ok());
  std::string select;
  while (*columns->Step()) {
    const std::string name(columns->Text(0));
    select +=
        std::string(select.empty() ? "" : " || ',' || ") + "typeof(\"" + name + "\") || ':' || quote(\"" + name + "\")";
  }
  auto statement = db->Prepare("SELECT " + select + " FROM \"" + table + "\" ORDER BY rowid");
  EXPECT_TRUE(statement.ok()) << statement.error().message;
  while (*statement->Step()) rows.emplace_back(statement->Text(0));
  return rows;
}

// sqlite_master's tables in order, with their CREATE text.
std::vector<std::string> TableSchema(const fs::path& db_path) {
  auto db = Database::OpenReadOnly(db_path);
  EXPECT_TRUE(db.ok());
  auto statement = db->Prepare("SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid");
  std::vector<std::string> tables;
  while (*statement->Step()) tables.emplace_back(statement->Text(0));
  return tables;
}

std::string IntegrityCheck(const fs::path& db_path) {
  auto db = Database::OpenReadOnly(db_path);
  auto statement = db->Prepare("PRAGMA integrity_check");
  EXPECT_TRUE(*statement->Step());
  return std::string(statement->Text(0));
}

// Two ranks of rows, with values a double cannot hold exactly (above 2^53).
struct TwoRanks {
  std::shared_ptr<StringPool> pool = std::make_shared<StringPool>();
  std::vector<OperatorMfuRow> rank0;
  std::vector<OperatorMfuRow> rank1;

  TwoRanks() {
    const auto row = [&](std::int64_t rank, std::int64_t start, std::int64_t duration, std::int64_t flops) {
      OperatorMfuRow r;
      r.strings = pool.get();
      r.rank_id = rank;
      r.op_name_id = pool->Intern("aten::mm");
      r.kernel_name_id = rank == 1 ? kNoString : pool->Intern("MatMulV2");
      r.flops_op_name_id = pool->Intern("aten::mm");
      r.input_shapes_id = pool->Intern("\"4,8;8,16\"");
      r.kernel_start = start;
      r.kernel_end = start + duration;
      r.kernel_duration = duration;
      r.mfu = 0.1234;
      r.actual_tflops = 12.5;
      r.chip_peak_tflops = 354.0;
      r.flops = flops;
      return r;
    };
    rank0 = {row(0, 100, 40, 1000000), row(0, 200, (std::int64_t{1} << 53) + 1, (std::int64_t{1} << 62) + 7)};
    rank1 = {row(1, 100, 0, 0), row(1, 300, 55, -3)};
  }
};

// The tables as the end-of-run writer made them: created with the final types, with every value
// of a REAL column bound as a double.
void WriteReference(const fs::path& path, const TwoRanks& rows, bool duration_integer, bool flops_integer) {
  auto db = Database::OpenForWrite(path);
  ASSERT_TRUE(db.ok());
  const std::string duration_type = duration_integer ? "INTEGER" : "REAL";
  const std::string flops_type = flops_integer ? "INTEGER" : "REAL";
  ASSERT_TRUE(db->Execute("CREATE TABLE \"OperatorMFU\" (\"rank_id\" INTEGER, \"op_name\" TEXT, \"kernel_name\" TEXT, "
                          "\"kernel_start(ns)\" INTEGER, \"kernel_end(ns)\" INTEGER, \"kernel_duration(ns)\" " +
                          duration_type +
                          ", \"mfu\" REAL, \"actual_tflops\" REAL, \"chip_peak_tflops\" REAL, \"flops\" " + flops_type +
                          ", \"flops_op_name\" TEXT, \"input_shapes\" TEXT, \"output_shapes\" TEXT)")
                  .ok());
  auto insert =
      db->Prepare("INSERT INTO \"OperatorMFU\" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  ASSERT_TRUE(insert.ok());
  for (const auto* rank : {&rows.rank0, &rows.rank1}) {
    for (const OperatorMfuRow& r : *rank) {
      ASSERT_TRUE(insert->Bind(1, r.rank_id).ok());
      ASSERT_TRUE(insert->Bind(2, *r.op_name()).ok());
      ASSERT_TRUE((r.kernel_name() ? insert->Bind(3, *r.kernel_name()) : insert->BindNull(3)).ok());
      ASSERT_TRUE(insert->Bind(4, r.kernel_start).ok());
      ASSERT_TRUE(insert->Bind(5, r.kernel_end).ok());
      ASSERT_TRUE((duration_integer ? insert->Bind(6, r.kernel_duration)
                                    : insert->Bind(6, static_cast<double>(r.kernel_duration)))
                      .ok());
      ASSERT_TRUE(insert->Bind(7, r.mfu).ok());
      ASSERT_TRUE(insert->Bind(8, r.actual_tflops).ok());
      ASSERT_TRUE(insert->Bind(9, r.chip_peak_tflops).ok());
      ASSERT_TRUE((flops_integer ? insert->Bind(10, r.flops) : insert->Bind(10, static_cast<double>(r.flops))).ok());
      ASSERT_TRUE(insert->Bind(11, r.flops_op_name()).ok());
      ASSERT_TRUE(insert->Bind(12, *r.input_shapes()).ok());
      ASSERT_TRUE(insert->BindNull(13).ok());
      ASSERT_TRUE(insert->Step().ok());
      ASSERT_TRUE(insert->Reset().ok());
    }
  }
}

struct TypeCase {
  bool late_rank_matched;  ///< the second rank matched every kernel...
  bool late_rank_parsed;   ///< ...and parsed every message
};

class SettledTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(SettledTypes, ALateRankDecidesTheDeclaredTypesAndEveryValueReadsAsIfBoundToThem) {
  const TypeCase types = GetParam();
  TempDir dir;
  const TwoRanks rows;
  ClusterDbWriter writer(dir.path() / "cluster_analysis.db");
  ASSERT_TRUE(writer.Append(rows.rank0, {}).ok());
  writer.NoteTypes(true, true);
  ASSERT_TRUE(writer.Append(rows.rank1, {}).ok());
  writer.NoteTypes(types.late_rank_matched, types.late_rank_matched && types.late_rank_parsed);
  ASSERT_TRUE(writer.Finish().ok());

  const bool duration_integer = types.late_rank_matched;
  const bool flops_integer = types.late_rank_matched && types.late_rank_parsed;
  WriteReference(dir.path() / "reference.db", rows, duration_integer, flops_integer);
  EXPECT_EQ(TableSchema(dir.path() / "cluster_analysis.db"), TableSchema(dir.path() / "reference.db"));
  const auto written = TypedRows(dir.path() / "cluster_analysis.db", "OperatorMFU");
  ASSERT_EQ(written.size(), 4U);
  EXPECT_EQ(written, TypedRows(dir.path() / "reference.db", "OperatorMFU"));
  // mfu, actual_tflops and chip_peak_tflops are REAL; the two settled columns are REAL or INTEGER.
  std::size_t reals = 0;
  for (std::size_t at = written[1].find("real:"); at != std::string::npos; at = written[1].find("real:", at + 1))
    ++reals;
  EXPECT_EQ(reals, 3U + (duration_integer ? 0 : 1) + (flops_integer ? 0 : 1)) << written[1];
  EXPECT_EQ(IntegrityCheck(dir.path() / "cluster_analysis.db"), "ok");
}

INSTANTIATE_TEST_SUITE_P(Ranks, SettledTypes,
                         ::testing::Values(TypeCase{true, true}, TypeCase{true, false}, TypeCase{false, false}));

ModuleMfuRow ModuleRow(std::int64_t rank, std::string avg_mfu) {
  return {rank, "", "Layer", "aten::mm", "MatMulV2", 120.0, 40.0, 3, std::move(avg_mfu)};
}

TEST(ClusterDbWriter, AvgMfuIsDroppedOnlyWhenEmptyInEveryRank) {
  TempDir dir;
  const fs::path path = dir.path() / "cluster_analysis.db";
  const std::string without =
      "ModuleMFU: CREATE TABLE \"ModuleMFU\" (\"rank_id\" INTEGER, \"parent_module\" TEXT, \"module\" TEXT, "
      "\"op_name\" TEXT, \"kernel_list\" TEXT, \"total_kernel_duration(ns)\" REAL, \"avg_kernel_duration(ns)\" REAL, "
      "\"op_count\" INTEGER)";
  {
    ClusterDbWriter writer(path);
    ASSERT_TRUE(writer.Append({}, {ModuleRow(0, ""), ModuleRow(1, "")}).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  // No OperatorMFU row anywhere: that table is dropped, as the end-of-run writer never created it.
  EXPECT_EQ(TableSchema(path), std::vector<std::string>{without});
  EXPECT_EQ(TypedRows(path, "ModuleMFU"),
            (std::vector<std::string>{"integer:0,text:'',text:'Layer',text:'aten::mm',text:'MatMulV2',real:120.0,"
                                      "real:40.0,integer:3",
                                      "integer:1,text:'',text:'Layer',text:'aten::mm',text:'MatMulV2',real:120.0,"
                                      "real:40.0,integer:3"}));
  EXPECT_EQ(IntegrityCheck(path), "ok");
  {
    ClusterDbWriter writer(path);
    ASSERT_TRUE(writer.Append({}, {ModuleRow(0, "")}).ok());
    ASSERT_TRUE(writer.Append({}, {ModuleRow(1, "0.5")}).ok());  // the last rank has one
    ASSERT_TRUE(writer.Finish().ok());
  }
  EXPECT_EQ(TableSchema(path), std::vector<std::string>{without.substr(0, without.size() - 1) + ", \"avg_mfu\" TEXT)"});
  EXPECT_EQ(TypedRows(path, "ModuleMFU").back(),
            "integer:1,text:'',text:'Layer',text:'aten::mm',text:'MatMulV2',real:120.0,real:40.0,integer:3,"
            "text:'0.5'");
}

TEST(ClusterDbWriter, ReplacesItsTablesAndKeepsTheOthersInOrder) {
  TempDir dir;
  const fs::path path = dir.path() / "cluster_analysis.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db->Execute("CREATE TABLE \"Earlier\" (x INTEGER); INSERT INTO \"Earlier\" VALUES (7); "
                            "CREATE TABLE \"OperatorMFU\" (stale TEXT)")
                    .ok());
  }
  const TwoRanks rows;
  ClusterDbWriter writer(path);
  ASSERT_TRUE(writer.Append({}, {ModuleRow(0, "0.1")}).ok());
  ASSERT_TRUE(writer.Append(rows.rank0, {ModuleRow(0, "0.2")}).ok());
  writer.NoteTypes(true, true);
  ASSERT_TRUE(writer.Finish().ok());
  const auto schema = TableSchema(path);
  ASSERT_EQ(schema.size(), 3U);
  EXPECT_EQ(schema[0], "Earlier: CREATE TABLE \"Earlier\" (x INTEGER)");
  EXPECT_EQ(schema[1].rfind("OperatorMFU: ", 0), 0U);
  EXPECT_EQ(schema[2].rfind("ModuleMFU: ", 0), 0U);
  EXPECT_EQ(TypedRows(path, "Earlier"), std::vector<std::string>{"integer:7"});
  EXPECT_EQ(TypedRows(path, "OperatorMFU").size(), 2U);
  EXPECT_EQ(TypedRows(path, "ModuleMFU").size(), 2U);
}

std::vector<std::string> Entries(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  return names;
}

TEST(ClusterDbWriter, AWriteNotFinishedLeavesTheEarlierFileAndNoTemporaryFile) {
  TempDir dir;
  const fs::path path = dir.path() / "cluster_analysis.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(
        db->Execute("CREATE TABLE \"OperatorMFU\" (earlier TEXT); INSERT INTO \"OperatorMFU\" VALUES ('x')").ok());
  }
  const std::string before = testing::ReadFile(path);
  const TwoRanks rows;
  {
    ClusterDbWriter writer(path);
    ASSERT_TRUE(writer.Append(rows.rank0, {ModuleRow(0, "")}).ok());
    EXPECT_TRUE(writer.started());
    EXPECT_EQ(Entries(dir.path()).size(), 2U);  // the earlier file and the write in progress
    // A rank failing to write, or an exception, ends the run here: the writer is destroyed.
  }
  EXPECT_EQ(testing::ReadFile(path), before);
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"cluster_analysis.db"});
}

TEST(ClusterDbWriter, NoRowsTouchNothing) {
  TempDir dir;
  ClusterDbWriter writer(dir.path() / "out" / "cluster_analysis.db");
  ASSERT_TRUE(writer.Append({}, {}).ok());
  EXPECT_FALSE(writer.started());
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  EXPECT_FALSE(writer.Finish().ok());  // nothing to finish: the caller writes nothing instead
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(ClusterDbWriter, AnOutputThatCannotBeCreatedIsAnErrorNamingIt) {
  TempDir dir;
  const fs::path file = dir.Write("file", "not a directory\n");
  ClusterDbWriter writer(file / "cluster_analysis.db");
  const TwoRanks rows;
  const Status appended = writer.Append(rows.rank0, {});
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.error().message.find(file.string()), std::string::npos) << appended.error().message;
  EXPECT_EQ(testing::ReadFile(file), "not a directory\n");
}

TEST(RankOrderedWrites, RanksFinishingOutOfOrderAreWrittenInRankOrder) {
  std::vector<std::size_t> written;
  RankOrderedWrites handoff(6, 6, [&](std::size_t i) { written.push_back(i); });
  handoff.Finished(3);
  handoff.Finished(1);
  EXPECT_TRUE(written.empty());  // rank 0 is not done: 1 and 3 wait
  handoff.Finished(0);
  EXPECT_EQ(written, (std::vector<std::size_t>{0, 1}));
  handoff.Finished(2);
  EXPECT_EQ(written, (std::vector<std::size_t>{0, 1, 2, 3}));
  handoff.Finished(5);
  handoff.Finished(4);
  EXPECT_EQ(written, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(handoff.written(), 6U);
}

TEST(RankOrderedWrites, ManyWorkersWriteEveryRankOnceInOrderAndWaitWithinTheWindow) {
  constexpr std::size_t kRanks = 300;
  constexpr std::size_t kWindow = 3;
  std::vector<std::size_t> written;
  std::atomic<int> writers{0};
  std::atomic<bool> overlapped{false};
  std::atomic<bool> outside_window{false};
  RankOrderedWrites handoff(kRanks, kWindow, [&](std::size_t i) {
    if (++writers > 1) overlapped = true;
    written.push_back(i);
    --writers;
  });
  ForEachInParallel(kRanks, 4, [&](std::size_t i) {
    ASSERT_TRUE(handoff.WaitToStart(i));
    if (i >= handoff.written() + kWindow) outside_window = true;
    std::mt19937 random(static_cast<unsigned>(i));
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 300));
    handoff.Finished(i);
  });
  ASSERT_EQ(written.size(), kRanks);
  for (std::size_t i = 0; i < kRanks; ++i) ASSERT_EQ(written[i], i);
  EXPECT_FALSE(overlapped);
  EXPECT_FALSE(outside_window);
}

TEST(RankOrderedWrites, AbortReleasesAWorkerWaitingForARankThatWillNeverFinish) {
  RankOrderedWrites handoff(3, 1, [](std::size_t) {});
  std::atomic<bool> started{true};
  std::thread waiting([&] { started = handoff.WaitToStart(2); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  handoff.Abort();
  waiting.join();
  EXPECT_FALSE(started);
  EXPECT_EQ(handoff.written(), 0U);
}

// End to end: a write that fails while ranks are still being analysed (a full disk) leaves the
// earlier output as it was and nothing else.
TEST(StreamedClusterDb, AWriteFailingMidRunLeavesTheEarlierOutputAlone) {
  TempDir dir;
  const fs::path small = dir.path() / "small";
  const fs::path large = dir.path() / "large";
  const fs::path out = dir.path() / "out";
  ASSERT_EQ(testing::RunOpmfu({"demo", small.string(), "--ranks", "1", "--steps", "1", "--layers", "1"}).exit_code, 0);
  ASSERT_EQ(testing::RunOpmfu({"demo", large.string(), "--ranks", "4", "--steps", "2", "--layers", "30"}).exit_code, 0);
  ASSERT_EQ(testing::RunOpmfu({"analyze", "-d", small.string(), "-o", out.string()}).exit_code, 0);
  const fs::path db = out / "cluster_analysis_output" / "cluster_analysis.db";
  const std::string before = testing::ReadFile(db);
  ASSERT_LT(before.size(), std::size_t{96} << 10);

  testing::RunOptions limited;
  limited.file_size_limit = std::uint64_t{96} << 10;  // the earlier file fits; four ranks' rows do not
  const auto run = testing::RunOpmfuWith({"analyze", "-d", large.string(), "-o", out.string(), "--jobs", "2"}, limited);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find(db.string()), std::string::npos) << run.err;
  EXPECT_EQ(testing::ReadFile(db), before);
  EXPECT_EQ(Entries(out / "cluster_analysis_output"), std::vector<std::string>{"cluster_analysis.db"});

  // Without the limit, the same run replaces it.
  const auto full = testing::RunOpmfu({"analyze", "-d", large.string(), "-o", out.string(), "--jobs", "2"});
  EXPECT_EQ(full.exit_code, 0) << full.err;
  EXPECT_GT(testing::ReadFile(db).size(), std::size_t{96} << 10);
}

}  // namespace
}  // namespace opmfu::engine
