// The Text export readers (engine/text_export.h, engine/csv_reader.h) on files written here in the
// layout torch_npu writes: kernel_details.csv's quoting and number formats, trace_view.json's
// events, and the one-line errors for bad input.

#include <gtest/gtest.h>

#include <fstream>

#include "engine/analyze.h"
#include "engine/csv_reader.h"
#include "engine/discovery.h"
#include "engine/profiling_db_builder.h"
#include "engine/text_export.h"
#include "tests/test_support.h"

namespace opmfu::engine {
namespace {

namespace fs = std::filesystem;
using opmfu::testing::TempDir;

// A Level1 header as CANN writes it (trimmed to the columns the readers look at, plus one unknown).
const char* const kLevel1Header =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
    "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,"
    "Output Shapes,Output Data Types,Output Formats,Context ID,aic_mac_ratio,Some Future Column\r\n";

std::string KernelRow(const std::string& name, const std::string& type, const std::string& start,
                      const std::string& duration, const std::string& shapes, const std::string& outputs,
                      const std::string& core = "AI_CORE") {
  return "50,4294967295,11053,2," + name + "," + type + ",dynamic," + core + "," + start + "\t," + duration +
         ",0,24,0,NO,\"\"\"" + shapes + "\"\"\",FLOAT16;FLOAT16,FORMAT_ND;FORMAT_ND,\"\"\"" + outputs +
         "\"\"\",FLOAT16,FORMAT_ND,N/A,0.5,x\r\n";
}

// One op launching one matmul kernel, with its FLOPs range: the smallest run that gives a row.
std::string Trace(const std::string& mstx_domain = "mfu_flops") {
  return R"([{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Python"}},
{"ph": "X", "name": "aten::mm", "pid": 7, "tid": 7, "ts": "1736408883704600.100", "dur": 12.5, "cat": "cpu_op",
 "args": {"Call stack": "a;\r\nb", "Input Dims": "[[32, 64], [64, 16]]"}},
{"ph": "X", "name": "1048576-mm", "pid": 7, "tid": 7, "ts": "1736408883704600.000", "dur": 20,
 "args": {"event_type": "start/end", "domain": ")" +
         mstx_domain + R"("}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1736408883704643212, "pid": 7, "tid": 7,
 "ts": "1736408883704600.100", "cat": "async_npu"},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1736408883704643212, "pid": 99, "tid": 2,
 "ts": "1736408883704643.212", "cat": "async_npu"},
{"name": "process_name", "pid": 99, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},
{"name": "MatMulV2_1", "pid": 99, "tid": 2, "ts": "1736408883704643.212", "dur": 2.000125, "ph": "X",
 "args": {"Task Type": "AI_CORE", "connection_id": 5}},
{"name": "AI Core Freq", "ts": "1736408883573887.920", "pid": 98, "tid": 0, "args": {"MHz": 1800}, "ph": "C"}
])";
}

