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
  EXPECT_TRUE(nlohmann::json::accept(FormatDiagnostics({d}, OutputFormat::kRdjson, Options())));
  EXPECT_TRUE(nlohmann::json::accept(FormatDiagnostics({d}, OutputFormat::kJsonLines, Options())));
  EXPECT_NE(FormatDiagnostics({d}, OutputFormat::kJunit, Options()).find("bad \uFFFD byte"), std::string::npos);
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

TEST(FormatDiagnostics, PylintAndGrouped) {
  Diagnostic fixable = Sample();
  fixable.range = {{12, 3}, {12, 4}};
  fixable.fix = Fix{"x", {}, true};
  Diagnostic other = Sample();
  other.file = "b.py";
  EXPECT_EQ(FormatDiagnostics({Sample(), fixable, other}, OutputFormat::kPylint, Options()),
            "dir/my formulas.py:7: [OPM504] formula `f` can return a float: 100%, really\n"
            "dir/my formulas.py:12: [OPM504] formula `f` can return a float: 100%, really\n"
            "b.py:7: [OPM504] formula `f` can return a float: 100%, really\n");
  // `line:column` aligned within a file, [*] for a safe fix, a blank line after each file.
  EXPECT_EQ(FormatDiagnostics({Sample(), fixable, other}, OutputFormat::kGrouped, Options()),
            "dir/my formulas.py:\n"
            "   7:12 OPM504 formula `f` can return a float: 100%, really\n"
            "  12:3  OPM504 [*] formula `f` can return a float: 100%, really\n"
            "\n"
            "b.py:\n"
            "  7:12 OPM504 formula `f` can return a float: 100%, really\n"
            "\n");
  EXPECT_EQ(FormatDiagnostics({}, OutputFormat::kGrouped, Options()), "");
}

TEST(FormatDiagnostics, JsonLinesIsTheJsonObjectsOneALine) {
  Diagnostic second = Sample();
  second.message = "two\nlines";
  const std::string text = FormatDiagnostics({Sample(), second}, OutputFormat::kJsonLines, Options());
  const auto array = nlohmann::json::parse(FormatDiagnostics({Sample(), second}, OutputFormat::kJson, Options()));
  const std::size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ(text.find('\n', newline + 1), text.size() - 1) << text;  // two lines, each ending in a break
  EXPECT_EQ(nlohmann::json::parse(text.substr(0, newline)), array[0]);
  EXPECT_EQ(nlohmann::json::parse(text.substr(newline + 1)), array[1]);
  EXPECT_EQ(FormatDiagnostics({}, OutputFormat::kJsonLines, Options()), "");
}

TEST(FormatDiagnostics, AzureEscapesPercentSemicolonAndBracket) {
  Diagnostic d = Sample();
  d.file = "a;b].py";
  d.help = "one\ntwo";
  EXPECT_EQ(FormatDiagnostics({d}, OutputFormat::kAzure, Options()),
            "##vso[task.logissue type=error;sourcepath=a%3Bb%5D.py;linenumber=7;columnnumber=12;code=OPM504;]"
            "formula `f` can return a float: 100%AZP25, really%0Ahelp: one%0Atwo\n");
  d.severity = Severity::kInfo;  // Azure knows errors and warnings only
  EXPECT_EQ(FormatDiagnostics({d}, OutputFormat::kAzure, Options()).rfind("##vso[task.logissue type=warning;", 0), 0U);
}

TEST(FormatDiagnostics, JunitHasASuitePerFileAndAFailurePerFinding) {
  Diagnostic d = Sample();
  d.message = "a <b> & \"c\" \x01";
  Diagnostic other = Sample();
  other.file = "b.py";
  const std::string xml = FormatDiagnostics({d, Sample(), other}, OutputFormat::kJunit, Options());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opmfu\" tests=\"3\" "
                      "failures=\"3\" errors=\"0\">\n",
                      0),
            0U)
      << xml;
  EXPECT_NE(xml.find("  <testsuite name=\"dir/my formulas.py\" tests=\"2\" failures=\"2\" errors=\"0\">\n"
                     "    <testcase name=\"OPM504 formula-returns-float\" classname=\"dir/my formulas.py\" "
                     "file=\"dir/my formulas.py\" line=\"7\">\n"
                     "      <failure message=\"a &lt;b&gt; &amp; &quot;c&quot; \\x01\" type=\"error\">dir/my "
                     "formulas.py:7:12: a &lt;b&gt; &amp; &quot;c&quot; \\x01\nhelp: use `//`</failure>\n"
                     "    </testcase>\n"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("  <testsuite name=\"b.py\" tests=\"1\" failures=\"1\" errors=\"0\">\n"), std::string::npos);
  EXPECT_EQ(xml.substr(xml.size() - 14), "</testsuites>\n");
  // No findings: one passing case, so a report viewer shows that the lint ran.
  const std::string clean = FormatDiagnostics({}, OutputFormat::kJunit, Options());
  EXPECT_NE(clean.find("<testcase name=\"no findings\" classname=\"opmfu\"/>"), std::string::npos) << clean;
  EXPECT_EQ(clean.find("<failure"), std::string::npos);
}

