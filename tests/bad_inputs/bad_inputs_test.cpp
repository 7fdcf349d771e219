// The bad-input corpus: every command given input that is broken, hostile or huge. Each case
// asserts the exit code, that one line names the file and the cause (on stderr for errors; on
// stdout, in the concise format, for findings), that the run ended in bounded time, and that
// nothing crashed. The inputs are built here (databases, huge files) or kept in
// tests/bad_inputs/files/ (configs that are wrong in every way).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "common/sqlite.h"
#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfuWith;
using testing::RunOptions;
using testing::TempDir;

const fs::path kFiles = testing::SourceDir() / "tests" / "bad_inputs" / "files";
constexpr const char* kRankDir = "worker_0_20250101000000000_ascend_pt";
constexpr const char* kRankDb =
    "worker_0_20250101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";

enum class Stream { kErr, kOut };

struct BadInput {
  std::string name;
  /// Writes the input below the directory and returns opmfu's arguments.
  std::function<std::vector<std::string>(const TempDir&)> setup;
  int exit_code;
  Stream stream = Stream::kErr;
  /// Fragments that one line of `stream` must all contain: the file and the cause. A fragment
  /// written "@x" need only appear somewhere in the stream (check-db names the file once, in the
  /// rank's heading, and the cause on its own line below).
  std::vector<std::string> line;
  int max_seconds = 30;
  std::optional<std::uint64_t> file_size_limit;
  /// A directory (relative) made read-only for the run. Root ignores permission bits, so as root
  /// it is made immutable instead (chattr +i), and the case is skipped where that is refused.
  std::optional<std::string> read_only_directory;
  /// Where stdout goes instead of being captured (/dev/full: every write must be checked).
  std::string stdout_path;
  /// Run as `nobody` when the tests run as root (testing::RunOptions::unprivileged).
  bool unprivileged = false;
  /// `ulimit -v` for the run (issue 27: every hostile input ends within seconds under 2 GB).
  std::optional<std::uint64_t> address_space_limit;
  std::map<std::string, std::string> env;  ///< `{dir}` in a value stands for the case's directory
  std::optional<fs::path> stdin_path;
};

// A small valid rank: one op, one kernel, one FLOPs range, a Module range, chip info.
void WriteRank(const TempDir& dir, const std::function<void(engine::ProfilingDbBuilder&)>& more = {},
               const std::string& cores = "20", const std::string& frequency = "\"1800\"") {
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::mm", 1000, 2000);
  db.AddKernel({op}, {"MatMulV2", 1500, 2500});
  db.AddMstx("mfu_flops", "1000000000-aten::mm", 900, 2100);
  db.AddMstx("Module", "Net", 0, 10000);
  if (more) more(db);
  EXPECT_TRUE(db.Write(dir.path() / kRankDb).ok());
  EXPECT_TRUE(engine::WriteDeviceInfo(dir.path() / kRankDir, 0, cores, frequency).ok());
}

void Sql(const TempDir& dir, const std::string& sql) {
  auto db = Database::OpenForWrite(dir.path() / kRankDb);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->Execute(sql).ok()) << sql;
}