fs::path WriteRank(const TempDir& dir, const std::string& rank_dir, const std::string& csv, const std::string& trace) {
  dir.Write(rank_dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  if (!trace.empty()) dir.Write(rank_dir + "/ASCEND_PROFILER_OUTPUT/trace_view.json", trace);
  dir.Write(rank_dir + "/profiler_info_0.json",
            R"({"config": {"common_config": {"with_flops": true}, "experimental_config": {"_profiler_level": )"
            R"("Level1", "_export_type": "text", "_msprof_tx": true}}, "rank_id": 0})");
  return dir.path() / rank_dir / "ASCEND_PROFILER_OUTPUT";
}

TEST(TextExport, MicrosecondsBecomeExactNanoseconds) {
  EXPECT_EQ(MicrosecondsToNs("1736408883704643.212\t"), 1736408883704643212);
  EXPECT_EQ(MicrosecondsToNs(" 346.567"), 346567);
  EXPECT_EQ(MicrosecondsToNs("840.07675"), 840077);  // the trace's durations carry more digits
  EXPECT_EQ(MicrosecondsToNs("1736408883973810"), 1736408883973810000);
  EXPECT_EQ(MicrosecondsToNs("0"), 0);
  EXPECT_FALSE(MicrosecondsToNs("NaN"));
  EXPECT_FALSE(MicrosecondsToNs("N/A"));
  EXPECT_FALSE(MicrosecondsToNs("1e3"));
  EXPECT_FALSE(MicrosecondsToNs(""));
  EXPECT_FALSE(MicrosecondsToNs("99999999999999999999"));
}

TEST(TextExport, CsvReaderUnquotesTripleQuotedShapesAndFindsColumnsByName) {
  TempDir dir;
  const fs::path csv =
      dir.Write("k.csv", std::string(kLevel1Header) + KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212",
                                                                "2.000", "32,9216;4096,9216;4096", "32,4096"));
  auto reader = CsvReader::Open(csv);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  ASSERT_TRUE(reader->Column("Input Shapes"));
  ASSERT_TRUE(reader->Column("Some Future Column"));
  EXPECT_FALSE(reader->Column("Block Num"));
  auto more = reader->Next();
  ASSERT_TRUE(more.ok() && *more);
  EXPECT_EQ(reader->Field(*reader->Column("Input Shapes")), "\"32,9216;4096,9216;4096\"");
  EXPECT_EQ(reader->Field(*reader->Column("Start Time(us)")), "1736408883704643.212\t");
  EXPECT_EQ(reader->Field(*reader->Column("Some Future Column")), "x");  // no \r left
  EXPECT_EQ(reader->line(), 2U);
  more = reader->Next();
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

TEST(TextExport, BadCsvGivesOneLineNamingFileLineAndCause) {
  TempDir dir;
  const std::string good = KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "32,64;64,16", "32,16");
  struct Case {
    std::string csv;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {std::string(kLevel1Header) + good + "50,1,2\r\n", "kernel_details.csv:3: 3 fields where the header has 23"},
      {std::string(kLevel1Header) + KernelRow("K", "MatMulV2", "17.5", "NaN", "1,2", "1,2"),
       "kernel_details.csv:2: 'Duration(us)' is 'NaN', not a duration"},
      {"Step Id,Name,Type,Duration(us)\n1,a,b,2\n", "kernel_details.csv:1: no 'Start Time(us)' column"},
      {std::string(kLevel1Header) + good + "50,\"\"\"32,64;64,16\r\n",
       "kernel_details.csv:3: a quoted field that never closes"},
      {"", "kernel_details.csv: empty file"},
  };
  for (const Case& c : cases) {
    TempDir rank;
    const fs::path output = WriteRank(rank, "r_ascend_pt", c.csv, Trace());
    std::vector<RankNote> notes;
    auto data = ReadTextRank(output, notes, false);
    ASSERT_FALSE(data.ok()) << c.expected;
    EXPECT_NE(data.error().message.find(c.expected), std::string::npos) << data.error().message;
    EXPECT_EQ(data.error().message.find('\n'), std::string::npos);
    EXPECT_NE(data.error().message.find(output.string()), std::string::npos);
  }
}

