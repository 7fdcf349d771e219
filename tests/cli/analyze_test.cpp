// `opmfu analyze` and `opmfu demo` end to end: outputs, fault isolation, `-d` corrections, and
// that inputs are never changed.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>

#include <chrono>
#include <nlohmann/json.hpp>

#include "common/sqlite.h"
#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

std::int64_t Count(const fs::path& db, const std::string& sql) {
  auto database = Database::OpenReadOnly(db);
  EXPECT_TRUE(database.ok());
  auto statement = database->Prepare(sql);
  EXPECT_TRUE(statement.ok()) << statement.error().message;
  EXPECT_TRUE(*statement->Step());
  return statement->Int64(0);
}

// Every file below `root` (except analysis output) with its bytes, to prove inputs are untouched.
std::map<std::string, std::string> Snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = fs::relative(entry.path(), root).string();
    if (relative.rfind("cluster_analysis_output", 0) == 0) continue;
    files[relative] = testing::ReadFile(entry.path());
  }
  return files;
}

// A rank with one op -> kernel and one FLOPs range, in the spec's default layout.
void WriteRank(const fs::path& root, std::int64_t rank, const std::string& types = "FLOAT16;FLOAT16",
               const std::string& timestamp = "20250101000000000") {
  const fs::path directory = root / ("worker_0_" + timestamp + "_ascend_pt");
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::mm", 1000, 2000);
  engine::ProfilingDbBuilder::Kernel kernel;
  kernel.name = "MatMulV2";
  kernel.start = 1500;
  kernel.end = 2500;
  kernel.input_types = types;
  db.AddKernel({op}, kernel);
  db.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  db.AddMstx("Module", "Net", 0, 10000);
  ASSERT_TRUE(
      db.Write(directory / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(rank) + ".db"))
          .ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(directory, 0, "20", "\"1800\"").ok());
}

TEST(Demo, AnalyzeOnTheDemoWritesBothTablesAndLeavesInputsAlone) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  const auto written = RunOpmfu({"demo", demo.string(), "--ranks", "3", "--steps", "2", "--layers", "2"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_TRUE(fs::exists(demo / "example" / "train.py"));
  EXPECT_TRUE(fs::exists(demo / "example" / "_flops_formulas.py"));
  const auto before = Snapshot(demo);
  const auto analysed = RunOpmfu({"analyze", "-d", demo.string()});
  ASSERT_EQ(analysed.exit_code, 0) << analysed.err;
  EXPECT_EQ(Snapshot(demo), before);
  const fs::path db = demo / "cluster_analysis_output" / "cluster_analysis.db";
  const std::int64_t operator_rows = Count(db, "SELECT count(*) FROM OperatorMFU");
  EXPECT_GT(operator_rows, 0);
  EXPECT_GT(Count(db, "SELECT count(*) FROM ModuleMFU"), 0);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT rank_id) FROM OperatorMFU"), 3);
  EXPECT_NE(analysed.out.find("OperatorMFU: " + std::to_string(operator_rows) + " rows"), std::string::npos);
  EXPECT_NE(analysed.out.find("MFU bands: <20%:"), std::string::npos);
  EXPECT_NE(analysed.out.find("Lowest MFU compute kernels:"), std::string::npos);
  // The highest-MFU list is of compute kernels; the TransData kernels that inherit a range's FLOPs
  // (thousands of percent) are listed beside it, as such.
  const std::size_t highest = analysed.out.find("Highest MFU compute kernels:");
  const std::size_t auxiliary = analysed.out.find("Auxiliary kernels (");
  ASSERT_NE(highest, std::string::npos) << analysed.out;
  ASSERT_NE(auxiliary, std::string::npos) << analysed.out;
  const std::string compute_list = analysed.out.substr(highest, auxiliary - highest);
  EXPECT_EQ(compute_list.find("TransData"), std::string::npos) << compute_list;
  EXPECT_NE(analysed.out.substr(auxiliary).find("TransData"), std::string::npos) << analysed.out;

  // The same seed gives the same data; the registry of the demo's formulas lists cleanly.
  const fs::path again = dir.path() / "again";
  ASSERT_EQ(RunOpmfu({"demo", again.string(), "--ranks", "3", "--steps", "2", "--layers", "2"}).exit_code, 0);
  EXPECT_EQ(RunOpmfu({"analyze", "-d", again.string(), "--export-type", "csv"}).exit_code, 0);
  EXPECT_EQ(RunOpmfu({"analyze", "-d", demo.string(), "--export-type", "csv"}).exit_code, 0);
  EXPECT_EQ(testing::ReadFile(again / "cluster_analysis_output" / "operator_mfu.csv"),
            testing::ReadFile(demo / "cluster_analysis_output" / "operator_mfu.csv"));
  EXPECT_EQ(RunOpmfu({"registry", "check", (demo / "example" / "_flops_formulas.py").string()}).exit_code, 0);
}

