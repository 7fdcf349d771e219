// The MFU engine against shared/spec/mfu-analysis.md: unit cases (U) and end-to-end cases (E),
// with rows written in the spec's tuple notation.

#include <gtest/gtest.h>
#include <limits>

#include <cmath>
#include <fstream>

#include "engine/chip.h"
#include "engine/module_mfu.h"
#include "engine/numeric.h"
#include "engine/operator_mfu.h"
#include "engine/profiling_db_builder.h"
#include "engine/rank_analysis.h"
#include "engine/shard.h"
#include "tests/test_support.h"

namespace opmfu::engine {
namespace {

namespace fs = std::filesystem;

std::string Quoted(std::optional<std::string_view> text) { return text ? "'" + std::string(*text) + "'" : "None"; }

// (rank, op, kernel, start, end, duration, mfu, tflops, peak, flops, flops_op, in, out)
std::string Tuple(const OperatorMfuRow& r, bool integer_duration, bool integer_flops) {
  const auto number = [](std::int64_t v, bool integer) {
    return integer ? std::to_string(v) : PythonFloatRepr(static_cast<double>(v));
  };
  return "(" + std::to_string(r.rank_id) + "," + Quoted(r.op_name()) + "," + Quoted(r.kernel_name()) + "," +
         std::to_string(r.kernel_start) + "," + std::to_string(r.kernel_end) + "," +
         number(r.kernel_duration, integer_duration) + "," + PythonFloatRepr(r.mfu) + "," +
         PythonFloatRepr(r.actual_tflops) + "," + PythonFloatRepr(r.chip_peak_tflops) + "," +
         number(r.flops, integer_flops) + "," + Quoted(r.flops_op_name()) + "," + Quoted(r.input_shapes()) + "," +
         Quoted(r.output_shapes()) + ")";
}

std::string Tuple(const ModuleMfuRow& r, bool with_avg_mfu) {
  std::string text = "(" + std::to_string(r.rank_id) + ",'" + r.parent_module + "','" + r.module + "','" + r.op_name +
                     "','" + r.kernel_list + "'," + PythonFloatRepr(r.total_kernel_duration) + "," +
                     PythonFloatRepr(r.avg_kernel_duration) + "," + std::to_string(r.op_count);
  if (with_avg_mfu) text += ",'" + r.avg_mfu + "'";
  return text + ")";
}

// One rank directory laid out as CANN writes it, with the spec's default chip (20 cores @ 1800).
class Rank {
 public:
  explicit Rank(std::int64_t rank_id = 0, std::string cores = "20", std::string frequency = "\"1800\"")
      : rank_id_(rank_id),
        directory_(temp_.path() / ("worker_0_2025010100000000" + std::to_string(rank_id) + "_ascend_pt")) {
    fs::create_directories(directory_);
    if (!cores.empty()) {
      EXPECT_TRUE(WriteDeviceInfo(directory_, 0, cores, frequency).ok());
    }
  }
  ProfilingDbBuilder db;

  /// op [a,b] -> kernel [c,d] with the spec's default types and shapes.
  std::int64_t OpWithKernel(const std::string& op, std::int64_t a, std::int64_t b, const std::string& kernel,
                            std::int64_t c, std::int64_t d, std::optional<std::string> types = "FLOAT16;FLOAT16") {
    const std::int64_t connection = db.AddOp(op, a, b);
    ProfilingDbBuilder::Kernel k;
    k.name = kernel;
    k.start = c;
    k.end = d;
    k.input_types = std::move(types);
    db.AddKernel({connection}, k);
    return connection;
  }
  void Flops(std::int64_t start, std::int64_t end, const std::string& message, int event_type = 2) {
    db.AddMstx("mfu_flops", message, start, end, event_type);
  }
  void Module(const std::string& name, std::int64_t start, std::int64_t end) { db.AddMstx("Module", name, start, end); }
  /// profiler_info_<rank>.json with the given settings, laid out as torch_npu writes it.
  void Recorded(const std::string& common_config, const std::string& experimental_config) {
    std::ofstream(directory_ / ("profiler_info_" + std::to_string(rank_id_) + ".json"))
        << R"({"config": {"common_config": {)" << common_config << R"(}, "experimental_config": {)"
        << experimental_config << R"(}}, "rank_id": )" << rank_id_ << "}";
  }

  Result<RankAnalysis> Analyze() {
    const fs::path db_path =
        directory_ / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(rank_id_) + ".db");
    EXPECT_TRUE(db.Write(db_path).ok());
    return AnalyzeRank({rank_id_, directory_, db_path, std::nullopt});
  }

  std::vector<std::string> OperatorTuples() {
    auto analysis = Analyze();
    EXPECT_TRUE(analysis.ok()) << (analysis.ok() ? "" : analysis.error().message);
    std::vector<std::string> tuples;
    if (!analysis.ok()) return tuples;
    for (const auto& row : analysis->operator_rows) {
      tuples.push_back(
          Tuple(row, analysis->all_kernels_matched, analysis->all_kernels_matched && analysis->all_messages_parsed));
    }
    return tuples;
  }

  std::vector<std::string> ModuleTuples() {
    auto analysis = Analyze();
    EXPECT_TRUE(analysis.ok()) << (analysis.ok() ? "" : analysis.error().message);
    std::vector<std::string> tuples;
    if (!analysis.ok()) return tuples;
    const bool with_avg = std::any_of(analysis->module_rows.begin(), analysis->module_rows.end(),
                                      [](const ModuleMfuRow& r) { return !r.avg_mfu.empty(); });
    for (const auto& row : analysis->module_rows) tuples.push_back(Tuple(row, with_avg));
    return tuples;
  }

