#include "common/sqlite.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace opmfu {
namespace {

using testing::TempDir;

TEST(Database, OpenReadOnlyReadsButNeverWrites) {
  TempDir dir;
  const auto path = dir.path() / "data.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(
        db->Execute("CREATE TABLE STRING_IDS (id INTEGER, value TEXT); INSERT INTO STRING_IDS VALUES (1, 'mm')").ok());
  }
  const std::string before = testing::ReadFile(path);
  auto db = Database::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto has = db->HasTable("STRING_IDS");
  ASSERT_TRUE(has.ok());
  EXPECT_TRUE(*has);
  EXPECT_FALSE(*db->HasTable("MSTX_EVENTS"));

  auto statement = db->Prepare("SELECT id, value FROM STRING_IDS WHERE id = ?1");
  ASSERT_TRUE(statement.ok());
  ASSERT_TRUE(statement->Bind(1, std::int64_t{1}).ok());
  auto row = statement->Step();
  ASSERT_TRUE(row.ok());
  ASSERT_TRUE(*row);
  EXPECT_EQ(statement->Int64(0), 1);
  EXPECT_EQ(statement->Text(1), "mm");
  EXPECT_FALSE(*statement->Step());

  Status write = db->Execute("INSERT INTO STRING_IDS VALUES (2, 'bmm')");
  ASSERT_FALSE(write.ok());
  EXPECT_NE(write.error().message.find("readonly"), std::string::npos);
  EXPECT_EQ(testing::ReadFile(path), before);
}

TEST(Database, RejectsFilesThatAreNotDatabases) {
  TempDir dir;
  auto text = Database::OpenReadOnly(dir.Write("notes.db", "this is not a database, just text\n"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("notes.db: file is not a database"), std::string::npos);

  auto missing = Database::OpenReadOnly(dir.path() / "missing.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("missing.db"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.db"));  // read-only open never creates
}

TEST(Database, ReportsBrokenSqlWithThePath) {
  TempDir dir;
  auto db = Database::OpenForWrite(dir.path() / "x.db");
  ASSERT_TRUE(db.ok());
  auto statement = db->Prepare("SELEC nonsense");
  ASSERT_FALSE(statement.ok());
  EXPECT_NE(statement.error().message.find("x.db: query failed"), std::string::npos);
}

TEST(Database, InputsAreImmutableNothingIsCreatedBesideThem) {
  TempDir dir;
  const auto path = dir.path() / "rank.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("CREATE TABLE TASK (startNs INTEGER); INSERT INTO TASK VALUES (1)").ok());
  }
  // A stray log beside a database that is not in WAL mode: SQLite would switch to WAL and
  // create rank.db-shm beside the input.
  dir.Write("rank.db-wal", std::string(8192, 'w'));
  {
    auto db = Database::OpenReadOnly(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto statement = db->Prepare("SELECT count(*) FROM TASK");
    ASSERT_TRUE(statement.ok());
    ASSERT_TRUE(*statement->Step());
    EXPECT_EQ(statement->Int64(0), 1);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "rank.db-shm"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "rank.db-journal"));
}

TEST(Database, AnEndlessViewIsStoppedByTheWorkBound) {
  TempDir dir;
  const auto path = dir.path() / "rank.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("CREATE VIEW STRING_IDS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                            "FROM c) SELECT x AS id, 'k' AS value FROM c")
                    .ok());
  }
  auto db = Database::OpenReadOnly(path);
  ASSERT_TRUE(db.ok());
  auto statement = db->Prepare("SELECT count(*) FROM STRING_IDS");
  ASSERT_TRUE(statement.ok());
  auto row = statement->Step();
  ASSERT_FALSE(row.ok());
  EXPECT_NE(row.error().message.find("rank.db: query failed: query stopped"), std::string::npos) << row.error().message;
}

TEST(Database, RefusesADeviceOrAnUnfinishedWriteWithTheCause) {
  TempDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.path() / "zero.db");
  auto device = Database::OpenReadOnly(dir.path() / "zero.db");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message, (dir.path() / "zero.db").string() + ": is a character device, not a regular file");

  const auto path = dir.path() / "wal.db";
  auto writer = Database::OpenForWrite(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer
                  ->Execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x); "
                            "INSERT INTO t VALUES (1)")
                  .ok());
  auto unmerged = Database::OpenReadOnly(path);  // the writer is still open: its changes are in wal.db-wal
  ASSERT_FALSE(unmerged.ok());
  EXPECT_NE(unmerged.error().message.find("wal.db-wal"), std::string::npos) << unmerged.error().message;
  EXPECT_NE(unmerged.error().message.find("holds changes not yet in the database"), std::string::npos);
}

}  // namespace
}  // namespace opmfu
