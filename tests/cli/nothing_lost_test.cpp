// Nothing is lost: inputs are byte-identical after every command that reads them; an analysis
// or a `registry add --write` killed at any moment leaves the old file or the new one, never a
// broken one, and never drops tables it does not own; `lint --fix` leaves alone a file it could
// not fully parse.

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <string>

#include "common/sqlite.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::RunOpmfuWith;
using testing::RunOptions;
using testing::TempDir;

// Every file below `root` with its bytes, except what `skip` names (outputs).
std::map<std::string, std::string> Contents(const fs::path& root, const std::string& skip = "cluster_analysis_output") {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = fs::relative(entry.path(), root).string();
    if (!skip.empty() && relative.find(skip) != std::string::npos) continue;
    files[relative] = testing::ReadFile(entry.path());
  }
  return files;
}

std::int64_t Count(Database& db, const std::string& sql) {
  auto statement = db.Prepare(sql);
  EXPECT_TRUE(statement.ok()) << statement.error().message;
  if (!statement.ok()) return -1;
  auto row = statement->Step();
  EXPECT_TRUE(row.ok() && *row);
  return statement->Int64(0);
}

std::string Text(Database& db, const std::string& sql) {
  auto statement = db.Prepare(sql);
  if (!statement.ok()) return statement.error().message;
  auto row = statement->Step();
  return row.ok() && *row ? std::string(statement->Text(0)) : "no row";
}

// The files that differ between two snapshots (printing whole databases helps nobody).
std::vector<std::string> Changed(const std::map<std::string, std::string>& before,
                                 const std::map<std::string, std::string>& after) {
  std::vector<std::string> changed;
  for (const auto& [path, bytes] : before) {
    auto found = after.find(path);
    if (found == after.end() || found->second != bytes) changed.push_back(path);
  }
  for (const auto& [path, bytes] : after) {
    if (!before.contains(path)) changed.push_back(path + " (new)");
  }
  return changed;
}

TEST(NothingLost, EveryReadingCommandLeavesItsInputsByteIdentical) {
  TempDir dir;
  ASSERT_EQ(
      RunOpmfu({"demo", (dir.path() / "prof").string(), "--ranks", "2", "--steps", "2", "--layers", "3"}).exit_code, 0);
  const auto before = Contents(dir.path());
  ASSERT_GT(before.size(), 4U);
  const std::string prof = (dir.path() / "prof").string();
  const std::string example = (dir.path() / "prof" / "example").string();
  const std::vector<std::vector<std::string>> commands = {
      {"analyze", "-d", prof},
      {"analyze", "-d", prof, "--export-type", "json"},
      {"analyze", "-d", prof, "--export-type", "text"},
      {"analyze", "-d", prof, "--step-id", "1"},
      {"check-db", "-d", prof},
      {"lint", "--no-config", example},
      {"lint", "--no-config", "--diff", example},
      {"registry", "list", "--formulas", example + "/_flops_formulas.py"},
      {"registry", "check", example + "/_flops_formulas.py"},
  };
  for (const auto& command : commands) {
    const auto result = RunOpmfu(command);
    EXPECT_LT(result.exit_code, 3) << command.front() << ": " << result.err;
    EXPECT_EQ(Changed(before, Contents(dir.path())), std::vector<std::string>{})
        << "changed by: opmfu " << command.front() << " " << command.back();
  }

  // The commands that read MFU results leave the rank DBs and cluster_analysis.db alone too.
  ASSERT_EQ(RunOpmfu({"analyze", "-d", prof}).exit_code, 0);
  const auto with_results = Contents(dir.path(), "");
  const std::string cluster_db = prof + "/cluster_analysis_output/cluster_analysis.db";
  const std::vector<std::vector<std::string>> readers = {
      {"report", "-d", prof},
      {"report", "--db", cluster_db, "--format", "html"},
      {"report", "-d", prof, "--attribute", "compute", "--format", "json"},
      {"audit", "-d", prof},
      {"audit", "--db", cluster_db},
      {"gate", "-d", prof, "--min-mfu", "0.9", "--min-coverage", "0.9"},
      {"gate", "--db", cluster_db, "--baseline", prof, "--max-drop", "1%"},
      {"diff", prof, cluster_db},
      {"registry", "verify", "-d", prof, "--target", "torch:mm"},
  };
  for (const auto& command : readers) {
    const auto result = RunOpmfu(command);
    EXPECT_LT(result.exit_code, 2) << command.front() << ": " << result.err;
    EXPECT_EQ(Changed(with_results, Contents(dir.path(), "")), std::vector<std::string>{})
        << "changed by: opmfu " << command.front() << " " << command.back();
  }
}

