// `opmfu report`: every figure is recomputed here from the OperatorMFU rows `opmfu analyze`
// wrote for the same data, and the HTML is rendered in headless Chromium.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include "common/sqlite.h"
#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunOpmfu;
using testing::TempDir;

struct Row {
  std::int64_t rank;
  std::string op;
  std::string kernel;
  std::string shapes;
  std::int64_t duration;
  double mfu;
};

std::vector<Row> OperatorRows(const fs::path& cluster_db) {
  auto db = Database::OpenReadOnly(cluster_db);
  EXPECT_TRUE(db.ok());
  auto statement =
      db->Prepare("SELECT rank_id, op_name, kernel_name, input_shapes, \"kernel_duration(ns)\", mfu FROM OperatorMFU");
  EXPECT_TRUE(statement.ok());
  std::vector<Row> rows;
  while (*statement->Step()) {
    rows.push_back({statement->Int64(0), std::string(statement->Text(1)), std::string(statement->Text(2)),
                    std::string(statement->Text(3)), statement->Int64(4), statement->Double(5)});
  }
  return rows;
}

struct Expected {
  std::size_t count = 0;
  std::int64_t duration = 0;
  double mfu_time = 0;
  double lost = 0;
  double weighted() const { return mfu_time / static_cast<double>(duration); }
};

void Add(Expected& e, const Row& row) {
  ++e.count;
  e.duration += row.duration;
  e.mfu_time += row.mfu * static_cast<double>(row.duration);
  e.lost += static_cast<double>(row.duration) * (1 - std::clamp(row.mfu, 0.0, 1.0));
}

// A demo written and analysed once for the whole suite (the analysis is what the report must agree with).
class ReportOnDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;  // NOLINT(cppcoreguidelines-owning-memory): suite-lifetime fixture, deleted below
    demo_ = dir_->path() / "demo";
    ASSERT_EQ(RunOpmfu({"demo", demo_.string(), "--ranks", "2", "--steps", "2", "--layers", "3"}).exit_code, 0);
    ASSERT_EQ(RunOpmfu({"analyze", "-d", demo_.string()}).exit_code, 0);
  }
  static void TearDownTestSuite() {
    delete dir_;  // NOLINT(cppcoreguidelines-owning-memory)
    dir_ = nullptr;
  }
  static fs::path ClusterDb() { return demo_ / "cluster_analysis_output" / "cluster_analysis.db"; }
  static json Report(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"report", "-d", demo_.string(), "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
  }

  static TempDir* dir_;
  static fs::path demo_;
};
TempDir* ReportOnDemo::dir_ = nullptr;
fs::path ReportOnDemo::demo_;