TEST(TextExport, ReadsOpsFlowsKernelsAndFlopsRanges) {
  TempDir dir;
  const fs::path output = WriteRank(
      dir, "r_ascend_pt",
      std::string(kLevel1Header) +
          KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "32,64;64,16", "32,16") +
          KernelRow("hcom_allReduce__1_0_1", "hcom_allReduce_", "1736408883704700.000", "5.000", "N/A", "N/A", "HCCL"),
      Trace());
  std::vector<RankNote> notes;
  TextExportFacts facts;
  auto data = ReadTextRank(output, notes, true, &facts);
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->compute_link_count, 1U);
  const KernelLink& link = data->kernel_links[0];
  EXPECT_EQ(data->strings->View(link.kernel_name), "MatMulV2_1");
  EXPECT_EQ(data->strings->View(link.op_name), "aten::mm");
  EXPECT_EQ(link.kernel_ts, 1736408883704643212);
  EXPECT_EQ(link.kernel_end, 1736408883704645212);  // from kernel_details.csv, not the trace's 2.000125 us
  EXPECT_EQ(link.op_ts, 1736408883704600100);
  EXPECT_EQ(link.op_end, 1736408883704612600);
  ASSERT_TRUE(data->flops_ranges);
  ASSERT_EQ(data->flops_ranges->size(), 1U);
  EXPECT_EQ(data->strings->View((*data->flops_ranges)[0].message), "1048576-mm");
  EXPECT_EQ((*data->flops_ranges)[0].start, 1736408883704600000);
  EXPECT_EQ((*data->flops_ranges)[0].end, 1736408883704620000);
  ASSERT_EQ(data->shapes.size(), 1U);  // the HCCL row is no compute kernel
  EXPECT_EQ(data->strings->View(data->shapes[0].input_shapes), "32,64;64,16");
  EXPECT_EQ(data->shapes[0].task_duration, 2000);
  ASSERT_TRUE(data->kernel_signatures);
  ASSERT_EQ(data->kernel_signatures->groups.size(), 1U);
  EXPECT_EQ(data->kernel_signatures->groups[0].columns[4], "\"32,64;64,16\"");  // as the DB stores it
  EXPECT_EQ(facts.compute_kernels, 1U);
  EXPECT_EQ(facts.communication_tasks, 1U);
  EXPECT_EQ(facts.framework_ops, 1U);
  EXPECT_EQ(facts.flops_records, 1U);
  ASSERT_EQ(facts.ai_core_mhz.size(), 1U);
  EXPECT_EQ(facts.ai_core_mhz[0], 1800);
  EXPECT_EQ(facts.counter_columns, std::vector<std::string>{"aic_mac_ratio"});
}

TEST(TextExport, BadTraceGivesOneLineNamingFileLineAndCause) {
  const std::string csv =
      std::string(kLevel1Header) + KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "1,2", "1,2");
  {
    TempDir dir;
    std::string truncated = Trace();
    truncated.resize(truncated.size() / 2);
    const fs::path output = WriteRank(dir, "r_ascend_pt", csv, truncated);
    std::vector<RankNote> notes;
    auto data = ReadTextRank(output, notes, false);
    ASSERT_FALSE(data.ok());
    EXPECT_NE(data.error().message.find("trace_view.json: "), std::string::npos) << data.error().message;
    EXPECT_NE(data.error().message.find("line "), std::string::npos) << data.error().message;
  }
}

// One string far past the limit on one line (a 2 GB single-line file in small): refused at the
// limit, never held whole. Slow (64 MiB through the parser), so labelled slow.
TEST(TextExport, AHugeSingleLineJsonIsRefusedAtTheStringLimit) {
  const std::string csv =
      std::string(kLevel1Header) + KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "1,2", "1,2");
  {
    TempDir dir;
    const fs::path output = WriteRank(dir, "r_ascend_pt", csv, "x");
    {
      std::ofstream out(output / "trace_view.json", std::ios::binary | std::ios::trunc);
      out << "[{\"name\": \"";
      const std::string chunk(1 << 20, 'a');
      for (int i = 0; i < 65; ++i) out << chunk;
      out << "\"}]";
    }
    std::vector<RankNote> notes;
    auto data = ReadTextRank(output, notes, false);
    ASSERT_FALSE(data.ok());
    EXPECT_NE(data.error().message.find("trace_view.json:1: a JSON string longer than 64 MiB"), std::string::npos)
        << data.error().message;
  }
}