 private:
  testing::TempDir temp_;
  std::int64_t rank_id_;
  fs::path directory_;
};

const std::string kShapes = ",'16,16;16,16','16,16')";

TEST(Numeric, RoundsLikeNumpy) {
  EXPECT_EQ(Round4(53.25585), 53.2558);  // numpy, where Python's round gives 53.2559
  EXPECT_EQ(Round2(0.125), 0.12);
  EXPECT_EQ(Round2(0.375), 0.38);
  EXPECT_EQ(Round4(3.39084201388889), 3.3908);
}

TEST(Numeric, PythonReprOfFloats) {
  EXPECT_EQ(PythonFloatRepr(50.0), "50.0");
  EXPECT_EQ(PythonFloatRepr(339.08), "339.08");
  EXPECT_EQ(PythonFloatRepr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(1.5e-05), "1.5e-05");
  EXPECT_EQ(PythonFloatRepr(0.0), "0.0");
  EXPECT_EQ(PythonFloatRepr(262.14399999999995), "262.14399999999995");
}

// Timestamps a damaged database may hold: no difference or sum is undefined behaviour (a fuzzed
// rank with a kernel from INT64_MAX to -258 once overflowed in the module pass).
TEST(Numeric, DifferencesAndSumsOfHostileTimestamps) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(DifferenceOfInts(1'700'000'000'000'000'500, 1'700'000'000'000'000'000), 500.0);  // exact at real magnitudes
  EXPECT_EQ(DifferenceOfInts(-258, kMax), -258.0 - static_cast<double>(kMax));
  EXPECT_EQ(DifferenceOfInts(kMax, kMin), static_cast<double>(kMax) - static_cast<double>(kMin));
  EXPECT_EQ(TaskDuration(10, 25), 15);
  EXPECT_EQ(TaskDuration(25, 10), -15);
  EXPECT_EQ(TaskDuration(kMax, -258), 0);  // SQLite's real result is beyond int64: read as 0
  EXPECT_EQ(SaturatingAdd(kMax - 1, 5), kMax);
  EXPECT_EQ(SaturatingAdd(kMin + 1, -5), kMin);
  EXPECT_EQ(SaturatingAdd(40, 2), 42);
}

TEST(Numeric, PairwiseSumMatchesNumpyStructure) {
  std::vector<double> values;
  for (int i = 0; i < 300; ++i) values.push_back(0.1 * i + 1e-3 / (i + 1));
  // Below 8: left to right from 0.0.
  EXPECT_EQ(PairwiseSum(std::span(values).first(3)), (0.0 + values[0] + values[1]) + values[2]);
  // 8..128: eight lanes, combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the tail.
  double lanes[8] = {};
  for (int j = 0; j < 8; ++j) lanes[j] = values[j];
  for (int j = 0; j < 8; ++j) lanes[j] += values[8 + j];
  const double expected =
      (((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))) + values[16];
  EXPECT_EQ(PairwiseSum(std::span(values).first(17)), expected);
  // Above 128: split at n/2 rounded down to a multiple of 8.
  EXPECT_EQ(PairwiseSum(values),
            PairwiseSum(std::span(values).first(144)) + PairwiseSum(std::span(values).subspan(144)));
}

TEST(FlopsMessage, ParsesLikeTheUpstreamRegex) {  // E4
  const auto parsed = [](const char* text) { return ParseFlopsMessage(std::string(text)); };
  EXPECT_EQ(parsed("100-demo-op")->name, "demo-op");
  EXPECT_EQ(parsed("100--neg")->name, "-neg");
  EXPECT_EQ(parsed("007-lead")->flops, 7);
  EXPECT_EQ(parsed("123-aten::mm-x")->name, "aten::mm-x");
  EXPECT_EQ(parsed("5-mm\n")->name, "mm");
  for (const char* bad : {"100:legacy", "abc-mm", "-5-mm", "1.5e9-mm", " 100-mm", "100-", "1-a\nb"}) {
    EXPECT_FALSE(parsed(bad)) << bad;
  }
  EXPECT_EQ(parsed("0-mm")->flops, 0);  // matches; dropped later as flops <= 0
  EXPECT_FALSE(ParseFlopsMessage(std::nullopt));
  EXPECT_FALSE(parsed("99999999999999999999-huge"));  // beyond int64: refused, not rounded
}

TEST(Chip, DtypeTokensAndPeaks) {  // U13-U19, U33, spec 3
  EXPECT_EQ(DtypeTokens(" float ;dt_bf16 ; "), (std::vector<std::string>{"FLOAT", "DT_BF16"}));
  EXPECT_EQ(*DtypeClassOf(std::nullopt), DtypeClass::kFloat16);
  EXPECT_EQ(*DtypeClassOf(std::string(";;FLOAT16")), DtypeClass::kFloat16);
  EXPECT_EQ(*DtypeClassOf(std::string("INT8;INT8")), DtypeClass::kInt8);
  auto unsupported = DtypeClassOf(std::string("random_type"));
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.error().message, "Not supported data type: RANDOM_TYPE");
  ChipInfo chip{2, 1000, {}};
  EXPECT_EQ(chip.PeakFlops(DtypeClass::kFloat16), 1.6384e13);
  EXPECT_EQ(Round2(ChipInfo{24, 1800, {}}.PeakFlops(DtypeClass::kInt8) / 1e12), 707.79);

  testing::TempDir dir;
  std::vector<RankNote> notes;
  EXPECT_FALSE(LoadChipInfo(dir.path() / "missing", notes).valid());
  EXPECT_EQ(notes.front().text, "Profiler path does not exist: " + (dir.path() / "missing").string());
  dir.Write("r/profiler/device_0/info.json.0", R"({"DeviceInfo":[{"ai_core_num":1,"aic_frequency":"1000"}]})");
  const ChipInfo loaded = LoadChipInfo(dir.path() / "r", notes);
  EXPECT_TRUE(loaded.valid());
  EXPECT_EQ(loaded.info_file, dir.path() / "r/profiler/device_0/info.json.0");
  EXPECT_EQ(notes.back().text, "Device info loaded: AICore count=1, frequency=1000.0 MHz");
  dir.Write("z/device_3/info.json.3", R"({"DeviceInfo":[{"ai_core_num":0,"aic_frequency":"0"}]})");
  EXPECT_FALSE(LoadChipInfo(dir.path() / "z", notes).valid());
  dir.Write("y/device_3/info.json.3", "not json");
  EXPECT_FALSE(LoadChipInfo(dir.path() / "y", notes).valid());
  EXPECT_EQ(notes[notes.size() - 2].text, "No DeviceInfo data found in device/info.json file");
}