TEST_F(ReportOnDemo, GroupFiguresAreTheOperatorMfuRowsAggregated) {
  const std::vector<Row> rows = OperatorRows(ClusterDb());
  ASSERT_FALSE(rows.empty());
  std::map<std::string, Expected> by_op;
  std::map<std::pair<std::string, std::string>, Expected> by_op_shape;
  Expected all;
  Expected compute;  // the demo's one auxiliary kernel type is TransData
  std::vector<Row> compute_rows;
  for (const Row& row : rows) {
    Add(by_op[row.op], row);
    Add(by_op_shape[{row.op, row.shapes}], row);
    Add(all, row);
    if (row.kernel != "TransData") {
      Add(compute, row);
      compute_rows.push_back(row);
    }
  }
  const json report = Report();
  EXPECT_EQ(report["summary"]["rows"], rows.size());
  EXPECT_EQ(report["summary"]["total_duration_ns"], all.duration);
  // The headline is the compute kernels'; upstream's figure over every row is beside it.
  EXPECT_NEAR(report["summary"]["weighted_mfu"].get<double>(), compute.weighted(), 1e-12);
  EXPECT_NEAR(report["summary"]["all_kernels_weighted_mfu"].get<double>(), all.weighted(), 1e-12);
  EXPECT_EQ(report["summary"]["compute_rows"], compute.count);
  EXPECT_NEAR(report["summary"]["lost_time_ns"].get<double>(), all.lost, 1e-3);

  ASSERT_EQ(report["by_op"].size(), by_op.size());
  for (const json& group : report["by_op"]) {
    const Expected& e = by_op.at(group["op_name"].get<std::string>());
    EXPECT_EQ(group["count"], e.count) << group["op_name"];
    EXPECT_EQ(group["total_duration_ns"], e.duration);
    EXPECT_NEAR(group["weighted_mfu"].get<double>(), e.weighted(), 1e-12);
    EXPECT_NEAR(group["lost_time_ns"].get<double>(), e.lost, 1e-3);
  }
  ASSERT_EQ(report["by_op_shape"].size(), by_op_shape.size());
  double previous = INFINITY;
  for (const json& group : report["by_op_shape"]) {
    const Expected& e = by_op_shape.at({group["op_name"], group["input_shapes"]});
    EXPECT_EQ(group["count"], e.count);
    EXPECT_NEAR(group["weighted_mfu"].get<double>(), e.weighted(), 1e-12);
    // Ranked by lost time, the biggest opportunity first.
    EXPECT_LE(group["lost_time_ns"].get<double>(), previous);
    previous = group["lost_time_ns"].get<double>();
  }

  // The lowest and highest kernels are the compute rows with the extreme MFU.
  const auto [low, high] = std::minmax_element(compute_rows.begin(), compute_rows.end(),
                                               [](const Row& a, const Row& b) { return a.mfu < b.mfu; });
  EXPECT_DOUBLE_EQ(report["lowest"][0]["mfu"].get<double>(), low->mfu);
  EXPECT_DOUBLE_EQ(report["highest"][0]["mfu"].get<double>(), high->mfu);
  EXPECT_EQ(report["lowest"].size(), 10U);

  // The cluster DB gives the same figures as the profiling directory.
  const auto from_db = RunOpmfu({"report", "--db", ClusterDb().string(), "--format", "json"});
  ASSERT_EQ(from_db.exit_code, 0) << from_db.err;
  const json db_report = json::parse(from_db.out);
  EXPECT_EQ(db_report["by_op"], report["by_op"]);
  EXPECT_EQ(db_report["summary"]["rows"], report["summary"]["rows"]);
  EXPECT_EQ(db_report["source"], "cluster_db");
  EXPECT_TRUE(db_report["ranks"][0]["coverage"].is_null());
}

TEST_F(ReportOnDemo, CoverageFindsTheUnmatchedRangesAndTheAuxiliaryKernels) {
  const json report = Report();
  ASSERT_EQ(report["ranks"].size(), 2U);
  for (const json& rank : report["ranks"]) {
    const json& coverage = rank["coverage"];
    ASSERT_TRUE(coverage.is_object());
    // The demo records one FLOPs range per step with no device kernel (2 steps).
    ASSERT_EQ(coverage["unmatched"].size(), 2U);
    EXPECT_EQ(coverage["unmatched"][0]["message"], "8388608-mm");
    EXPECT_EQ(coverage["flops_records"].get<int>() - coverage["matched_records"].get<int>(), 2);
    ASSERT_EQ(coverage["aux_kernels"].size(), 1U);
    EXPECT_EQ(coverage["aux_kernels"][0]["kernel_name"], "TransData");
    EXPECT_EQ(coverage["aux_kernels"][0]["count"], 6U);  // 3 layers x 2 steps
    EXPECT_GT(coverage["time_share"].get<double>(), 0.9);
    EXPECT_LE(coverage["time_share"].get<double>(), 1.0);
  }
  const std::string missing = report["missing"].dump();
  EXPECT_NE(missing.find("rank 1: 2 of"), std::string::npos) << missing;
  EXPECT_NE(missing.find("auxiliary kernels"), std::string::npos) << missing;

  // The headline is over the compute kernels: the TransData rows, at thousands of percent, are
  // reported beside it and kept out of the kernel lists, while upstream's tables keep them.
  const json& summary = report["summary"];
  EXPECT_EQ(summary["auxiliary"]["rows"], 12U);
  EXPECT_GT(summary["auxiliary"]["weighted_mfu"].get<double>(), 10.0);
  EXPECT_EQ(summary["compute_rows"].get<int>() + 12, summary["rows"].get<int>());
  EXPECT_LT(summary["weighted_mfu"].get<double>(), summary["all_kernels_weighted_mfu"].get<double>());
  EXPECT_LT(summary["weighted_mfu"].get<double>(), 1.0);
  for (const char* list : {"highest", "lowest"}) {
    EXPECT_EQ(report[list].dump().find("TransData"), std::string::npos) << list;
  }
  EXPECT_NE(report["by_op_shape"].dump().find("TransData"), std::string::npos);
  // The demo's chip, FP16 and (for its quantized matmuls) INT8 at twice it.
  ASSERT_EQ(summary["peak_tflops"].size(), 2U);
  EXPECT_GT(summary["peak_tflops"][0].get<double>(), 100.0);
  EXPECT_NEAR(summary["peak_tflops"][1].get<double>(), 2 * summary["peak_tflops"][0].get<double>(), 0.02);

  // --attribute compute leaves exactly the TransData rows out.
  const json compute = Report({"--attribute", "compute"});
  EXPECT_DOUBLE_EQ(compute["summary"]["weighted_mfu"].get<double>(), summary["weighted_mfu"].get<double>());
  EXPECT_EQ(compute["summary"]["excluded_aux_rows"], 12U);
  EXPECT_EQ(compute["summary"]["rows"].get<int>(), report["summary"]["rows"].get<int>() - 12);
  EXPECT_EQ(compute["by_op_shape"].dump().find("TransData"), std::string::npos);
}

