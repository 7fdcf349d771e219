// The Text export end to end: `opmfu demo --export-type both` writes one synthetic run as both
// exports, and every table the analysis writes from the Text export equals the one from the DB,
// row for row and value for value. Then the commands that take -d, on a Text export.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mcp/tools.h"
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
  EXPECT_NE(check.out.find("export: Text (kernel_details.csv, trace_view.json, operator_details.csv)"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("derived MFU: possible"), std::string::npos) << check.out;
  // The recorded _export_type says what MFU needs of it now: either export.
  EXPECT_NE(check.out.find("_export_type: [db, text]   [MFU needs: db or text"), std::string::npos) << check.out;
}

// `report -d ROOT --chip Ascend910B2 --format json`, parsed (an empty object, and a failure, when
// it is not JSON).
nlohmann::json DerivedReportJson(const std::string& root) {
  const auto run = RunOpmfu({"report", "-d", root, "--chip", "Ascend910B2", "--format", "json"});
  auto report = nlohmann::json::parse(run.out, nullptr, false);
  if (report.is_discarded()) {
    ADD_FAILURE() << run.err << run.out;
    return nlohmann::json::object();
  }
  return report;
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

// HFU beside MFU (issue 42 item 5): kernel_details.csv's counters per kernel group, each with its
// basis, a group whose counted FLOPs are 10x the derived ones flagged, and the peak at the clock
// the trace measured beside the nominal one.
TEST(TextExportCli, ReportShowsHfuFromTheCountersAndThePeakAtTheMeasuredClock) {
  TempDir dir;
  const std::string header =
      "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes,Input Data Types,"
      "Input Formats,Output Shapes,Output Data Types,Output Formats,aic_mac_ratio,aic_cube_fops\n";
  // name, type, start, duration, shapes, outputs, mac ratio, cube fops
  const auto row = [](const std::string& name, const std::string& start, const std::string& duration,
                      const std::string& shapes, const std::string& outputs, const std::string& ratio,
                      const std::string& fops) {
    return "1,2," + name + ",MatMulV2,AI_CORE," + start + "\t," + duration + ",\"\"\"" + shapes +
           "\"\"\",FLOAT16;FLOAT16,FORMAT_ND;FORMAT_ND,\"\"\"" + outputs + "\"\"\",FLOAT16,FORMAT_ND," + ratio + "," +
           fops + "\n";
  };
  // Group A: 2*32*64*16 = 65536 FLOPs each, counted as such; busy 0.5 for 2 us, 0.7 for 6 us.
  // Group B: 2*64*64*64 = 524288 FLOPs derived, 10x counted; one kernel without counters (N/A).
  const std::string csv = header + row("MatMulA", "1000.000", "2.000", "32,64;64,16", "32,16", "0.5", "65536") +
                          row("MatMulA", "1010.000", "6.000", "32,64;64,16", "32,16", "0.7", "65536") +
                          row("MatMulB", "1020.000", "4.000", "64,64;64,64", "64,64", "0.9", "5242880") +
                          row("MatMulB", "1030.000", "4.000", "64,64;64,64", "64,64", "N/A", "N/A");
  dir.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  dir.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
            R"([{"ph": "M", "name": "process_name", "pid": 5, "tid": 0, "args": {"name": "AI Core Freq"}},
{"name": "AI Core Freq", "ph": "C", "pid": 5, "tid": 0, "ts": "1.000", "args": {"MHz": 1650}},
{"name": "AI Core Freq", "ph": "C", "pid": 5, "tid": 0, "ts": "2.000", "args": {"MHz": 1500}},
{"name": "AI Core Freq", "ph": "C", "pid": 5, "tid": 0, "ts": "3.000", "args": {"MHz": 1600}}])");
  dir.Write("r_ascend_pt/profiler_info_0.json",
            R"({"config": {"common_config": {"with_flops": false}, "experimental_config": {"_profiler_level": )"
            R"("Level1", "_export_type": "text", "_aic_metrics": "PipeUtilization"}}, "rank_id": 0})");
  const std::string root = dir.path().string();
  const auto report = DerivedReportJson(root);
  ASSERT_TRUE(report.contains("derived"));
  const auto& derived = report.at("derived");
  const double peak = derived.at("peak_fp16_flops").get<double>();
  ASSERT_GT(peak, 0);
  EXPECT_EQ(derived.at("hfu_counters"),
            nlohmann::json::array({"aic_mac_ratio (PipeUtilization)", "aic_cube_fops (ArithmeticUtilization)"}));
  EXPECT_EQ(derived.at("measured_aicore_mhz").get<double>(), 1600);  // the median of the samples
  EXPECT_DOUBLE_EQ(derived.at("peak_fp16_flops_at_measured_clock").get<double>(), peak * 1600 / 1800);
  std::map<std::string, nlohmann::json> groups;
  for (const auto& group : derived.at("groups")) groups[group.at("kernel_name").get<std::string>()] = group;
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_NEAR(groups["MatMulA"].at("hfu_mac_ratio").get<double>(), (0.5 * 2 + 0.7 * 6) / 8, 1e-12);
  EXPECT_NEAR(groups["MatMulA"].at("hfu_cube_fops").get<double>(), 2 * 65536 / (8e-6 * peak), 1e-12);
  EXPECT_NEAR(groups["MatMulA"].at("hfu_cube_fops").get<double>(), groups["MatMulA"].at("mfu").get<double>(), 1e-12);
  // B: only the kernel with counters counts, over its own time.
  EXPECT_NEAR(groups["MatMulB"].at("hfu_mac_ratio").get<double>(), 0.9, 1e-12);
  EXPECT_NEAR(groups["MatMulB"].at("hfu_cube_fops").get<double>(), 5242880 / (4e-6 * peak), 1e-12);

  const auto text = RunOpmfu({"report", "-d", root, "--chip", "Ascend910B2"});
  EXPECT_NE(text.out.find("HFU (mac): hardware counter aic_mac_ratio (aic_metrics=PipeUtilization)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("HFU (fops): hardware counter aic_cube_fops (aic_metrics=ArithmeticUtilization)"),
            std::string::npos);
  EXPECT_NE(text.out.find("1 kernel groups (! in the table) have HFU and MFU more than 2x apart"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("1600 MHz against 1800 MHz nominal"), std::string::npos) << text.out;
  // The flag is on B's row only.
  const auto line_of = [&](const std::string& kernel) {
    const std::size_t at = text.out.find(kernel + " MatMulV2");
    return at == std::string::npos ? std::string() : text.out.substr(at, text.out.find('\n', at) - at);
  };
  EXPECT_NE(line_of("MatMulB").find(" !"), std::string::npos) << text.out;
  EXPECT_EQ(line_of("MatMulA").find(" !"), std::string::npos) << text.out;
}

// operator_details.csv's framework ops beside the derived kernels: leaf ops only (aten::linear's
// time is its aten::addmm's), logical shapes, a forward convolution's output from the backward of
// the same input and weight, and each op's MFU from its FLOPs, calls and device time.
TEST(TextExportCli, ReportShowsTheLeafFrameworkOpsOfOperatorDetails) {
  TempDir dir;
  dir.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes,Input Data Types,"
            "Input Formats,Output Shapes,Output Data Types,Output Formats\n"
            "1,MatMul,MatMulV2,AI_CORE,1000.000\t,10.000,\"\"\"32,64;64,16\"\"\",FLOAT16;FLOAT16,ND;ND,"
            "\"\"\"32,16\"\"\",FLOAT16,ND\n");
  // As torch_npu writes it: a line break after each ';' of a shape list, quoted; a call stack.
  const std::string header =
      "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self Duration(us),"
      "Device Total Duration(us),Device Self Duration With AICore(us),Device Total Duration With AICore(us)\n";
  const auto row = [](const std::string& name, const std::string& shapes, const std::string& device_total) {
    std::string broken;
    for (char c : shapes) broken += c == ';' ? std::string(";\n") : std::string(1, c);
    return name + ",\"" + broken + "\",\"a.py(1): f;\nb.py(2): g\",1,2,0," + device_total + ",0,0\n";
  };
  dir.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_details.csv",
            header + row("aten::linear", "32,1024;4096,1024;4096", "100.000") +
                row("aten::addmm", "4096;32,1024;1024,4096;;", "100.000") +
                row("aten::addmm", "4096;32,1024;1024,4096;;", "60.000") +
                row("aten::conv2d", "8,3,32,32;16,3,3,3;16;;;", "40.000") +
                row("aten::convolution", "8,3,32,32;16,3,3,3;16;;;;;", "40.000") +
                row("aten::convolution_backward", "8,16,16,16;8,3,32,32;16,3,3,3;;;;;;;", "70.000") +
                row("aten::mul", "4096;", "5.000"));
  dir.Write("r_ascend_pt/profiler_info_0.json",
            R"({"config": {"common_config": {"with_flops": false}, "experimental_config": {"_profiler_level": )"
            R"("Level1", "_export_type": "text"}}, "rank_id": 0})");
  const std::string root = dir.path().string();
  const auto report = DerivedReportJson(root);
  ASSERT_TRUE(report.contains("derived"));
  const auto& derived = report.at("derived");
  const double peak = derived.at("peak_fp16_flops").get<double>();
  ASSERT_GT(peak, 0);
  const auto& view = derived.at("framework_ops");
  EXPECT_EQ(view.at("ranks_read"), 1);
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : view.at("ops")) ops[op.at("name").get<std::string>()] = op;
  // aten::linear and aten::conv2d are left out: their time is that of the op below them.
  ASSERT_EQ(ops.size(), 3U) << view.dump(1);
  const auto& addmm = ops["aten::addmm"];
  EXPECT_EQ(addmm.at("input_shapes"), "4096;32,1024;1024,4096;;");
  EXPECT_EQ(addmm.at("calls"), 2);
  EXPECT_EQ(addmm.at("device_time_ns"), 160000);
  EXPECT_EQ(addmm.at("flops").get<double>(), 2.0 * 32 * 1024 * 4096);
  EXPECT_NEAR(addmm.at("mfu").get<double>(), 2 * 2.0 * 32 * 1024 * 4096 / peak / 160e-6, 1e-12);
  // Output 8,16,16,16 from the backward's gradient: 2 * N*Cout*H*W * Cin*kh*kw, the model's 3 channels.
  const auto& convolution = ops["aten::convolution"];
  EXPECT_EQ(convolution.at("flops").get<double>(), 2.0 * 8 * 16 * 16 * 16 * 3 * 3 * 3) << convolution.dump();
  EXPECT_NE(convolution.at("formula").get<std::string>().find("the backward's gradient"), std::string::npos);
  EXPECT_TRUE(ops["aten::convolution_backward"].at("flops").is_null());
  EXPECT_NE(ops["aten::convolution_backward"].at("skip_reason").get<std::string>().find("which gradients"),
            std::string::npos);
  EXPECT_EQ(view.at("device_time_ns"), 160000 + 40000 + 70000);
  EXPECT_EQ(view.at("derived_time_ns"), 160000 + 40000);
  const auto notes = view.at("notes").dump();
  EXPECT_NE(notes.find("aten::linear: 1 calls left out"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no dtypes"), std::string::npos) << notes;

  const auto text = RunOpmfu({"report", "-d", root, "--chip", "Ascend910B2"});
  EXPECT_NE(text.out.find("Framework ops: framework ops from operator_details.csv: logical input shapes"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("aten::addmm"), std::string::npos) << text.out;

  // Without the file the section is absent; with a broken one the rank's note names file and line.
  dir.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_details.csv", header + row("aten::mm", "2,2;2,2", "NaN"));
  const auto broken = nlohmann::json::parse(
      RunOpmfu({"report", "-d", root, "--chip", "Ascend910B2", "--format", "json"}).out, nullptr, false);
  ASSERT_FALSE(broken.is_discarded());
  EXPECT_NE(broken.at("derived")
                .at("framework_ops")
                .at("notes")
                .dump()
                .find("operator_details.csv:2: 'Device Total "
                      "Duration(us)' is 'NaN'"),
            std::string::npos)
      << broken.at("derived").dump(1);
  fs::remove(dir.path() / "r_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_details.csv");
  const auto without = nlohmann::json::parse(
      RunOpmfu({"report", "-d", root, "--chip", "Ascend910B2", "--format", "json"}).out, nullptr, false);
  ASSERT_FALSE(without.is_discarded());
  EXPECT_FALSE(without.at("derived").contains("framework_ops"));
}

// Without counter columns (or with only zeros, a run that did not collect them) the table is as
// before: no HFU column.
// The demo's operator_details.csv holds what torch records: each aten::linear with the aten::t and
// aten::mm it runs. The framework-op view sums the leaf mm calls only, its FLOPs are 2*M*K*N of each
// call's own shapes, and in total they equal the derived FLOPs of the MatMul kernels the same calls
// launched (read from kernel_details.csv's shapes): two ways to one figure.
TEST_F(TextExportDemo, FrameworkOpsFromOperatorDetailsAgreeWithTheKernelShapes) {
  const auto report = RunOpmfu({"report", "-d", Demo().string(), "--source", "text", "--format", "json"});
  ASSERT_LE(report.exit_code, 1) << report.err;
  const auto document = nlohmann::json::parse(report.out);
  const auto& view = document.at("derived").at("framework_ops");
  EXPECT_EQ(view.at("ranks_read"), 2);
  const auto notes = view.at("notes").dump();
  EXPECT_NE(notes.find("aten::linear: "), std::string::npos) << notes;
  EXPECT_NE(notes.find("calls left out"), std::string::npos) << notes;
  double framework_flops = 0;
  std::size_t framework_calls = 0;
  for (const auto& op : view.at("ops")) {
    EXPECT_EQ(op.at("name"), "aten::mm") << op.dump();  // linear is the composite, t has no kernel
    const std::string shapes = op.at("input_shapes");
    long long m = 0, k = 0, k2 = 0, n = 0;
    ASSERT_EQ(std::sscanf(shapes.c_str(), "%lld,%lld;%lld,%lld", &m, &k, &k2, &n), 4) << shapes;
    ASSERT_EQ(k, k2) << shapes;
    EXPECT_DOUBLE_EQ(op.at("flops").get<double>(), 2.0 * m * k * n) << shapes;
    framework_flops += op.at("flops").get<double>() * op.at("calls").get<double>();
    framework_calls += op.at("calls").get<std::size_t>();
  }
  double kernel_flops = 0;
  std::size_t kernels = 0;
  for (const auto& group : document.at("derived").at("groups")) {
    const std::string type = group.at("op_type");
    if (type != "MatMulV2" && type != "MatMulV3") continue;
    kernel_flops += group.at("flops").get<double>() * group.at("count").get<double>();
    kernels += group.at("count").get<std::size_t>();
  }
  EXPECT_GT(framework_calls, 10U);
  EXPECT_EQ(framework_calls, kernels);
  EXPECT_DOUBLE_EQ(framework_flops, kernel_flops);
}

TEST_F(TextExportDemo, NoHfuColumnWhereTheCountersWereNotCollected) {
  const auto text = RunOpmfu({"report", "-d", Demo().string(), "--source", "text", "--chip", "Ascend910B2"});
  EXPECT_EQ(text.out.find("HFU"), std::string::npos) << text.out;
}

// `diff --source text` reads the Text export of a rank directory that holds both: a Text export
// broken on purpose fails its rank there, while the default (the Db) compares cleanly.
TEST(TextExportCli, DiffReadsTheExportThatSourceNames) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--export-type", "both", "--ranks", "1", "--steps", "1"}).exit_code, 0);
  fs::path csv;
  for (const auto& entry : fs::recursive_directory_iterator(demo)) {
    if (entry.path().filename() == "kernel_details.csv") csv = entry.path();
  }
  ASSERT_FALSE(csv.empty());
  std::error_code ec;
  fs::permissions(csv, fs::perms::owner_write, fs::perm_options::add, ec);
  dir.Write(csv.lexically_relative(dir.path()).string(), testing::ReadFile(csv) + "50,1\n");
  const auto from_db = RunOpmfu({"diff", demo.string(), demo.string()});
  EXPECT_EQ(from_db.exit_code, 0) << from_db.err;
  const auto from_text = RunOpmfu({"diff", demo.string(), demo.string(), "--source", "text"});
  EXPECT_EQ(from_text.exit_code, 1) << from_text.err;
  EXPECT_NE(from_text.err.find("kernel_details.csv:"), std::string::npos) << from_text.err;
  EXPECT_NE(from_text.err.find("left out of the base"), std::string::npos) << from_text.err;
}

// The MCP tools that read a run take `source` and pass it on as --source; its schema allows only
// db and text.
TEST(TextExportCli, McpToolsThatReadARunTakeSource) {
  TempDir dir;
  mcp::Roots roots{{dir.path()}};
  for (const char* name : {"check_db", "analyze", "report", "audit", "gate"}) {
    const mcp::ToolDefinition* tool = mcp::FindTool(name);
    ASSERT_NE(tool, nullptr) << name;
    const auto listing = mcp::ToolListing(*tool);
    EXPECT_EQ(listing["inputSchema"]["properties"]["source"]["enum"], nlohmann::json::array({"db", "text"})) << name;
    auto command = mcp::BuildCommandLine(*tool, {{"profiling_path", dir.path().string()}, {"source", "text"}}, roots);
    ASSERT_TRUE(command.ok()) << name << ": " << command.error().message;
    // Every value goes as --flag=VALUE.
    EXPECT_NE(std::find(command->begin(), command->end(), "--source=text"), command->end()) << name;
  }
}

}  // namespace
}  // namespace opmfu