TEST(OperatorMfu, E1_Basic) {
  Rank rank;
  rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
  rank.Flops(900, 2100, "1000000000-aten::mm");
  EXPECT_EQ(rank.OperatorTuples(),
            std::vector<std::string>{
                "(0,'aten::mm','MatMulV2',1500,2500,1000,3.3908,1000.0,294.91,1000000000,'aten::mm'" + kShapes});
  EXPECT_TRUE(rank.ModuleTuples().empty());
}

TEST(OperatorMfu, E2_EveryKernelGetsTheFullFlops) {
  Rank rank;
  rank.OpWithKernel("aten::matmul", 1000, 5000, "MatMulV3", 2000, 3000);
  rank.OpWithKernel("aten::add", 1200, 1300, "Add", 3100, 3200, "FLOAT;FLOAT");
  rank.Flops(900, 5100, "2000000000-aten::matmul");
  EXPECT_EQ(rank.OperatorTuples(),
            (std::vector<std::string>{
                "(0,'aten::matmul','MatMulV3',2000,3000,1000,6.7817,2000.0,294.91,2000000000,'aten::matmul'" + kShapes,
                "(0,'aten::add','Add',3100,3200,100,67.8168,20000.0,294.91,2000000000,'aten::matmul'" + kShapes}));
}

TEST(OperatorMfu, E3_InclusiveBoundsOnOpStart) {
  Rank rank;
  int i = 0;
  for (std::int64_t t : {999, 1000, 1500, 2000, 2001}) {
    rank.OpWithKernel("op" + std::to_string(i), t, t + 50, "K" + std::to_string(i), t + 100, t + 200);
    ++i;
  }
  rank.Flops(1000, 2000, "100000000-rangeA");
  EXPECT_EQ(
      rank.OperatorTuples(),
      (std::vector<std::string>{"(0,'op1','K1',1100,1200,100.0,3.3908,1000.0,294.91,100000000.0,'rangeA'" + kShapes,
                                "(0,'op2','K2',1600,1700,100.0,3.3908,1000.0,294.91,100000000.0,'rangeA'" + kShapes,
                                "(0,'op3','K3',2100,2200,100.0,3.3908,1000.0,294.91,100000000.0,'rangeA'" + kShapes}));
}

TEST(OperatorMfu, E4_MessageParsing) {
  Rank rank;
  const char* messages[] = {"100:legacy", "abc-mm", "0-mm",     "-5-mm",   "1.5e9-mm",
                            " 100-mm",    "100-",   "100--neg", "007-lead"};
  for (int i = 0; i < 9; ++i) {
    const std::int64_t b = 10000 * i;
    rank.OpWithKernel("op" + std::to_string(i), b + 10, b + 20, "K" + std::to_string(i), b + 100, b + 200);
    rank.Flops(b, b + 50, messages[i]);
  }
  EXPECT_EQ(rank.OperatorTuples(),
            (std::vector<std::string>{"(0,'op7','K7',70100,70200,100.0,0.0,0.0,294.91,100.0,'-neg'" + kShapes,
                                      "(0,'op8','K8',80100,80200,100.0,0.0,0.0,294.91,7.0,'lead'" + kShapes}));
}

TEST(OperatorMfu, E5_EventTypeIgnoredAndEmptyRangesSkipped) {
  Rank rank;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t b = 10000 * (i + 1);
    rank.OpWithKernel("op" + std::to_string(i), b + 10, b + 20, "K" + std::to_string(i), b + 100, b + 1100);
  }
  rank.Flops(10000, 10050, "1000000000-op0", 0);
  rank.Flops(20000, 20000, "1000000000-op1", 3);
  rank.Flops(30050, 30000, "1000000000-op2", 2);
  rank.Flops(40000, 40050, "1000000000-op3", 1);
  const auto rows = rank.OperatorTuples();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_NE(rows[0].find("'op0','K0',10100,11100,1000.0,3.3908,1000.0"), std::string::npos);
  EXPECT_NE(rows[1].find("'op3','K3',40100,41100,1000.0,3.3908,1000.0"), std::string::npos);
}

TEST(OperatorMfu, E6_DtypeSelection) {
  const std::pair<std::optional<std::string>, std::string> cases[] = {{"DT_BF16;DT_BF16;INT64", "3.3908,1000.0,294.91"},
                                                                      {"INT8;INT8", "1.6954,1000.0,589.82"},
                                                                      {"", "3.3908,1000.0,294.91"},
                                                                      {std::nullopt, "3.3908,1000.0,294.91"},
                                                                      {"float;float", "3.3908,1000.0,294.91"},
                                                                      {" bf16 ; x", "3.3908,1000.0,294.91"},
                                                                      {";;FLOAT16", "3.3908,1000.0,294.91"}};
  for (const auto& [types, expected] : cases) {
    Rank rank;
    rank.OpWithKernel("op", 100, 200, "K", 300, 1300, types);
    rank.Flops(90, 210, "1000000000-op");
    const auto rows = rank.OperatorTuples();
    ASSERT_EQ(rows.size(), 1U) << types.value_or("NULL");
    EXPECT_NE(rows[0].find(expected), std::string::npos) << types.value_or("NULL") << ": " << rows[0];
  }
}

TEST(OperatorMfu, E7_UnsupportedDtypeFailsOnlyThisRank) {
  Rank rank(1);
  rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500, "INT32;INT32");
  rank.Flops(900, 2100, "1000000000-aten::mm");
  auto analysis = rank.Analyze();
  ASSERT_FALSE(analysis.ok());
  EXPECT_NE(analysis.error().message.find("Not supported data type: INT32"), std::string::npos);
}

