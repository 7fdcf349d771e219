// `opmfu gate` and `opmfu diff` on demo runs: thresholds, baselines, CI output formats, and the
// numbers checked against the OperatorMFU rows.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/sqlite.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunOpmfu;
using testing::TempDir;

// Time-weighted MFU of the OperatorMFU rows matching `where`, straight from SQL.
double WeightedMfu(const fs::path& cluster_db, const std::string& where = "1") {
  auto db = Database::OpenReadOnly(cluster_db);
  EXPECT_TRUE(db.ok());
  auto statement = db->Prepare(
      "SELECT SUM(mfu * \"kernel_duration(ns)\") / SUM(\"kernel_duration(ns)\") FROM "
      "OperatorMFU WHERE " +
      where);
  EXPECT_TRUE(statement.ok());
  EXPECT_TRUE(*statement->Step());
  return statement->Double(0);
}

class GateOnDemo : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = dir_.path() / "base";
    candidate_ = dir_.path() / "candidate";
    ASSERT_EQ(RunOpmfu({"demo", base_.string(), "--ranks", "1", "--steps", "2", "--layers", "2"}).exit_code, 0);
    ASSERT_EQ(RunOpmfu({"demo", candidate_.string(), "--ranks", "1", "--steps", "2", "--layers", "2", "--seed", "7"})
                  .exit_code,
              0);
    ASSERT_EQ(RunOpmfu({"analyze", "-d", base_.string()}).exit_code, 0);
    ASSERT_EQ(RunOpmfu({"analyze", "-d", candidate_.string()}).exit_code, 0);
  }
  fs::path ClusterDb(const fs::path& run) const { return run / "cluster_analysis_output" / "cluster_analysis.db"; }
  json Gate(std::vector<std::string> args, int expected_exit) const {
    args.insert(args.begin(), "gate");
    args.insert(args.end(), {"--output-format", "json"});
    const auto result = RunOpmfu(args);
    EXPECT_EQ(result.exit_code, expected_exit) << result.out << result.err;
    return json::parse(result.out);
  }

  TempDir dir_;
  fs::path base_;
  fs::path candidate_;
};

TEST_F(GateOnDemo, PassesAndFailsAtTheMeasuredMfu) {
  const double mfu = WeightedMfu(ClusterDb(base_));
  const double mm = WeightedMfu(ClusterDb(base_), "op_name = 'aten::mm'");
  const auto ratio = [](double value) { return std::to_string(value); };
  // Just below the measured value passes, just above fails: the threshold is compared with it.
  json passed =
      Gate({"-d", base_.string(), "--min-mfu", ratio(mfu - 1e-4), "--min-mfu-op", "aten::mm=" + ratio(mm - 1e-4)}, 0);
  EXPECT_TRUE(passed["passed"]);
  EXPECT_NEAR(passed["checks"][0]["actual"].get<double>(), mfu, 1e-12);
  EXPECT_NEAR(passed["checks"][1]["actual"].get<double>(), mm, 1e-12);
  json failed = Gate({"-d", base_.string(), "--min-mfu", ratio(mfu + 1e-4)}, 1);
  EXPECT_FALSE(failed["passed"]);
  EXPECT_EQ(failed["checks"][0]["rule"], "gate/min-mfu");
  // Percent spelling, and the cluster DB gives the same answer.
  json from_db = Gate({"--db", ClusterDb(base_).string(), "--min-mfu", ratio(mfu * 100 + 0.01) + "%"}, 1);
  EXPECT_NEAR(from_db["checks"][0]["actual"].get<double>(), mfu, 1e-12);
  // An op with no rows fails rather than passing vacuously.
  json missing = Gate({"-d", base_.string(), "--min-mfu-op", "aten::conv2d=0.1"}, 1);
  EXPECT_NE(missing["checks"][0]["message"].get<std::string>().find("no OperatorMFU rows"), std::string::npos);
}

TEST_F(GateOnDemo, CoverageAndDropAgainstABaseline) {
  json coverage = Gate({"-d", base_.string(), "--min-coverage", "0.9"}, 0);
  ASSERT_EQ(coverage["checks"].size(), 1U);
  EXPECT_EQ(coverage["checks"][0]["subject"], "rank 0 coverage");
  EXPECT_GT(coverage["checks"][0]["actual"].get<double>(), 0.9);
  // Elementwise kernels (LayerNorm, Add) run outside every FLOPs range: full coverage is not met.
  Gate({"-d", base_.string(), "--min-coverage", "1"}, 1);

  const double before = WeightedMfu(ClusterDb(base_));
  const double after = WeightedMfu(ClusterDb(candidate_));
  const double drop = (before - after) / before;
  json within = Gate({"-d", candidate_.string(), "--baseline", base_.string(), "--max-drop",
                      std::to_string(std::max(drop, 0.0) * 100 + 50) + "%"},
                     0);
  EXPECT_NEAR(within["checks"][0]["actual"].get<double>(), drop, 1e-9);
  // Against itself nothing dropped; with a zero allowance the candidate's per-op drops fail.
  Gate({"-d", base_.string(), "--baseline", ClusterDb(base_).string(), "--max-drop", "0"}, 0);
  json strict = Gate({"-d", candidate_.string(), "--baseline", base_.string(), "--max-drop", "0"}, 1);
  bool some_op_failed = false;
  for (const json& check : strict["checks"]) some_op_failed |= check["subject"] != "all kernels" && !check["passed"];
  EXPECT_TRUE(some_op_failed) << strict.dump(2);
}