std::vector<std::string> Analyze(const fs::path& dir) { return {"analyze", "-d", dir.string()}; }
std::vector<std::string> Analyze(const TempDir& dir) { return Analyze(dir.path()); }
std::vector<std::string> CheckDbArgs(const TempDir& dir) { return {"check-db", "-d", dir.path().string()}; }
std::vector<std::string> Lint(const fs::path& path) {
  return {"lint", "--no-config", "--output-format", "concise", path.string()};
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Repeat(const std::string& text, std::size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}

// Rank 1, healthy, in its own directory: its rows must come out the same whatever rank 0 does.
constexpr const char* kHealthyDir = "worker_1_20250101000000000_ascend_pt";
void WriteHealthyRankOne(const TempDir& dir) {
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::addmm", 3000, 4000);
  db.AddKernel({op}, {"MatMulV3", 3500, 4500});
  db.AddMstx("mfu_flops", "2000000000-aten::addmm", 2900, 4100);
  EXPECT_TRUE(db.Write(dir.path() / kHealthyDir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_1.db").ok());
  EXPECT_TRUE(engine::WriteDeviceInfo(dir.path() / kHealthyDir, 1, "20", "\"1800\"").ok());
}

// profiler_info_0.json as the public real runs recorded it: FLOPs and msTX off.
void WriteRecordedConfigWithoutFlops(const TempDir& dir) {
  dir.Write(std::string(kRankDir) + "/profiler_info_0.json",
            R"({"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"],)"
            R"( "record_shapes": true, "with_flops": false}, "experimental_config": {"_profiler_level": "Level1",)"
            R"( "_msprof_tx": false, "_export_type": "db"}}, "rank_id": 0})");
}

constexpr const char* kShareOneTaskId =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
    "INSERT INTO TASK SELECT TASK.* FROM TASK, n;"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
    "INSERT INTO COMPUTE_TASK_INFO SELECT COMPUTE_TASK_INFO.* FROM COMPUTE_TASK_INFO, n;";

struct FailedRankCause {
  std::string name;
  std::function<void(const TempDir&)> break_rank_zero;
  std::vector<std::string> line;  ///< fragments of the one error line
};

std::vector<FailedRankCause> FailedRankCauses() {
  const std::string db = "ascend_pytorch_profiler_0.db";
  return {
      {"CorruptDb",
       [](const TempDir& d) {
         WriteRank(d);
         const std::string bytes = testing::ReadFile(d.path() / kRankDb);
         d.Write(kRankDb, bytes.substr(0, bytes.size() / 3));
       },
       {"rank 0: error:", db, "malformed"}},
      {"NoMstxTableWithRecordedConfig",
       [](const TempDir& d) {
         WriteRank(d, [](engine::ProfilingDbBuilder& b) { b.OmitTable("MSTX_EVENTS"); });
         WriteRecordedConfigWithoutFlops(d);
       },
       {"rank 0: error:", db, "no MSTX_EVENTS table",
        "this run had with_flops=false, _msprof_tx=false (profiler_info_0.json)"}},
      {"NoMstxTableAndNoChipInfo",  // the root cause, not the downstream "Can not get chip info"
       [](const TempDir& d) {
         WriteRank(d, [](engine::ProfilingDbBuilder& b) { b.OmitTable("MSTX_EVENTS"); });
         fs::remove_all(d.path() / kRankDir / "PROF_000001_demo");
       },
       {"rank 0: error:", db, "no MSTX_EVENTS table"}},
      {"NoComputeTaskInfo",
       [](const TempDir& d) { WriteRank(d, [](engine::ProfilingDbBuilder& b) { b.OmitTable("COMPUTE_TASK_INFO"); }); },
       {"rank 0: error:", db, "no COMPUTE_TASK_INFO table"}},
      // 20,001 TASK and 20,001 COMPUTE_TASK_INFO rows of one globalTaskId: a join of 400 million
      // rows (past 2.4 GB, then bad_alloc, before issue 47). Read by the scan, and by SQL joins
      // when an index the scan does not know makes it decline.
      {"TaskAndKernelRowsShareOneId",
       [](const TempDir& d) {
         WriteRank(d);
         Sql(d, kShareOneTaskId);
       },
       {"rank 0: error:", db, "op-to-kernel join would give more than 4000000 rows",
        "is shared by 20001 TASK rows and 20001 COMPUTE_TASK_INFO rows"}},
      {"TaskAndKernelRowsShareOneIdReadWithSql",
       [](const TempDir& d) {
         WriteRank(d);
         Sql(d, std::string(kShareOneTaskId) + "CREATE INDEX by_end ON TASK (endNs);");
       },
       {"rank 0: error:", db, "join would give more than 4000000 rows",
        "is shared by 20001 TASK rows and 20001 COMPUTE_TASK_INFO rows"}},
      // 2,100 kernels of one name and one time span (distinct ids): each link meets every shape,
      // 4.4 million op-kernel pairs.
      {"KernelsShareOneNameAndSpan",
       [](const TempDir& d) {
         WriteRank(d, [](engine::ProfilingDbBuilder& b) {
           for (int i = 0; i < 2100; ++i)
             b.AddKernel({b.AddOp("aten::bmm", 100000 + i, 100001 + i)}, {"BMM", 200000, 201000});
         });
       },
       {"rank 0: error:", db, "would give more than 4000000 op-kernel pairs"}},
      // 2,100 FLOPs ranges over the same 2,100 ops: each range charges every kernel inside it.
      {"FlopsRangesNestedOverEveryKernel",
       [](const TempDir& d) {
         WriteRank(d, [](engine::ProfilingDbBuilder& b) {
           for (int i = 0; i < 2100; ++i) {
             b.AddKernel({b.AddOp("aten::bmm", 100000 + 10 * i, 100005 + 10 * i)},
                         {"BMM", 300000 + 10 * i, 300005 + 10 * i});
             b.AddMstx("mfu_flops", "1000-aten::bmm", 99000 - i, 200000 + i);
           }
         });
       },
       {"rank 0: error:", db, "the FLOPs ranges would charge more than 4000000 kernels"}},
      {"TaskWithoutConnectionId",
       [](const TempDir& d) {
         WriteRank(d);
         Sql(d, "ALTER TABLE TASK DROP COLUMN connectionId");
       },
       {"rank 0: error:", db, "op-to-kernel links cannot be read", "no such column"}},
      {"NoFlopsRecords",
       [](const TempDir& d) {
         WriteRank(d);
         Sql(d,
             "DELETE FROM MSTX_EVENTS WHERE message = (SELECT id FROM STRING_IDS WHERE value = '1000000000-aten::mm')");
       },
       {"rank 0: error:", db, "no FLOPs records: MSTX_EVENTS has no event in the mfu_flops domain"}},
      {"OnlyMalformedAndNegativeFlops",
       [](const TempDir& d) {
         WriteRank(d);
         Sql(d, "UPDATE STRING_IDS SET value = '-5-aten::mm' WHERE value = '1000000000-aten::mm'");
       },
       {"rank 0: error:", db, "none of the 1 FLOPs records", "'-5-aten::mm'"}},
      {"UnreadableInfoJson",
       [](const TempDir& d) {
         WriteRank(d);
         d.Write(std::string(kRankDir) + "/PROF_000001_demo/device_0/info.json.0", "{\"DeviceInfo\": [");
       },
       {"rank 0: error:", db, "no usable chip peak"}},
      {"InfoJsonNestedHundredThousandDeep",  // issue 47: nlohmann's recursive copy overflowed the stack
       [](const TempDir& d) {
         WriteRank(d);
         d.Write(std::string(kRankDir) + "/PROF_000001_demo/device_0/info.json.0",
                 R"({"DeviceInfo": [{"ai_core_num": )" + Repeat("[", 100000) + Repeat("]", 100000) + "}]}");
       },
       {"rank 0: error:", db, "info.json.0: JSON nested deeper than 256 levels (a limit of opmfu)"}},
      {"NeverParsed",
       [](const TempDir& d) {
         d.Write(std::string(kRankDir) + "/PROF_000001_demo/device_0/data/aicore.data.0.slice_0", "raw");
         d.Write(std::string(kRankDir) + "/profiler_info_0.json",
                 R"({"config": {"experimental_config": {"_export_type": ["text"]}}})");
       },
       {"rank 0: error:", kRankDir, "never parsed", "_export_type=[text]",
        "from torch_npu.profiler.profiler import analyse; analyse(profiler_path='"}},
  };
}

// A FIFO at `relative`: anything that opens it for reading without O_NONBLOCK waits forever.
fs::path Fifo(const TempDir& dir, const std::string& relative) {
  const fs::path path = dir.path() / relative;
  fs::create_directories(path.parent_path());
  EXPECT_EQ(::mkfifo(path.c_str(), 0644), 0);
  return path;
}

constexpr std::uint64_t kTwoGigabytes = std::uint64_t{2000000} << 10;  // ulimit -v 2000000

// Rank 0 with `table` replaced by a VIEW whose recursive CTE never ends.
void WriteRankWithEndlessView(const TempDir& d, const std::string& table, const std::string& columns) {
  WriteRank(d);
  Sql(d, "DROP TABLE " + table + "; CREATE VIEW " + table +
             " AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT " + columns + " FROM c");
}

std::vector<BadInput> Cases() {
  std::vector<BadInput> cases;
  const auto add = [&](std::string name, std::function<std::vector<std::string>(const TempDir&)> setup, int exit_code,
                       Stream stream, std::vector<std::string> line, int max_seconds = 30,
                       std::optional<std::uint64_t> file_size_limit = std::nullopt) {
    cases.push_back({std::move(name),
                     std::move(setup),
                     exit_code,
                     stream,
                     std::move(line),
                     max_seconds,
                     file_size_limit,
                     std::nullopt,
                     {},
                     false,
                     std::nullopt,
                     {},
                     std::nullopt});
  };

  // ---- analyze and check-db: profiling databases ------------------------------------------------
  add("AnalyzeTruncatedDb",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string bytes = testing::ReadFile(d.path() / kRankDb);
        d.Write(kRankDb, bytes.substr(0, bytes.size() / 3));
        return Analyze(d);
      },
      1, Stream::kErr, {"ascend_pytorch_profiler_0.db", "malformed"});
  add("AnalyzeZeroByteDb",
      [](const TempDir& d) {
        WriteRank(d);
        d.Write(kRankDb, "");
        return Analyze(d);
      },
      1, Stream::kErr, {"ascend_pytorch_profiler_0.db", "empty file (0 bytes)"});
  add("AnalyzeTextFileNamedDb",
      [](const TempDir& d) {
        WriteRank(d);
        d.Write(kRankDb, "these are my notes, not a database\n");
        return Analyze(d);
      },
      1, Stream::kErr, {"ascend_pytorch_profiler_0.db", "file is not a database"});
  add("AnalyzeDirectoryNamedDb",
      [](const TempDir& d) {
        fs::create_directories(d.path() / kRankDb);
        return Analyze(d);
      },
      1, Stream::kErr, {"ascend_pytorch_profiler_0.db", "is a directory, not a file"});
  add("AnalyzeDbLockedByAnotherWriterIsReadWithoutWaiting",
      [](const TempDir& d) {
        WriteRank(d);
        // Inputs are opened immutable (issue 27): another process's lock neither blocks nor fails
        // the read, which sees the last committed state; nothing is created beside the file.
        static std::optional<Database> writer;
        writer.reset();
        auto db = Database::OpenForWrite(d.path() / kRankDb);
        EXPECT_TRUE(db.ok());
        writer.emplace(std::move(*db));
        EXPECT_TRUE(writer->Execute("BEGIN EXCLUSIVE").ok());
        return Analyze(d);
      },
      0, Stream::kOut, {"Wrote", "cluster_analysis.db"});
  // Issue 47: TASK times stored as TEXT compare as strings; upstream writes nothing, so the rank fails.
  add("AnalyzeTaskTimesStoredAsText",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d,
            "CREATE TABLE TASK_TEXT (startNs TEXT, endNs TEXT, deviceId INTEGER, connectionId INTEGER, "
            "globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, "
            "taskId INTEGER, modelId INTEGER); INSERT INTO TASK_TEXT SELECT * FROM TASK; DROP TABLE TASK; "
            "ALTER TABLE TASK_TEXT RENAME TO TASK");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "TASK.startNs holds text ('1500')"});
  add("AnalyzeStringIdsNotUtf8IsWarnedAbout",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d, "UPDATE STRING_IDS SET value = CAST(X'4e6574ff' AS TEXT) WHERE value = 'Net'");
        return Analyze(d);
      },
      0, Stream::kErr,
      {"rank 0: warning:", "STRING_IDS holds 1 value that is not valid UTF-8", "ascend_pytorch_profiler_0.db"});
  // A rank number of 19 digits, or with leading zeros, is int() of its digits, as upstream reads it.
  for (const auto& [digits, rank] : std::vector<std::pair<std::string, std::string>>{
           {"9223372036854775807", "9223372036854775807"}, {"0000000000000000007", "7"}}) {
    add("AnalyzeRankNumbered" + digits.substr(0, 4),
        // An init-capture: clang 14 (the asan build) cannot capture a structured binding by name.
        [db_digits = digits](const TempDir& d) {
          WriteRank(d);
          fs::rename(d.path() / kRankDb,
                     d.path() / kRankDir / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + db_digits + ".db"));
          return Analyze(d);
        },
        0, Stream::kOut, {"rank " + rank + ": 1 OperatorMFU rows"});
  }
  add("AnalyzeRankNumberAboveInt64",
      [](const TempDir& d) {
        WriteRank(d);
        fs::rename(d.path() / kRankDb,
                   d.path() / kRankDir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_99999999999999999999.db");
        WriteHealthyRankOne(d);
        return Analyze(d);
      },
      1, Stream::kErr, {"error:", "ascend_pytorch_profiler_99999999999999999999.db", "above 9223372036854775807"});
  // Issue 47: alone, the same rank gave "no profiling data"; a name with -1 in place of a rank gave
  // "the run was never parsed" (its PROF_* data is beside it).
  add("AnalyzeOnlyARankNumberAboveInt64",
      [](const TempDir& d) {
        WriteRank(d);
        fs::rename(d.path() / kRankDb,
                   d.path() / kRankDir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_18446744073709551617.db");
        return Analyze(d);
      },
      2, Stream::kErr,
      {"error:", "ascend_pytorch_profiler_18446744073709551617.db", "above 9223372036854775807", "no rank to analyse"});
  add("AnalyzeRankMinusOneInTheDbName",
      [](const TempDir& d) {
        WriteRank(d);
        d.Write(std::string(kRankDir) + "/PROF_000001_demo/device_0/data/x", "raw");
        fs::rename(d.path() / kRankDb,
                   d.path() / kRankDir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_-1.db");
        return Analyze(d);
      },
      2, Stream::kErr, {"error:", "ascend_pytorch_profiler_-1.db: '-1' in the name is not a rank number"});
  // check-db names what analyze names as errors: empty rank folders, a rank folder that loops.
  add("CheckDbEmptyAscendPtFolders",
      [](const TempDir& d) {
        WriteRank(d);
        for (int i = 0; i < 2000; ++i) fs::create_directories(d.path() / ("w" + std::to_string(i) + "_1_ascend_pt"));
        return CheckDbArgs(d);
      },
      1, Stream::kErr, {"opmfu: error:", "_ascend_pt", "no ASCEND_PROFILER_OUTPUT and no raw PROF_* data"});
  add("CheckDbLoopingSymlinkRankFolder",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directory_symlink("worker_2_20250101000000000_ascend_pt",
                                     d.path() / "worker_2_20250101000000000_ascend_pt");
        return CheckDbArgs(d);
      },
      1, Stream::kErr, {"opmfu: error:", "worker_2_20250101000000000_ascend_pt", "symbolic links"});
  add("AnalyzeMissingTables",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          db.OmitTable("TASK");
          db.OmitTable("COMPUTE_TASK_INFO");
        });
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "no TASK, COMPUTE_TASK_INFO tables"});
  add("CheckDbMissingTables",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) { db.OmitTable("MSTX_EVENTS"); });
        return CheckDbArgs(d);
      },
      1, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "MISSING tables", "MSTX_EVENTS"});
  add("AnalyzeMissingColumns",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d, "ALTER TABLE TASK DROP COLUMN globalTaskId");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "no such column"});
  add("AnalyzeWrongColumnTypes",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d, "UPDATE TASK SET startNs = 'soon', endNs = x'00ff'; UPDATE PYTORCH_API SET startNs = 1.5e300");
        return Analyze(d);
      },
      // Text in a TASK time fails the rank with that cause (issue 47), not exit 0 without MFU.
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "TASK.startNs holds text ('soon')"});
  add("AnalyzeNullsEverywhere",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d,
            "UPDATE TASK SET startNs = NULL, endNs = NULL, globalTaskId = NULL, connectionId = NULL;"
            "UPDATE COMPUTE_TASK_INFO SET name = NULL, opType = NULL, inputShapes = NULL, inputDataTypes = NULL;"
            "UPDATE PYTORCH_API SET startNs = NULL, endNs = NULL, name = NULL, connectionId = NULL;"
            "UPDATE MSTX_EVENTS SET message = NULL, startNs = NULL, endNs = NULL, domainId = NULL;"
            "UPDATE STRING_IDS SET value = NULL");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "no FLOPs records"});
  // A million FLOPs records that are not "<flops>-<op>": analysed in bounded time, and check-db
  // says how many are valid, with an example of the others.
  const auto million_malformed = [](const TempDir& d) {
    WriteRank(d);
    Sql(d,
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) "
        "INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, rangeId, category, message, globalTid, endGlobalTid, "
        "domainId, connectionId) SELECT i, i + 10, 2, i, 0, (SELECT id FROM STRING_IDS WHERE value = 'Net'), 0, 0, "
        "(SELECT domainId FROM MSTX_EVENTS WHERE message = (SELECT id FROM STRING_IDS WHERE value = "
        "'1000000000-aten::mm') LIMIT 1), 0 FROM n");
  };
  add(
      "AnalyzeAMillionMalformedMstxMessages",
      [=](const TempDir& d) {
        million_malformed(d);
        return Analyze(d);
      },
      0, Stream::kOut, {"rank 0: 1 OperatorMFU rows"}, 60);
  add(
      "CheckDbAMillionMalformedMstxMessages",
      [=](const TempDir& d) {
        million_malformed(d);
        return CheckDbArgs(d);
      },
      0, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "1000001", "1 valid"}, 60);
  add("AnalyzeRangesThatEndBeforeTheyStart",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          const std::int64_t op = db.AddOp("aten::bmm", 5000, 6000);
          db.AddKernel({op}, {"BatchMatMul", 5500, 5900});
          db.AddMstx("mfu_flops", "500-aten::bmm", 6100, 4900);
        });
        return CheckDbArgs(d);
      },
      0, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "FLOPs records", "1 valid"});
  add("AnalyzeKernelEndsBeforeItStarts",
      [](const TempDir& d) {
        WriteRank(d);
        Sql(d, "UPDATE TASK SET endNs = startNs - 100");
        return Analyze(d);
      },
      1, Stream::kErr,
      {"rank 0: error:", "ascend_pytorch_profiler_0.db", "1 compute kernel ends before it starts", "MatMulV2"});
  add("AnalyzeFlopsRangeEndsBeforeItStarts",  // beside a healthy range, whose row is still written
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          const std::int64_t op = db.AddOp("aten::bmm", 5000, 6000);
          db.AddKernel({op}, {"BatchMatMul", 5500, 5900});
          db.AddMstx("mfu_flops", "500-aten::bmm", 6100, 4900);
        });
        return Analyze(d);
      },
      1, Stream::kErr,
      {"rank 0: error:", "ascend_pytorch_profiler_0.db", "1 FLOPs range ends before it starts", "'500-aten::bmm'"});
  add("CheckDbNegativeFlops",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) { db.AddMstx("mfu_flops", "-5000-aten::mm", 900, 2100); });
        return CheckDbArgs(d);
      },
      0, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "-5000-aten::mm"});
  add("CheckDbAbsurdFlops",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          db.AddMstx("mfu_flops", "99999999999999999999999-aten::mm", 900, 2100);
        });
        return CheckDbArgs(d);
      },
      0, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "99999999999999999999999-aten::mm"});
  add("AnalyzeInfoJsonWithZeroCores",
      [](const TempDir& d) {
        WriteRank(d, {}, "0");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "no usable chip peak", "AICore=0"});
  add("AnalyzeInfoJsonWithNegativeCores",
      [](const TempDir& d) {
        WriteRank(d, {}, "-4");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "no usable chip peak", "info.json.0", "AICore=-4"});
  add("AnalyzeInfoJsonWithNegativeFrequency",
      [](const TempDir& d) {
        WriteRank(d, {}, "20", "\"-1800\"");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "no usable chip peak", "info.json.0", "frequency=-1800"});
  add("AnalyzeInfoJsonWithCoresThatOverflowThePeak",  // 1e308 cores: an infinite peak, MFU 0
      [](const TempDir& d) {
        WriteRank(d, {}, "1e308");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "no usable chip peak", "info.json.0", "AICore=1e+308"});
  add("AnalyzeInfoJsonWithZeroFrequency",
      [](const TempDir& d) {
        WriteRank(d, {}, "20", "\"0\"");
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "no usable chip peak", "frequency=0"});
  add("AnalyzeRankDirectoryThatIsASymlinkLoop",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directory_symlink(d.path() / "loop", d.path() / "loop");
        fs::create_directory_symlink(d.path(), d.path() / kRankDir / "back");
        return Analyze(d);
      },
      1, Stream::kErr, {"error:", "loop: skipped", "Too many levels of symbolic links"});
  add("AnalyzeTwoThousandEmptyRankDirectoriesBesideARank",
      [](const TempDir& d) {
        WriteRank(d);
        for (int i = 0; i < 2000; ++i) {
          fs::create_directories(d.path() / ("worker_" + std::to_string(i + 10) + "_20250101000000000_ascend_pt"));
        }
        return Analyze(d);
      },
      1, Stream::kErr, {"error:", "and 1980 more directories like these"});
  add("AnalyzeEmptyRankDirectoryBesideARank",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directories(d.path() / "worker_7_20250101000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
        return Analyze(d);
      },
      1, Stream::kErr,
      {"error:", "worker_7_20250101000000000_ascend_pt: its ASCEND_PROFILER_OUTPUT holds no", "gave no rank"});
  add("AnalyzeTwoThousandEmptyRankDirectories",
      [](const TempDir& d) {
        for (int i = 0; i < 2000; ++i) {
          fs::create_directories(d.path() / ("worker_" + std::to_string(i) + "_x_ascend_pt") /
                                 "ASCEND_PROFILER_OUTPUT");
        }
        return Analyze(d);
      },
      2, Stream::kErr, {"ascend_pytorch_profiler", "searched"});
  add("AnalyzeOutputPathIsAFile",
      [](const TempDir& d) {
        WriteRank(d);
        const fs::path file = d.Write("out", "a file where the output directory should go\n");
        return std::vector<std::string>{"analyze", "-d", d.path().string(), "-o", file.string()};
      },
      2, Stream::kErr, {"out", "ot a directory"});
  add("AnalyzeReadOnlyOutputDirectory",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directories(d.path() / "out");
        fs::permissions(d.path() / "out", fs::perms::owner_read | fs::perms::owner_exec);
        return std::vector<std::string>{"analyze", "-d", d.path().string(), "-o", (d.path() / "out").string()};
      },
      2, Stream::kErr, {"cluster_analysis_output", "cannot create"});
  cases.back().read_only_directory = "out";
  add(
      "AnalyzeFullDisk",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          for (int i = 0; i < 3000; ++i) {
            const std::int64_t op = db.AddOp("aten::mm", 10000 + i * 100, 10050 + i * 100);
            db.AddKernel({op}, {"MatMulV2", 10010 + i * 100, 10040 + i * 100});
            db.AddMstx("mfu_flops", "1000000-aten::mm", 10000 + i * 100, 10060 + i * 100);
          }
        });
        return Analyze(d);
      },
      2, Stream::kErr, {"cluster_analysis.db", "disk I/O error"}, 30, std::uint64_t{64} << 10);
  add("AnalyzeMissingDirectory", [](const TempDir& d) { return Analyze(d.path() / "nowhere"); }, 2, Stream::kErr,
      {"nowhere", "o such file or directory"});
  add("CheckDbTruncatedDb",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string bytes = testing::ReadFile(d.path() / kRankDb);
        d.Write(kRankDb, bytes.substr(0, 3000));
        return CheckDbArgs(d);
      },
      1, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "malformed"});
  add("CheckDbZeroByteDb",
      [](const TempDir& d) {
        WriteRank(d);
        d.Write(kRankDb, "");
        return CheckDbArgs(d);
      },
      1, Stream::kOut, {"@ascend_pytorch_profiler_0.db", "empty file (0 bytes)"});

  // ---- the rank policy: each failed-rank cause, beside a healthy rank 1 --------------------------
  for (const FailedRankCause& cause : FailedRankCauses()) {
    add(
        "FailedRank" + cause.name,
        [cause](const TempDir& d) {
          WriteHealthyRankOne(d);
          cause.break_rank_zero(d);
          return Analyze(d);
        },
        1, Stream::kErr, cause.line);
  }

  // ---- lint: Python ---------------------------------------------------------------------------------
  add("LintPythonWithNulBytes",
      [](const TempDir& d) { return Lint(d.Write("nul.py", std::string("import torch_npu\0x", 18))); }, 2, Stream::kErr,
      {"nul.py", "binary file (NUL byte at offset 16)"});
  add("LintPythonInvalidUtf8",
      [](const TempDir& d) { return Lint(d.Write("latin.py", "import torch_npu\n# caf\xe9\n")); }, 2, Stream::kErr,
      {"latin.py", "not valid UTF-8"});
  // Not Python (CPython's tokenizer stops at 200 nested brackets): refused before tree-sitter,
  // whose error recovery grows without bound on it (issue 47).
  add("LintPythonHundredThousandDeepNesting",
      [](const TempDir& d) {
        return Lint(d.Write("deep.py", "import torch_npu\nx = " + Repeat("(", 100000) + Repeat(")", 100000) + "\n"));
      },
      2, Stream::kErr, {"opmfu: error:", "deep.py:2: brackets nested deeper than 200 levels"});
  add("LintPythonThreeMegabyteLine",  // the longest line below the input size policy (4 MiB)
      [](const TempDir& d) {
        return Lint(d.Write("long.py", "import torch_npu\nx = \"" + std::string(3U << 20, 'a') + "\"\n"));
      },
      0, Stream::kOut, {"long.py", "OPM010"});
  add("LintPythonSyntaxError",
      [](const TempDir& d) {
        return Lint(d.Write("broken.py", "import torch_npu\nprof = torch_npu.profiler.profile(with_flops=True\n"));
      },
      1, Stream::kOut, {"broken.py", "OPM001", "syntax error"});
  add("LintBinaryFileNamedPy",
      [](const TempDir& d) { return Lint(d.Write("model.py", testing::ReadFile(OPMFU_BINARY).substr(0, 4096))); }, 2,
      Stream::kErr, {"model.py", "binary file"});
  add("LintMissingFile", [](const TempDir& d) { return Lint(d.path() / "missing.py"); }, 2, Stream::kErr,
      {"missing.py", "no such file or directory"});
  add("LintSymlinkLoop",
      [](const TempDir& d) {
        fs::create_symlink(d.path() / "a.py", d.path() / "b.py");
        fs::create_symlink(d.path() / "b.py", d.path() / "a.py");
        return Lint(d.path() / "a.py");
      },
      2, Stream::kErr, {"a.py", "Too many levels of symbolic links"});

  // ---- lint: bash launchers -------------------------------------------------------------------------
  add("LintLauncherWithNulBytes",
      [](const TempDir& d) { return Lint(d.Write("run.sh", std::string("torchrun\0 x.py\n", 15))); }, 2, Stream::kErr,
      {"run.sh", "binary file (NUL byte at offset 8)"});
  add("LintLauncherInvalidUtf8",
      [](const TempDir& d) { return Lint(d.Write("run.sh", "echo \xff\xfe\npython x.py\n")); }, 2, Stream::kErr,
      {"run.sh", "not valid UTF-8"});
  add(
      "LintLauncherHundredThousandDeepNesting",
      [](const TempDir& d) {
        return Lint(d.Write("deep.sh", Repeat("$(", 100000) + "x" + Repeat(")", 100000) + "\npython train.py\n"));
      },
      1, Stream::kOut, {"deep.sh", "OPM205"}, 60);
  add("LintLauncherThreeMegabyteLine",
      [](const TempDir& d) {
        return Lint(d.Write("long.sh", "ARGS=\"" + std::string(3U << 20, 'a') + "\"\npython train.py $ARGS\n"));
      },
      1, Stream::kOut, {"long.sh", "OPM205"});
  add("LintLauncherSyntaxError",
      [](const TempDir& d) { return Lint(d.Write("run.sh", "if [ -n x ]; then\n  python train.py\n")); }, 1,
      Stream::kOut, {"run.sh", "OPM001"});
  add("LintLauncherSourcesAnUnreadableFile",
      [](const TempDir& d) { return Lint(d.Write("run.sh", "source ./missing_env.sh\npython train.py\n")); }, 1,
      Stream::kErr, {"run.sh", "missing_env.sh"});

  // ---- lint: configs that are wrong in every way ----------------------------------------------------
  for (const char* name : {"yaml_syntax", "yaml_unknown_rule", "yaml_wrong_types", "yaml_unknown_key",
                           "yaml_top_level_list", "yaml_nul", "yaml_invalid_utf8", "yaml_bad_launcher"}) {
    add(std::string("LintConfig_") + name,
        [name](const TempDir& d) {
          d.Write(".opmfu.yaml", testing::ReadFile(kFiles / (std::string(name) + ".yaml")));
          if (std::string(name) == "yaml_bad_launcher") {
            d.Write("launchers/custom.yaml", testing::ReadFile(kFiles / "launcher_description_broken.yaml"));
          }
          d.Write("train.py", "import torch_npu\n");
          const fs::path launcher = d.Write("run.sh", "torchrun --nproc_per_node 8 train.py\n");
          return std::vector<std::string>{"lint", launcher.string()};
        },
        2, Stream::kErr, {".yaml", ""});
  }
  add("LintDynamicConfigHundredThousandDeepNesting",
      [](const TempDir& d) { return Lint(d.Write("profiler_config.json", Repeat("[", 100000) + Repeat("]", 100000))); },
      2, Stream::kErr, {"opmfu: error:", "profiler_config.json:1: brackets nested deeper than 256 levels"});
  for (const char* name :
       {"json_trailing_comma", "json_comments", "json_two_values", "json_wrong_types", "json_empty"}) {
    add(std::string("LintDynamicConfig_") + name,
        [name](const TempDir& d) {
          return Lint(d.Write("profiler_config.json", testing::ReadFile(kFiles / (std::string(name) + ".json"))));
        },
        1, Stream::kOut, {"profiler_config.json", "OPM"});
  }
  add("LintDynamicConfigInvalidUtf8",
      [](const TempDir& d) { return Lint(d.Write("profiler_config.json", "{\"prof_dir\": \"caf\xe9\"}")); }, 2,
      Stream::kErr, {"profiler_config.json", "not valid UTF-8"});

  // ---- registry ---------------------------------------------------------------------------------------
  add("RegistryListBinaryFormulas",
      [](const TempDir& d) {
        const fs::path file = d.Write("_flops_formulas.py", std::string("def f():\0\n", 10));
        return std::vector<std::string>{"registry", "list", "--formulas", file.string()};
      },
      2, Stream::kErr, {"_flops_formulas.py", "binary file"});
  add("RegistryCheckInvalidUtf8",
      [](const TempDir& d) {
        const fs::path file = d.Write("_flops_formulas.py", "# \xff\n@register_npu_flop(\"a.b\")\ndef f(): pass\n");
        return std::vector<std::string>{"registry", "check", file.string(), "--output-format", "concise"};
      },
      1, Stream::kOut, {"_flops_formulas.py:1:3", "OPM001", "not valid UTF-8"});
  add("RegistryListMissingFile",
      [](const TempDir& d) {
        return std::vector<std::string>{"registry", "list", "--formulas", (d.path() / "gone.py").string()};
      },
      2, Stream::kErr, {"gone.py", "o such file or directory"});
  add("RegistryCheckSyntaxError",
      [](const TempDir& d) {
        const fs::path file = d.Write("_flops_formulas.py", "@register_npu_flop(\"a.b\"\ndef f(:\n");
        return std::vector<std::string>{"registry", "check", file.string(), "--output-format", "concise"};
      },
      1, Stream::kOut, {"_flops_formulas.py", "OPM001"});
  add("RegistryListHundredThousandDeepNesting",
      [](const TempDir& d) {
        const fs::path file = d.Write("_flops_formulas.py", "x = " + Repeat("[", 100000) + Repeat("]", 100000) + "\n");
        return std::vector<std::string>{"registry", "list", "--formulas", file.string()};
      },
      2, Stream::kErr, {"opmfu: error:", "_flops_formulas.py:1: brackets nested deeper than 200 levels"});

  // ---- report, audit, gate, diff, flops: the commands that read MFU results ---------------------
  add("ReportTruncatedRankDb",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string bytes = testing::ReadFile(d.path() / kRankDb);
        d.Write(kRankDb, bytes.substr(0, bytes.size() / 3));
        return std::vector<std::string>{"report", "-d", d.path().string()};
      },
      1, Stream::kOut, {"rank 0: failed", "ascend_pytorch_profiler_0.db", "malformed"});
  add("ReportTruncatedClusterDb",
      [](const TempDir& d) {
        WriteRank(d);
        (void)testing::RunOpmfu(Analyze(d.path()));
        const fs::path db = d.path() / "cluster_analysis_output" / "cluster_analysis.db";
        const std::string bytes = testing::ReadFile(db);
        d.Write("cluster_analysis_output/cluster_analysis.db", bytes.substr(0, bytes.size() / 2));
        return std::vector<std::string>{"report", "--db", db.string()};
      },
      2, Stream::kErr, {"cluster_analysis.db", "malformed"});
  add("ReportRankDbGivenAsClusterDb",
      [](const TempDir& d) {
        WriteRank(d);
        return std::vector<std::string>{"report", "--db", (d.path() / kRankDb).string()};
      },
      2, Stream::kErr, {"ascend_pytorch_profiler_0.db", "no OperatorMFU table"});
  add("AuditTruncatedRankDb",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string bytes = testing::ReadFile(d.path() / kRankDb);
        d.Write(kRankDb, bytes.substr(0, bytes.size() / 3));
        return std::vector<std::string>{"audit", "-d", d.path().string()};
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "malformed", "(is not audited)"});
  add("GateOnADirectoryWithoutProfilingData",
      [](const TempDir& d) {
        d.Write("notes.txt", "nothing here\n");
        return std::vector<std::string>{"gate", "-d", d.path().string(), "--min-mfu", "0.3"};
      },
      2, Stream::kErr, {"ascend_pytorch_profiler", "searched"});
  add("GateBaselineIsATextFile",
      [](const TempDir& d) {
        WriteRank(d);
        const fs::path base = d.Write("base.db", "not a database at all\n");
        return std::vector<std::string>{"gate",       "-d", d.path().string(), "--baseline", base.string(),
                                        "--max-drop", "5%"};
      },
      2, Stream::kErr, {"base.db", "file is not a database"});
  add("DiffCandidateMissing",
      [](const TempDir& d) {
        WriteRank(d);
        return std::vector<std::string>{"diff", d.path().string(), (d.path() / "gone").string()};
      },
      2, Stream::kErr, {"gone"});
  add("FlopsUnterminatedShape",
      [](const TempDir&) {
        return std::vector<std::string>{"flops", "mm", "[1024,512", "[512,256]"};
      },
      2, Stream::kErr, {"mm", "`input` must be a shape", "[1024,512"});
  add("FlopsNonUtf8ArgumentThatTheFormulaIgnores",
      [](const TempDir&) {
        return std::vector<std::string>{"flops", "linear", "[4,8]", "[2,8]", "--arg", "bias=\xff", "--format", "json"};
      },
      0, Stream::kOut, {"\"bias\": \"\xEF\xBF\xBD\""});
  add("FlopsArgumentNestedSixtyThousandDeep",
      [](const TempDir&) {
        return std::vector<std::string>{"flops", "mm", Repeat("[", 60000) + Repeat("]", 60000), "[1,2]"};
      },
      2, Stream::kErr, {"mm", "`input` must be a shape", "..."});

  // ---- outputs: every write checked, never over an input ------------------------------------------
  const auto analysed = [](const TempDir& d) {
    WriteRank(d);
    EXPECT_EQ(testing::RunOpmfu(Analyze(d)).exit_code, 0);
    return (d.path() / "cluster_analysis_output" / "cluster_analysis.db").string();
  };
  const auto to_full_stdout = [&](std::string name, std::function<std::vector<std::string>(const TempDir&)> setup) {
    add(std::move(name), std::move(setup), 2, Stream::kErr, {"stdout: cannot write: No space left on device"});
    cases.back().stdout_path = "/dev/full";
  };
  to_full_stdout("ReportToAFullStdout", [](const TempDir& d) {
    WriteRank(d);
    return std::vector<std::string>{"report", "-d", d.path().string()};
  });
  to_full_stdout("DiffToAFullStdout", [](const TempDir& d) {
    WriteRank(d);
    return std::vector<std::string>{"diff", d.path().string(), d.path().string()};
  });
  to_full_stdout("AnalyzeSummaryToAFullStdout", [](const TempDir& d) {
    WriteRank(d);
    return Analyze(d);
  });
  to_full_stdout("LintFindingsToAFullStdout", [](const TempDir& d) {  // exit 1 would claim printed findings
    return Lint(d.Write("broken.py", "import torch_npu\nprof = torch_npu.profiler.profile(with_flops=True\n"));
  });
  add("ReportToDevFull",
      [](const TempDir& d) {
        WriteRank(d);
        return std::vector<std::string>{"report", "-d", d.path().string(), "-o", "/dev/full"};
      },
      2, Stream::kErr, {"/dev/full: cannot write: No space left on device"});
  add("RegistryCheckOutputIsItsFormulasFile",
      [](const TempDir& d) {
        const fs::path formulas =
            d.Write("F.py", testing::ReadFile(testing::SourceDir() / "tests" / "fixtures" / "registry" / "clean.py"));
        return std::vector<std::string>{"registry", "check", formulas.string(), "-o", formulas.string()};
      },
      2, Stream::kErr, {"F.py: is an input of this command", "nothing was written"});
  add("LintOutputIsTheScriptThroughASymlink",
      [](const TempDir& d) {
        const fs::path script = d.Write("x.py", "import torch_npu\nprof = torch_npu.profiler.profile()\n");
        fs::create_symlink(script, d.path() / "findings.txt");
        return std::vector<std::string>{"lint", "--no-config", "-o", (d.path() / "findings.txt").string(),
                                        script.string()};
      },
      2, Stream::kErr, {"findings.txt: is an input of this command", "x.py"});
  // Issue 47: files a run reads without being named (a followed import, a sourced file, the
  // config, a device's info.json) are its inputs too; -o over one was written.
  add("LintOutputIsAModuleTheScriptImports",
      [](const TempDir& d) {
        const fs::path helper = d.Write("helper.py", "flops = True\n");
        const fs::path script = d.Write(
            "x.py",
            "import torch_npu\nfrom helper import flops\nprof = torch_npu.profiler.profile(with_flops=flops)\n");
        return std::vector<std::string>{"lint", "--no-config", "-o", helper.string(), script.string()};
      },
      2, Stream::kErr, {"helper.py: is an input of this run", "nothing was written"});
  add("LintOutputIsAFileTheLauncherSources",
      [](const TempDir& d) {
        const fs::path env = d.Write("env.sh", "export NPROC=8\n");
        const fs::path launcher = d.Write("run.sh", "source ./env.sh\ntorchrun --nproc_per_node $NPROC train.py\n");
        return std::vector<std::string>{"lint", "--no-config", "-o", env.string(), launcher.string()};
      },
      2, Stream::kErr, {"env.sh: is an input of this run", "nothing was written"});
  add("LintOutputIsItsConfig",
      [](const TempDir& d) {
        const fs::path config = d.Write(".opmfu.yaml", "ignore: [OPM107]\n");
        const fs::path script = d.Write("x.py", "import torch_npu\nprof = torch_npu.profiler.profile()\n");
        return std::vector<std::string>{"lint", "--config", config.string(), "-o", config.string(), script.string()};
      },
      2, Stream::kErr, {".opmfu.yaml: is an input of this", "nothing was written"});
  add("ReportOutputIsADevicesInfoJson",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string info = (d.path() / kRankDir / "PROF_000001_demo" / "device_0" / "info.json.0").string();
        return std::vector<std::string>{"report", "-d", d.path().string(), "-o", info};
      },
      2, Stream::kErr, {"info.json.0: is an input of this run", "nothing was written"});
  for (const std::string command : {"report", "audit", "gate"}) {
    add(command == "report"  ? "ReportOutputIsItsClusterDb"
        : command == "audit" ? "AuditOutputIsItsClusterDb"
                             : "GateOutputIsItsClusterDb",
        [=](const TempDir& d) {
          const std::string db = analysed(d);
          std::vector<std::string> args{command, "--db", db, "-o", db};
          if (command == "gate") args.insert(args.end(), {"--min-mfu", "0"});
          return args;
        },
        2, Stream::kErr, {"cluster_analysis.db: is an input of this command"});
  }
  add("DiffOutputIsItsCandidateDb",
      [=](const TempDir& d) {
        const std::string db = analysed(d);
        return std::vector<std::string>{"diff", d.path().string(), db, "-o", db};
      },
      2, Stream::kErr, {"cluster_analysis.db: is an input of this command"});
  add("ReportOutputIsARankDb",
      [](const TempDir& d) {
        WriteRank(d);
        const std::string db = (d.path() / kRankDb).string();
        return std::vector<std::string>{"report", "-d", d.path().string(), "-o", db};
      },
      2, Stream::kErr, {"ascend_pytorch_profiler_0.db: is an input of this command"});
  add("ReportOfAClusterDbWithNoRows",
      [=](const TempDir& d) {
        const std::string db = analysed(d);
        auto written = Database::OpenForWrite(db);
        EXPECT_TRUE(written.ok() && written->Execute("DELETE FROM OperatorMFU").ok());
        return std::vector<std::string>{"report", "--db", db};
      },
      1, Stream::kErr, {"cluster_analysis.db: no OperatorMFU rows", "no report written"});
  add("AnalyzeOverAnExistingOutputThatIsNotADatabase",  // named as the user knows it, not its hidden copy
      [](const TempDir& d) {
        WriteRank(d);
        d.Write("cluster_analysis_output/cluster_analysis.db", "my notes\n");
        return Analyze(d);
      },
      2, Stream::kErr, {"cluster_analysis_output/cluster_analysis.db: ", "file is not a database"});
  add(
      "AnalyzeTextExportOnAFullDisk",
      [](const TempDir& d) {
        WriteRank(d, [](engine::ProfilingDbBuilder& db) {
          for (int i = 0; i < 3000; ++i) {
            const std::int64_t op = db.AddOp("aten::mm", 10000 + i * 100, 10050 + i * 100);
            db.AddKernel({op}, {"MatMulV2", 10010 + i * 100, 10040 + i * 100});
            db.AddMstx("mfu_flops", "1000000-aten::mm", 10000 + i * 100, 10060 + i * 100);
          }
        });
        return std::vector<std::string>{"analyze", "-d", d.path().string(), "--export-type", "text"};
      },
      2, Stream::kErr, {"operator_mfu_kernel_0.xlsx: cannot write"}, 30, std::uint64_t{4} << 10);
  // Issue 47: nothing is written through a link inside cluster_analysis_output/ (the rank's only
  // copy was replaced by CSV text, exit 0), nor into a linked folder of it.
  for (const std::string output : {"operator_mfu.csv", "operator_mfu.json", "cluster_analysis.db"}) {
    const std::string type = output == "cluster_analysis.db" ? "db" : output.substr(output.find('.') + 1);
    add("AnalyzeExport" + type + "ThroughALinkToTheRankDb",
        [output, type](const TempDir& d) {
          WriteRank(d);
          fs::create_directories(d.path() / "cluster_analysis_output");
          fs::create_symlink(d.path() / kRankDb, d.path() / "cluster_analysis_output" / output);
          return std::vector<std::string>{"analyze", "-d", d.path().string(), "--export-type", type};
        },
        2, Stream::kErr, {output, "is a symbolic link", "nothing was written"});
  }
  add("AnalyzeTextExportIntoALinkedFolder",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directories(d.path() / "elsewhere");
        fs::create_directories(d.path() / "cluster_analysis_output");
        fs::create_symlink(d.path() / "elsewhere", d.path() / "cluster_analysis_output" / "OperatorMfu");
        return std::vector<std::string>{"analyze", "-d", d.path().string(), "--export-type", "text"};
      },
      2, Stream::kErr, {"OperatorMfu", "is a symbolic link"});
  // A shard's partial goes below -o without entering a linked opmfu_partial/ (it was written
  // into the folder the link named, exit 0).
  add("AnalyzeShardIntoALinkedPartialFolder",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directories(d.path() / "elsewhere");
        fs::create_directories(d.path() / "out");
        fs::create_symlink(d.path() / "elsewhere", d.path() / "out" / "opmfu_partial");
        return std::vector<std::string>{"analyze", "-d", d.path().string(),          "--shard",
                                        "0/2",     "-o", (d.path() / "out").string()};
      },
      2, Stream::kErr, {"opmfu_partial", "is a symbolic link"});
  add("AnalyzeOutputIsAHardLinkOfTheRankDb",
      [](const TempDir& d) {
        WriteRank(d);
        fs::create_directories(d.path() / "cluster_analysis_output");
        fs::create_hard_link(d.path() / kRankDb, d.path() / "cluster_analysis_output" / "cluster_analysis.db");
        return Analyze(d);
      },
      2, Stream::kErr, {"cluster_analysis.db", "is an input of this run", "nothing was written"});
  add("LintUnreadableDirectory",
      [](const TempDir& d) {
        fs::permissions(d.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
        d.Write("private/train.py", "import torch_npu\n");
        fs::permissions(d.path() / "private", fs::perms::none);
        return Lint(d.path() / "private");
      },
      2, Stream::kErr, {"private: cannot list: Permission denied"});
  cases.back().unprivileged = true;
  add("LintUnreadableSubdirectory",  // beside a file that is linted: it must not pass for the whole
      [](const TempDir& d) {
        fs::permissions(d.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
        d.Write("tree/ok.py", "x = 1\n");
        d.Write("tree/locked/train.py", "import torch_npu\n");
        fs::permissions(d.path() / "tree", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
        fs::permissions(d.path() / "tree" / "locked", fs::perms::owner_all);
        return Lint(d.path() / "tree");
      },
      2, Stream::kErr, {"locked: cannot list: Permission denied"});
  cases.back().unprivileged = true;
  // ---- issue 27, the input side: every reproduction, under `ulimit -v 2000000` -------------------
  const auto hostile = [&](std::string name, std::function<std::vector<std::string>(const TempDir&)> setup,
                           int exit_code, Stream stream, std::vector<std::string> line, int max_seconds = 15) {
    add(std::move(name), std::move(setup), exit_code, stream, std::move(line), max_seconds);
    cases.back().address_space_limit = kTwoGigabytes;
  };
  // 1. 65,535 consecutive comment lines: tree-sitter's own limit, reached through the allocator.
  hostile("Lint65535CommentLinesPython",
          [](const TempDir& d) { return Lint(d.Write("c.py", "import torch_npu\n" + Repeat("# c\n", 70000))); }, 0,
          Stream::kOut, {"c.py:1:1: OPM010"});
  hostile("Lint65535CommentLinesLauncher",
          [](const TempDir& d) { return Lint(d.Write("c.sh", Repeat("# c\n", 70000) + "python train.py\n")); }, 1,
          Stream::kOut, {"c.sh:70001:", "OPM205"});
  hostile("RegistryCheck65535CommentLines",
          [](const TempDir& d) {
            const fs::path file = d.Write("_flops_formulas.py", Repeat("# c\n", 70000));
            return std::vector<std::string>{"registry", "check", file.string(), "--output-format", "concise"};
          },
          0, Stream::kErr, {"No findings"});
  // 2. Bash nesting: a long && chain is read whole; nested blocks to the stated depth.
  hostile("LintLauncherAndChainOfThirtyThousand",
          [](const TempDir& d) {
            return Lint(d.Write("d.sh", "#!/bin/bash\n" + Repeat("true && ", 29999) + "python train.py --x\n"));
          },
          1, Stream::kOut, {"d.sh", "OPM205"});
  hostile(
      "LintLauncherTenThousandNestedIfs",
      [](const TempDir& d) {
        return Lint(d.Write("d.sh", Repeat("if true; then\n", 10000) + "python train.py\n" + Repeat("fi\n", 10000)));
      },
      0, Stream::kErr, {"d.sh", "nesting deeper than 200 levels"});
  hostile("LintLauncherTenThousandNestedCases",
          [](const TempDir& d) {
            return Lint(d.Write("d.sh", Repeat("case x in x)\n", 10000) + "true\n" + Repeat(";; esac\n", 10000)));
          },
          0, Stream::kErr, {"d.sh", "nesting deeper than 200 levels"});
  hostile("LintLauncherFiftyThousandNestedGroups",
          [](const TempDir& d) {
            return Lint(d.Write("d.sh", Repeat("{ ", 50000) + "true" + Repeat("; }", 50000) + "\n"));
          },
          0, Stream::kErr, {"d.sh", "nesting deeper than 200 levels"});
  hostile(
      "LintLauncherFiftyThousandNestedSubshells",
      [](const TempDir& d) { return Lint(d.Write("d.sh", Repeat("(", 50000) + "true" + Repeat(")", 50000) + "\n")); },
      0, Stream::kErr, {"d.sh", "nesting deeper than 200 levels"});
  // Issue 47: 40,000 unclosed `case x in` (400 KB): error recovery nests hidden nodes 40,000 deep,
  // and asking a cursor for each child's field walked up all of them (over 60 s; now about 1 s).
  hostile(
      "LintLauncherFortyThousandUnclosedCases",
      [](const TempDir& d) { return Lint(d.Write("d.sh", "python train.py\n" + Repeat("case x in ", 40000) + "\n")); },
      1, Stream::kOut, {"d.sh", "OPM205"});
  // Issue 47: 40,000 unclosed constructs in a launcher. `$(`, `${a:-`, `` `( ``, `a=(` aborted
  // tree-sitter (or took its whole 15 s); now refused by the pre-scan of what is left open.
  for (const std::pair<std::string, std::string>& named_unit : std::vector<std::pair<std::string, std::string>>{
           {"CommandSubstitutions", "$("}, {"Expansions", "${a:-"}, {"BackquotedSubshells", "`("}, {"Arrays", "a=("}}) {
    const std::string unit = named_unit.second;  // a lambda of clang 14 cannot capture a structured binding
    hostile(
        "LintLauncherFortyThousandUnclosed" + named_unit.first,
        [unit](const TempDir& d) { return Lint(d.Write("d.sh", "torchrun train.py\n" + Repeat(unit, 40000) + "\n")); },
        2, Stream::kErr, {"d.sh:2: brackets left open deeper than 200 levels at the end of the file"});
  }
  // A pipeline of 40,000 `a | ` left open at the end: error recovery took 6 GB and minutes in one
  // step of the parser (no timeout check there); now the parse memory budget stops it.
  hostile("LintLauncherFortyThousandStagePipelineLeftOpen",
          [](const TempDir& d) { return Lint(d.Write("d.sh", "torchrun train.py\n" + Repeat("a | ", 40000) + "\n")); },
          2, Stream::kErr, {"d.sh: parsing needed more than", "MiB of memory (a limit of opmfu"});
  // 40,000 `f()` without bodies: the parse timeout (15 s) is the bound.
  hostile(
      "LintLauncherFortyThousandFunctionsWithoutBodies",
      [](const TempDir& d) { return Lint(d.Write("d.sh", "torchrun train.py\n" + Repeat("f()", 40000) + "\n")); }, 2,
      Stream::kErr, {"d.sh: parsing took longer than 15 s"}, 20);
  // 3. A FIFO anywhere a file is read: refused at once, said what it is.
  hostile("LintFifo", [](const TempDir& d) { return Lint(Fifo(d, "p.py")); }, 2, Stream::kErr,
          {"p.py", "is a FIFO (named pipe), not a regular file"});
  hostile("LintLauncherSourcesAFifo",
          [](const TempDir& d) {
            Fifo(d, "env.sh");
            return Lint(d.Write("run.sh", "source " + (d.path() / "env.sh").string() + "\npython train.py\n"));
          },
          1, Stream::kErr, {"run.sh:1: cannot follow", "env.sh: is a FIFO (named pipe), not a regular file"});
  hostile("RegistryListFormulasFifo",
          [](const TempDir& d) {
            return std::vector<std::string>{"registry", "list", "--formulas", Fifo(d, "f.py").string()};
          },
          2, Stream::kErr, {"f.py", "FIFO"});
  hostile("RegistryAddFromFifo",
          [](const TempDir& d) {
            const fs::path formulas = d.Write("_flops_formulas.py", "");
            return std::vector<std::string>{
                "registry",       "add", "--target", "torch:mm", "--from", Fifo(d, "f.py").string(), "--formulas",
                formulas.string()};
          },
          2, Stream::kErr, {"f.py", "FIFO"});
  hostile("FlopsFormulasFifo",
          [](const TempDir& d) {
            return std::vector<std::string>{"flops", "mm", "[4,8]", "[8,2]", "--formulas", Fifo(d, "f.py").string()};
          },
          2, Stream::kErr, {"f.py", "FIFO"});
  hostile("FormulasVariableNamesAFifo",
          [](const TempDir& d) {
            Fifo(d, "f.py");
            return std::vector<std::string>{"registry", "list"};
          },
          2, Stream::kErr, {"f.py", "FIFO"});
  cases.back().env = {{"OPMFU_FORMULAS", "{dir}/f.py"}};
  hostile("AnalyzeRankDbFifo",
          [](const TempDir& d) {
            WriteRank(d);
            fs::remove(d.path() / kRankDb);
            Fifo(d, kRankDb);
            return Analyze(d);
          },
          1, Stream::kErr, {"ascend_pytorch_profiler_0.db", "is a FIFO (named pipe), not a regular file"});
  hostile("ReportDbFifo",
          [](const TempDir& d) {
            return std::vector<std::string>{"report", "--db", Fifo(d, "cluster_analysis.db").string()};
          },
          2, Stream::kErr, {"cluster_analysis.db", "FIFO"});
  hostile("AnalyzeProfilerInfoFifo",
          [](const TempDir& d) {
            WriteRank(d);
            Fifo(d, std::string(kRankDir) + "/profiler_info_0.json");
            return Analyze(d);
          },
          // The recorded config only explains a failure: the rank is analysed, the FIFO said.
          0, Stream::kErr, {"rank 0: warning:", "profiler_info_0.json: is a FIFO (named pipe), not a regular file"});
  // 4. Standard input is capped as a file is.
  hostile("LintStdinFromDevZero",
          [](const TempDir&) {
            return std::vector<std::string>{"lint", "-"};
          },
          2, Stream::kErr, {"above the input size limit of 4 MiB"});
  cases.back().stdin_path = "/dev/zero";
  // 5. A 20 MB script is refused by the size policy before it is parsed (it took 3.85 GB).
  hostile("LintTwentyMegabytePython",
          [](const TempDir& d) { return Lint(d.Write("big.py", Repeat("x = 1\n", (20U << 20) / 6))); }, 2, Stream::kErr,
          {"big.py", "file too large", "above the input size limit of 4 MiB", "OPMFU_MAX_FILE_SIZE"});
  hostile("LintSizePolicyIsConfigurable",
          [](const TempDir& d) { return Lint(d.Write("small.py", "import torch_npu\n" + Repeat("x = 1\n", 400))); }, 2,
          Stream::kErr, {"small.py", "above the input size limit of 1 KiB"});
  cases.back().env = {{"OPMFU_MAX_FILE_SIZE", "1K"}};
  hostile("LintSizePolicyThatIsNotASize",
          [](const TempDir& d) { return Lint(d.Write("small.py", "import torch_npu\n")); }, 2, Stream::kErr,
          {"OPMFU_MAX_FILE_SIZE=lots", "not a size"});
  cases.back().env = {{"OPMFU_MAX_FILE_SIZE", "lots"}};
  // 6. Comments in an indented block: linear.
  hostile("LintSeventyThousandCommentsInABlock",
          [](const TempDir& d) {
            return Lint(d.Write("f.py", "import torch_npu\ndef f():\n" + Repeat("    # c\n", 70000) + "    pass\n"));
          },
          0, Stream::kOut, {"f.py:1:1: OPM010"});
  // 7. 30,000 unknown keys on one line: findings do not carry the line.
  hostile("LintDynamicConfigThirtyThousandUnknownKeys",
          [](const TempDir& d) {
            std::string config_text = "{";
            for (int i = 0; i < 30000; ++i) config_text += (i > 0 ? ", \"k" : "\"k") + std::to_string(i) + "\": 1";
            return Lint(d.Write("profiler_config.json", config_text + "}\n"));
          },
          1, Stream::kOut, {"profiler_config.json:1:", "OPM301"});
  // Issue 47: 21 tiny launchers, each sourcing the next three times: 3^16 file reads within the
  // nesting limit took 5.8 GB, then SIGABRT. A followed file is parsed once, and one launcher's
  // reading follows at most 1,000 files.
  hostile("LintLauncherChainOfTwentyOneEachSourcingTheNextThreeTimes",
          [](const TempDir& d) {
            for (int i = 0; i < 20; ++i) {
              const std::string next = "source ./l" + std::to_string(i + 1) + ".sh\n";
              d.Write("l" + std::to_string(i) + ".sh", next + next + next);
            }
            d.Write("l20.sh", "torchrun --nproc_per_node 8 train.py\n");
            return Lint(d.path() / "l0.sh");
          },
          0, Stream::kErr,
          {"l", ".sh: more than 1000 files sourced or run in one launcher's reading",
           "@l16.sh: files sourced or run 16 deep (a limit of opmfu)"});
  // Issue 47: a construct left open 40,000 times makes tree-sitter 0.20's error recovery wrap a
  // node's sizes; deleting the tree (Python) or the parser's own cleanup (bash) then freed an
  // address inside a block: SIGABRT, no message. The file is refused instead.
  for (const auto& open : std::vector<std::pair<std::string, std::string>>{
           {"LintPythonConditionalLeftOpen", "1 if 1 else "}, {"LintPythonPowerLeftOpen", "2**"}}) {
    const std::string construct = open.second;
    hostile(open.first,
            [construct](const TempDir& d) { return Lint(d.Write("f.py", "x = " + Repeat(construct, 40000))); }, 2,
            Stream::kErr, {"f.py: the parser failed on a construct left open tens of thousands of times"});
  }
  for (const auto& open :
       std::vector<std::pair<std::string, std::string>>{{"LintLauncherIfLeftOpen", "if a; then "},
                                                        {"LintLauncherWhileLeftOpen", "while a; do "},
                                                        {"LintLauncherCaseLeftOpen", "case a in x) "}}) {
    const std::string construct = open.second;
    hostile(open.first, [construct](const TempDir& d) { return Lint(d.Write("run.sh", Repeat(construct, 40000))); }, 2,
            Stream::kErr, {"run.sh: the parser failed on a construct left open tens of thousands of times"});
  }
  // A function that calls itself twice, 16 deep (the nesting limit): 2^16 calls of a long body.
  // The evaluation budget bounds the work whatever the shape.
  hostile(
      "LintLauncherFunctionCallingItselfTwice",
      [](const TempDir& d) {
        return Lint(d.Write("run.sh", "f() {\n" + Repeat("  a=$b; b=$a\n", 400) + "  f; f\n}\nf\npython train.py\n"));
      },
      0, Stream::kErr, {"run.sh: the launcher's reading took more than 1000000 steps"});
  // 8. The bash evaluator's values are capped.
  hostile("LintLauncherDoublingValue",
          [](const TempDir& d) {
            return Lint(d.Write("run.sh", "a=x\n" + Repeat("a=$a$a\n", 40) + "python train.py \"$a\"\n"));
          },
          1, Stream::kErr, {"run.sh", "a variable's value grew past 1 MiB"});
  hostile(
      "LintLauncherDoublingArray",
      [](const TempDir& d) {
        return Lint(d.Write("run.sh", "a=(x)\n" + Repeat("a=(\"${a[@]}\" \"${a[@]}\")\n", 40) + "python train.py\n"));
      },
      1, Stream::kErr, {"run.sh", "a variable's value grew past", "or 4096 elements"});
  // 9. A VIEW with an endless recursive CTE in place of a table: stopped by the work bound.
  // A pair, not a structured binding: clang 14 (the asan build) cannot capture a binding.
  for (const auto& view : std::vector<std::pair<std::string, std::string>>{
           {"STRING_IDS", "x AS id, 'k' || x AS value"},
           {"TASK",
            "x AS startNs, x + 1 AS endNs, 0 AS deviceId, 0 AS connectionId, x AS globalTaskId, 0 AS "
            "globalPid, 0 AS taskType, 0 AS contextId, 0 AS streamId, 0 AS taskId, 0 AS modelId"}}) {
    const std::string& table = view.first;
    const std::string& columns = view.second;
    // The rank fails within seconds. (With STRING_IDS endless, the reader that keeps going
    // past the stopped query then finds no mfu_flops domain: the cause named is that one.)
    hostile(
        "AnalyzeEndless" + table + "View",
        [table, columns](const TempDir& d) {
          WriteRankWithEndlessView(d, table, columns);
          return Analyze(d);
        },
        1, Stream::kErr,
        table == "TASK" ? std::vector<std::string>{"rank 0: error:", "ascend_pytorch_profiler_0.db", "query stopped"}
                        : std::vector<std::string>{"rank 0: error:", "ascend_pytorch_profiler_0.db"},
        30);
    hostile(
        "CheckDbEndless" + table + "View",
        [table, columns](const TempDir& d) {
          WriteRankWithEndlessView(d, table, columns);
          return CheckDbArgs(d);
        },
        1, Stream::kOut, {"rank 0:", "ascend_pytorch_profiler_0.db"}, 30);
    hostile(
        "ReportEndless" + table + "View",
        [table, columns](const TempDir& d) {
          WriteRankWithEndlessView(d, table, columns);
          return std::vector<std::string>{"report", "-d", d.path().string()};
        },
        1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "query stopped"}, 30);
  }
  // 17. A stray -wal beside a rank DB: nothing is created or rewritten beside it.
  hostile("AnalyzeStrayWalBesideARankDb",
          [](const TempDir& d) {
            WriteRank(d);
            d.Write(std::string(kRankDb) + "-wal", std::string(4096, 'w'));
            return Analyze(d);
          },
          0, Stream::kOut, {"Wrote", "cluster_analysis.db"});
  // 19. The cause, not SQLite's guess.
  hostile("AnalyzeRankDbIsASymlinkToDevZero",
          [](const TempDir& d) {
            WriteRank(d);
            fs::remove(d.path() / kRankDb);
            fs::create_symlink("/dev/zero", d.path() / kRankDb);
            return Analyze(d);
          },
          1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "is a character device"});
  hostile("AnalyzeWalDbInAReadOnlyDirectory",
          [](const TempDir& d) {
            WriteRank(d);
            Sql(d, "PRAGMA journal_mode = WAL");
            return Analyze(d);
          },
          0, Stream::kOut, {"Wrote", "cluster_analysis.db"});
  cases.back().read_only_directory = std::string(kRankDir) + "/ASCEND_PROFILER_OUTPUT";
  hostile("AnalyzeWalDbWithUnmergedChanges",
          [](const TempDir& d) {
            WriteRank(d);
            // A writer that committed into its log and is still running (no checkpoint yet).
            static std::optional<Database> writer;
            writer.reset();
            auto db = Database::OpenForWrite(d.path() / kRankDb);
            EXPECT_TRUE(db.ok());
            writer.emplace(std::move(*db));
            EXPECT_TRUE(writer
                            ->Execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; "
                                      "CREATE TABLE later (x); INSERT INTO later VALUES (1)")
                            .ok());
            return Analyze(d);
          },
          1, Stream::kErr,
          {"rank 0: error:", "ascend_pytorch_profiler_0.db-wal", "holds changes not yet in the database"});
  // 20. What json.load accepts is not called invalid JSON: the config is read, and its settings
  // checked (OPM106 on its activities), where it used to be OPM001 "not valid JSON".
  for (const std::string value : {"NaN", "Infinity", "-Infinity", "1e999999"}) {
    hostile(
        "LintDynamicConfigNumber" + std::string(value == "-Infinity" ? "MinusInfinity"
                                                : value[0] == '1'    ? "OutOfRange"
                                                                     : value),
        [value](const TempDir& d) {
          return Lint(d.Write("profiler_config.json", "{\"start_step\": " + value + ", \"activities\": [\"NPU\"]}\n"));
        },
        1, Stream::kOut, {"profiler_config.json:1:", "OPM106"});
  }
  // 21. Control characters in a message are escaped: the error stays one line.
  hostile("RegistryAddTargetWithControlCharacters",
          [](const TempDir& d) {
            const fs::path from = d.Write("f.py", "def mm(a, b): return a @ b\n");
            return std::vector<std::string>{"registry", "add",         "--target",   "torch:\n\x01x",
                                            "--from",   from.string(), "--formulas", from.string()};
          },
          2, Stream::kErr, {"opmfu: error:", "torch:\\n\\x01x"});
  // ---- issue 47: depth and work bounds in every parser ----------------------------------------------
  // JSON nested 100,000 deep (200 KB): nlohmann's recursive copy and dump overflowed the stack.
  hostile("CheckDbInfoJsonNestedHundredThousandDeep",
          [](const TempDir& d) {
            WriteHealthyRankOne(d);
            WriteRank(d);
            d.Write(std::string(kRankDir) + "/PROF_000001_demo/device_0/info.json.0",
                    R"({"DeviceInfo": [{"ai_core_num": )" + Repeat("[", 100000) + Repeat("]", 100000) + "}]}");
            return CheckDbArgs(d);
          },
          1, Stream::kOut, {"info.json.0: JSON nested deeper than 256 levels (a limit of opmfu)"});
  hostile("AnalyzeProfilerInfoNestedHundredThousandDeep",  // only evidence: the rank is still analysed
          [](const TempDir& d) {
            WriteRank(d);
            d.Write(std::string(kRankDir) + "/profiler_info_0.json",
                    "{\"config\": " + Repeat("[", 100000) + Repeat("]", 100000) + "}");
            return Analyze(d);
          },
          0, Stream::kErr, {"rank 0: warning:", "profiler_info_0.json: JSON nested deeper than 256 levels"});
  // Issue 47: a pyproject.toml above the 4 MiB config limit (a 2,000,000-element ignore list) was
  // passed over, and the parent folder's config (or none) used in its place, silently.
  hostile("LintPyprojectAboveTheConfigLimitIsNamedNotPassedOver",
          [](const TempDir& d) {
            d.Write("pyproject.toml", "[tool.opmfu]\nignore = [" + Repeat("\"OPM101\", ", 600000) + "]\n");
            return std::vector<std::string>{"lint", d.Write("train.py", "import torch_npu\n").string()};
          },
          2, Stream::kErr, {"opmfu: error:", "pyproject.toml: file too large", "above the"});
  // A pyproject.toml dotted key of 30,000 parts (60 KB) overflowed toml++'s stack; 60,000 keys
  // under [tool.opmfu] took minutes (yaml-cpp's map lookup per inserted key).
  const auto dotted_key = [](const TempDir& d) {
    d.Write("pyproject.toml", "[tool.opmfu]\nselect = [\"OPM1\"]\na" + Repeat(".a", 30000) + " = 1\n");
  };
  const auto many_keys = [](const TempDir& d) {
    std::string keys = "[tool.opmfu]\n";
    for (int i = 0; i < 60000; ++i) keys += "k" + std::to_string(i) + " = 1\n";
    d.Write("pyproject.toml", keys);
  };
  for (const auto& toml : std::vector<std::pair<std::string, std::function<void(const TempDir&)>>>{
           {"DottedKeyOfThirtyThousandParts", dotted_key}, {"SixtyThousandKeys", many_keys}}) {
    const std::vector<std::string> line = {"opmfu: error:", "pyproject.toml:",
                                           toml.first == "SixtyThousandKeys"
                                               ? "more than 10000 TOML keys (a limit of opmfu)"
                                               : "TOML nested deeper than 128 levels"};
    const auto write = toml.second;
    hostile(
        "LintPyproject" + toml.first,
        [write](const TempDir& d) {
          write(d);
          return std::vector<std::string>{"lint", d.Write("train.py", "import torch_npu\n").string()};
        },
        2, Stream::kErr, line);
    hostile(
        "AnalyzePyproject" + toml.first,
        [write](const TempDir& d) {
          write(d);
          WriteRank(d);
          return Analyze(d);
        },
        2, Stream::kErr, line);
    hostile(
        "RegistryCheckPyproject" + toml.first,
        [write](const TempDir& d) {
          write(d);
          const fs::path file = d.Write("_flops_formulas.py", "x = 1\n");
          return std::vector<std::string>{"registry", "check", file.string()};
        },
        2, Stream::kErr, line);
  }
  // tree-sitter: 2 million nested brackets in a file under the 4 MiB limit took 2.5 GB and 30 s;
  // 40,000 unclosed `f(` (and `[1,` in JSON) aborted. Each file is refused, the others still linted.
  hostile("LintPythonTwoMillionNestedBrackets",
          [](const TempDir& d) {
            d.Write("ok.py", "import torch_npu\n");
            d.Write("deep.py", "import torch_npu\nx = " + Repeat("(", 2000000) + Repeat(")", 2000000) + "\n");
            return Lint(d.path());
          },
          2, Stream::kErr, {"opmfu: error:", "deep.py:2: brackets nested deeper than 200 levels"});
  hostile(
      "LintPythonFortyThousandUnclosedCalls",
      [](const TempDir& d) { return Lint(d.Write("calls.py", "import torch_npu\nx = " + Repeat("f(", 40000) + "\n")); },
      2, Stream::kErr, {"opmfu: error:", "calls.py:2: brackets nested deeper than 200 levels"});
  hostile("RegistryCheckFortyThousandUnclosedCalls",
          [](const TempDir& d) {
            const fs::path file = d.Write("_flops_formulas.py", "def f(a):\n    return " + Repeat("f(", 40000) + "\n");
            return std::vector<std::string>{"registry", "check", file.string()};
          },
          2, Stream::kErr, {"opmfu: error:", "_flops_formulas.py:2: brackets nested deeper than 200 levels"});
  hostile("LintDynamicConfigFortyThousandUnclosedArrays",
          [](const TempDir& d) {
            return Lint(d.Write("profiler_config.json", "{\"activities\": " + Repeat("[1,", 40000) + "\n"));
          },
          2, Stream::kErr, {"opmfu: error:", "profiler_config.json:1: brackets nested deeper than 256 levels"});
  // SQLite: a 20 MB rank DB whose TASK is an endless VIEW kept check-db busy for 55 s (the step
  // bound grew with the file); now one query's time bound, and the file is not queried again.
  const auto endless_twenty_megabytes = [](const TempDir& d) {
    WriteHealthyRankOne(d);
    WriteRankWithEndlessView(d, "TASK",
                             "x AS startNs, x + 1 AS endNs, 0 AS deviceId, 0 AS connectionId, x AS globalTaskId, 0 "
                             "AS globalPid, 0 AS taskType, 0 AS contextId, 0 AS streamId, 0 AS taskId, 0 AS modelId");
    Sql(d,
        "CREATE TABLE padding (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
        "20) INSERT INTO padding SELECT zeroblob(1 << 20) FROM n");
  };
  hostile(
      "CheckDbEndlessTASKViewInTwentyMegabytes",
      [endless_twenty_megabytes](const TempDir& d) {
        endless_twenty_megabytes(d);
        return CheckDbArgs(d);
      },
      1, Stream::kOut, {"rank 0:", "ascend_pytorch_profiler_0.db"}, 20);
  hostile(
      "AnalyzeEndlessTASKViewInTwentyMegabytes",
      [endless_twenty_megabytes](const TempDir& d) {
        endless_twenty_megabytes(d);
        return Analyze(d);
      },
      1, Stream::kErr, {"rank 0: error:", "ascend_pytorch_profiler_0.db", "query stopped"}, 20);
  // lint of 250 configs of 1,100 unknown keys each (250,000 findings): as SARIF the output stood
  // whole in memory as one JSON tree and then as text (1.5 GB; 541 such configs took 3.4 GB). Now
  // it is written as it is rendered, within 1 GB of address space.
  add(
      "LintTwoHundredFiftyConfigsAsSarifWithinOneGigabyte",
      [](const TempDir& d) {
        std::string config = "{\"activities\": [\"CPU\", \"NPU\"], \"with_flops\": false";
        for (int k = 0; k < 1100; ++k) config += ", \"unknown_key_" + std::to_string(k) + "\": " + std::to_string(k);
        config += "}\n";
        for (int i = 0; i < 250; ++i) d.Write("run" + std::to_string(i) + "/profiler_config.json", config);
        return std::vector<std::string>{"lint", "--no-config", "--output-format", "sarif",
                                        "-o",   "/dev/null",   d.path().string()};
      },
      1, Stream::kErr, {"@run0/profiler_config.json: more than 1000 findings"}, 60);
  cases.back().address_space_limit = std::uint64_t{1000000} << 10;
  // merge: a partial whose shard_info says 2^31 - 1 shards allocated per shard (12 GB, running).
  hostile("MergeShardCountOfTwoBillion",
          [](const TempDir& d) {
            WriteRank(d);
            const fs::path out = d.path() / "shard";
            EXPECT_EQ(
                testing::RunOpmfu({"analyze", "-d", d.path().string(), "--shard", "0/1", "-o", out.string()}).exit_code,
                0);
            const fs::path partial = out / "opmfu_partial" / "shard_0_of_1.db";
            auto db = Database::OpenForWrite(partial);
            EXPECT_TRUE(db.ok() &&
                        db->Execute("UPDATE shard_info SET value = '2147483647' WHERE key = 'shard_count'").ok());
            return std::vector<std::string>{"merge", partial.string(), "-o", (d.path() / "merged").string()};
          },
          2, Stream::kErr, {"opmfu: error:", "shard_0_of_1.db: damaged shard partial: shard_count 2147483647"});

  return cases;
}