TEST(OperatorMfu, E8_NotAvailableShapesHideKernels) {
  Rank rank;
  const std::int64_t a = rank.db.AddOp("opA", 110, 120);
  rank.db.AddKernel({a}, {"KNA", 200, 1200, "INT32", "N/A", "N/A", "MatMulV2"});
  const std::int64_t b = rank.db.AddOp("opB", 130, 140);
  rank.db.AddKernel({b}, {"KOK", 1300, 2300, "INT8", "'4,4;4,4'", "\"4,4\"", "MatMulV2"});
  rank.Flops(100, 150, "1000000000-opA");
  const std::int64_t c = rank.db.AddOp("opC", 1110, 1120);
  rank.db.AddKernel({c}, {"KONLYIN", 3000, 4000, "FLOAT16", "N/A", "\"4,4\"", "MatMulV2"});
  rank.Flops(1100, 1150, "1000000000-opC");
  EXPECT_EQ(rank.OperatorTuples(),
            std::vector<std::string>{
                "(0,'opB','KOK',1300,2300,1000.0,1.6954,1000.0,589.82,1000000000.0,'opA','4,4;4,4','4,4')"});
}

TEST(OperatorMfu, E9_DtypeChosenBeforeZeroDurationKernelsAreDropped) {
  Rank rank;
  rank.OpWithKernel("opA", 110, 120, "Kzero", 200, 200, "INT8");
  rank.OpWithKernel("opB", 130, 140, "Kpos", 300, 1300);
  rank.Flops(100, 150, "1000000000-rangeA");
  rank.OpWithKernel("opC", 1110, 1120, "Kzero2", 1200, 1200);
  rank.Flops(1100, 1150, "1000000000-rangeB");
  EXPECT_EQ(
      rank.OperatorTuples(),
      std::vector<std::string>{"(0,'opB','Kpos',300,1300,1000.0,1.6954,1000.0,589.82,1000000000.0,'rangeA'" + kShapes});
}

TEST(OperatorMfu, E10_NestedRangesDuplicateRows) {
  Rank rank;
  rank.db.AddOp("aten::linear", 100, 900);
  rank.OpWithKernel("aten::mm", 200, 800, "MatMul", 1000, 2000);
  rank.Flops(90, 950, "3000000000-aten::linear");
  rank.Flops(190, 850, "1000000000-aten::mm");
  EXPECT_EQ(rank.OperatorTuples(),
            (std::vector<std::string>{
                "(0,'aten::mm','MatMul',1000,2000,1000,10.1725,3000.0,294.91,3000000000,'aten::linear'" + kShapes,
                "(0,'aten::mm','MatMul',1000,2000,1000,3.3908,1000.0,294.91,1000000000,'aten::mm'" + kShapes}));
}

TEST(OperatorMfu, E11_E12_E13_LinksDedupAndCrossProduct) {
  {
    Rank rank;  // E11: one kernel linked to two ops inside one range
    const std::int64_t a = rank.db.AddOp("opA", 100, 200);
    const std::int64_t b = rank.db.AddOp("opB", 150, 250);
    rank.db.AddKernel({a, b}, {"K", 1000, 2000});
    rank.Flops(50, 300, "1000000000-x");
    EXPECT_EQ(rank.OperatorTuples(),
              (std::vector<std::string>{"(0,'opA','K',1000,2000,1000,3.3908,1000.0,294.91,1000000000,'x'" + kShapes,
                                        "(0,'opB','K',1000,2000,1000,3.3908,1000.0,294.91,1000000000,'x'" + kShapes}));
  }
  {
    Rank rank;  // E12: the dedup key ignores the kernel name
    rank.OpWithKernel("opA", 100, 200, "K1", 1000, 2000);
    rank.OpWithKernel("opB", 150, 250, "K2", 1000, 2000);
    rank.Flops(50, 300, "1000000000-x");
    EXPECT_EQ(
        rank.OperatorTuples(),
        std::vector<std::string>{"(0,'opA','K1',1000,2000,1000.0,3.3908,1000.0,294.91,1000000000.0,'x'" + kShapes});
  }
  {
    Rank rank;  // E13: ops x ranges
    const std::int64_t a = rank.db.AddOp("opA", 100, 200);
    const std::int64_t b = rank.db.AddOp("opB", 5000, 5100);
    rank.db.AddKernel({a, b}, {"K", 10000, 11000});
    rank.Flops(50, 250, "1000000000-R1");
    rank.Flops(4950, 5150, "2000000000-R2");
    EXPECT_EQ(
        rank.OperatorTuples(),
        (std::vector<std::string>{"(0,'opA','K',10000,11000,1000,3.3908,1000.0,294.91,1000000000,'R1'" + kShapes,
                                  "(0,'opA','K',10000,11000,1000,6.7817,2000.0,294.91,2000000000,'R2'" + kShapes,
                                  "(0,'opB','K',10000,11000,1000,3.3908,1000.0,294.91,1000000000,'R1'" + kShapes,
                                  "(0,'opB','K',10000,11000,1000,6.7817,2000.0,294.91,2000000000,'R2'" + kShapes}));
  }
}

