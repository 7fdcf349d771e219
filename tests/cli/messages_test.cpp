// Issue 47, messages: nothing that came from an input reaches the terminal raw. Names in a rank
// DB's STRING_IDS, a JSON key written with \u escapes and a directory name met in a scan carry ESC,
// BEL and newlines followed by a fake `opmfu:` line; every command that prints them must print
// them escaped (common/text.h's EscapeControlCharacters), on stdout and stderr alike.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/sqlite.h"
#include "engine/profiling_db_builder.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TempDir;

constexpr const char* kHostileRankDir = "worker_0_20250101000000000_ascend_pt";
// What a hostile name holds: a colour, a bell, a line break and a line that looks like opmfu's.
const std::string kHostile =
    "x\x1b[31m\x07\nopmfu: error: fake\r\xc2\x9b"
    "2J";

// Fails when `text` holds a control byte a terminal acts on (tabs and line ends aside), a C1 CSI,
// or a line that starts the fake message.
void ExpectNothingRaw(const std::string& text, const std::string& what) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_FALSE((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f)
        << what << " holds byte " << int(byte) << ":\n"
        << text;
  }
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << what << ":\n" << text;
  EXPECT_EQ(text.find("\nopmfu: error: fake"), std::string::npos) << what << ":\n" << text;
  EXPECT_NE(text.rfind("opmfu: error: fake", 0), 0U) << what;
}

void WriteHostileRank(const TempDir& dir) {
  engine::ProfilingDbBuilder db;
  const std::string op = "aten::mm" + kHostile;
  const std::int64_t id = db.AddOp(op, 1000, 2000);
  db.AddKernel({id}, {"MatMulV2" + kHostile, 1500, 2500});
  db.AddMstx("mfu_flops", "1000000000-" + op, 900, 2100);
  db.AddMstx("mfu_flops", "bad" + kHostile, 900, 2100);  // a malformed record check-db quotes
  db.AddMstx("Module", "Net" + kHostile, 0, 10000);
  ASSERT_TRUE(db.Write(dir.path() / kHostileRankDir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").ok());
  ASSERT_TRUE(engine::WriteDeviceInfo(dir.path() / kHostileRankDir, 0, "20", "\"1800\"").ok());
}

TEST(Messages, RankDbStringsArePrintedEscaped) {
  TempDir dir;
  WriteHostileRank(dir);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"analyze", "-d", dir.path().string(), "-v"},
        std::vector<std::string>{"check-db", "-d", dir.path().string()},
        std::vector<std::string>{"report", "-d", dir.path().string()},
        std::vector<std::string>{"report", "-d", dir.path().string(), "--format", "markdown"}}) {
    const auto result = RunOpmfu(args);
    const std::string what = args[0] + (args.size() > 4 ? " " + args[4] : "");
    EXPECT_NE(result.out.find("\\x1b[31m\\x07\\nopmfu: error: fake"), std::string::npos) << what << "\n" << result.out;
    ExpectNothingRaw(result.out, what + " stdout");
    ExpectNothingRaw(result.err, what + " stderr");
  }
}

