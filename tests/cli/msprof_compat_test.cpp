// `msprof-analyze ...` command lines with `msprof-analyze` replaced by `opmfu analyze`: every line of
// upstream's operator_mfu documentation, its `cluster` form and long spellings, and the seed's
// agent line write the rows the plain run writes; what upstream ignores is ignored with a warning;
// what upstream cannot do for operator_mfu is one line and exit 2; --agent always prints its line.

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TableRows;
using testing::TempDir;

// The sheets of every workbook under `folder` (names and cell XML; the zip's timestamps differ
// from run to run), read with the standard library's zipfile by the system python.
std::string Workbooks(const fs::path& folder) {
  const std::string command =
      "/usr/bin/python3 -c 'import pathlib, sys, zipfile\n"
      "for f in sorted(pathlib.Path(sys.argv[1]).glob(\"*.xlsx\")):\n"
      "    z = zipfile.ZipFile(f)\n"
      "    print(f.name, *(z.read(n).decode() for n in sorted(z.namelist()) if n.startswith(\"xl/\")))' '" +
      folder.string() + "'";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0);
  }
  return out;
}

class UpstreamCommandLines : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(RunOpmfu({"demo", demo_.string(), "--ranks", "2", "--steps", "1", "--layers", "2"}).exit_code, 0);
    const auto plain = RunOpmfu({"analyze", "-d", demo_.string(), "-o", (dir_.path() / "plain").string()});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const fs::path db = dir_.path() / "plain" / "cluster_analysis_output" / "cluster_analysis.db";
    operator_rows_ = TableRows(db, "OperatorMFU");
    module_rows_ = TableRows(db, "ModuleMFU");
    ASSERT_GT(operator_rows_.size(), 1U);
  }

  // The rows an upstream-spelled run wrote equal the plain run's.
  void ExpectSameRows(const fs::path& out, const std::string& line) {
    const fs::path db = out / "cluster_analysis_output" / "cluster_analysis.db";
    EXPECT_EQ(TableRows(db, "OperatorMFU"), operator_rows_) << line;
    EXPECT_EQ(TableRows(db, "ModuleMFU"), module_rows_) << line;
  }

  TempDir dir_;
  const fs::path demo_ = dir_.path() / "result";
  std::vector<std::string> operator_rows_;
  std::vector<std::string> module_rows_;
};

TEST_F(UpstreamCommandLines, EveryDocumentedOperatorMfuLineWritesThePlainRunsRows) {
  const std::string out = (dir_.path() / "out").string();
  // docs/{en,zh}/advanced_features/operator_mfu_instruct.md (`-d <profiling_path> [-o <output_path>]
  // [--export_type <export_type>]`), the README's `cluster` form, and the long spellings.
  const std::vector<std::vector<std::string>> lines = {
      {"-m", "operator_mfu", "-d", "./result", "-o", out},
      {"-m", "operator_mfu", "-d", "./result", "-o", out, "--export_type", "db"},
      {"cluster", "-d", "./result", "-m", "operator_mfu", "-o", out},
      {"--profiling_path", "./result", "--mode", "operator_mfu", "--output_path", out, "--export_type", "db",
       "--rank_list", "all", "--force", "--parallel_mode", "concurrent"},
      {"-m", "operator_mfu", "-d", "./result", "-o", out, "--force"},
  };
  for (const auto& line : lines) {
    std::vector<std::string> args{"analyze"};
    args.insert(args.end(), line.begin(), line.end());
    const auto result = RunOpmfu(args, dir_.path());
    const std::string spelled = ::testing::PrintToString(line);
    ASSERT_EQ(result.exit_code, 0) << spelled << "\n" << result.err;
    EXPECT_EQ(result.err.find("Invalid parameters"), std::string::npos) << spelled << "\n" << result.err;
    ExpectSameRows(out, spelled);
    fs::remove_all(out);
  }
  // Without -o, as the documentation's first line: the output goes below -d.
  const auto in_place = RunOpmfu({"analyze", "-m", "operator_mfu", "-d", "./result"}, dir_.path());
  ASSERT_EQ(in_place.exit_code, 0) << in_place.err;
  ExpectSameRows(demo_, "-m operator_mfu -d ./result");
}