TEST(ModuleMfu, E14_ModulesAndSequenceSuffixes) {
  Rank rank;
  rank.Module("Model", 0, 85000);
  rank.Module("Layer", 1000, 20000);
  rank.Module("Layer", 30000, 50000);
  rank.Module("Layer", 60000, 80000);
  rank.OpWithKernel("aten::mm", 1100, 1150, "MatMulV2", 1300, 2300);
  rank.Flops(1090, 1160, "100000000-aten::mm");
  rank.OpWithKernel("aten::add", 2100, 2150, "Add", 7100, 7200);
  rank.OpWithKernel("aten::mm", 30100, 30150, "MatMulV2", 30300, 32300);
  rank.Flops(30090, 30160, "100000000-aten::mm");
  rank.OpWithKernel("aten::add", 31100, 31150, "Add", 36100, 36200);
  rank.OpWithKernel("aten::mm", 60100, 60150, "MatMulV2", 60300, 64300);
  rank.Flops(60090, 60160, "100000000-aten::mm");
  rank.OpWithKernel("aten::mul", 61100, 61150, "Mul", 66100, 66200);
  rank.OpWithKernel("aten::outside", 90000, 90050, "Cast", 90100, 90200);
  rank.Flops(89990, 90060, "100000000-outside");
  const auto operators = rank.OperatorTuples();
  ASSERT_EQ(operators.size(), 4U);
  EXPECT_NE(operators[0].find("1000.0,0.3391,100.0"), std::string::npos);
  EXPECT_NE(operators[1].find("2000.0,0.1695,50.0"), std::string::npos);
  EXPECT_NE(operators[2].find("4000.0,0.0848,25.0"), std::string::npos);
  EXPECT_NE(operators[3].find("'aten::outside','Cast',90100,90200,100.0,3.3908,1000.0"), std::string::npos);
  EXPECT_EQ(rank.ModuleTuples(),
            (std::vector<std::string>{"(0,'Model','Layer_0','aten::mm','MatMulV2',3000.0,1500.0,2,'25.43%')",
                                      "(0,'Model','Layer_0','aten::add','Add',200.0,100.0,2,'')",
                                      "(0,'Model','Layer_1','aten::mm','MatMulV2',4000.0,4000.0,1,'8.48%')",
                                      "(0,'Model','Layer_1','aten::mul','Mul',100.0,100.0,1,'')"}));
}

TEST(ModuleMfu, E15_NonContiguousRepeatsNestedPathsDirectOps) {
  Rank rank;
  rank.Module("Model", 0, 100000);
  rank.Module("Layer", 1000, 20000);
  rank.Module("Attn", 1500, 9000);
  rank.Module("Head", 30000, 40000);
  rank.Module("Layer", 50000, 60000);
  rank.OpWithKernel("aten::bmm", 2000, 2100, "BatchMatMul", 2200, 3200);
  rank.Flops(1990, 2110, "200000000-aten::bmm");
  rank.OpWithKernel("aten::add", 10000, 10100, "Add", 10200, 10300);
  rank.OpWithKernel("aten::mm", 31000, 31100, "MatMulV2", 31200, 32200);
  rank.Flops(30990, 31110, "100000000-aten::mm");
  rank.OpWithKernel("aten::mul", 51000, 51100, "Mul", 51200, 51300);
  rank.OpWithKernel("aten::direct", 70000, 70100, "Relu", 70200, 70300);
  EXPECT_EQ(rank.ModuleTuples(),
            (std::vector<std::string>{"(0,'Model/Layer','Attn','aten::bmm','BatchMatMul',1000.0,1000.0,1,'67.82%')",
                                      "(0,'Model','Layer','aten::add','Add',100.0,100.0,1,'')",
                                      "(0,'Model','Head','aten::mm','MatMulV2',1000.0,1000.0,1,'33.91%')",
                                      "(0,'Model','Layer','aten::mul','Mul',100.0,100.0,1,'')",
                                      "(0,'','Model','aten::direct','Relu',100.0,100.0,1,'')"}));
}

TEST(ModuleMfu, E16_StraddlingOpClosesItsModule) {
  Rank rank;
  rank.Module("Block", 1000, 5000);
  rank.OpWithKernel("op_in1", 1100, 1200, "K1", 1300, 1400);
  rank.OpWithKernel("op_straddle", 4000, 6000, "K2", 6100, 6200);
  rank.OpWithKernel("op_in2", 4500, 4600, "K3", 6300, 6400);
  EXPECT_TRUE(rank.OperatorTuples().empty());
  EXPECT_EQ(rank.ModuleTuples(), std::vector<std::string>{"(0,'','Block','op_in1','K1',100.0,100.0,1)"});
}

TEST(ModuleMfu, E17_SequencesPooledAcrossNonContiguousInstances) {
  Rank rank;
  rank.Module("Model", 0, 100000);
  struct Instance {
    std::int64_t s;
    std::int64_t d;
    const char* op;
    const char* kernel;
  };
  for (const Instance& in : {Instance{1000, 1000, "aten::add", "ADD"}, Instance{10000, 2000, "aten::mul", "MUL"},
                             Instance{20000, 3000, "aten::add", "ADD"}}) {
    rank.Module("Layer", in.s, in.s + 5000);
    rank.OpWithKernel("aten::mm", in.s + 100, in.s + 150, "MM", in.s + 200, in.s + 200 + in.d);
    rank.Flops(in.s + 95, in.s + 155, "1000000000-aten::mm");
    rank.OpWithKernel(in.op, in.s + 600, in.s + 650, in.kernel, in.s + 700, in.s + 710);
  }
  rank.OpWithKernel("aten::direct", 30000, 30050, "Relu", 30100, 30110);
  rank.Module("Layer", 40000, 45000);
  const std::int64_t mm = rank.db.AddOp("aten::mm", 40100, 40150);
  rank.db.AddKernel({mm}, {"MM", 40200, 41200});
  rank.db.AddKernel({mm}, {"MM", 41300, 42300});
  rank.Flops(40095, 40155, "1000000000-aten::mm");
  rank.OpWithKernel("aten::add", 40600, 40650, "ADD", 42400, 42410);
  EXPECT_EQ(rank.ModuleTuples(),
            (std::vector<std::string>{"(0,'Model','Layer_0','aten::mm','MM',4000.0,2000.0,2,'226.06%')",
                                      "(0,'Model','Layer_0','aten::add','ADD',30.0,10.0,3,'')",
                                      "(0,'Model','Layer_1','aten::mm','MM',2000.0,2000.0,1,'169.54%')",
                                      "(0,'Model','Layer_1','aten::mul','MUL',10.0,10.0,1,'')",
                                      "(0,'','Model','aten::direct','Relu',10.0,10.0,1,'')",
                                      "(0,'Model','Layer','aten::mm','MM, MM',2000.0,2000.0,1,'339.08%,339.08%')"}));
}