// A run killed mid-write: cluster_analysis.db is whole (integrity_check), still has the table
// another analysis wrote, and holds either the old OperatorMFU or the complete new one.
void ExpectOldOrNew(const fs::path& db_path, std::int64_t old_rows, std::int64_t new_rows, const std::string& when) {
  auto db = Database::OpenReadOnly(db_path);
  ASSERT_TRUE(db.ok()) << when << ": " << db.error().message;
  EXPECT_EQ(Text(*db, "PRAGMA integrity_check"), "ok") << when;
  EXPECT_EQ(Count(*db, "SELECT count(*) FROM CommunicationMatrix"), 2) << when;
  const std::int64_t rows = Count(*db, "SELECT count(*) FROM OperatorMFU");
  EXPECT_TRUE(rows == old_rows || rows == new_rows)
      << when << ": " << rows << " rows, neither " << old_rows << " (old) nor " << new_rows << " (new)";
}

TEST(NothingLost, AnAnalysisInterruptedAtAnyMomentLeavesTheOldOrTheNewDatabase) {
  TempDir dir;
  const fs::path prof = dir.path() / "prof";
  ASSERT_EQ(RunOpmfu({"demo", prof.string(), "--ranks", "2", "--steps", "10", "--layers", "200"}).exit_code, 0);
  const fs::path db_path = prof / "cluster_analysis_output" / "cluster_analysis.db";
  // The complete result, and how long it takes: the fastest of three runs, so that a busy moment
  // during one of them does not stretch the schedule of interruptions past a quicker analysis.
  auto full = RunOpmfu({"analyze", "-d", prof.string()});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  for (int again = 0; again < 2; ++again) {
    const auto rerun = RunOpmfu({"analyze", "-d", prof.string()});
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    full.seconds = std::min(full.seconds, rerun.seconds);
  }
  std::int64_t new_rows = 0;
  {
    auto db = Database::OpenReadOnly(db_path);
    ASSERT_TRUE(db.ok());
    new_rows = Count(*db, "SELECT count(*) FROM OperatorMFU");
  }
  ASSERT_GT(new_rows, 1000);
  // The old state: another analysis's table beside three stale OperatorMFU rows.
  const fs::path old_copy = dir.path() / "old.db";
  {
    auto db = Database::OpenForWrite(old_copy);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("CREATE TABLE CommunicationMatrix (src INTEGER, dst INTEGER, bytes REAL);"
                            "INSERT INTO CommunicationMatrix VALUES (0, 1, 1e6), (1, 0, 2e6);"
                            "CREATE TABLE OperatorMFU (rank_id INTEGER, op_name TEXT);"
                            "INSERT INTO OperatorMFU VALUES (0, 'a'), (0, 'b'), (1, 'c');")
                    .ok());
  }
  const auto full_ms = static_cast<int>(full.seconds * 1000);
  int interrupted = 0;
  for (int step = 0; step <= 24; ++step) {
    fs::copy_file(old_copy, db_path, fs::copy_options::overwrite_existing);
    RunOptions options;
    options.timeout = std::chrono::milliseconds(5 + full_ms * step / 20);
    options.stop_signal = step % 2 == 0 ? SIGKILL : SIGINT;
    const auto run = RunOpmfuWith({"analyze", "-d", prof.string()}, options);
    interrupted += run.timed_out ? 1 : 0;
    const std::string when =
        std::string(step % 2 == 0 ? "SIGKILL" : "SIGINT") + " after " + std::to_string(options.timeout.count()) + " ms";
    ExpectOldOrNew(db_path, 3, new_rows, when);
    // Ctrl-C removes the temporary file it was writing; SIGKILL cannot, and leaves it hidden.
    for (const auto& entry : fs::directory_iterator(db_path.parent_path())) {
      const std::string name = entry.path().filename().string();
      if (name.find(".opmfu-") == std::string::npos) continue;
      EXPECT_EQ(options.stop_signal, SIGKILL) << when << ": left " << name;
      fs::remove(entry.path());
    }
  }
  EXPECT_GE(interrupted, 10);  // most runs were really cut short
}

