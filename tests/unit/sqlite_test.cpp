#include "common/sqlite.h"

#include <chrono>
#include <cstdlib>

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

// The time bound: 10 s, 1 s more per 100 MiB of file, or what OPMFU_QUERY_SECONDS says.
TEST(Database, TheQueryTimeLimitGrowsSlowlyWithTheFileOrIsSet) {
  ::unsetenv(kQuerySecondsVariable);
  EXPECT_EQ(*InputQueryTimeLimit(0), std::chrono::seconds(10));
  EXPECT_EQ(*InputQueryTimeLimit(std::uintmax_t{250} << 20), std::chrono::seconds(12));
  EXPECT_EQ(*InputQueryTimeLimit(std::uintmax_t{10} << 30), std::chrono::seconds(112));
  ::setenv(kQuerySecondsVariable, "3", 1);
  EXPECT_EQ(*InputQueryTimeLimit(std::uintmax_t{10} << 30), std::chrono::seconds(3));
  for (const char* bad : {"", "0", "-2", "3s", "1000001", "99999999999999999999"}) {
    ::setenv(kQuerySecondsVariable, bad, 1);
    const auto limit = InputQueryTimeLimit(0);
    if (std::string(bad).empty()) {
      EXPECT_TRUE(limit.ok());  // set but empty: as unset
      continue;
    }
    ASSERT_FALSE(limit.ok()) << bad;
    EXPECT_EQ(limit.error().kind, Error::Kind::kUsage);
    EXPECT_EQ(limit.error().message.rfind("OPMFU_QUERY_SECONDS=", 0), 0U) << limit.error().message;
  }
  ::unsetenv(kQuerySecondsVariable);
}

// With OPMFU_QUERY_SECONDS=1 an endless VIEW in a 20 MB file (whose step bound allows about a
// minute) stops after about a second, and the message names the variable.
TEST(Database, TheSetTimeLimitStopsAnEndlessViewInALargeFile) {
  TempDir dir;
  const auto path = dir.path() / "rank.db";
  {
    auto db = Database::OpenForWrite(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("CREATE VIEW STRING_IDS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                            "FROM c) SELECT x AS id, 'k' AS value FROM c; CREATE TABLE padding (b BLOB); "
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) "
                            "INSERT INTO padding SELECT zeroblob(1 << 20) FROM n")
                    .ok());
  }
  ::setenv(kQuerySecondsVariable, "1", 1);
  auto db = Database::OpenReadOnly(path);
  ::unsetenv(kQuerySecondsVariable);
  ASSERT_TRUE(db.ok());
  auto statement = db->Prepare("SELECT count(*) FROM STRING_IDS");
  ASSERT_TRUE(statement.ok());
  const auto started = std::chrono::steady_clock::now();
  auto row = statement->Step();
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(row.ok());
  EXPECT_NE(row.error().message.find("1 s per query; OPMFU_QUERY_SECONDS sets the time"), std::string::npos)
      << row.error().message;
  // Not a timing assertion on speed: the step bound alone would allow about a minute here.
  EXPECT_LT(took, std::chrono::seconds(30));
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