TEST(FormatDiagnostics, RdjsonCountsBytesAndTurnsSafeFixesIntoSuggestions) {
  // `é` is one column and two bytes: reviewdog's columns count bytes.
  const std::string text = "x = 1\nprof(\u00e9, flag=False)\n";
  Diagnostic d = Sample();
  d.file = "t.py";
  d.snippet = "prof(\u00e9, flag=False)";
  d.range = {{2, 9}, {2, 19}};
  const std::size_t at = text.find("False");
  d.fix = Fix{"replace", {{at, at + 5, "True"}}, true};
  Diagnostic unsafe = d;
  unsafe.fix->safe = false;
  Diagnostic elsewhere = d;
  elsewhere.fix->edits.front().file = "run.sh";
  FormatOptions options = Options();
  options.source = [&](std::string_view file) { return file == "t.py" ? &text : nullptr; };
  const auto result = nlohmann::json::parse(FormatDiagnostics({d, unsafe, elsewhere}, OutputFormat::kRdjson, options));
  EXPECT_EQ(result["source"]["name"], "opmfu");
  ASSERT_EQ(result["diagnostics"].size(), 3U);
  const auto& first = result["diagnostics"][0];
  EXPECT_EQ(first["message"], "formula `f` can return a float: 100%, really\nhelp: use `//`");
  EXPECT_EQ(first["severity"], "ERROR");
  EXPECT_EQ(first["code"]["value"], "OPM504");
  EXPECT_EQ(first["code"]["url"], "docs/rules/OPM504.md");
  EXPECT_EQ(first["location"]["path"], "t.py");
  EXPECT_EQ(first["location"]["range"]["start"], nlohmann::json({{"line", 2}, {"column", 10}}));
  EXPECT_EQ(first["location"]["range"]["end"], nlohmann::json({{"line", 2}, {"column", 20}}));
  ASSERT_EQ(first["suggestions"].size(), 1U);
  EXPECT_EQ(first["suggestions"][0]["text"], "True");
  EXPECT_EQ(first["suggestions"][0]["range"]["start"], nlohmann::json({{"line", 2}, {"column", 15}}));
  EXPECT_EQ(first["suggestions"][0]["range"]["end"], nlohmann::json({{"line", 2}, {"column", 20}}));
  EXPECT_FALSE(result["diagnostics"][1].contains("suggestions"));  // an unsafe fix is no suggestion
  EXPECT_FALSE(result["diagnostics"][2].contains("suggestions"));  // nor one that edits another file
  // Without the text: no suggestions, the columns still in bytes through the snippet.
  const auto bare = nlohmann::json::parse(FormatDiagnostics({d}, OutputFormat::kRdjson, Options()));
  EXPECT_FALSE(bare["diagnostics"][0].contains("suggestions"));
  EXPECT_EQ(bare["diagnostics"][0]["location"]["range"]["start"]["column"], 10);
  EXPECT_EQ(nlohmann::json::parse(FormatDiagnostics({}, OutputFormat::kRdjson, Options()))["diagnostics"],
            nlohmann::json::array());
}

TEST(ParseOutputFormat, SuggestsTheClosestName) {
  EXPECT_EQ(*ParseOutputFormat("sarif"), OutputFormat::kSarif);
  auto bad = ParseOutputFormat("sarf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown output format 'sarf' (did you mean 'sarif'?); choose one of full, concise, gcc, json, sarif, "
            "github, gitlab, junit, rdjson, json-lines, pylint, grouped, azure");
  for (const std::string& name : OutputFormatNames()) EXPECT_TRUE(ParseOutputFormat(name).ok()) << name;
  EXPECT_EQ(*ParseOutputFormat("json-lines"), OutputFormat::kJsonLines);
  EXPECT_TRUE(IsTerminalFormat(OutputFormat::kGrouped));
  EXPECT_FALSE(IsTerminalFormat(OutputFormat::kAzure));
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