TEST(Demo, RefusesToWriteIntoSomebodysDirectory) {
  TempDir dir;
  dir.Write("mine/notes.txt", "keep me");
  const auto result = RunOpmfu({"demo", (dir.path() / "mine").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("mine: exists and is not exactly an earlier opmfu demo (no .opmfu-demo marker)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(testing::ReadFile(dir.path() / "mine" / "notes.txt"), "keep me");
}

// A demo knows what it wrote: only exactly an earlier demo is written over. An added rank
// directory, an edited example or a marker copied into another tree make it refuse, naming the
// file and changing nothing; an analysis of the demo written inside it is kept.
TEST(Demo, WritesOverExactlyAnEarlierDemoAndNothingElse) {
  TempDir dir;
  const fs::path demo = dir.path() / "dm";
  const std::vector<std::string> small = {"--ranks", "1", "--steps", "1", "--layers", "1"};
  const auto run_demo = [&](const fs::path& where) {
    std::vector<std::string> args{"demo", where.string()};
    args.insert(args.end(), small.begin(), small.end());
    return RunOpmfu(args);
  };
  ASSERT_EQ(run_demo(demo).exit_code, 0);
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo.string()}).exit_code, 0);
  const auto again = run_demo(demo);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(fs::exists(demo / "cluster_analysis_output" / "cluster_analysis.db"));

  const auto refused = [&](const fs::path& where, const std::string& fragment) {
    const auto result = run_demo(where);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  };
  const fs::path added = dir.Write("dm/worker_9_20250101000000000_ascend_pt/notes.txt", "my own rank");
  refused(demo, added.parent_path().string() + " is not a folder it made");
  EXPECT_EQ(testing::ReadFile(added), "my own rank");
  fs::remove_all(added.parent_path());

  const fs::path script = demo / "example" / "train.py";
  const std::string edited = testing::ReadFile(script) + "# my change\n";
  dir.Write("dm/example/train.py", edited);
  refused(demo, script.string() + " was changed after the demo wrote it");
  EXPECT_EQ(testing::ReadFile(script), edited);

  const fs::path other = dir.path() / "other";
  dir.Write("other/data.bin", "precious");
  fs::copy_file(demo / ".opmfu-demo", other / ".opmfu-demo");
  refused(other, (other / "data.bin").string() + " is not a file it wrote");
  EXPECT_EQ(testing::ReadFile(other / "data.bin"), "precious");
}

TEST(Analyze, OneBrokenRankDoesNotEmptyTheOthers) {
  TempDir dir;
  WriteRank(dir.path() / "a", 0);
  WriteRank(dir.path() / "b", 1, "INT32;INT32");
  dir.Write("c/worker_0_20250101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_2.db",
            "not sqlite at all");
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("rank 1: FAILED: " + (dir.path() / "b").string()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("ascend_pytorch_profiler_1.db: Not supported data type: INT32"), std::string::npos);
  EXPECT_NE(result.out.find("rank 2: FAILED: "), std::string::npos);
  EXPECT_NE(result.out.find("file is not a database"), std::string::npos);
  const fs::path db = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
  EXPECT_EQ(Count(db, "SELECT count(*) FROM OperatorMFU"), 1);
  EXPECT_EQ(Count(db, "SELECT rank_id FROM OperatorMFU"), 0);
  EXPECT_EQ(Count(db, "SELECT typeof(\"kernel_duration(ns)\") = 'integer' FROM OperatorMFU"), 1);
}

