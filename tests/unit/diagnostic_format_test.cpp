#include "common/diagnostic_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace opmfu {
namespace {

Diagnostic Sample() {
  Diagnostic d;
  d.rule_id = "OPM504";
  d.rule_name = "formula-returns-float";
  d.severity = Severity::kError;
  d.file = "dir/my formulas.py";
  d.range = {{7, 12}, {7, 17}};
  d.message = "formula `f` can return a float: 100%, really";
  d.help = "use `//`";
  d.snippet = "    return a / b";
  return d;
}

FormatOptions Options() {
  FormatOptions options;
  options.tool_version = "9.9.9";
  options.rules = {{"OPM504", "formula-returns-float", Severity::kError, "Float result.", "docs/rules/OPM504.md"}};
  return options;
}

TEST(FormatDiagnostics, Full) {
  EXPECT_EQ(FormatDiagnostics({Sample()}, OutputFormat::kFull, Options()),
            "error[OPM504]: formula `f` can return a float: 100%, really\n"
            "  --> dir/my formulas.py:7:12\n"
            "  |\n"
            "7 |     return a / b\n"
            "  |            ^^^^^\n"
            "  |\n"
            "  = help: use `//`\n"
            "  = docs: docs/rules/OPM504.md\n\n");
}

TEST(FormatDiagnostics, ConciseAndGcc) {
  EXPECT_EQ(FormatDiagnostics({Sample()}, OutputFormat::kConcise, Options()),
            "dir/my formulas.py:7:12: OPM504 formula `f` can return a float: 100%, really\n");
  EXPECT_EQ(FormatDiagnostics({Sample()}, OutputFormat::kGcc, Options()),
            "dir/my formulas.py:7:12: error: formula `f` can return a float: 100%, really [OPM504]\n");
}

TEST(FormatDiagnostics, GithubEscapesDataAndProperties) {
  Diagnostic d = Sample();
  d.file = "a,b:c.py";
  d.message = "line1\nline2 50%";
  d.help.clear();
  EXPECT_EQ(
      FormatDiagnostics({d}, OutputFormat::kGithub, Options()),
      "::error title=opmfu (OPM504),file=a%2Cb%3Ac.py,line=7,col=12,endLine=7,endColumn=17::line1%0Aline2 50%25\n");
  d.range.end.line = 9;  // multi-line: GitHub rejects col/endColumn then
  d.severity = Severity::kInfo;
  EXPECT_EQ(FormatDiagnostics({d}, OutputFormat::kGithub, Options()),
            "::notice title=opmfu (OPM504),file=a%2Cb%3Ac.py,line=7,endLine=9::line1%0Aline2 50%25\n");
}

TEST(FormatDiagnostics, JsonHasRuffLikeFields) {
  Diagnostic d = Sample();
  d.fix = Fix{"add it", {{10, 10, ", **kwargs"}}, true};
  const auto json = nlohmann::json::parse(FormatDiagnostics({d}, OutputFormat::kJson, Options()));
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 1U);
  EXPECT_EQ(json[0]["code"], "OPM504");
  EXPECT_EQ(json[0]["name"], "formula-returns-float");
  EXPECT_EQ(json[0]["severity"], "error");
  EXPECT_EQ(json[0]["filename"], "dir/my formulas.py");
  EXPECT_EQ(json[0]["location"]["row"], 7);
  EXPECT_EQ(json[0]["end_location"]["column"], 17);
  EXPECT_EQ(json[0]["fix"]["applicability"], "safe");
  EXPECT_EQ(json[0]["fix"]["edits"][0]["content"], ", **kwargs");
  EXPECT_EQ(json[0]["url"], "docs/rules/OPM504.md");
  EXPECT_EQ(nlohmann::json::parse(FormatDiagnostics({}, OutputFormat::kJson, Options())), nlohmann::json::array());
}