TEST(ModuleMfu, E23_OverlappingRangesInsideModules) {
  Rank rank;
  rank.Module("Net", 0, 100000);
  rank.Module("Blk", 50, 9000);
  rank.OpWithKernel("aten::linear", 100, 900, "MatMulV2", 1000, 2000);
  rank.Flops(90, 950, "3000000000-aten::linear");
  rank.Flops(95, 940, "1000000000-aten::mm");
  rank.Module("Blk", 10000, 19000);
  rank.OpWithKernel("aten::linear", 10100, 10900, "MatMulV2", 11000, 12000);
  rank.Flops(10090, 10950, "3000000000-aten::linear");
  EXPECT_EQ(rank.ModuleTuples(),
            (std::vector<std::string>{
                "(0,'Net','Blk','aten::linear','MatMulV2, MatMulV2',2000.0,2000.0,1,'1017.25%,339.08%')",
                "(0,'Net','Blk','aten::linear','MatMulV2',1000.0,1000.0,1,'1017.25%')"}));
}

TEST(OperatorMfu, E25_NumericGolden) {
  struct Case {
    std::int64_t flops;
    std::int64_t duration;
    const char* types;
    const char* expected;  // mfu, actual_tflops, chip_peak_tflops
  };
  const Case cases[] = {{68719476736, 412345, "DT_BF16;DT_BF16", "0.4709,166.66,353.89"},
                        {123456789, 777, "FLOAT16;FLOAT16", "0.449,158.89,353.89"},
                        {2199023255552, 9876543, "INT8;INT8;FLOAT", "0.3146,222.65,707.79"},
                        {5, 3, "FLOAT", "0.0,0.0,353.89"},
                        {274877906944, 1048576, "BF16", "0.7407,262.14,353.89"}};
  Rank rank(0, "24", "\"1800\"");
  std::int64_t base = 0;
  int i = 0;
  for (const Case& c : cases) {
    rank.OpWithKernel("op" + std::to_string(i), base + 10, base + 20, "K" + std::to_string(i), base + 100,
                      base + 100 + c.duration, c.types);
    rank.Flops(base, base + 50, std::to_string(c.flops) + "-op" + std::to_string(i));
    base += 20000000;
    ++i;
  }
  const auto rows = rank.OperatorTuples();
  ASSERT_EQ(rows.size(), 5U);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_NE(rows[k].find("," + std::to_string(cases[k].duration) + "," + cases[k].expected + "," +
                           std::to_string(cases[k].flops) + ","),
              std::string::npos)
        << rows[k];
  }
}

TEST(ModuleMfu, E26_PositionalLossInAvgMfu) {
  Rank rank;
  rank.Module("Net", 0, 100000);
  const std::int64_t op = rank.db.AddOp("aten::linear", 100, 200);
  rank.db.AddKernel({op}, {"Cast", 300, 300});
  rank.db.AddKernel({op}, {"MatMul", 400, 1400});
  rank.Flops(90, 210, "1000000000-aten::linear");
  EXPECT_EQ(rank.ModuleTuples(),
            std::vector<std::string>{"(0,'','Net','aten::linear','Cast, MatMul',1000.0,1000.0,1,'339.08%')"});
}

TEST(RankAnalysis, E22_MissingTables) {
  {
    Rank rank;
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.db.OmitTable("MSTX_EVENTS");
    auto analysis = rank.Analyze();
    ASSERT_TRUE(analysis.ok());
    EXPECT_TRUE(analysis->operator_rows.empty());
    std::vector<std::string> texts;
    for (const RankNote& note : analysis->notes) texts.push_back(note.text);
    EXPECT_NE(texts.front().find("read failed error"), std::string::npos);
    EXPECT_NE(std::find(texts.begin(), texts.end(), "No mfu_flops ranges found. Skip MFU calculation."), texts.end());
    EXPECT_EQ(texts.back(), "No valid MFU data for rank 0");
  }
  {
    Rank rank;
    rank.Module("Net", 0, 10000);
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.db.OmitTable("COMPUTE_TASK_INFO");
    rank.db.OmitTable("COMMUNICATION_OP");
    auto analysis = rank.Analyze();
    ASSERT_TRUE(analysis.ok());
    EXPECT_TRUE(analysis->module_rows.empty());
    EXPECT_EQ(analysis->notes.back().text, "No kernel data found for rank 0");
  }
}

TEST(RankAnalysis, NoInfoJsonMeansNoMfuButModuleRowsRemain) {  // E18, rank 1
  Rank rank(1, "");
  rank.Module("Net", 0, 10000);
  rank.OpWithKernel("aten::mm", 100, 200, "MatMulV2", 300, 1400);
  rank.Flops(90, 210, "1000000000-aten::mm");
  auto analysis = rank.Analyze();
  ASSERT_TRUE(analysis.ok());
  EXPECT_TRUE(analysis->operator_rows.empty());
  ASSERT_EQ(analysis->module_rows.size(), 1U);
  EXPECT_EQ(Tuple(analysis->module_rows[0], true), "(1,'','Net','aten::mm','MatMulV2',1100.0,1100.0,1,'')");
}

// E20's rank 1: two matmuls in Net/Sub, the second one's op also launching an HCCL op; returns the
// HCCL op's flow id.
std::int64_t E20Rank(Rank& rank) {
  rank.Module("Net", 0, 10000);
  rank.Module("Sub", 50, 5000);
  rank.OpWithKernel("aten::mm", 100, 200, "MatMulV2", 300, 1300);
  rank.Flops(90, 210, "1000000000-aten::mm");
  const std::int64_t second = rank.OpWithKernel("aten::mm", 400, 500, "MatMulV2", 1400, 2400);
  rank.Flops(390, 510, "1000000000-aten::mm");
  return rank.db.AddCommunication(second, "hcom_allReduce_", 2500, 3500);
}

TEST(RankAnalysis, HcclKernelsJoinKernelListButNeverGetMfu) {  // E20, rank 1
  Rank rank(1);
  E20Rank(rank);
  EXPECT_EQ(
      rank.ModuleTuples(),
      (std::vector<std::string>{"(1,'Net','Sub','aten::mm','MatMulV2',1000.0,1000.0,1,'339.08%')",
                                "(1,'Net','Sub','aten::mm','MatMulV2, hcom_allReduce_',2000.0,2000.0,1,'339.08%')"}));
}

