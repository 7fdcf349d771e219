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

}  // namespace
}  // namespace opmfu