TEST(TextExport, DiscoveryFindsTextRanksAndPrefersTheDbUnlessAsked) {
  TempDir dir;
  const std::string csv =
      std::string(kLevel1Header) + KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "1,2", "1,2");
  WriteRank(dir, "text_ascend_pt", csv, Trace());
  auto discovery = DiscoverRanks(dir.path());
  ASSERT_TRUE(discovery.ok()) << discovery.error().message;
  ASSERT_EQ(discovery->ranks.size(), 1U);
  EXPECT_TRUE(discovery->ranks[0].text_export);
  EXPECT_EQ(discovery->ranks[0].rank_id, 0);
  EXPECT_STREQ(ExportName(discovery->ranks[0]), "Text");
  // Both exports: the Db, as msprof-analyze; --source text reads the Text one.
  dir.Write("text_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", "");
  discovery = DiscoverRanks(dir.path());
  ASSERT_TRUE(discovery.ok());
  EXPECT_FALSE(discovery->ranks[0].text_export);
  discovery = DiscoverRanks(dir.path(), ExportSource::kText);
  ASSERT_TRUE(discovery.ok());
  EXPECT_TRUE(discovery->ranks[0].text_export);
}

TEST(TextExport, AnalyzeGivesRowsFromTextAndABadRankDoesNotStopTheOthers) {
  TempDir dir;
  const std::string csv = std::string(kLevel1Header) +
                          KernelRow("MatMulV2_1", "MatMulV2", "1736408883704643.212", "2.000", "32,64;64,16", "32,16");
  WriteRank(dir, "good_ascend_pt", csv, Trace());
  dir.Write("good_ascend_pt/PROF_1/device_0/info.json.0",
            R"({"DeviceInfo": [{"ai_core_num": 24, "aic_frequency": "1800"}]})");
  const fs::path bad = WriteRank(dir, "bad_ascend_pt", csv + "50,1\r\n", Trace());
  dir.Write("bad_ascend_pt/profiler_info_1.json", "{}");
  fs::remove(dir.path() / "bad_ascend_pt/profiler_info_0.json");
  AnalyzeOptions options;
  options.profiling_path = dir.path();
  options.export_type = ExportType::kNone;
  options.keep_rows = true;
  auto report = RunAnalyze(options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->ranks.size(), 2U);
  const RankOutcome& good = report->ranks[0].location.rank_id == 0 ? report->ranks[0] : report->ranks[1];
  const RankOutcome& failed = report->ranks[0].location.rank_id == 0 ? report->ranks[1] : report->ranks[0];
  EXPECT_FALSE(good.failure) << *good.failure;
  ASSERT_EQ(report->tables.operator_rows.size(), 1U);
  const OperatorMfuRow& row = *report->tables.operator_rows.begin();
  EXPECT_EQ(row.flops, 1048576);
  EXPECT_EQ(row.kernel_duration, 2000);
  // 1048576 / 2 us / (24 * 1800 * 8192 * 1e6)
  EXPECT_DOUBLE_EQ(row.mfu, 0.0015);
  ASSERT_TRUE(failed.failure);
  EXPECT_NE(DescribeFailure(failed).find(bad.string() + "/kernel_details.csv:3: 2 fields"), std::string::npos)
      << DescribeFailure(failed);
}

// The Text export's writer goes through the one output writer (common/output_file.h): a link
// where kernel_details.csv goes is refused, naming it, and what it points at is left alone.
TEST(TextExport, TheWriterRefusesToWriteThroughALink) {
  TempDir dir;
  const fs::path outside = dir.Write("outside.csv", "keep me\n");
  fs::create_directories(dir.path() / "out");
  fs::create_symlink(outside, dir.path() / "out" / kKernelDetailsFile);
  ProfilingDbBuilder run;
  const Status written = run.WriteText(dir.path() / "out");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find(kKernelDetailsFile), std::string::npos) << written.error().message;
  EXPECT_EQ(testing::ReadFile(outside), "keep me\n");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "out" / kKernelDetailsFile));
  // Written where nothing is in the way, in full.
  ASSERT_TRUE(run.WriteText(dir.path() / "clean").ok());
  EXPECT_TRUE(testing::ReadFile(dir.path() / "clean" / kTraceViewFile).starts_with("["));
}

}  // namespace
}  // namespace opmfu::engine