// `analyze:` in the nearest .opmfu.yaml above the profiling directory sets the defaults; a flag on
// the command line wins, and --no-config ignores the file.
TEST(Analyze, TheConfigsAnalyzeSectionAppliesAndFlagsOverrideIt) {
  TempDir dir;
  const fs::path profiling = dir.path() / "runs" / "prof";
  WriteRank(profiling, 0);
  const fs::path config = dir.path() / ".opmfu.yaml";
  dir.Write(".opmfu.yaml", "analyze:\n  export-type: json\n  jobs: 1\n");
  const fs::path output = profiling / "cluster_analysis_output";

  const auto configured = RunOpmfu({"analyze", "-d", profiling.string(), "-v"});
  EXPECT_EQ(configured.exit_code, 0) << configured.err;
  EXPECT_NE(configured.err.find(config.string() + ": export-type json jobs 1"), std::string::npos) << configured.err;
  EXPECT_TRUE(fs::exists(output / "operator_mfu.json"));
  EXPECT_FALSE(fs::exists(output / "cluster_analysis.db"));

  fs::remove_all(output);
  const auto overridden = RunOpmfu({"analyze", "-d", profiling.string(), "-v", "--export-type", "db", "--jobs", "2"});
  EXPECT_EQ(overridden.exit_code, 0) << overridden.err;
  EXPECT_EQ(overridden.err.find(config.string()), std::string::npos) << overridden.err;
  EXPECT_EQ(Count(output / "cluster_analysis.db", "SELECT count(*) FROM OperatorMFU"), 1);
  EXPECT_FALSE(fs::exists(output / "operator_mfu.json"));

  fs::remove_all(output);
  const auto only_jobs = RunOpmfu({"analyze", "-d", profiling.string(), "-v", "--export-type", "csv"});
  EXPECT_NE(only_jobs.err.find(config.string() + ": jobs 1"), std::string::npos) << only_jobs.err;
  EXPECT_TRUE(fs::exists(output / "operator_mfu.csv"));

  fs::remove_all(output);
  const auto ignored = RunOpmfu({"analyze", "-d", profiling.string(), "-v", "--no-config"});
  EXPECT_EQ(ignored.exit_code, 0) << ignored.err;
  EXPECT_EQ(ignored.err.find(config.string()), std::string::npos) << ignored.err;
  EXPECT_TRUE(fs::exists(output / "cluster_analysis.db"));

  // A broken config is a usage error naming the file, not silently skipped; nothing is written.
  fs::remove_all(output);
  dir.Write(".opmfu.yaml", "analyze:\n  export-type: xlsx\n");
  const auto broken = RunOpmfu({"analyze", "-d", profiling.string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find(config.string() + ":2:"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("unknown export-type 'xlsx'"), std::string::npos) << broken.err;
  EXPECT_FALSE(fs::exists(output));
}

TEST(Analyze, CorrectsADirectoryOneLevelTooDeepOrTheDbItself) {
  TempDir dir;
  WriteRank(dir.path(), 0);
  const fs::path rank = dir.path() / "worker_0_20250101000000000_ascend_pt";
  const auto output_dir = RunOpmfu({"analyze", "-d", (rank / "ASCEND_PROFILER_OUTPUT").string()});
  EXPECT_EQ(output_dir.exit_code, 0) << output_dir.err;
  EXPECT_NE(output_dir.err.find("-d names ASCEND_PROFILER_OUTPUT itself; -d should be the directory above it: " +
                                rank.string()),
            std::string::npos);
  EXPECT_TRUE(fs::exists(rank / "cluster_analysis_output" / "cluster_analysis.db"));
  const auto db_file =
      RunOpmfu({"analyze", "-d", (rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").string(),
                "--export-type", "json"});
  EXPECT_EQ(db_file.exit_code, 0) << db_file.err;
  EXPECT_NE(db_file.err.find("-d names a database"), std::string::npos);
  const auto rows = nlohmann::json::parse(testing::ReadFile(rank / "cluster_analysis_output" / "operator_mfu.json"));
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["mfu"], 3.3908);
  EXPECT_EQ(rows[0]["kernel_start(ns)"], 1500);
}

TEST(Analyze, SaysWhatItLookedForWhenThereIsNothing) {
  TempDir dir;
  fs::create_directories(dir.path() / "empty" / "a" / "b");
  const auto result = RunOpmfu({"analyze", "-d", (dir.path() / "empty").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "opmfu: error: no profiling data under " + (dir.path() / "empty").string() +
                            ": looked for */ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler[_<rank>].db or a Text "
                            "export (kernel_details.csv, trace_view.json) up to 5 levels deep (3 directories "
                            "searched)\n");
  const auto missing = RunOpmfu({"analyze", "-d", (dir.path() / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "opmfu: error: " + (dir.path() / "nope").string() + ": No such file or directory\n");
}

TEST(Analyze, KeepsOtherTablesAndDropsStaleOnes) {
  TempDir dir;
  WriteRank(dir.path(), 0);
  const fs::path db = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
  {
    fs::create_directories(db.parent_path());
    auto existing = Database::OpenForWrite(db);
    ASSERT_TRUE(existing.ok());
    ASSERT_TRUE(existing
                    ->Execute("CREATE TABLE Other (x INTEGER); INSERT INTO Other VALUES (42); "
                              "CREATE TABLE ModuleMFU (stale TEXT); INSERT INTO ModuleMFU VALUES ('old')")
                    .ok());
  }
  // A run without Module ranges: our ModuleMFU has no rows, so the stale one must go.
  const fs::path rank = dir.path() / "worker_0_20250101000000000_ascend_pt";
  engine::ProfilingDbBuilder plain;
  const std::int64_t op = plain.AddOp("aten::mm", 1000, 2000);
  plain.AddKernel({op}, {"MatMulV2", 1500, 2500});
  plain.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  ASSERT_TRUE(plain.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  ASSERT_EQ(RunOpmfu({"analyze", "-d", dir.path().string()}).exit_code, 0);
  EXPECT_EQ(Count(db, "SELECT x FROM Other"), 42);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ModuleMFU'"), 0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM OperatorMFU"), 1);
  EXPECT_FALSE(fs::exists(db.string() + "-journal"));
}

TEST(Analyze, RankListStepIdDuplicatesAndAgentOutput) {
  TempDir dir;
  WriteRank(dir.path() / "x", 0, "FLOAT16;FLOAT16", "20250101000000000");
  WriteRank(dir.path() / "y", 0, "FLOAT16;FLOAT16", "20250202000000000");  // newer: used
  WriteRank(dir.path() / "z", 3);
  const auto listed = RunOpmfu({"analyze", "-d", dir.path().string(), "--rank_list", "3,7", "--agent"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.err.find("Invalid Rank id: [7]."), std::string::npos);
  const auto agent = nlohmann::json::parse(listed.out);
  EXPECT_EQ(agent["status"], "success");
  EXPECT_EQ(agent["message"]["tables"], nlohmann::json({"OperatorMFU", "ModuleMFU"}));
  const fs::path db = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
  EXPECT_EQ(Count(db, "SELECT max(rank_id) FROM OperatorMFU"), 3);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM OperatorMFU"), 1);

  const auto all = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_NE(all.err.find("rank 0: 2 profiling directories; used " +
                         (dir.path() / "y" / "worker_0_20250202000000000_ascend_pt").string() + " (latest timestamp)"),
            std::string::npos)
      << all.err;
  const auto bad_step = RunOpmfu({"analyze", "-d", dir.path().string(), "--step-id", "9"});
  EXPECT_EQ(bad_step.exit_code, 1);
  EXPECT_NE(bad_step.out.find("step 9 is not in STEP_TIME"), std::string::npos) << bad_step.out;
}

TEST(Analyze, StepIdRestrictsToOneStep) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "1", "--steps", "3", "--layers", "1"}).exit_code, 0);
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo.string()}).exit_code, 0);
  const fs::path db = demo / "cluster_analysis_output" / "cluster_analysis.db";
  const std::int64_t all = Count(db, "SELECT count(*) FROM OperatorMFU");
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo.string(), "--step-id", "2"}).exit_code, 0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM OperatorMFU") * 3, all);
}

