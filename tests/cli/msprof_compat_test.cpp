// `msprof-analyze ...` command lines with `msprof-analyze` replaced by `opmfu analyze`: every line of
// upstream's operator_mfu documentation, its `cluster` form and long spellings, and the seed's
// agent line write the rows the plain run writes; what upstream ignores is ignored with a warning;
// what upstream cannot do for operator_mfu is one line and exit 2; --agent always prints its line.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
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

// Issue 47: the log is appended through the one output writer: never onto an input of the run
// (the rank DB once got the log text appended, exit 0), never through a link.
TEST_F(UpstreamCommandLines, TheAgentLogIsNeverAnInputOrALink) {
  fs::path rank_db;
  for (const auto& entry : fs::recursive_directory_iterator(demo_)) {
    if (entry.path().filename() == "ascend_pytorch_profiler_0.db") rank_db = entry.path();
  }
  ASSERT_FALSE(rank_db.empty());
  const std::string before = testing::ReadFile(rank_db);
  const auto onto_input = RunOpmfu({"analyze", "--agent", "-d", demo_.string(), "-o", (dir_.path() / "o1").string()},
                                   {}, {{"MSPROF_ANALYZE_LOG_FILE", rank_db.string()}});
  EXPECT_EQ(onto_input.exit_code, 0) << onto_input.err;  // the analysis itself is fine; the log is a warning
  EXPECT_NE(onto_input.err.find("is an input of this run"), std::string::npos) << onto_input.err;
  EXPECT_EQ(testing::ReadFile(rank_db), before);

  const fs::path victim = dir_.path() / "victim";
  std::ofstream(victim) << "v\n";
  fs::create_symlink(victim, dir_.path() / "log.lnk");
  const auto through_link = RunOpmfu({"analyze", "--agent", "-d", demo_.string(), "-o", (dir_.path() / "o2").string()},
                                     {}, {{"MSPROF_ANALYZE_LOG_FILE", (dir_.path() / "log.lnk").string()}});
  EXPECT_EQ(through_link.exit_code, 0) << through_link.err;
  EXPECT_NE(through_link.err.find("log.lnk: is a symbolic link"), std::string::npos) << through_link.err;
  EXPECT_EQ(testing::ReadFile(victim), "v\n");
  // Its answer then names no log_path (there is none).
  EXPECT_EQ(nlohmann::json::parse(through_link.out).count("log_path"), 0U) << through_link.out;
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
  EXPECT_EQ(other.err,
            "opmfu: error: -m communication_time: opmfu implements only msprof-analyze's operator_mfu; for "
            "communication_time run msprof-analyze itself (pip install msprof-analyze): msprof-analyze -d " +
                demo_.string() + " -m communication_time\n");
}

// The same command lines with only the program's name changed: `opmfu -m operator_mfu ...`, `opmfu cluster
// ...` and a link named msprof-analyze are `opmfu analyze ...`.
TEST_F(UpstreamCommandLines, UpstreamsOwnShapeWithOnlyTheProgramRenamedIsAnalyze) {
  const fs::path out = dir_.path() / "out";
  const fs::path link = dir_.path() / "bin" / "msprof-analyze";
  fs::create_directories(link.parent_path());
  fs::create_symlink(OPMFU_BINARY, link);
  const std::vector<std::vector<std::string>> lines = {
      {"-m", "operator_mfu", "-d", "./result", "--export_type", "db", "-o", out.string()},
      {"cluster", "-m", "operator_mfu", "-d", "./result", "-o", out.string()},
      {"--profiling_path=./result", "--mode", "operator_mfu", "--output_path", out.string(), "--force"},
  };
  for (const auto& line : lines) {
    for (const bool through_link : {false, true}) {
      testing::RunOptions options;
      options.cwd = dir_.path();
      if (through_link) options.program = link;
      const auto result = testing::RunOpmfuWith(line, options);
      const std::string spelled = ::testing::PrintToString(line) + (through_link ? " (msprof-analyze)" : "");
      ASSERT_EQ(result.exit_code, 0) << spelled << "\n" << result.err;
      EXPECT_NE(result.out.find("OperatorMFU"), std::string::npos) << spelled << "\n" << result.out;
      ExpectSameRows(out, spelled);
      fs::remove_all(out);
    }
  }
  // Through the link, upstream's default command is implied even without -m.
  testing::RunOptions options;
  options.cwd = dir_.path();
  options.program = link;
  ASSERT_EQ(testing::RunOpmfuWith({"-d", "./result", "-o", out.string()}, options).exit_code, 0);
  ExpectSameRows(out, "msprof-analyze -d ./result");
  // The agent line, in upstream's shape.
  const auto agent = RunOpmfu({"--agent", "-m", "operator_mfu", "-d", demo_.string(), "-o", out.string()}, {},
                              {{"MSPROF_ANALYZE_LOG_FILE", (dir_.path() / "agent.log").string()}});
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  EXPECT_EQ(nlohmann::json::parse(agent.out)["status"], "success");
}