TEST(Messages, AJsonKeyWithEscapesIsPrintedEscaped) {
  TempDir dir;
  dir.Write(
      "profiler_config.json",
      R"({"activities": ["NPU"], "with_flops": true, "experimental_config": {"\u0007pro\u001b[31mx\nopmfu: error: fake": 1}})"
      "\n");
  for (const char* format : {"full", "concise", "gcc"}) {
    const auto result = RunOpmfu({"lint", "--no-config", "--output-format", format, dir.path().string()});
    EXPECT_NE(result.out.find("\\x07pro\\x1b[31mx\\nopmfu: error: fake"), std::string::npos) << format << "\n"
                                                                                             << result.out;
    ExpectNothingRaw(result.out, std::string(format) + " stdout");
    ExpectNothingRaw(result.err, std::string(format) + " stderr");
  }
}

TEST(Messages, ADirectoryNameMetInAScanIsPrintedEscaped) {
  TempDir dir;
  WriteHostileRank(dir);
  fs::create_directories(dir.path() / ("w" + kHostile + "_ascend_pt"));  // gives no rank: an error names it
  for (const char* command : {"analyze", "check-db"}) {
    const auto result = RunOpmfu({command, "-d", dir.path().string()});
    EXPECT_EQ(result.exit_code, 1) << command;
    EXPECT_NE(result.err.find("w"
                              "x\\x1b[31m\\x07\\nopmfu: error: fake\\r\\u009b2J_ascend_pt"),
              std::string::npos)
        << command << "\n"
        << result.err;
    ExpectNothingRaw(result.out, std::string(command) + " stdout");
    ExpectNothingRaw(result.err, std::string(command) + " stderr");
  }
  fs::create_directories(dir.path() / "src" / ("d" + kHostile));
  dir.Write("src/d" + kHostile + "/train.py",
            "import torch_npu\nprof = torch_npu.profiler.profile(with_flops=False)\n");
  const auto lint = RunOpmfu({"lint", "--no-config", (dir.path() / "src").string()});
  EXPECT_NE(lint.out.find("OPM101"), std::string::npos) << lint.out << lint.err;
  ExpectNothingRaw(lint.out, "lint stdout");
  ExpectNothingRaw(lint.err, "lint stderr");
}

// Every environment variable opmfu reads is parsed with a one-line error naming it.
TEST(Messages, AnEnvironmentVariableThatIsNoNumberIsNamed) {
  TempDir dir;
  WriteHostileRank(dir);
  for (const char* value : {"99999999999999999999", "two", "-1", "987654"}) {
    const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "-o", (dir.path() / "out").string()}, {},
                                 {{"OPMFU_PROGRESS_FD", value}});
    EXPECT_EQ(result.exit_code, 2) << value << "\n" << result.err;
    EXPECT_NE(result.err.find("opmfu: error: OPMFU_PROGRESS_FD="), std::string::npos) << value << "\n" << result.err;
    EXPECT_EQ(result.err.find("internal error"), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

// The size and time limits' variables are checked before any command starts, lint included.
TEST(Messages, ALimitVariableThatIsNoNumberIsNamedBeforeTheCommandRuns) {
  TempDir dir;
  WriteHostileRank(dir);
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"OPMFU_QUERY_SECONDS", {"analyze", "-d", dir.path().string(), "-o", (dir.path() / "out").string()}},
      {"OPMFU_QUERY_SECONDS", {"check-db", "-d", dir.path().string()}},
      {"OPMFU_MAX_FILE_SIZE", {"lint", dir.path().string()}}};
  for (const auto& [variable, args] : cases) {
    for (const char* value : {"99999999999999999999", "ten", "-1", "0", "1.5"}) {
      if (variable == "OPMFU_MAX_FILE_SIZE" && std::string(value) == "0") continue;  // 0 bytes is a size
      const auto result = RunOpmfu(args, {}, {{variable, value}});
      EXPECT_EQ(result.exit_code, 2) << variable << "=" << value << "\n" << result.err;
      EXPECT_NE(result.err.find("opmfu: error: " + variable + "="), std::string::npos) << value << "\n" << result.err;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
      EXPECT_FALSE(std::filesystem::exists(dir.path() / "out")) << "the command ran";
    }
  }
  // A valid value is taken: the analysis runs.
  const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "-o", (dir.path() / "out").string()}, {},
                               {{"OPMFU_QUERY_SECONDS", "600"}});
  EXPECT_NE(result.exit_code, 2) << result.err;
}

// PEP 263: a file in the encoding its coding line declares is what Python compiles, so it is linted.
// In GBK the second byte of a character can be a backslash (0x81 0x5C): read as bytes, the string
// would swallow its closing quote and hide the call after it.
TEST(Messages, APythonFileInTheEncodingItDeclaresIsLinted) {
  TempDir dir;
  const std::string gbk =
      "# -*- coding: gbk -*-\n"
      "# \xd6\xd0\xce\xc4: a comment in Chinese\n"
      "import torch_npu\n"
      "label = \"\x81\x5c\"; prof = torch_npu.profiler.profile(with_flops=False)\n";
  const fs::path script = dir.Write("train.py", gbk);
  const auto result = RunOpmfu({"lint", "--no-config", "--output-format", "concise", script.string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("train.py:4:"), std::string::npos) << result.out << result.err;
  EXPECT_NE(result.out.find("OPM101"), std::string::npos) << result.out;
  EXPECT_EQ(result.err.find("not valid UTF-8"), std::string::npos) << result.err;
  // --fix leaves the file in its own encoding: no edit is written in UTF-8 into it.
  RunOpmfu({"lint", "--no-config", "--fix", script.string()});
  EXPECT_EQ(testing::ReadFile(script), gbk);

  const fs::path broken = dir.Write("broken.py", "# coding: gbk\nx = 1  # \xff\xff\n");
  const auto refused = RunOpmfu({"lint", "--no-config", broken.string()});
  EXPECT_NE(refused.err.find("broken.py: not valid gbk"), std::string::npos) << refused.err;
  const fs::path undeclared = dir.Write("plain.py", "x = '\xd6\xd0'\n");
  const auto plain = RunOpmfu({"lint", "--no-config", undeclared.string()});
  EXPECT_NE(plain.err.find("plain.py: not valid UTF-8"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace opmfu