// E20's rank 1 in the newer CANN schema: the HCCL op's device task also sits in
// COMMUNICATION_SCHEDULE_TASK_INFO, which upstream joins like a compute kernel (Q3) after the HCCL
// links (Q4): it is a third kernel of the op, after the COMMUNICATION_OP one. The older schema's
// COMMUNICATION_TASK_INFO is never read, so its tasks change nothing. The scan reads both (no
// fallback to the SQL joins).
TEST(RankAnalysis, ScheduleTasksJoinKernelListAfterTheHcclOpsInTheNewerSchema) {
  for (const bool older : {false, true}) {
    Rank rank(1);
    rank.db.AddCommunicationTask(E20Rank(rank), "hcom_allReduce__1_0_1", "hcom_allReduce_", 2600, 3100, older);
    auto analysis = rank.Analyze();
    ASSERT_TRUE(analysis.ok());
    for (const RankNote& note : analysis->notes) EXPECT_EQ(note.text.find("SQL joins"), std::string::npos) << note.text;
    EXPECT_EQ(rank.ModuleTuples(),
              (std::vector<std::string>{
                  "(1,'Net','Sub','aten::mm','MatMulV2',1000.0,1000.0,1,'339.08%')",
                  older ? "(1,'Net','Sub','aten::mm','MatMulV2, hcom_allReduce_',2000.0,2000.0,1,'339.08%')"
                        : "(1,'Net','Sub','aten::mm','MatMulV2, hcom_allReduce_, hcom_allReduce__1_0_1',2500.0,"
                          "2500.0,1,'339.08%')"}))
        << (older ? "COMMUNICATION_TASK_INFO" : "COMMUNICATION_SCHEDULE_TASK_INFO");
  }
}

// ---- the rank policy: a rank with no OperatorMFU rows because of an error fails, with its root
// cause first and the recorded configuration as evidence (issue 15) ------------------------------

// The public real DBs (MindStudio Insight's test data) were collected like this: no MSTX_EVENTS.
const char* const kRealCommonConfig =
    R"("activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"], "record_shapes": true, )"
    R"("with_flops": false, "with_modules": true, "schedule": {"wait": 0, "active": 1, "warmup": 10, "repeat": 1})";
const char* const kRealExperimentalConfig =
    R"("_profiler_level": "Level1", "_msprof_tx": false, "_export_type": "db", "_data_simplification": true)";

TEST(RankPolicy, NoMstxTableIsTheRootCauseWithTheRecordedSettings) {
  Rank rank(0, "");  // no chip info either: the missing FLOPs come first all the same
  rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
  rank.db.OmitTable("MSTX_EVENTS");
  rank.Recorded(kRealCommonConfig, kRealExperimentalConfig);
  auto analysis = rank.Analyze();
  ASSERT_TRUE(analysis.ok());
  ASSERT_TRUE(analysis->failure.has_value());
  EXPECT_EQ(*analysis->failure,
            "no MSTX_EVENTS table: the run recorded no msTX events, so there are no FLOPs records; this run had "
            "with_flops=false, _msprof_tx=false (profiler_info_0.json)");
  ASSERT_TRUE(analysis->recorded.has_value());
  ASSERT_NE(analysis->recorded->Text(SettingId::kProfilerLevel), nullptr);
  EXPECT_EQ(*analysis->recorded->Text(SettingId::kProfilerLevel), "Level1");
  ASSERT_NE(analysis->recorded->List(SettingId::kExportType), nullptr);  // a string in this older layout
  EXPECT_EQ(*analysis->recorded->List(SettingId::kExportType), std::vector<std::string>{"db"});
}

TEST(RankPolicy, EachCauseInCausalOrder) {
  const auto failure_of = [](Rank& rank) {
    auto analysis = rank.Analyze();
    EXPECT_TRUE(analysis.ok());
    return analysis.ok() ? analysis->failure.value_or("(none)") : analysis.error().message;
  };
  {  // an MSTX table without the mfu_flops domain; no chip info is not what is reported
    Rank rank(0, "");
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.Module("Net", 0, 10000);
    rank.Recorded(R"("with_flops": true)", R"("_msprof_tx": true, "_mstx_domain_include": ["Module"])");
    EXPECT_EQ(failure_of(rank),
              "no FLOPs records: MSTX_EVENTS has no event in the mfu_flops domain; this run had "
              "mstx_domain_include=[Module] (profiler_info_0.json)");
  }
  {  // only malformed or non-positive records
    Rank rank;
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.Flops(900, 2100, "1.5e9-aten::mm");
    rank.Flops(900, 2100, "-5-aten::mm");
    EXPECT_EQ(failure_of(rank),
              "none of the 2 FLOPs records is \"<flops>-<op name>\" with flops > 0 (e.g. '1.5e9-aten::mm')");
  }
  {  // valid records, no kernel tables
    Rank rank;
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.Flops(900, 2100, "1000000000-aten::mm");
    rank.db.OmitTable("COMPUTE_TASK_INFO");
    rank.db.OmitTable("TASK");
    EXPECT_EQ(failure_of(rank), "no TASK, COMPUTE_TASK_INFO tables, so no compute kernel is linked to a framework op");
  }
  {  // ops not linked to kernels at Level0
    Rank rank;
    rank.db.AddOp("aten::mm", 1000, 2000);
    ProfilingDbBuilder::Kernel kernel;
    kernel.name = "MatMulV2";
    kernel.start = 1500;
    kernel.end = 2500;
    rank.db.AddKernel({}, kernel);
    rank.Flops(900, 2100, "1000000000-aten::mm");
    rank.Recorded(R"("with_flops": true)", R"("_profiler_level": "Level0", "_msprof_tx": true)");
    EXPECT_NE(failure_of(rank).find("no framework op is linked to a compute kernel"), std::string::npos);
    EXPECT_NE(failure_of(rank).find("this run had _profiler_level=Level0 (profiler_info_0.json)"), std::string::npos);
  }
  {  // everything recorded, no chip peak
    Rank rank(0, "0");
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.Flops(900, 2100, "1000000000-aten::mm");
    EXPECT_EQ(failure_of(rank).rfind("no usable chip peak: Invalid device parameters: AICore=0", 0), 0U)
        << failure_of(rank);
  }
}