// One rank alone has its OperatorMFU rows written while its module pass runs; when the module pass
// then fails the rank, nothing may be left of them: not the rows, not the summary's figures, not
// a temporary file, not a folder the run created.
TEST(NothingLost, ARankFailingAfterItsRowsWereWrittenLeavesNothingOfThem) {
  TempDir dir;
  const fs::path prof = dir.path() / "prof";
  ASSERT_EQ(RunOpmfu({"demo", prof.string(), "--ranks", "1", "--steps", "2", "--layers", "3"}).exit_code, 0);
  ASSERT_EQ(RunOpmfu({"analyze", "-d", prof.string()}).exit_code, 0);
  const fs::path output = prof / "cluster_analysis_output";
  const auto earlier = Contents(output, "");
  ASSERT_EQ(earlier.size(), 1U);
  // A Module range without a name around other modules fails the module pass, after the rows.
  fs::path rank_db;
  for (const auto& entry : fs::recursive_directory_iterator(prof)) {
    if (entry.path().filename() == "ascend_pytorch_profiler_0.db") rank_db = entry.path();
  }
  {
    auto db = Database::OpenForWrite(rank_db);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(db->Execute("UPDATE MSTX_EVENTS SET message = NULL "
                            "WHERE message = (SELECT id FROM STRING_IDS WHERE value = 'Model')")
                    .ok());
  }
  const auto failed = RunOpmfu({"analyze", "-d", prof.string(), "--format", "json"});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("a Module range with no name"), std::string::npos) << failed.err;
  EXPECT_NE(failed.out.find("\"operator_mfu_rows\": 0"), std::string::npos) << failed.out;
  EXPECT_NE(failed.out.find("\"written\": []"), std::string::npos) << failed.out;
  EXPECT_EQ(Changed(earlier, Contents(output, "")), std::vector<std::string>{});
  const fs::path fresh = dir.path() / "fresh";
  EXPECT_EQ(RunOpmfu({"analyze", "-d", prof.string(), "-o", fresh.string()}).exit_code, 1);
  EXPECT_FALSE(fs::exists(fresh)) << "a folder created for rows that were not written after all";
}