// Every input below `root`, as it is: regular files by content (and mode), symlinks by target,
// other kinds by type, never opened (a FIFO would block). What opmfu writes, in
// cluster_analysis_output/ and opmfu_partial/, is left out: inputs must come out exactly as they went in.
std::map<std::string, std::string> InputSnapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path relative = fs::relative(it->path(), root, ec);
    if (*relative.begin() == "cluster_analysis_output" || *relative.begin() == "opmfu_partial") {
      it.disable_recursion_pending();
      continue;
    }
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0) continue;
    std::string state = std::to_string(info.st_mode);
    if (S_ISREG(info.st_mode)) {
      state += ":" + std::to_string(std::hash<std::string>{}(testing::ReadFile(it->path())));
    } else if (S_ISLNK(info.st_mode)) {
      state += "->" + fs::read_symlink(it->path(), ec).string();
    }
    out[relative.string()] = state;
  }
  return out;
}

// gtest names a failing case by this rather than by the struct's bytes.
void PrintTo(const BadInput& input, std::ostream* out) { *out << input.name; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsWithItsCodeNamesFileAndCauseInOneLineInBoundedTime) {
  const BadInput& input = GetParam();
  TempDir dir;
  const std::vector<std::string> args = input.setup(dir);
  std::optional<testing::ImmutableDirectory> immutable;
  if (input.read_only_directory && ::geteuid() == 0) {
    immutable.emplace(dir.path() / *input.read_only_directory);
    if (!immutable->set()) GTEST_SKIP() << "root ignores permissions, and chattr +i is refused here";
  }
  if (input.unprivileged && ::geteuid() == 0 && !testing::CanDropRoot()) {
    GTEST_SKIP() << "root reads every directory, and setpriv is missing to run as nobody";
  }
  RunOptions options;
  options.timeout = std::chrono::seconds(input.max_seconds * 3);
  options.file_size_limit = input.file_size_limit;
  options.stdout_path = input.stdout_path;
  options.unprivileged = input.unprivileged;
  options.address_space_limit = input.address_space_limit;
  for (auto [name, value] : input.env) {
    if (const std::size_t at = value.find("{dir}"); at != std::string::npos) value.replace(at, 5, dir.path().string());
    options.env[name] = value;
  }
  if (input.stdin_path) options.stdin_path = *input.stdin_path;
  const auto before = InputSnapshot(dir.path());
  const auto result = RunOpmfuWith(args, options);
  EXPECT_EQ(InputSnapshot(dir.path()), before) << "an input changed, or something was created beside one";
  const std::string context = "exit " + std::to_string(result.exit_code) + "\n--- stdout\n" +
                              result.out.substr(0, 2000) + "\n--- stderr\n" + result.err.substr(0, 2000);
  ASSERT_FALSE(result.timed_out) << context;
  EXPECT_LE(result.seconds, input.max_seconds) << context;
  EXPECT_EQ(result.exit_code, input.exit_code) << context;
  for (const std::string& text : {result.out, result.err}) {
    EXPECT_EQ(text.find("internal error"), std::string::npos) << context;
    EXPECT_EQ(text.find("Sanitizer"), std::string::npos) << context;
  }
  const std::string& stream = input.stream == Stream::kErr ? result.err : result.out;
  bool named = false;
  for (const std::string& line : SplitLines(stream)) {
    named = named || std::all_of(input.line.begin(), input.line.end(), [&](const std::string& fragment) {
              return fragment.starts_with("@") ? stream.find(fragment.substr(1)) != std::string::npos
                                               : line.find(fragment) != std::string::npos;
            });
  }
  EXPECT_TRUE(named) << "no line has all of the expected fragments\n" << context;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputTest, ::testing::ValuesIn(Cases()),
                         [](const auto& param_info) { return param_info.param.name; });