TEST_F(ReportOnDemo, LowGroupsGetHintsFromTheirShapes) {
  const json report = Report();
  const json* router = nullptr;
  for (const json& group : report["by_op_shape"]) {
    if (group["input_shapes"] == "32768,4096;4096,8") router = &group;
  }
  ASSERT_NE(router, nullptr);
  EXPECT_EQ((*router)["band"], "far");
  const std::string hints = (*router)["hints"].dump();
  EXPECT_NE(hints.find("dimensions 8 are not multiples of 16"), std::string::npos) << hints;
  EXPECT_NE(hints.find("small M/N/K (smallest 8)"), std::string::npos) << hints;
  // TransData inherits a whole linear's FLOPs: thousands of percent, which no kernel reaches.
  bool transdata_seen = false;
  for (const json& group : report["by_op_shape"]) {
    if (group["kernels"] != json::array({"TransData"})) continue;
    transdata_seen = true;
    EXPECT_EQ(group["band"], "above-peak");
    EXPECT_GT(group["weighted_mfu"].get<double>(), 1.0);
    EXPECT_NE(group["hints"].dump().find("MFU above 100%"), std::string::npos) << group.dump();
    EXPECT_NE(group["hints"].dump().find("inherits the whole range's FLOPs"), std::string::npos) << group.dump();
  }
  EXPECT_TRUE(transdata_seen);
  for (const json& group : report["by_op_shape"]) {
    if (group["band"] == "typical" && group["kernels"].dump().find("TransData") == std::string::npos) {
      EXPECT_TRUE(group["hints"].empty()) << group.dump();
    }
  }
}

TEST_F(ReportOnDemo, TextAndMarkdownHaveEverySection) {
  for (const std::string format : {"text", "markdown"}) {
    const auto result = RunOpmfu({"report", "-d", demo_.string(), "--format", format});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    for (const char* section : {"Based on the operator-level MFU analysis", "Top opportunities", "By operator type",
                                "By input shape", "Lowest MFU kernels", "Highest MFU kernels", "Ranks and coverage",
                                "What is missing and why", "ascend_pytorch_profiler_1.db"}) {
      EXPECT_NE(result.out.find(section), std::string::npos) << format << ": " << section;
    }
  }
  const auto markdown = RunOpmfu({"report", "-d", demo_.string(), "--format", "markdown"});
  EXPECT_NE(markdown.out.find("## Top opportunities"), std::string::npos);
  EXPECT_NE(markdown.out.find("|---|"), std::string::npos);
}

std::optional<std::string> FindChromium() {
  for (const char* name : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(name)) return std::string(name);
  }
  return std::nullopt;
}

