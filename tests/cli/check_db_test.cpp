// `opmfu check-db`: one verdict per cause of an empty OperatorMFU.

#include <gtest/gtest.h>

#include <functional>

#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

struct Scenario {
  const char* name;
  std::function<void(engine::ProfilingDbBuilder&)> build;
  bool info_json = true;
  int exit_code;
  std::string verdict;
};

class CheckDb : public ::testing::TestWithParam<Scenario> {};

TEST_P(CheckDb, GivesTheVerdict) {
  TempDir dir;
  const fs::path rank = dir.path() / "worker_0_20250101000000000_ascend_pt";
  engine::ProfilingDbBuilder db;
  GetParam().build(db);
  ASSERT_TRUE(db.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  if (GetParam().info_json) {
    ASSERT_TRUE(engine::WriteDeviceInfo(rank, 0, "20", "\"1800\"").ok());
  }
  const auto result = RunOpmfu({"check-db", "-d", dir.path().string()});
  EXPECT_EQ(result.exit_code, GetParam().exit_code) << result.out << result.err;
  EXPECT_NE(result.out.find("verdict: " + GetParam().verdict), std::string::npos) << result.out;
}

// An op with a kernel and (optionally) a FLOPs range: the healthy baseline to break.
void Baseline(engine::ProfilingDbBuilder& db, const char* message = "1000000000-aten::mm",
              std::optional<std::string> shapes = "\"16,16\"", const char* types = "FLOAT16") {
  const std::int64_t op = db.AddOp("aten::mm", 1000, 2000);
  engine::ProfilingDbBuilder::Kernel kernel;
  kernel.name = "MatMulV2";
  kernel.start = 1500;
  kernel.end = 2500;
  kernel.input_shapes = shapes;
  kernel.input_types = types;
  db.AddKernel({op}, kernel);
  if (message != nullptr) db.AddMstx("mfu_flops", message, 900, 2100);
}

INSTANTIATE_TEST_SUITE_P(
    Verdicts, CheckDb,
    ::testing::Values(
        Scenario{"healthy_with_modules",
                 [](auto& db) {
                   Baseline(db);
                   db.AddMstx("Module", "Net", 0, 10000);
                 },
                 true, 0, "can produce MFU: 1 OperatorMFU rows, 1 ModuleMFU rows"},
        Scenario{"healthy_without_modules", [](auto& db) { Baseline(db); }, true, 0,
                 "can produce MFU: 1 OperatorMFU rows; no Module ranges, so no ModuleMFU"},
        Scenario{"no_flops", [](auto& db) { Baseline(db, nullptr); }, true, 1,
                 "no FLOPs records (no mfu_flops MSTX events): a collection-config problem"},
        Scenario{"no_mstx_table",
                 [](auto& db) {
                   Baseline(db);
                   db.OmitTable("MSTX_EVENTS");
                 },
                 true, 1, "no MSTX_EVENTS table, so no FLOPs records: a collection-config problem"},
        Scenario{"malformed", [](auto& db) { Baseline(db, "1.5e9-aten::mm"); }, true, 1,
                 "every FLOPs record is malformed"},
        Scenario{"no_framework_ops",
                 [](auto& db) {
                   Baseline(db);
                   db.OmitTable("PYTORCH_API");
                 },
                 true, 1, "no framework ops (PYTORCH_API is missing or empty): the CPU activity was off"},
        Scenario{"no_links",
                 [](auto& db) {
                   Baseline(db);
                   db.OmitTable("CONNECTION_IDS");
                 },
                 true, 1, "no framework op is linked to a compute kernel"},
        Scenario{"shapes_not_available", [](auto& db) { Baseline(db, "1000000000-aten::mm", "N/A"); }, true, 1,
                 "every compute kernel has N/A shapes"},
        Scenario{"no_info_json", [](auto& db) { Baseline(db); }, false, 1, "no device_*/info.json.* under the rank"},
        Scenario{"unsupported_dtype", [](auto& db) { Baseline(db, "1000000000-aten::mm", "\"16,16\"", "INT32"); }, true,
                 1, "the analysis fails: Not supported data type: INT32"},
        Scenario{"op_outside_ranges",
                 [](auto& db) {
                   Baseline(db, nullptr);
                   db.AddMstx("mfu_flops", "1000000000-aten::mm", 5000, 6000);
                 },
                 true, 1, "no kernel matched any of the 1 valid FLOPs records: 1 with no framework op"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(CheckDbFile, ReportsAnUnreadableDatabase) {
  TempDir dir;
  dir.Write("w_1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_3.db", "garbage, not sqlite");
  const auto result = RunOpmfu({"check-db", "-d", dir.path().string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("rank 3: "), std::string::npos);
  EXPECT_NE(result.out.find("verdict: the database cannot be read: "), std::string::npos);
  EXPECT_NE(result.out.find("file is not a database"), std::string::npos);
}

}  // namespace
}  // namespace opmfu