// Whatever breaks rank 0, rank 1's rows are written exactly as when it is alone, the run exits 1,
// and the written file holds a result.
TEST(BadInputCorpus, AFailedRankLeavesTheHealthyRanksRowsUnchanged) {
  const auto operator_rows = [](const fs::path& db_path) {
    auto db = Database::OpenReadOnly(db_path);
    EXPECT_TRUE(db.ok()) << db_path;
    std::vector<std::string> rows;
    if (!db.ok()) return rows;
    auto statement = db->Prepare("SELECT * FROM OperatorMFU");
    EXPECT_TRUE(statement.ok());
    if (!statement.ok()) return rows;
    while (true) {
      auto more = statement->Step();
      if (!more.ok() || !*more) break;
      std::string row;
      for (int i = 0; i < sqlite3_column_count(statement->handle()); ++i) {
        row += (statement->IsNull(i) ? std::string("NULL") : std::string(statement->Text(i))) + "|";
      }
      rows.push_back(row);
    }
    return rows;
  };
  TempDir alone;
  WriteHealthyRankOne(alone);
  ASSERT_EQ(testing::RunOpmfu(Analyze(alone)).exit_code, 0);
  const auto expected = operator_rows(alone.path() / "cluster_analysis_output" / "cluster_analysis.db");
  ASSERT_EQ(expected.size(), 1U);
  for (const FailedRankCause& cause : FailedRankCauses()) {
    SCOPED_TRACE(cause.name);
    TempDir dir;
    WriteHealthyRankOne(dir);
    cause.break_rank_zero(dir);
    const auto result = testing::RunOpmfu(Analyze(dir));
    EXPECT_EQ(result.exit_code, 1) << result.err;
    std::size_t error_lines = 0;
    for (const std::string& line : SplitLines(result.err))
      error_lines += line.find("rank 0: error:") != std::string::npos;
    EXPECT_EQ(error_lines, 1U) << result.err;
    EXPECT_EQ(operator_rows(dir.path() / "cluster_analysis_output" / "cluster_analysis.db"), expected);
  }
}