TEST(NothingLost, ARegistryAddInterruptedAtAnyMomentLeavesTheFormulasWholeAndABackup) {
  TempDir dir;
  const fs::path examples = testing::SourceDir() / "examples";
  const fs::path formulas = dir.path() / "_flops_formulas.py";
  fs::copy_file(examples / "_flops_formulas.py", formulas);
  const std::string before = testing::ReadFile(formulas);
  const std::vector<std::string> add = {
      "registry", "add",           "--formulas", formulas.string(),
      "--target", "torch:baddbmm", "--from",     (examples / "new_formula.py").string(),
      "--write"};
  const auto complete = RunOpmfu(add);
  ASSERT_EQ(complete.exit_code, 0) << complete.err;
  const std::string after = testing::ReadFile(formulas);
  ASSERT_NE(after, before);
  const auto full_ms = static_cast<int>(complete.seconds * 1000);
  for (int step = 0; step <= 20; ++step) {
    fs::copy_file(examples / "_flops_formulas.py", formulas, fs::copy_options::overwrite_existing);
    fs::remove(formulas.string() + ".bak");
    RunOptions options;
    options.timeout = std::chrono::milliseconds(full_ms * step / 16);
    (void)RunOpmfuWith(add, options);
    const std::string now = testing::ReadFile(formulas);
    EXPECT_TRUE(now == before || now == after) << "killed after " << options.timeout.count() << " ms: a partial file";
    // The backup is written before the formulas file is replaced, and always holds the original.
    const std::string backup = formulas.string() + ".bak";
    if (now == after) {
      EXPECT_TRUE(fs::exists(backup));
    }
    if (fs::exists(backup)) {
      EXPECT_EQ(testing::ReadFile(backup), before);
    }
  }
}

// Issue 47: a full disk during `opmfu demo` exited 2 but left ascend_pytorch_profiler_N.db files
// cut short under their final names, which a later analyze read as damaged ranks.
TEST(NothingLost, ADemoOnAFullDiskLeavesNoTruncatedRankDatabase) {
  TempDir dir;
  RunOptions options;
  options.file_size_limit = std::uint64_t{32} << 10;  // a rank DB of the demo is 56 KiB
  const auto result = RunOpmfuWith({"demo", (dir.path() / "demo").string(), "--ranks", "2"}, options);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("ascend_pytorch_profiler_"), std::string::npos) << result.err;
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(name.ends_with(".tmp")) << "a temporary file was left: " << entry.path();
    if (!name.starts_with("ascend_pytorch_profiler_") || !name.ends_with(".db")) continue;
    auto db = Database::OpenReadOnly(entry.path());
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_GT(Count(*db, "SELECT count(*) FROM TASK"), 0) << entry.path();
  }
}

TEST(NothingLost, LintFixLeavesAFileThatDidNotParseAlone) {
  TempDir dir;
  // Fixable findings (no with_flops, record_shapes off) in a file with a syntax error further on.
  const std::string broken =
      "import torch_npu\n"
      "prof = torch_npu.profiler.profile(record_shapes=False)\n"
      "def broken(:\n"
      "    pass\n";
  const fs::path script = dir.Write("train.py", broken);
  const auto fixed = RunOpmfu({"lint", "--no-config", "--fix", script.string()});
  EXPECT_EQ(fixed.exit_code, 1) << fixed.out << fixed.err;
  EXPECT_EQ(testing::ReadFile(script), broken);
  EXPECT_NE(fixed.out.find("OPM001"), std::string::npos) << fixed.out;
  EXPECT_EQ(fixed.err.find("Fixed"), std::string::npos) << fixed.err;

  // A dynamic-profiler config json.load would reject: its resettable values stay as written.
  const std::string config = "{\"with_flops\": \"true\", \"experimental_config\": {\"export_type\": \"DB\"},}\n";
  const fs::path config_file = dir.Write("profiler_config.json", config);
  const auto json_fixed = RunOpmfu({"lint", "--no-config", "--fix", config_file.string()});
  EXPECT_EQ(json_fixed.exit_code, 1) << json_fixed.out << json_fixed.err;
  EXPECT_EQ(testing::ReadFile(config_file), config);

  // The same file once it parses: now the safe fixes are applied.
  const fs::path clean =
      dir.Write("clean.py", "import torch_npu\nprof = torch_npu.profiler.profile(record_shapes=False)\n");
  const auto clean_fixed = RunOpmfu({"lint", "--no-config", "--fix", clean.string()});
  EXPECT_NE(clean_fixed.err.find("Fixed"), std::string::npos) << clean_fixed.err;
  EXPECT_NE(testing::ReadFile(clean), "import torch_npu\nprof = torch_npu.profiler.profile(record_shapes=False)\n");
}

}  // namespace
}  // namespace opmfu
