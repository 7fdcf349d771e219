// The Text export end to end: `opmfu demo --export-type both` writes one synthetic run as both
// exports, and every table the analysis writes from the Text export equals the one from the DB,
// row for row and value for value. Then the commands that take -d, on a Text export.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

class TextExportDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = new TempDir();
    const auto demo = RunOpmfu({"demo", (directory_->path() / "demo").string(), "--export-type", "both", "--ranks", "2",
                                "--steps", "2", "--layers", "3"});
    ASSERT_EQ(demo.exit_code, 0) << demo.err;
  }
  static void TearDownTestSuite() {
    delete directory_;
    directory_ = nullptr;
  }
  static fs::path Demo() { return directory_->path() / "demo"; }
  static fs::path Dir() { return directory_->path(); }

  static TempDir* directory_;
};
TempDir* TextExportDemo::directory_ = nullptr;

TEST_F(TextExportDemo, BothExportsGiveEqualOperatorModuleAndDerivedTables) {
  for (const char* source : {"db", "text"}) {
    const auto result = RunOpmfu(
        {"analyze", "-d", Demo().string(), "-o", (Dir() / source).string(), "--source", source, "--derived", "-v"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string said = std::string("read the ") + (std::string(source) == "db" ? "Db" : "Text") + " export";
    EXPECT_NE(result.err.find(said), std::string::npos) << result.err;
  }
  for (const char* table : {"OperatorMFU", "ModuleMFU", "DerivedMFU"}) {
    // The declared schema first, then every value with its SQL type (1 and 1.0 differ).
    const auto from_db = testing::TableRows(Dir() / "db" / "cluster_analysis_output" / "cluster_analysis.db", table);
    const auto from_text =
        testing::TableRows(Dir() / "text" / "cluster_analysis_output" / "cluster_analysis.db", table);
    EXPECT_GT(from_db.size(), 10U) << table;
    ASSERT_EQ(from_db.size(), from_text.size()) << table;
    for (std::size_t i = 0; i < from_db.size(); ++i) {
      ASSERT_EQ(from_db[i], from_text[i]) << table << " row " << i;
    }
  }
}

TEST_F(TextExportDemo, EveryCommandOnProfilingDataReadsTheTextExport) {
  const std::string demo = Demo().string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"report", "-d", demo, "--source", "text"},
           {"check-db", "-d", demo, "--source", "text"},
           {"audit", "-d", demo, "--source", "text"},
           {"gate", "-d", demo, "--source", "text", "--min-mfu", "0"},
       }) {
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, 0) << args[0] << ": " << result.err << result.out;
  }
  const auto check = RunOpmfu({"check-db", "-d", demo, "--source", "text"});
  EXPECT_NE(check.out.find("export: Text (kernel_details.csv, trace_view.json)"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("derived MFU: possible"), std::string::npos) << check.out;
}

TEST(TextExportCli, CheckDbOnATextExportWithoutWithFlopsExitsOneNamingIt) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--export-type", "text", "--ranks", "1", "--steps", "1"}).exit_code, 0);
  fs::path rank;
  for (const auto& entry : fs::directory_iterator(demo)) {
    if (entry.path().filename().string().ends_with("_ascend_pt")) rank = entry.path();
  }
  ASSERT_FALSE(rank.empty());
  // The run as vllm-ascend profiles it: with_flops off, so no FLOPs records in the trace.
  dir.Write((rank / "profiler_info_0.json").lexically_relative(dir.path()).string(),
            R"({"config": {"common_config": {"with_flops": false}, "experimental_config": {"_profiler_level": )"
            R"("Level1", "_export_type": "text", "_msprof_tx": false}}, "rank_id": 0})");
  const fs::path trace = rank / "ASCEND_PROFILER_OUTPUT" / "trace_view.json";
  std::string text = testing::ReadFile(trace);
  for (std::size_t at; (at = text.find("\"mfu_flops\"")) != std::string::npos;) text.replace(at, 11, "\"other\"");
  std::error_code ec;
  fs::permissions(trace, fs::perms::owner_write, fs::perm_options::add, ec);
  dir.Write(trace.lexically_relative(dir.path()).string(), text);
  const auto check = RunOpmfu({"check-db", "-d", demo.string()});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("with_flops=false"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("derived MFU works now"), std::string::npos) << check.out;
  // The derived section still works on it.
  const auto report = RunOpmfu({"report", "-d", demo.string(), "--chip", "Ascend910B2", "--format", "json"});
  EXPECT_NE(report.out.find("\"derived\""), std::string::npos) << report.err;
}

}  // namespace
}  // namespace opmfu
