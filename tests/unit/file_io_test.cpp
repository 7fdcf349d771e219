#include "common/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(ReadTextFile, ReadsAFile) {
  TempDir dir;
  const auto path = dir.Write("a.py", "x = 1\n");
  auto content = ReadTextFile(path);
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(*content, "x = 1\n");
}

TEST(ReadTextFile, NamesThePathAndTheCause) {
  TempDir dir;
  auto missing = ReadTextFile(dir.path() / "nope.py");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir.path() / "nope.py").string() + ": No such file or directory");

  auto directory = ReadTextFile(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);

  const auto binary = dir.Write("b.py", std::string("ab\0cd", 5));
  auto rejected = ReadTextFile(binary);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("binary file (NUL byte at offset 2)"), std::string::npos);
  EXPECT_TRUE(ReadTextFile(binary, {.max_bytes = 100, .reject_nul = false}).ok());

  auto large = ReadTextFile(dir.Write("big", std::string(200, 'x')), {.max_bytes = 100, .reject_nul = true});
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.error().message.find("file too large: 200 bytes, above the limit for this kind of file of 100 bytes"),
            std::string::npos)
      << large.error().message;
}

TEST(ReadTextFile, RefusesWhatIsNotARegularFileWithoutBlocking) {
  TempDir dir;
  const auto fifo = dir.path() / "p.py";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto from_fifo = ReadTextFile(fifo);  // a blocking open would wait here for a writer forever
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.error().message, fifo.string() + ": is a FIFO (named pipe), not a regular file");
  auto from_device = ReadTextFile("/dev/zero");
  ASSERT_FALSE(from_device.ok());
  EXPECT_EQ(from_device.error().message, "/dev/zero: is a character device, not a regular file");
  EXPECT_FALSE(CheckRegularFile(fifo).ok());
  EXPECT_TRUE(CheckRegularFile(dir.Write("a.db", "x")).ok());
  auto head = ReadFileHead(dir.Write("h.db", "SQLite format 3"), 6);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "SQLite");
}

TEST(ReadTextFile, AppliesTheInputSizePolicyFromTheEnvironment) {
  TempDir dir;
  const auto path = dir.Write("big.py", std::string(3000, 'x'));
  ::setenv(kMaxFileSizeVariable, "2K", 1);
  auto refused = ReadTextFile(path);
  ::setenv(kMaxFileSizeVariable, "lots", 1);
  auto unreadable_policy = ReadTextFile(path);
  ::unsetenv(kMaxFileSizeVariable);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            path.string() +
                ": file too large: 2.9 KiB (3000 bytes), above the input size limit of 2 KiB (2048 bytes); "
                "set OPMFU_MAX_FILE_SIZE to raise it");
  ASSERT_FALSE(unreadable_policy.ok());
  EXPECT_NE(unreadable_policy.error().message.find("OPMFU_MAX_FILE_SIZE=lots: not a size"), std::string::npos);
  EXPECT_TRUE(ReadTextFile(path).ok());  // the default, 4 MiB
  EXPECT_EQ(*InputSizeLimit(), kDefaultMaxFileSize);
}

// A reader's own limit equal to the policy (a config's 4 MiB) is not raised by the variable, so the
// message must not say to set it.
TEST(ReadTextFile, AReadersOwnLimitEqualToThePolicyIsNotSaidToBeRaisable) {
  TempDir dir;
  const auto path = dir.Write("pyproject.toml", std::string(3000, 'x'));
  ::setenv(kMaxFileSizeVariable, "2K", 1);
  auto refused = ReadTextFile(path, ReadLimits{.max_bytes = 2048});
  ::unsetenv(kMaxFileSizeVariable);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            path.string() +
                ": file too large: 2.9 KiB (3000 bytes), above the limit for this kind of file of 2 KiB "
                "(2048 bytes)");
}

TEST(ReadTextFile, ReportsUnreadableFiles) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of permissions";
  TempDir dir;
  const auto path = dir.Write("secret.py", "x");
  fs::permissions(path, fs::perms::none);
  auto content = ReadTextFile(path);
  ASSERT_FALSE(content.ok());
  EXPECT_NE(content.error().message.find("Permission denied"), std::string::npos);
}

TEST(WriteFileAtomically, ReplacesContentKeepsModeAndLeavesNoTempFile) {
  TempDir dir;
  const auto path = dir.Write("out.txt", "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  ASSERT_TRUE(WriteFileAtomically(path, "new content").ok());
  EXPECT_EQ(testing::ReadFile(path), "new content");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileAtomically, FailsCleanlyInAMissingDirectory) {
  TempDir dir;
  Status status = WriteFileAtomically(dir.path() / "no" / "such" / "out.txt", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("cannot write"), std::string::npos);
}

TEST(WriteFileAtomically, LeavesTheOldFileWhenTheDirectoryIsReadOnly) {
  TempDir dir;
  const auto path = dir.Write("sub/out.txt", "old");
  fs::permissions(path.parent_path(), fs::perms::owner_read | fs::perms::owner_exec);
  // Root ignores the permission bits: make the directory immutable instead.
  std::optional<testing::ImmutableDirectory> immutable;
  if (::geteuid() == 0) {
    immutable.emplace(path.parent_path());
    if (!immutable->set()) GTEST_SKIP() << "root ignores permissions, and chattr +i is refused here";
  }
  const Status written = WriteFileAtomically(path, "new");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("out.txt"), std::string::npos) << written.error().message;
  EXPECT_EQ(testing::ReadFile(path), "old");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(path.parent_path())) ++entries;
  EXPECT_EQ(entries, 1);  // no temporary file left beside it
}

TEST(CopyFileAtomically, CopiesBytesExactly) {
  TempDir dir;
  const std::string bytes("a\0b\xFF", 4);
  const auto from = dir.Write("from.bin", bytes);
  ASSERT_TRUE(CopyFileAtomically(from, dir.path() / "to.bin").ok());
  EXPECT_EQ(testing::ReadFile(dir.path() / "to.bin"), bytes);
}

TEST(ReplaceFileIfUnchanged, EditsTheFileALinkNames) {
  TempDir dir;
  const auto target = dir.Write("real/train.py", "old");
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::create_symlink("real/train.py", dir.path() / "link.py");
  ASSERT_TRUE(ReplaceFileIfUnchanged(dir.path() / "link.py", "old", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.py"));  // still the user's link
  EXPECT_EQ(fs::read_symlink(dir.path() / "link.py"), "real/train.py");
  EXPECT_EQ(testing::ReadFile(target), "new");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(WriteFileAtomically, KeepsTheOwnerOfTheFileItReplaces) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another owner to begin with";
  TempDir dir;
  const auto path = dir.Write("theirs.py", "old");
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, 65534U);
  EXPECT_EQ(info.st_gid, 65534U);
  EXPECT_EQ(testing::ReadFile(path), "new");
}

TEST(WriteFileAtomically, ChecksEveryWriteToADevice) {
  const Status full = WriteFileAtomically("/dev/full", "x");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().message, "/dev/full: cannot write: No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));  // written to, never replaced
  EXPECT_TRUE(WriteFileAtomically("/dev/null", "x").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(CopyFileAtomically, TheBackupKeepsTheModeOfTheFileItSaves) {
  TempDir dir;
  const auto from = dir.Write("formulas.py", "x = 1\n");
  fs::permissions(from, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(CopyFileAtomically(from, dir.path() / "formulas.py.bak").ok());
  EXPECT_EQ(fs::status(dir.path() / "formulas.py.bak").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

}  // namespace
}  // namespace opmfu