TEST_F(GateOnDemo, SpeaksSarifAndGithubAndRefusesBadThresholds) {
  const auto sarif = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99", "--output-format", "sarif"});
  EXPECT_EQ(sarif.exit_code, 1);
  const json log = json::parse(sarif.out);
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["runs"][0]["results"][0]["ruleId"], "gate/min-mfu");
  const auto github = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99", "--output-format", "github"});
  EXPECT_EQ(github.exit_code, 1);
  EXPECT_EQ(github.out.rfind("::error title=opmfu (gate/min-mfu)", 0), 0U) << github.out;
  const auto text = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99"});
  EXPECT_NE(text.out.find("gate failed: 1 of 1 checks"), std::string::npos) << text.out;
  // The other CI formats docs/ci.md lists for the gate: a Code Quality issue, a gcc line, an Azure issue.
  const auto gitlab = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99", "--output-format", "gitlab"});
  EXPECT_EQ(gitlab.exit_code, 1) << gitlab.err;
  const json issues = json::parse(gitlab.out);
  ASSERT_EQ(issues.size(), 1U) << gitlab.out;
  EXPECT_EQ(issues[0]["check_name"], "gate/min-mfu");
  EXPECT_EQ(issues[0]["severity"], "major");
  const auto gcc = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99", "--output-format", "gcc"});
  EXPECT_EQ(gcc.exit_code, 1) << gcc.err;
  EXPECT_EQ(gcc.out.rfind(base_.string() + ":1:1: error: ", 0), 0U) << gcc.out;
  EXPECT_NE(gcc.out.find(" [gate/min-mfu]\n"), std::string::npos) << gcc.out;
  const auto azure = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.99", "--output-format", "azure"});
  EXPECT_EQ(azure.out.rfind("##vso[task.logissue type=error;", 0), 0U) << azure.out;
  // Passing: an empty report in the CI formats, the exit code 0.
  const auto clean = RunOpmfu({"gate", "-d", base_.string(), "--min-mfu", "0.01", "--output-format", "gitlab"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(json::parse(clean.out), json::array());

  for (const std::vector<std::string>& args : {std::vector<std::string>{"gate", "-d", base_.string()},
                                               {"gate", "-d", base_.string(), "--min-mfu", "lots"},
                                               {"gate", "-d", base_.string(), "--max-drop", "5%"},
                                               {"gate", "-d", base_.string(), "--min-mfu-op", "0.5"},
                                               {"gate", "--db", ClusterDb(base_).string(), "--min-coverage", "0.9"}}) {
    const auto refused = RunOpmfu(args);
    EXPECT_EQ(refused.exit_code, 2) << args.back() << ": " << refused.out;
    EXPECT_FALSE(refused.err.empty());
  }
}

TEST_F(GateOnDemo, DiffAlignsKernelGroupsAndRanksTheLossFirst) {
  const auto result = RunOpmfu({"diff", ClusterDb(base_).string(), candidate_.string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json diff = json::parse(result.out);
  EXPECT_NEAR(diff["base"]["weighted_mfu"].get<double>(), WeightedMfu(ClusterDb(base_)), 1e-12);
  EXPECT_NEAR(diff["candidate"]["weighted_mfu"].get<double>(), WeightedMfu(ClusterDb(candidate_)), 1e-12);
  double previous = -INFINITY;
  for (const json& group : diff["groups"]) {
    ASSERT_FALSE(group["base"].is_null()) << group.dump();  // same model, same groups
    const std::string where = "op_name = '" + group["op_name"].get<std::string>() + "' AND kernel_name = '" +
                              group["kernel_name"].get<std::string>() + "' AND input_shapes = '" +
                              group["input_shapes"].get<std::string>() + "'";
    EXPECT_NEAR(group["candidate"]["weighted_mfu"].get<double>(), WeightedMfu(ClusterDb(candidate_), where), 1e-12);
    EXPECT_GE(group["time_weighted_change"].get<double>(), previous);
    previous = group["time_weighted_change"].get<double>();
  }
  const auto text = RunOpmfu({"diff", base_.string(), candidate_.string(), "--top", "3"});
  EXPECT_NE(text.out.find("more groups"), std::string::npos) << text.out;
  const auto missing = RunOpmfu({"diff", base_.string(), (dir_.path() / "nowhere").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nowhere"), std::string::npos);
}

}  // namespace
}  // namespace opmfu