TEST_F(UpstreamCommandLines, TheTextExportLineWritesThePlainRunsWorkbooks) {
  // `msprof-analyze -m operator_mfu -d ./result --export_type text` (its Syntax block).
  const auto upstream =
      RunOpmfu({"analyze", "-m", "operator_mfu", "-d", "./result", "--export_type", "text"}, dir_.path());
  ASSERT_EQ(upstream.exit_code, 0) << upstream.err;
  const auto plain =
      RunOpmfu({"analyze", "-d", demo_.string(), "-o", (dir_.path() / "plain_text").string(), "--export-type", "text"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string written = Workbooks(demo_ / "cluster_analysis_output" / "OperatorMfu");
  EXPECT_NE(written.find("operator_mfu_kernel_0.xlsx"), std::string::npos);
  EXPECT_EQ(written, Workbooks(dir_.path() / "plain_text" / "cluster_analysis_output" / "OperatorMfu"));
}

TEST_F(UpstreamCommandLines, TheSeedsAgentLineWritesTheRowsAndItsLogHoldsTheRun) {
  const fs::path out = dir_.path() / "agent_out";
  const fs::path log = dir_.path() / "agent.log";
  // `msprof-analyze --agent -m operator_mfu -d <dir> -o <out>`
  const auto result = RunOpmfu({"analyze", "--agent", "-m", "operator_mfu", "-d", demo_.string(), "-o", out.string()},
                               {}, {{"MSPROF_ANALYZE_LOG_FILE", log.string()}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto line = nlohmann::json::parse(result.out);
  EXPECT_EQ(line["status"], "success");
  EXPECT_EQ(line["log_path"], log.string());
  EXPECT_EQ(line["message"]["db_path"], (out / "cluster_analysis_output" / "cluster_analysis.db").string());
  ExpectSameRows(out, "--agent");
  // The log holds the run: what was analysed, each rank's stages, what was written.
  const std::string first = testing::ReadFile(log);
  EXPECT_NE(first.find("analyze -d " + demo_.string() + ": 2 ranks"), std::string::npos) << first;
  EXPECT_NE(first.find("rank 1: stages: "), std::string::npos) << first;
  EXPECT_NE(first.find("wrote " + line["message"]["db_path"].get<std::string>()), std::string::npos) << first;
  // As upstream's logger: each run appends to the file it names.
  ASSERT_EQ(RunOpmfu({"analyze", "--agent", "-d", demo_.string(), "-o", out.string()}, {},
                     {{"MSPROF_ANALYZE_LOG_FILE", log.string()}})
                .exit_code,
            0);
  const std::string both = testing::ReadFile(log);
  EXPECT_EQ(both.substr(0, first.size()), first);
  EXPECT_GT(both.size(), first.size() + first.size() / 2);
}

TEST_F(UpstreamCommandLines, UnknownOptionsAreIgnoredWithAWarningNamingThem) {
  const fs::path out = dir_.path() / "out";
  // click's ignore_unknown_options with upstream's `args`: the option and its value are both ignored.
  const auto result = RunOpmfu({"analyze", "-d", demo_.string(), "-o", out.string(), "--top_num", "10", "--rank-lst=0",
                                "--exclude_op_name", "aten::mm"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("opmfu: warning: Invalid parameters: --top_num 10 --rank-lst=0 --exclude_op_name "
                            "aten::mm. It will not have any effect"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("did you mean '--rank-list'?"), std::string::npos) << result.err;
  ExpectSameRows(out, "unknown options");
}

TEST_F(UpstreamCommandLines, WhatOperatorMfuCannotDoIsOneLineAndExitTwo) {
  const auto notebook = RunOpmfu({"analyze", "-m", "operator_mfu", "-d", demo_.string(), "--export_type", "notebook"});
  EXPECT_EQ(notebook.exit_code, 2);
  EXPECT_EQ(notebook.err,
            "opmfu: error: --export_type notebook is not supported for operator_mfu, by msprof-analyze either (it logs "
            "\"Invalid export type: notebook for operator mfu analysis\" and writes nothing): use db or text\n");
  EXPECT_FALSE(fs::exists(demo_ / "cluster_analysis_output"));
  const auto mode = RunOpmfu({"analyze", "-d", demo_.string(), "--parallel_mode", "serial"});
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_NE(mode.err.find("--parallel_mode serial: msprof-analyze knows only concurrent"), std::string::npos);
  const auto other = RunOpmfu({"analyze", "-d", demo_.string(), "-m", "communication_time"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("opmfu analyze runs operator_mfu only"), std::string::npos);
}

TEST_F(UpstreamCommandLines, AgentModePrintsItsLineWhateverHappens) {
  const fs::path log = dir_.path() / "errors.log";
  const std::map<std::string, std::string> env{{"MSPROF_ANALYZE_LOG_FILE", log.string()}};
  const auto forced = RunOpmfu({"analyze", "--agent", "--force", "-d", demo_.string()}, {}, env);
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(nlohmann::json::parse(forced.out)["status"], "success");
  // A usage error (no -d), an input error (nothing to analyse), a refused export type: each is
  // upstream's error line, its message also in the log.
  const fs::path empty = dir_.path() / "empty";
  fs::create_directories(empty);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"analyze", "--agent"},
        std::vector<std::string>{"analyze", "--agent", "-d", empty.string()},
        std::vector<std::string>{"analyze", "--agent", "-d", demo_.string(), "--export_type", "notebook"}}) {
    const auto result = RunOpmfu(args, {}, env);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    const auto line = nlohmann::json::parse(result.out);
    EXPECT_EQ(line["status"], "error");
    EXPECT_EQ(line["code"], 2);
    const std::string message = line["message"]["err"];
    EXPECT_NE(result.err.find(message), std::string::npos);
    EXPECT_EQ(line["log_path"], log.string());
    EXPECT_NE(testing::ReadFile(log).find("error: " + message), std::string::npos);
  }
}

TEST_F(UpstreamCommandLines, PathsAsUpstreamReadsThem) {
  // `--profiling_path=~/result` (no shell expands the ~ there) and click's `-d=dir`.
  const fs::path out = dir_.path() / "out";
  const auto tilde =
      RunOpmfu({"analyze", "--profiling_path=~/result", "-o", out.string()}, {}, {{"HOME", dir_.path().string()}});
  ASSERT_EQ(tilde.exit_code, 0) << tilde.err;
  ExpectSameRows(out, "~");
}

}  // namespace
}  // namespace opmfu