TEST_F(UpstreamCommandLines, UpstreamsVersionFlagsAndOtherModesAndCommands) {
  const fs::path link = dir_.path() / "msprof-analyze";
  fs::create_symlink(OPMFU_BINARY, link);
  testing::RunOptions through_link;
  through_link.program = link;
  const std::string version = RunOpmfu({"--version"}).out;
  ASSERT_EQ(version.rfind("opmfu ", 0), 0U) << version;
  // click's eager -V/-v/--version: on the group and on `cluster`, whatever else the line holds.
  for (const std::vector<std::string>& line : {std::vector<std::string>{"-V"},
                                               {"-v"},
                                               {"-m", "operator_mfu", "-d", demo_.string(), "-v"},
                                               {"cluster", "-V", "-d", demo_.string()}}) {
    const auto direct = RunOpmfu(line);
    EXPECT_EQ(direct.exit_code, 0) << ::testing::PrintToString(line) << direct.err;
    EXPECT_EQ(direct.out, version) << ::testing::PrintToString(line);
    const auto linked = testing::RunOpmfuWith(line, through_link);
    EXPECT_EQ(linked.exit_code, 0) << ::testing::PrintToString(line) << linked.err;
    EXPECT_EQ(linked.out, version) << ::testing::PrintToString(line);
  }
  EXPECT_FALSE(fs::exists(demo_ / "cluster_analysis_output"));
  // In opmfu's own `analyze`, -v stays --verbose.
  const auto verbose = RunOpmfu({"analyze", "-d", demo_.string(), "-o", (dir_.path() / "v").string(), "-v"});
  EXPECT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_NE(verbose.out.find("OperatorMFU"), std::string::npos);
  // Another mode: one line naming the upstream command, nothing written.
  const auto mode = RunOpmfu({"cluster", "-m", "communication_matrix", "-d", "./result"}, dir_.path());
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_EQ(mode.err,
            "opmfu: error: -m communication_matrix: opmfu implements only msprof-analyze's operator_mfu; for "
            "communication_matrix run msprof-analyze itself (pip install msprof-analyze): msprof-analyze -m "
            "communication_matrix -d ./result\n");
  const auto all = testing::RunOpmfuWith({"--mode=all", "-d", demo_.string()}, through_link);
  EXPECT_EQ(all.exit_code, 2);
  EXPECT_NE(all.err.find("-m all: opmfu implements only msprof-analyze's operator_mfu"), std::string::npos) << all.err;
  const auto compare = testing::RunOpmfuWith({"compare", "-d", "a", "-bp", "b"}, through_link);
  EXPECT_EQ(compare.exit_code, 2);
  EXPECT_EQ(compare.err,
            "opmfu: error: msprof-analyze compare: opmfu implements only msprof-analyze's cluster -m operator_mfu; run "
            "msprof-analyze itself for compare (pip install msprof-analyze): msprof-analyze compare -d a -bp b\n");
  EXPECT_FALSE(fs::exists(demo_ / "cluster_analysis_output"));
  // opmfu's own command line is untouched: help, an unknown command.
  EXPECT_EQ(RunOpmfu({"--help"}).exit_code, 0);
  EXPECT_NE(RunOpmfu({"analyse"}).err.find("unknown command 'analyse'"), std::string::npos);
  const auto help = testing::RunOpmfuWith({"-H"}, through_link);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--profiling_path"), std::string::npos) << help.out;
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