TEST(RankPolicy, ValidRecordsMatchingNoKernelAreAWarningNotAFailure) {
  Rank rank;
  rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
  rank.Flops(5000, 6000, "1000000000-aten::mm");
  auto analysis = rank.Analyze();
  ASSERT_TRUE(analysis.ok());
  EXPECT_FALSE(analysis->failure.has_value());
  EXPECT_EQ(analysis->no_rows_reason,
            "no kernel matched any of the 1 valid FLOPs records: 1 with no framework op with a compute kernel (and "
            "shapes) starting inside");
}

TEST(RankPolicy, RealSchemaQuirksGiveTheSameRows) {  // TEXT op times, queue and Python-trace rows, extra columns
  const auto rows = [](bool quirks) {
    Rank rank;
    if (quirks) {
      rank.db.UseRealSchemaQuirks();
      rank.db.AddApiRow("Enqueue", 1001, 1002, 50002);
      rank.db.AddApiRow("torch/nn/modules/linear.py(116): forward", 950, 2050, 50003);
    }
    rank.OpWithKernel("aten::mm", 1000, 2000, "MatMulV2", 1500, 2500);
    rank.Flops(900, 2100, "1000000000-aten::mm");
    return rank.OperatorTuples();
  };
  EXPECT_EQ(rows(true), rows(false));
  EXPECT_EQ(rows(true), std::vector<std::string>{"(0,'aten::mm','MatMulV2',1500,2500,1000,3.3908,1000.0,294.91,"
                                                 "1000000000,'aten::mm'" +
                                                 kShapes});
}

TEST(RecordedConfig, LayoutsAndBlockers) {
  testing::TempDir dir;
  EXPECT_FALSE(ReadRecordedConfig(dir.path(), 0)->has_value());  // absent: no evidence, no error
  dir.Write("profiler_info_3.json", "{not json");
  EXPECT_FALSE(ReadRecordedConfig(dir.path(), 3).ok());
  // A newer layout: export_type a list, _mstx beside _msprof_tx, versions.
  dir.Write("profiler_info_3.json",
            R"({"config": {"common_config": {"with_flops": true, "activities": ["ProfilerActivity.NPU"]},)"
            R"( "experimental_config": {"_msprof_tx": false, "_mstx": true, "_export_type": ["text"],)"
            R"( "_mstx_domain_exclude": ["mfu_flops"]}}, "torch_npu_version": "2.7.1", "rank_id": 3})");
  auto config = ReadRecordedConfig(dir.path(), 3);
  ASSERT_TRUE(config.ok() && config->has_value());
  const RecordedConfig& recorded = **config;
  ASSERT_NE(recorded.List(SettingId::kExportType), nullptr);
  EXPECT_EQ(*recorded.List(SettingId::kExportType), std::vector<std::string>{"text"});
  EXPECT_EQ(recorded.Bool(SettingId::kMsprofTx), false);
  EXPECT_EQ(recorded.Bool(SettingId::kMstx), true);
  EXPECT_EQ(recorded.Bool(SettingId::kRecordShapes), std::nullopt);  // not in this file
  EXPECT_EQ(recorded.Text(SettingId::kWithFlops), nullptr);          // recorded, but as a bool
  EXPECT_EQ(recorded.torch_npu_version, "2.7.1");
  // _mstx=true alone works from v26.1.0 on: not a definite blocker. The excluded domain is.
  std::vector<std::string> flops;
  for (const auto& b : FlopsBlockers(recorded)) flops.push_back(b.setting);
  EXPECT_EQ(flops, std::vector<std::string>{"mstx_domain_exclude=[mfu_flops]"});
  std::vector<std::string> kernels;
  for (const auto& b : KernelBlockers(recorded)) kernels.push_back(b.setting);
  EXPECT_EQ(kernels, std::vector<std::string>{"activities=[ProfilerActivity.NPU]"});
  // Another rank's file in the directory is still read when it is the only one.
  EXPECT_TRUE(ReadRecordedConfig(dir.path(), 7)->has_value());
}

// merge's refusal of shards of different inputs names the two partials and what differs.
TEST(ShardIdentity, ADifferenceNamesBothSidesAndWhatDiffers) {
  InputIdentity a;
  a.ranks.push_back({0, 0, "w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", false, 4096, 7});
  InputIdentity b = a;
  EXPECT_EQ(DescribeDifference(a, b, "A", "B"), "");
  b.ranks[0].never_parsed = true;  // same rank, same path: once the wording named neither
  EXPECT_EQ(DescribeDifference(a, b, "A", "B"),
            "rank 0 (w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db) has a database in A, raw data never "
            "parsed into a database in B");
  b = a;
  b.ranks[0].rank_id = 3;
  EXPECT_EQ(DescribeDifference(a, b, "A", "B"),
            "the input's rank #1 is rank 0 (w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db) in A, rank 3 "
            "(w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db) in B");
  b = a;
  b.ranks[0].path = "w1/x.db";
  EXPECT_EQ(DescribeDifference(a, b, "A", "B"),
            "rank 0 is read from w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db in A, w1/x.db in B");
  b = a;
  b.ranks[0].size = 8192;
  EXPECT_EQ(
      DescribeDifference(a, b, "A", "B"),
      "rank 0's database differs (size or modification time): w0/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db: "
      "4096 bytes modified at 7 ns in A, 8192 bytes modified at 7 ns in B");
  b = a;
  b.step_id = 2;
  EXPECT_EQ(DescribeDifference(a, b, "A", "B"), "run with no --step-id in A, --step-id 2 in B");
}

}  // namespace
}  // namespace opmfu::engine