TEST_F(ReportOnDemo, HtmlIsSelfContainedAndItsChartsRenderInChromium) {
  TempDir out;
  const fs::path html = out.path() / "report.html";
  // Format from the suffix; an HBM figure so the roofline has both ceilings.
  const auto written = RunOpmfu({"report", "-d", demo_.string(), "-o", html.string(), "--hbm-tbps", "1.6"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  const std::string page = testing::ReadFile(html);
  ASSERT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
  // Nothing is fetched: no external script, style, image or font.
  EXPECT_FALSE(std::regex_search(page, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")));
  EXPECT_EQ(page.find("@import"), std::string::npos);
  for (const char* chart : {"op-mfu", "mfu-duration", "shape-lost", "rank-mfu", "roofline"}) {
    EXPECT_NE(page.find(std::string("data-chart=\"") + chart + "\""), std::string::npos) << chart;
  }
  // The derived section's text (in <pre>) leaves its tables to the HTML ones: no bare header row.
  const std::size_t derived = page.find("<h2 id=\"derived\">");
  ASSERT_NE(derived, std::string::npos);
  const std::string derived_text = page.substr(derived, page.find("</pre>", derived) - derived);
  EXPECT_EQ(derived_text.find("input shapes"), std::string::npos) << derived_text;
  EXPECT_NE(page.find("<th>input shapes</th>", derived), std::string::npos);

  const auto chromium = FindChromium();
  if (!chromium) {
    if (std::getenv("CI") != nullptr) FAIL() << "chromium is not installed; scripts/setup installs it";
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it)";
  }
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run "
      "--user-data-dir=" +
      (out.path() / "profile").string() + " ";
  const fs::path dom = out.path() / "dom.html";
  const fs::path png = out.path() / "report.png";
  const std::string render =
      *chromium + flags + "--dump-dom file://" + html.string() + " > " + dom.string() + " 2>/dev/null && " + *chromium +
      flags + "--window-size=1280,2400 --screenshot=" + png.string() + " file://" + html.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(render.c_str()), 0) << render;  // NOLINT(cert-env33-c): the test drives a browser
  // The page's own script writes each chart's drawn size and mark count once the SVG is laid out.
  const std::string rendered = testing::ReadFile(dom);
  const std::regex drawn(R"re(data-chart="([a-z-]+)"[^>]*data-drawn="(\d+)x(\d+):(\d+)")re");
  std::map<std::string, int> marks;
  for (auto it = std::sregex_iterator(rendered.begin(), rendered.end(), drawn); it != std::sregex_iterator(); ++it) {
    EXPECT_GT(std::stoi((*it)[2]), 100) << (*it)[1];
    EXPECT_GT(std::stoi((*it)[3]), 50) << (*it)[1];
    marks[(*it)[1]] = std::stoi((*it)[4]);
  }
  ASSERT_EQ(marks.size(), 5U) << rendered.substr(0, 2000);
  // The roofline: a dot per derived kernel signature with a known intensity (the demo's matmuls and
  // attention), under the compute ceiling drawn from info.json's peak and the bandwidth slope.
  EXPECT_GE(marks["roofline"], 6);
  EXPECT_NE(rendered.find("class=\"ceiling-compute\""), std::string::npos);
  EXPECT_NE(rendered.find("class=\"ceiling-bandwidth\""), std::string::npos);
  EXPECT_EQ(marks["rank-mfu"], 2);        // one bar per rank
  EXPECT_GT(marks["mfu-duration"], 100);  // a dot per kernel
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 20000U);  // a blank page is a few KB

  // The layout at the narrowest supported window and at a common one: no chart label reaches
  // outside its drawing (the browser would cut it), and the page never scrolls sideways.
  const std::regex clipped(R"re(data-chart="([a-z-]+)"[^>]*data-clipped-labels="(\d+)")re");
  const std::regex overflow(R"re(data-overflow-x="(\d+)")re");
  for (const int width : {1000, 1400}) {
    const fs::path at_width = out.path() / ("dom-" + std::to_string(width) + ".html");
    const std::string layout = *chromium + flags + "--window-size=" + std::to_string(width) +
                               ",2000 --dump-dom file://" + html.string() + " > " + at_width.string() + " 2>/dev/null";
    ASSERT_EQ(std::system(layout.c_str()), 0) << layout;  // NOLINT(cert-env33-c): the test drives a browser
    const std::string laid_out = testing::ReadFile(at_width);
    int charts = 0;
    for (auto it = std::sregex_iterator(laid_out.begin(), laid_out.end(), clipped); it != std::sregex_iterator();
         ++it, ++charts) {
      EXPECT_EQ((*it)[2], "0") << "a label of " << (*it)[1] << " is cut at " << width << " px";
    }
    EXPECT_EQ(charts, 5) << width;
    std::smatch scroll;
    ASSERT_TRUE(std::regex_search(laid_out, scroll, overflow)) << width;
    EXPECT_EQ(scroll[1], "0") << "the page is " << scroll[1] << " px wider than a " << width << " px window";
    // No figure in a table is broken over two lines ("531." / "59 ms").
    std::smatch broken;
    ASSERT_TRUE(std::regex_search(laid_out, broken, std::regex(R"re(data-broken-figures="(\d+)")re"))) << width;
    EXPECT_EQ(broken[1], "0") << broken[1] << " figures in tables break across lines at " << width << " px";
    EXPECT_GT(laid_out.find("<td class=\"n\">"), 0U);
  }
  // The headline is the compute kernels', with the chip's peak and its source in the page itself
  // (not only in a tooltip) and the auxiliary kernels beside it.
  EXPECT_TRUE(std::regex_search(
      rendered, std::regex(R"re(<p id="peak">Chip peak: <b>[0-9.]+ TFLOPS[^<]*</b>, from each rank's device_)re")))
      << rendered.substr(0, 3000);
  EXPECT_NE(rendered.find("Time-weighted MFU of the compute kernels: <b>"), std::string::npos);
  // The charts over every row say so beside the compute-kernel headline.
  EXPECT_NE(rendered.find("<figcaption>Time-weighted MFU per rank (every OperatorMFU row"), std::string::npos);
  EXPECT_NE(rendered.find("auxiliary kernels such as TransData included"), std::string::npos);
  EXPECT_NE(rendered.find("<p id=\"auxiliary\">Beside it, auxiliary kernels (TransData"), std::string::npos);
}

TEST(Report, FailedRanksAreListedAndTheExitCodeSaysIncomplete) {
  TempDir dir;
  ASSERT_EQ(RunOpmfu({"demo", (dir.path() / "d").string(), "--ranks", "2", "--steps", "1", "--layers", "1"}).exit_code,
            0);
  // Break rank 1's database.
  for (const auto& entry : fs::recursive_directory_iterator(dir.path() / "d")) {
    if (entry.path().filename() == "ascend_pytorch_profiler_1.db") {
      fs::resize_file(entry.path(), 1000);
    }
  }
  const auto result = RunOpmfu({"report", "-d", (dir.path() / "d").string()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find("rank 1: failed, so it is in no figure"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("over 2 rank(s)"), std::string::npos);
}

TEST(Report, NamesWhatItCannotRead) {
  TempDir dir;
  const auto neither = RunOpmfu({"report"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("-d PROFILING_DIR or --db"), std::string::npos) << neither.err;
  const auto both = RunOpmfu({"report", "-d", dir.path().string(), "--db", "x.db"});
  EXPECT_EQ(both.exit_code, 2);

  engine::ProfilingDbBuilder rank_db;  // a rank DB is not a cluster DB
  ASSERT_TRUE(rank_db.Write(dir.path() / "rank.db").ok());
  const auto wrong = RunOpmfu({"report", "--db", (dir.path() / "rank.db").string()});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("rank.db: no OperatorMFU table"), std::string::npos) << wrong.err;

  const auto garbage = RunOpmfu({"report", "--db", dir.Write("junk.db", std::string(4096, 'x')).string()});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("junk.db"), std::string::npos) << garbage.err;
  EXPECT_TRUE(garbage.out.empty());
}

TEST(Report, SaysWhyThereAreNoRows) {
  TempDir dir;
  engine::ProfilingDbBuilder db;
  const std::int64_t op = db.AddOp("aten::mm", 1000, 2000);
  engine::ProfilingDbBuilder::Kernel kernel;
  kernel.name = "MatMulV2";
  kernel.start = 1500;
  kernel.end = 2500;
  kernel.input_types = "FLOAT16";
  db.AddKernel({op}, kernel);  // no mfu_flops range: with_flops was off
  const fs::path rank = dir.path() / "worker_0_20250101000000000_ascend_pt";
  ASSERT_TRUE(db.Write(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(rank, 0, "20", "\"1800\"").ok());
  const auto result = RunOpmfu({"report", "-d", dir.path().string()});
  // No FLOPs records is a failed rank: exit 1, its cause on stderr and in the report.
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("rank 0: error: "), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("no FLOPs records: MSTX_EVENTS has no event in the mfu_flops domain"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("no OperatorMFU rows at all"), std::string::npos);
}

}  // namespace
}  // namespace opmfu
