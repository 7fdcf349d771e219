// The one output writer (common/output_file.h): no write through a link, onto an input of the run,
// or beside a stale SQLite log; edits that cannot lose one another.

#include "common/output_file.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "common/sqlite.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;

TEST(OutputWriter, RefusesALinkAtTheFileAndLeavesItsTargetAlone) {
  TempDir dir;
  const fs::path rank_db = dir.Write("rank/ascend_pytorch_profiler_0.db", "the only copy");
  fs::create_directories(dir.path() / "out");
  fs::create_symlink(rank_db, dir.path() / "out" / "operator_mfu.csv");
  const Status written = WriteFileAtomically(dir.path() / "out" / "operator_mfu.csv", "csv text");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("operator_mfu.csv: is a symbolic link"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(ReadFile(rank_db), "the only copy");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "out" / "operator_mfu.csv"));
}

TEST(OutputWriter, NeverEntersALinkedFolderInsideItsTree) {
  TempDir dir;
  fs::create_directories(dir.path() / "outside");
  fs::create_directories(dir.path() / "tree" / "cluster_analysis_output");
  fs::create_symlink(dir.path() / "outside", dir.path() / "tree" / "cluster_analysis_output" / "OperatorMfu");
  const fs::path file = dir.path() / "tree" / "cluster_analysis_output" / "OperatorMfu" / "x.csv";
  const Status written = WriteFileAtomically(file, "x", dir.path() / "tree");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("OperatorMfu: is a symbolic link"), std::string::npos)
      << written.error().message;
  EXPECT_TRUE(fs::is_empty(dir.path() / "outside"));
  // A missing folder of the tree is created.
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "tree" / "new" / "y.csv", "y", dir.path() / "tree").ok());
  EXPECT_EQ(ReadFile(dir.path() / "tree" / "new" / "y.csv"), "y");
}

TEST(OutputWriter, RefusesToReplaceAnInputOfTheRun) {
  TempDir dir;
  const fs::path input = dir.Write("rank.db", "profiling data");
  fs::create_hard_link(input, dir.path() / "out.csv");
  NoteRunInput(input);
  const Status written = WriteFileAtomically(dir.path() / "rank.db", "csv");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().kind, Error::Kind::kUsage);
  EXPECT_NE(written.error().message.find("is an input of this run"), std::string::npos) << written.error().message;
  EXPECT_FALSE(WriteFileAtomically(dir.path() / "out.csv", "csv").ok());  // the same file by another name
  EXPECT_EQ(ReadFile(input), "profiling data");
  // An input deleted since is no longer one, whatever file gets its inode number.
  fs::remove(dir.path() / "out.csv");
  fs::remove(input);
  dir.Write("other.csv", "new");
  EXPECT_TRUE(WriteFileAtomically(dir.path() / "other.csv", "newer").ok());
}

TEST(OutputWriter, KeepsTheChangesOfAndRemovesAStaleWriteAheadLog) {
  TempDir dir;
  const fs::path db_path = dir.path() / "cluster_analysis.db";
  {
    // A writer that has not checkpointed: its changes live in cluster_analysis.db-wal.
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db_path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE OperatorMFU(x);"
                           "CREATE TABLE Kept(y); INSERT INTO Kept VALUES (7);"
                           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) "
                           "INSERT INTO OperatorMFU SELECT i FROM n",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  ASSERT_GT(fs::file_size(db_path.string() + "-wal"), 0U);
  ASSERT_TRUE(WriteDatabaseAtomically(db_path, AtomicDatabaseStart::kCopyOfExisting, [](Database& db) {
                return db.Execute(
                    "DROP TABLE OperatorMFU; CREATE TABLE OperatorMFU(x);"
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 144) "
                    "INSERT INTO OperatorMFU SELECT i FROM n");
              }).ok());
  EXPECT_FALSE(fs::exists(db_path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(db_path.string() + "-shm"));
  // An ordinary open (which would replay a -wal) sees the new rows, and the table only the log had.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT (SELECT count(*) FROM OperatorMFU), (SELECT y FROM Kept)", -1, &statement,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(statement, 0), 144);
  EXPECT_EQ(sqlite3_column_int(statement, 1), 7);
  sqlite3_finalize(statement);
  sqlite3_close(raw);
}

TEST(ReplaceFileIfUnchanged, RefusesAFileThatChangedSinceItWasRead) {
  TempDir dir;
  const fs::path file = dir.Write("train.py", "saved by an editor\n");
  const Status written = ReplaceFileIfUnchanged(file, "what opmfu read\n", "fixed\n");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("train.py: changed since opmfu read it"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(ReadFile(file), "saved by an editor\n");
}

TEST(ReplaceFileIfUnchanged, ConcurrentEditsNeverLoseOne) {
  TempDir dir;
  const fs::path file = dir.Write("formulas.py", "");
  std::atomic<int> succeeded{0};
  std::vector<std::thread> editors;
  for (int i = 0; i < 8; ++i) {
    editors.emplace_back([&, i] {
      for (int attempt = 0; attempt < 5; ++attempt) {
        const std::string read = ReadFile(file);
        if (ReplaceFileIfUnchanged(file, read, read + "edit " + std::to_string(i) + "\n").ok()) {
          ++succeeded;
          return;
        }
      }
    });
  }
  for (std::thread& editor : editors) editor.join();
  const std::string final_text = ReadFile(file);
  // Every edit that said it succeeded is in the file.
  EXPECT_EQ(static_cast<int>(std::count(final_text.begin(), final_text.end(), '\n')), succeeded.load());
  EXPECT_GE(succeeded.load(), 1);
}

}  // namespace
}  // namespace opmfu