TEST(Analyze, SurvivesSymlinkLoopsAndUnreadableInput) {
  TempDir dir;
  WriteRank(dir.path(), 0);
  fs::create_directory_symlink(dir.path(), dir.path() / "loop");
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto bad_type = RunOpmfu({"analyze", "-d", dir.path().string(), "--export-type", "xlsx"});
  EXPECT_EQ(bad_type.exit_code, 2);
  EXPECT_NE(bad_type.err.find("unknown export type 'xlsx'"), std::string::npos);
  const auto bad_ranks = RunOpmfu({"analyze", "-d", dir.path().string(), "--rank-list", "0,x"});
  EXPECT_EQ(bad_ranks.exit_code, 2);
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

// Issue 27's size (2,000); the bad-input corpus keeps 10,000 without a real rank.
TEST(AnalyzeBadInput, TwoThousandEmptyRankDirectoriesBesideARankAreNamedAndCounted) {
  TempDir dir;
  WriteRank(dir.path() / "real", 0);
  for (int i = 0; i < 2000; ++i) {
    fs::create_directories(dir.path() / "empty" / ("worker_" + std::to_string(i) + "_ascend_pt") /
                           "ASCEND_PROFILER_OUTPUT");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // The real rank is analysed and written; the empty ones are named (20, then a count), exit 1.
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find("Analysed 1 rank"), std::string::npos);
  EXPECT_NE(result.err.find("_ascend_pt: its ASCEND_PROFILER_OUTPUT holds no ascend_pytorch_profiler[_<rank>].db"),
            std::string::npos)
      << result.err.substr(0, 2000);
  EXPECT_NE(result.err.find("and 1980 more directories like these"), std::string::npos) << result.err.substr(0, 2000);
  EXPECT_TRUE(fs::exists(dir.path() / "cluster_analysis_output" / "cluster_analysis.db"));
}

TEST(AnalyzeBadInput, GarbageInfoJsonNullsNegativeDurationsAndBadMessages) {
  TempDir dir;
  const fs::path rank = dir.path() / "worker_0_20250101000000000_ascend_pt";
  engine::ProfilingDbBuilder db;
  const std::int64_t good = db.AddOp("aten::mm", 1000, 2000);
  db.AddKernel({good}, {"MatMulV2", 1500, 2500});
  const std::int64_t negative = db.AddOp("aten::bmm", 3000, 3100);
  db.AddKernel({negative}, {"BatchMatMul", 3500, 3400});  // ends before it starts
  const std::int64_t nulls = db.AddOp("aten::addmm", 5000, 5100);
  db.AddKernel({nulls}, {"AddMm", 5200, 6200, std::nullopt, std::nullopt, std::nullopt, "AddMm"});
  db.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  db.AddMstx("mfu_flops", "1000000000-aten::bmm", 2900, 3200);
  db.AddMstx("mfu_flops", "NaN-aten::addmm", 4900, 5200);
  db.AddMstx("mfu_flops", std::nullopt, 4900, 5200);
  db.AddMstx("mfu_flops", "99999999999999999999999-huge", 4900, 5200);
  ASSERT_TRUE(db.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  dir.Write("worker_0_20250101000000000_ascend_pt/PROF_1/device_0/info.json.0", "{\"DeviceInfo\": [1, 2");
  const auto garbage = RunOpmfu({"analyze", "-d", dir.path().string()});
  // No usable chip peak fails the rank (exit 1), in one line naming the DB and the info.json problem.
  EXPECT_EQ(garbage.exit_code, 1) << garbage.err;
  EXPECT_NE(garbage.err.find("ascend_pytorch_profiler_0.db: no usable chip peak: No DeviceInfo data found in "
                             "device/info.json file"),
            std::string::npos)
      << garbage.err;
  EXPECT_NE(garbage.out.find("Nothing written: no rank produced a row"), std::string::npos) << garbage.out;

  ASSERT_TRUE(engine::WriteDeviceInfo(rank, 0, "20", "\"1800\"").ok());
  fs::remove_all(rank / "PROF_1");
  const auto fixed = RunOpmfu({"analyze", "-d", dir.path().string(), "--export-type", "json"});
  // The other rows are written; the kernel that ends before it starts is named, and exits 1.
  EXPECT_EQ(fixed.exit_code, 1) << fixed.err;
  EXPECT_NE(fixed.err.find("ascend_pytorch_profiler_0.db: 1 compute kernel ends before it starts (the first: "
                           "BatchMatMul, startNs 3500, endNs 3400)"),
            std::string::npos)
      << fixed.err;
  const auto rows =
      nlohmann::json::parse(testing::ReadFile(dir.path() / "cluster_analysis_output" / "operator_mfu.json"));
  ASSERT_EQ(rows.size(), 1U);  // the negative-duration kernel gets no MFU; the NULL-shaped one has no range
  EXPECT_EQ(rows[0]["kernel_name"], "MatMulV2");
}

TEST(AnalyzeBadInput, TruncatedDatabase) {
  TempDir dir;
  WriteRank(dir.path(), 0);
  const fs::path db =
      dir.path() / "worker_0_20250101000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  const std::string bytes = testing::ReadFile(db);
  dir.Write(fs::relative(db, dir.path()).string(), bytes.substr(0, bytes.size() / 2));
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("rank 0: FAILED: "), std::string::npos) << result.out;
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

TEST(AnalyzeText, WritesOneWorkbookPerRankAndKind) {
  TempDir dir;
  WriteRank(dir.path() / "a", 0);
  WriteRank(dir.path() / "b", 1);
  // Rank 2 has OperatorMFU rows but no Module ranges: no module workbook for it.
  engine::ProfilingDbBuilder plain;
  const std::int64_t op = plain.AddOp("aten::mm", 1000, 2000);
  plain.AddKernel({op}, {"MatMulV2", 1500, 2500});
  plain.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  const fs::path rank2 = dir.path() / "c" / "worker_0_20250101000000000_ascend_pt";
  ASSERT_TRUE(plain.Write(rank2 / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_2.db").ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(rank2, 0, "20", "\"1800\"").ok());

  const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "--export_type", "text", "--agent"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const fs::path folder = dir.path() / "cluster_analysis_output" / "OperatorMfu";
  EXPECT_EQ(nlohmann::json::parse(result.out)["message"]["csv_dir"], folder.string());
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"operator_mfu_kernel_0.xlsx", "operator_mfu_kernel_1.xlsx",
                                             "operator_mfu_kernel_2.xlsx", "operator_mfu_module_0.xlsx",
                                             "operator_mfu_module_1.xlsx"}));
  for (const std::string& name : names) {
    const std::string bytes = testing::ReadFile(folder / name);
    EXPECT_EQ(bytes.substr(0, 4), std::string("PK\x03\x04", 4)) << name;  // an OOXML zip package
    EXPECT_NE(bytes.find("xl/worksheets/sheet1.xml"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace opmfu

namespace opmfu {
namespace {

// Inputs are opened immutable (issue 27): a writer's lock neither blocks the read nor fails it.
TEST(AnalyzeBadInput, DatabaseLockedByAnotherWriterIsReadWithoutWaiting) {
  TempDir dir;
  WriteRank(dir.path() / "a", 0);
  WriteRank(dir.path() / "b", 1);
  const fs::path locked = dir.path() / "b" / "worker_0_20250101000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT" /
                          "ascend_pytorch_profiler_1.db";
  auto writer = Database::OpenForWrite(locked);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->Execute("BEGIN EXCLUSIVE").ok());
  const auto start = std::chrono::steady_clock::now();
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("rank 1: 1 OperatorMFU rows"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("rank 0: 1 OperatorMFU rows"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(locked.string() + "-shm"));
  ASSERT_TRUE(writer->Execute("ROLLBACK").ok());
}

// The departures from msprof-analyze of issue 15, each decided and documented in docs/cli.md.
TEST(Analyze, DeparturesFromUpstreamAreSaid) {
  TempDir dir;
  WriteRank(dir.path() / "a", 0);
  WriteRank(dir.path() / "b", 3);
  // "3, 0": both ranks, with a warning that upstream drops " 0"; "0,,3": the empty entry ignored.
  const auto spaced = RunOpmfu({"analyze", "-d", dir.path().string(), "--rank-list", "3, 0"});
  EXPECT_EQ(spaced.exit_code, 0) << spaced.err;
  EXPECT_NE(spaced.out.find("Analysed 2 ranks"), std::string::npos) << spaced.out;
  EXPECT_NE(spaced.err.find("--rank-list: ' 0' is read as rank 0; msprof-analyze drops an entry with spaces"),
            std::string::npos)
      << spaced.err;
  const auto doubled = RunOpmfu({"analyze", "-d", dir.path().string(), "--rank-list", "0,,3"});
  EXPECT_EQ(doubled.exit_code, 0) << doubled.err;
  EXPECT_NE(doubled.out.find("Analysed 2 ranks"), std::string::npos);
  EXPECT_EQ(RunOpmfu({"analyze", "-d", dir.path().string(), "--rank-list", "abc"}).exit_code, 2);

  // A second directory for rank 0 without a numeric timestamp: the newest DB, and what upstream does.
  WriteRank(dir.path() / "c", 0, "FLOAT16;FLOAT16", "latest");
  const auto duplicate = RunOpmfu({"analyze", "-d", dir.path().string()});
  EXPECT_NE(duplicate.err.find("(newest database)"), std::string::npos) << duplicate.err;
  EXPECT_NE(duplicate.err.find("msprof-analyze would drop this rank"), std::string::npos) << duplicate.err;

  // --agent: upstream's suggestion on success, and log_path naming a file with the run's lines.
  const fs::path log = dir.path() / "agent.log";
  const auto agent =
      RunOpmfu({"analyze", "-d", dir.path().string(), "--agent"}, {}, {{"MSPROF_ANALYZE_LOG_FILE", log.string()}});
  EXPECT_EQ(agent.exit_code, 0) << agent.err;
  const auto json = nlohmann::json::parse(agent.out);
  EXPECT_EQ(json["status"], "success");
  EXPECT_EQ(json["suggestion"], "kernel级或者module级MFU统计，后者仅当采集数据包含Module domain的msTX Range时生成。");
  EXPECT_EQ(json["log_path"], log.string());
  EXPECT_NE(testing::ReadFile(log).find("msprof-analyze would drop this rank"), std::string::npos);
}

TEST(Analyze, AFailedRankIsPartialInTheAgentJsonAndOversizedFlopsAreSaid) {
  TempDir dir;
  WriteRank(dir.path() / "a", 0);
  dir.Write("b/worker_1_20250101000000000_ascend_pt/PROF_000001/device_1/data/raw.0", "raw");
  dir.Write("b/worker_1_20250101000000000_ascend_pt/profiler_info_1.json", "{}");
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "--agent"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["status"], "partial");
  EXPECT_EQ(json["code"], 1);
  ASSERT_EQ(json["message"]["failed_ranks"].size(), 1U);
  EXPECT_EQ(json["message"]["failed_ranks"][0]["rank_id"], 1);
  EXPECT_NE(json["message"]["failed_ranks"][0]["error"].get<std::string>().find(
                "never parsed; parse it offline: python3 -c \"from torch_npu.profiler.profiler import analyse; "
                "analyse(profiler_path='" +
                (dir.path() / "b").string() + "', export_type=['db'])\""),
            std::string::npos)
      << result.out;
  EXPECT_NE(json["message"]["db_path"], nullptr);  // rank 0 is written all the same

  // A FLOPs value above 2^63-1 is skipped with a warning that counts it (upstream keeps a float).
  TempDir huge;
  const fs::path directory = huge.path() / "worker_0_20250101000000000_ascend_pt";
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::mm", 1000, 2000);
  db.AddKernel({op}, {"MatMulV2", 1500, 2500});
  db.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  db.AddMstx("mfu_flops", "00018446744073709551616-aten::mm", 900, 2100);
  ASSERT_TRUE(db.Write(directory / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(directory, 0, "20", "\"1800\"").ok());
  const auto oversized = RunOpmfu({"analyze", "-d", huge.path().string()});
  EXPECT_EQ(oversized.exit_code, 0) << oversized.err;
  EXPECT_NE(oversized.err.find("1 FLOPs records carry a value above 2^63-1 and are skipped (e.g. "
                               "'00018446744073709551616-aten::mm'); msprof-analyze keeps them as floats"),
            std::string::npos)
      << oversized.err;
}

// Upstream parses the FLOPs column with pandas as floats when any message is malformed, and rounds
// long digit strings: 000000000000000042 becomes 40, 0000000000000000042 becomes 0 (the row is
// dropped), 100000000000000009 becomes 1e17. opmfu takes the exact integer (docs/cli.md, departures).
TEST(Analyze, SeventeenDigitFlopsNextToAMalformedMessageAreTakenAsExactIntegers) {
  TempDir dir;
  const fs::path directory = dir.path() / "worker_0_20250101000000000_ascend_pt";
  engine::ProfilingDbBuilder db;
  const char* const messages[] = {"000000000000000042-a", "0000000000000000042-b", "100000000000000009-c"};
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::int64_t start = 1000 + 2000 * i;
    const std::int64_t op = db.AddOp("aten::mm", start, start + 100);
    db.AddKernel({op}, {"MatMulV2", start + 500, start + 1500});
    db.AddMstx("mfu_flops", messages[i], start - 100, start + 200);
  }
  db.AddMstx("mfu_flops", "123:legacy", 0, 10000);
  ASSERT_TRUE(db.Write(directory / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(directory, 0, "20", "\"1800\"").ok());
  const auto result =
      RunOpmfu({"analyze", "-d", dir.path().string(), "--export-type", "json", "-o", (dir.path() / "out").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows =
      nlohmann::json::parse(testing::ReadFile(dir.path() / "out" / "cluster_analysis_output" / "operator_mfu.json"));
  ASSERT_EQ(rows.size(), 3U) << rows.dump();
  EXPECT_EQ(rows[0]["flops_op_name"], "a");
  EXPECT_EQ(rows[0]["flops"].dump(), "42");  // upstream: 40
  EXPECT_EQ(rows[1]["flops_op_name"], "b");  // upstream: no row (its FLOPs became 0)
  EXPECT_EQ(rows[1]["flops"].dump(), "42");
  EXPECT_EQ(rows[2]["flops_op_name"], "c");
  EXPECT_EQ(rows[2]["flops"].dump(), "100000000000000009");  // upstream: 1e17
  // The MFU is F / t / peak in doubles from the exact integer: 42 / 1e-6 / 2.94912e14.
  EXPECT_EQ(rows[0]["actual_tflops"].get<double>(), 0.0);
}

// A run killed while writing leaves its hidden temporary; the next run removes it, but only ours,
// only one last written before the run, and never one a concurrent run still holds.
TEST(Analyze, RemovesTheStaleTemporaryOfAKilledRunAndNothingElse) {
  TempDir dir;
  WriteRank(dir.path(), 0);
  const fs::path output = dir.path() / "out" / "cluster_analysis_output";
  const auto hour = std::chrono::hours(1);
  const auto now = fs::file_time_type::clock::now();
  const auto temporary = [&](const std::string& name, fs::file_time_type written) {
    const fs::path path = dir.Write("out/cluster_analysis_output/" + name, "half a database");
    fs::last_write_time(path, written);
    return path;
  };
  const fs::path stale = temporary(".cluster_analysis.db.opmfu-123.tmp", now - hour);
  const fs::path held = temporary(".cluster_analysis.db.opmfu-456.tmp", now - hour);
  const fs::path newer = temporary(".cluster_analysis.db.opmfu-789.tmp", now + hour);
  const fs::path not_ours = temporary(".cluster_analysis.db.opmfu-12x.tmp", now - hour);
  const fs::path other_target = temporary(".other.db.opmfu-123.tmp", now - hour);
  const int lock = ::open(held.c_str(), O_RDONLY | O_CLOEXEC);  // as a concurrent run holds its own
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "-o", (dir.path() / "out").string()});
  ::close(lock);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(output / "cluster_analysis.db"));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(held));
  EXPECT_TRUE(fs::exists(newer));
  EXPECT_TRUE(fs::exists(not_ours));
  EXPECT_TRUE(fs::exists(other_target));
  std::size_t temporaries = 0;  // and this run left none of its own
  for (const auto& entry : fs::directory_iterator(output)) temporaries += entry.path().extension() == ".tmp";
  EXPECT_EQ(temporaries, 4U);
}

TEST(Demo, RecordsTheConfigurationAndCheckDbShowsIt) {
  TempDir dir;
  ASSERT_EQ(RunOpmfu({"demo", dir.path().string(), "--steps", "1", "--layers", "1"}).exit_code, 0);
  const auto check = RunOpmfu({"check-db", "-d", dir.path().string()});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("profiler_info_0.json):\n    with_flops: true   [MFU needs: true]\n"), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("_profiler_level: Level1"), std::string::npos);
}

TEST(Audit, NothingToCheckSaysWhyAndFails) {
  TempDir empty;  // one row, charged by a custom op's range: nothing a built-in formula can recompute
  WriteRank(empty.path() / "a", 0);
  auto db = Database::OpenForWrite(empty.path() / "a" / "worker_0_20250101000000000_ascend_pt" /
                                   "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->Execute("UPDATE STRING_IDS SET value = '1000000000-my_custom_op' WHERE value = "
                          "'1000000000-aten::mm'")
                  .ok());
  // The range's 1e9 FLOPs land on one [16,16]x[16,16] matmul kernel, whose own shapes give
  // 2*16*16*16 = 8,192: the derived comparison flags what the formula check cannot read.
  const auto compared = RunOpmfu({"audit", "-d", empty.path().string()});
  EXPECT_EQ(compared.exit_code, 1) << compared.out << compared.err;
  EXPECT_NE(compared.out.find("1 kernels with a record compared (0 agree, 1 disagree)"), std::string::npos)
      << compared.out;
  // With an output the operands cannot form, nothing can be derived either: nothing was audited.
  ASSERT_TRUE(db->Execute("UPDATE STRING_IDS SET value = '\"16,17\"' WHERE value = '\"16,16\"'").ok());
  const auto result = RunOpmfu({"audit", "-d", empty.path().string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.err.find("nothing was audited: none of the 1 OperatorMFU rows can be recomputed (see skipped), "
                            "and no recorded kernel could be compared with its derived FLOPs (see not compared)"),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace opmfu