// Every rank failed: never a 0-byte or table-less cluster_analysis.db, and "Wrote" only for a file
// with rows (a failed rank with Module ranges still has ModuleMFU rows, as upstream writes them).
TEST(BadInputCorpus, NothingEmptyWrittenWhenEveryRankFailed) {
  for (const FailedRankCause& cause : FailedRankCauses()) {
    SCOPED_TRACE(cause.name);
    TempDir dir;
    cause.break_rank_zero(dir);
    const auto result = testing::RunOpmfu(Analyze(dir));
    EXPECT_EQ(result.exit_code, 1) << result.err;
    const fs::path written = dir.path() / "cluster_analysis_output" / "cluster_analysis.db";
    if (!fs::exists(written)) {
      EXPECT_EQ(result.out.find("Wrote"), std::string::npos) << result.out;
      EXPECT_NE(result.out.find("Nothing written"), std::string::npos) << result.out;
      continue;
    }
    auto db = Database::OpenReadOnly(written);
    ASSERT_TRUE(db.ok());
    auto statement = db->Prepare("SELECT count(*) FROM ModuleMFU");
    ASSERT_TRUE(statement.ok()) << "a file was written without the table that has rows";
    ASSERT_TRUE(statement->Step().ok());
    EXPECT_GT(statement->Int64(0), 0);
  }
}

TEST(BadInputCorpus, HasAtLeastFortyCases) { EXPECT_GE(Cases().size(), 40U); }

}  // namespace
}  // namespace opmfu