// The fields SARIF 2.1.0 requires (sarif-schema-2.1.0.json: log.version, log.runs, run.tool.driver.name,
// result.message) plus what GitHub code scanning reads (ruleId, locations, rules[].id, helpUri).
TEST(FormatDiagnostics, SarifHasTheRequiredFields) {
  const auto log = nlohmann::json::parse(FormatDiagnostics({Sample()}, OutputFormat::kSarif, Options()));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_TRUE(log["$schema"].get<std::string>().find("sarif-schema-2.1.0.json") != std::string::npos);
  ASSERT_EQ(log["runs"].size(), 1U);
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "opmfu");
  EXPECT_EQ(run["tool"]["driver"]["version"], "9.9.9");
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  const auto& rule = run["tool"]["driver"]["rules"][0];
  EXPECT_EQ(rule["id"], "OPM504");
  EXPECT_EQ(rule["shortDescription"]["text"], "Float result.");
  EXPECT_EQ(rule["help"]["text"], "See docs/rules/OPM504.md");  // relative: not a helpUri
  FormatOptions linked = Options();
  linked.docs_base = "https://opmfu.example/";
  const auto with_base = nlohmann::json::parse(FormatDiagnostics({Sample()}, OutputFormat::kSarif, linked));
  EXPECT_EQ(with_base["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"],
            "https://opmfu.example/docs/rules/OPM504.md");
  EXPECT_EQ(with_base["runs"][0]["tool"]["driver"]["informationUri"], "https://opmfu.example/");
  const auto& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "OPM504");
  EXPECT_EQ(result["ruleIndex"], 0);
  EXPECT_EQ(result["level"], "error");
  EXPECT_TRUE(result["message"]["text"].is_string());
  const auto& location = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "dir/my%20formulas.py");
  EXPECT_EQ(location["region"]["startLine"], 7);
  EXPECT_EQ(location["region"]["startColumn"], 12);
  EXPECT_EQ(location["region"]["endColumn"], 17);
  // No results is still a complete log.
  const auto empty = nlohmann::json::parse(FormatDiagnostics({}, OutputFormat::kSarif, Options()));
  EXPECT_TRUE(empty["runs"][0]["results"].empty());
}

TEST(FormatDiagnostics, InvalidUtf8NeverBreaksMachineFormats) {
  Diagnostic d = Sample();
  d.message = "bad \xFF byte";
  d.snippet = "x = '\xFE'";
  EXPECT_TRUE(nlohmann::json::accept(FormatDiagnostics({d}, OutputFormat::kJson, Options())));
  EXPECT_TRUE(nlohmann::json::accept(FormatDiagnostics({d}, OutputFormat::kSarif, Options())));
  // The human formats show the byte itself, escaped as every printed input is (issue 47).
  EXPECT_NE(FormatDiagnostics({d}, OutputFormat::kFull, Options()).find("bad \\xff byte"), std::string::npos);
}

// A finding in a huge one-line file (minified or generated) shows a window around its column,
// as ruff does, never the whole line and a caret line as long.
TEST(FormatDiagnostics, LongLinesAreCutToAWindowAroundTheColumn) {
  Diagnostic d = Sample();
  const std::string before(1'000'000, 'a');
  d.snippet = before + "return a / b" + std::string(1'000'000, 'z');
  const int column = static_cast<int>(before.size()) + 1;
  d.range = {{1, column}, {1, column + 6}};
  const std::string full = FormatDiagnostics({d}, OutputFormat::kFull, Options());
  EXPECT_LT(full.size(), 1000U) << full.substr(0, 1000);
  const std::string window = std::string(60, 'a') + "return a / b" + std::string(88, 'z');
  EXPECT_NE(full.find("1 | \u2026" + window + "\u2026\n"), std::string::npos) << full;
  // The caret stays under the finding: ellipsis + 60 columns of context, then 6 carets.
  EXPECT_NE(full.find("  | " + std::string(61, ' ') + "^^^^^^\n"), std::string::npos) << full;
  EXPECT_LT(FormatDiagnostics({d}, OutputFormat::kSarif, Options()).size(), 5000U);

  // Near the start: no leading ellipsis; multi-byte characters count as one column each.
  d.snippet = "\u00e9" + std::string(300, 'x');
  d.range = {{1, 2}, {1, 4}};
  const SnippetWindow start = WindowSnippet(d.snippet, 2, 2);
  EXPECT_EQ(start.text, "\u00e9" + std::string(159, 'x') + "\u2026");
  EXPECT_EQ(start.start, 2);
  EXPECT_EQ(start.width, 2);
  // A short line is shown whole.
  EXPECT_EQ(WindowSnippet("    return a / b", 12, 5).text, "    return a / b");
}

TEST(ParseOutputFormat, SuggestsTheClosestName) {
  EXPECT_EQ(*ParseOutputFormat("sarif"), OutputFormat::kSarif);
  auto bad = ParseOutputFormat("sarf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown output format 'sarf' (did you mean 'sarif'?); choose one of full, concise, gcc, json, sarif, "
            "github, gitlab");
}

TEST(SummaryLine, CountsBySeverity) {
  Diagnostic warning = Sample();
  warning.severity = Severity::kWarning;
  warning.fix = Fix{"x", {}, true};
  EXPECT_EQ(SummaryLine(CountDiagnostics({Sample(), Sample(), warning})),
            "Found 3 findings (2 errors, 1 warning); 1 fixable with --fix.");
  EXPECT_EQ(SummaryLine(CountDiagnostics({})), "No findings.");
}

}  // namespace
}  // namespace opmfu
