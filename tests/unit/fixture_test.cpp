// Every lint and registry fixture (tests/fixture_run.h), three ways:
// - its findings against its annotations (tests/fixture_annotations.h: `# expect:` / `# ok:`);
// - a snapshot (tests/snapshots/<kind>/<name>.snap) of its findings in the full format (messages,
//   columns, provenance chains, help and fix titles), the unified diff of its safe fixes, and what
//   a lint of the fixed files reports; UPDATE_SNAPSHOTS=1 rewrites them, review the diff as for
//   goldens;
// - a fix round-trip (ruff's test harness idea): the fixed files parse (tree-sitter without error
//   nodes, `bash -n` for launchers), and a lint of them reports none of the fixed findings and
//   nothing that was not there before.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "common/diagnostic_format.h"
#include "common/text.h"
#include "common/text_edit.h"
#include "common/tree_sitter.h"
#include "linter/bash_syntax_check.h"
#include "python/syntax.h"
#include "rules/rule_table.h"
#include "tests/fixture_annotations.h"
#include "tests/fixture_run.h"
#include "tests/test_support.h"

namespace opmfu::testing {
namespace {

namespace fs = std::filesystem;

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::vector<Finding> Findings(const FixtureRun& run, const fs::path& root) {
  std::vector<Finding> findings;
  for (const Diagnostic& d : run.diagnostics) {
    findings.push_back({fs::weakly_canonical(root / d.file), d.range.start.line, d.range.start.column, d.rule_id,
                        std::string(SeverityName(d.severity)), d.message});
  }
  return findings;
}

// The inputs whose findings can land in a file of a fixture: in a launcher, its own, a known
// launcher's launch (also in the launch's YAML config) and a Python script's (an option the
// launcher passes).
rules::InputKinds InputsLandingIn(const Fixture& fixture, const fs::path& file) {
  using enum rules::InputKind;
  if (fixture.kind == FixtureKind::kRegistry) return kFormulas;
  const std::string extension = file.extension().string();
  if (extension == ".py") return kPython;
  if (extension == ".json") return kDynamicConfig;
  if (extension == ".sh") return kLauncher | kKnownLauncher;
  if (extension == ".yaml" || extension == ".yml") return kKnownLauncher;
  return {};
}

// Why a marker can never fail in `fixture`, or nullopt.
std::optional<std::string> WhyInert(const Fixture& fixture, const Marker& marker) {
  const rules::RuleInfo* rule = rules::FindRule(marker.rule_id);
  if (rule == nullptr) return "names no rule";
  const rules::InputKinds landing = InputsLandingIn(fixture, marker.about);
  for (const rules::InputKind input : rules::kAllInputKinds) {
    if (landing.Contains(input) && rule->applies_to.Contains(input)) return std::nullopt;
  }
  return "names a rule that cannot report in " + marker.about.filename().string() + " (it applies to other inputs)";
}

class FixtureTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(FixtureTest, FindingsMatchTheAnnotations) {
  const Fixture& fixture = GetParam();
  const FixtureRun run = RunFixture(fixture, SourceDir());
  ASSERT_TRUE(run.errors.empty()) << Joined(run.errors);
  if (fixture.kind == FixtureKind::kLint) {
    EXPECT_EQ(run.files.size(), 1U);
  }
  const FixtureMarkers markers = ReadMarkers(SourceDir() / fixture.path);
  EXPECT_TRUE(markers.malformed.empty()) << "marker-like comments that are not markers:\n" << Joined(markers.malformed);
  const std::vector<Finding> findings = Findings(run, SourceDir());
  const std::vector<std::string> problems = CompareWithMarkers(markers.markers, findings);
  EXPECT_TRUE(problems.empty()) << fixture.name << ":\n" << Joined(problems);
  // The files linted, and those their findings land in (a known launcher's YAML config).
  std::set<fs::path> read;
  for (const FixtureFile& file : run.files) read.insert(fs::weakly_canonical(SourceDir() / file.path));
  for (const Finding& finding : findings) read.insert(finding.file);
  const std::vector<std::string> inert =
      InertMarkers(markers.markers, read, [&](const Marker& marker) { return WhyInert(fixture, marker); });
  EXPECT_TRUE(inert.empty()) << fixture.name << ": markers that can never fail:\n" << Joined(inert);
  // The table says whether a rule's findings come with fixes.
  for (const Diagnostic& d : run.diagnostics) {
    const rules::RuleInfo* rule = rules::FindRule(d.rule_id);
    ASSERT_NE(rule, nullptr) << d.rule_id;
    if (rule->fix == rules::FixAvailability::kNone) {
      EXPECT_FALSE(d.fix) << d.rule_id << " has a fix: " << d.message;
    }
    if (rule->fix == rules::FixAvailability::kAlways) {
      EXPECT_TRUE(d.fix) << d.rule_id << " has no fix: " << d.message;
    }
  }
}

// Over every fixture: one launch (one launcher line) gets at most one OPM205, so two findings never
// say different things about the same script; and a run says OPM010 once, however many files it
// follows. (Where OPM010 lands when a launcher is named on the command line, on the launcher and
// not the script it runs, is LintRealCode.OPM010LandsOnTheNamedLauncherNotOnTheScriptItRuns; a
// fixture lints a directory, where it lands on the first file.)
TEST_P(FixtureTest, OneLaunchOneOPM205AndOneOPM010) {
  const Fixture& fixture = GetParam();
  const FixtureRun run = RunFixture(fixture, SourceDir());
  ASSERT_TRUE(run.errors.empty()) << Joined(run.errors);
  std::map<std::pair<std::string, int>, std::vector<std::string>> missing;  // (file, line) -> OPM205 messages
  std::vector<std::string> nothing_checked;
  for (const Diagnostic& d : run.diagnostics) {
    if (d.rule_id == "OPM205") missing[{d.file, d.range.start.line}].push_back(d.message);
    if (d.rule_id == "OPM010") nothing_checked.push_back(d.file);
  }
  for (const auto& [where, messages] : missing) {
    EXPECT_EQ(messages.size(), 1U) << fixture.name << ": " << where.first << ":" << where.second
                                   << " gets several OPM205:\n"
                                   << Joined(messages);
  }
  EXPECT_LE(nothing_checked.size(), 1U) << fixture.name << ": OPM010 on\n" << Joined(nothing_checked);
}

// ---- snapshots and fix round-trips -------------------------------------------------------------

struct FileFixes {
  const FixtureFile* file = nullptr;
  std::vector<TextEdit> edits;
  std::vector<const Diagnostic*> fixed;
};

// The fixes `opmfu lint --fix` applies (with `unsafe`, `--fix --unsafe-fixes`): those of findings
// in files that parsed cleanly, each edit in the file it names (a launcher that spells a script's
// value) or its finding's.
std::vector<FileFixes> FixesApplied(const FixtureRun& run, bool unsafe = false) {
  std::vector<FileFixes> out;
  const auto canonical = [](const std::string& path) { return fs::weakly_canonical(fs::absolute(path)).string(); };
  std::map<std::string, std::size_t> slot;  // by canonical path
  const auto fixes_of = [&](const FixtureFile& file) -> FileFixes& {
    auto [at, added] = slot.try_emplace(canonical(file.path), out.size());
    if (added) out.push_back({&file, {}, {}});
    return out[at->second];
  };
  for (const FixtureFile& file : run.files) {
    for (const Diagnostic& d : file.diagnostics) {
      if (!d.fix || !(d.fix->safe || unsafe) || !file.parsed_cleanly) continue;
      for (TextEdit edit : d.fix->edits) {
        const FixtureFile* target = &file;
        if (!edit.file.empty()) {
          const auto named = std::find_if(run.files.begin(), run.files.end(), [&](const FixtureFile& other) {
            return canonical(other.path) == canonical(edit.file);
          });
          if (named == run.files.end()) {
            ADD_FAILURE() << d.file << ": a fix edits " << edit.file << ", which the fixture's run did not read";
            continue;
          }
          target = &*named;
          edit.file.clear();
        }
        fixes_of(*target).edits.push_back(std::move(edit));
      }
      fixes_of(file).fixed.push_back(&d);
    }
  }
  std::erase_if(out, [](const FileFixes& fixes) { return fixes.edits.empty(); });
  return out;
}

// The byte offset of a 1-based line and code-point column.
std::size_t OffsetOf(std::string_view text, SourcePosition position) {
  const std::vector<std::size_t> starts = LineStarts(text);
  std::size_t offset = starts.at(static_cast<std::size_t>(position.line - 1));
  for (int column = 1; column < position.column && offset < text.size(); ++column) {
    ++offset;
    while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) ++offset;
  }
  return offset;
}

// Where a byte offset of the original text is after `edits` (inside a replaced range: its start).
std::size_t MapOffset(std::size_t offset, const std::vector<TextEdit>& edits) {
  std::ptrdiff_t shift = 0;
  for (const TextEdit& edit : edits) {
    if (edit.end <= offset) {
      shift +=
          static_cast<std::ptrdiff_t>(edit.replacement.size()) - static_cast<std::ptrdiff_t>(edit.end - edit.begin);
    } else if (edit.begin < offset && offset < edit.end) {
      offset = edit.begin;
    }
  }
  return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(offset) + shift);
}

using FindingKey = std::tuple<std::string, int, std::string>;  // file, line, rule

std::optional<Grammar> GrammarOf(const fs::path& path) {
  if (path.extension() == ".py") return Grammar::kPython;
  if (path.extension() == ".sh") return Grammar::kBash;
  if (path.extension() == ".json") return Grammar::kJson;
  return std::nullopt;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Line breaks that are LF alone, not CRLF.
std::size_t BareLineFeeds(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) count += text[i] == '\n' && (i == 0 || text[i - 1] != '\r') ? 1 : 0;
  return count;
}

// Copies the files a fixture's run may read (its directory, or the folder of a one-file fixture)
// below `scratch` at the same relative path.
void CopyFixture(const Fixture& fixture, const fs::path& scratch) {
  const fs::path folder = fixture.kind == FixtureKind::kLaunch ? fixture.path : fixture.path.parent_path();
  fs::create_directories(scratch / folder);
  fs::copy(SourceDir() / folder, scratch / folder, fs::copy_options::recursive);
}

// Valid Python as Python reads it (python::FirstSyntaxError), bash as tree-sitter-bash reads it.
void ExpectParses(Grammar grammar, const std::string& path, const std::string& text) {
  auto tree = ParseSource(grammar, text);
  const bool parses =
      tree.ok() && (grammar == Grammar::kPython ? !python::FirstSyntaxError(*tree) : !tree->has_error());
  EXPECT_TRUE(parses) << path << ": the fixed text does not parse:\n" << text;
}

// Applies the safe fixes to a scratch copy, checks the round-trip and returns the snapshot's
// "after fixes" section.
std::string RoundTrip(const Fixture& fixture, const FixtureRun& run, const std::vector<FileFixes>& all_fixes) {
  TempDir scratch;
  CopyFixture(fixture, scratch.path());
  std::set<FindingKey> fixed;
  std::set<FindingKey> kept;
  std::map<std::string, std::string> fixed_sources;
  std::map<std::string, const std::vector<TextEdit>*> edits_of;
  for (const FileFixes& fixes : all_fixes) {
    auto result = ApplyEdits(fixes.file->source, fixes.edits);
    if (!result.ok()) {
      ADD_FAILURE() << fixes.file->path << ": the fixes do not apply together: " << result.error().message;
      return "";
    }
    const fs::path target = scratch.path() / fixes.file->path;
    std::ofstream(target, std::ios::binary | std::ios::trunc) << *result;
    fixed_sources[fixes.file->path] = *result;
    edits_of[fixes.file->path] = &fixes.edits;

    const std::optional<Grammar> grammar = GrammarOf(target);
    if (!grammar) {
      ADD_FAILURE() << fixes.file->path << ": a fix edits a file of no known kind";
      continue;
    }
    ExpectParses(*grammar, fixes.file->path, *result);
    // An editor keeps a file's line endings; so does --fix.
    if (fixes.file->source.find("\r\n") != std::string::npos) {
      EXPECT_EQ(BareLineFeeds(*result), BareLineFeeds(fixes.file->source))
          << fixes.file->path << ": a fix wrote a bare LF into a CRLF file";
    }
    if (*grammar == Grammar::kBash) {
      const std::optional<std::string> bash = linter::FindBash();
      if (bash) {
        const linter::BashVerdict verdict = linter::CheckWithBash(*bash, target.string());
        EXPECT_EQ(verdict.kind, linter::BashVerdict::Kind::kAccepted) << fixes.file->path << ": " << verdict.message;
      }
    }
  }
  // Where each original finding is in the fixed files.
  for (const FixtureFile& file : run.files) {
    auto edits = edits_of.find(file.path);
    for (const Diagnostic& d : file.diagnostics) {
      int line = d.range.start.line;
      if (edits != edits_of.end() && d.file == file.path) {
        const std::size_t offset = MapOffset(OffsetOf(file.source, d.range.start), *edits->second);
        line = PositionInText(fixed_sources[file.path], offset).line;
      }
      const bool was_fixed = d.fix && d.fix->safe && file.parsed_cleanly;
      (was_fixed ? fixed : kept).insert({d.file, line, d.rule_id});
    }
  }
  const FixtureRun again = RunFixture(fixture, scratch.path());
  EXPECT_TRUE(again.errors.empty()) << Joined(again.errors);
  for (const Diagnostic& d : again.diagnostics) {
    const FindingKey key = {d.file, d.range.start.line, d.rule_id};
    const std::string where = d.file + ":" + std::to_string(d.range.start.line) + ": " + d.rule_id + ": " + d.message;
    EXPECT_FALSE(fixed.contains(key) && !kept.contains(key))
        << fixture.name << ": still reported after its fix: " << where;
    EXPECT_TRUE(fixed.contains(key) || kept.contains(key)) << fixture.name << ": new after the fixes: " << where;
  }
  const std::string rendered =
      again.diagnostics.empty() ? "No findings.\n" : FormatDiagnostics(again.diagnostics, OutputFormat::kConcise, {});
  // The copy stands for the repository.
  return ReplaceAll(rendered, fs::weakly_canonical(scratch.path()).string(), SourceDir().string());
}

std::string Section(const std::string& title, const std::string& body) {
  return "--- " + title + "\n" + (body.empty() || body.back() == '\n' ? body : body + "\n");
}

std::string Snapshot(const Fixture& fixture, const FixtureRun& run) {
  const bool registry = fixture.kind == FixtureKind::kRegistry;
  std::string out =
      "$ opmfu " + std::string(registry ? "check " : "lint --no-config ") + fixture.path.generic_string() + "\n";
  FormatOptions options;
  options.rules = FixtureRules(fixture.kind);
  out +=
      Section("findings", run.diagnostics.empty() ? "No findings.\n"
                                                  : FormatDiagnostics(run.diagnostics, OutputFormat::kFull, options));
  if (!run.warnings.empty()) out += Section("warnings", Joined(run.warnings));
  const std::vector<FileFixes> fixes = FixesApplied(run);
  if (fixes.empty()) {
    out += Section("fixes", "None.\n");
  } else {
    std::string diff;
    for (const FileFixes& file : fixes) diff += UnifiedDiff(file.file->path, file.file->source, file.edits);
    out += Section("fixes", diff);
    out += Section("after the fixes", RoundTrip(fixture, run, fixes));
  }
  // --unsafe-fixes: the unsafe ones too, which must also leave every file parsing.
  const std::vector<FileFixes> with_unsafe = FixesApplied(run, true);
  std::size_t unsafe_edits = 0;
  for (const FileFixes& file : with_unsafe) unsafe_edits += file.edits.size();
  for (const FileFixes& file : fixes) unsafe_edits -= file.edits.size();
  if (unsafe_edits == 0) return out;
  std::string diff;
  for (const FileFixes& file : with_unsafe) {
    diff += UnifiedDiff(file.file->path, file.file->source, file.edits);
    auto fixed = ApplyEdits(file.file->source, file.edits);
    if (!fixed.ok()) {
      ADD_FAILURE() << file.file->path << ": the fixes do not apply together: " << fixed.error().message;
      continue;
    }
    if (const std::optional<Grammar> grammar = GrammarOf(file.file->path))
      ExpectParses(*grammar, file.file->path, *fixed);
  }
  return out + Section("fixes with --unsafe-fixes", diff);
}

// The first line where a snapshot and the current output differ, with both versions of it.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  const std::vector<std::string> want = SplitString(expected, '\n');
  const std::vector<std::string> got = SplitString(actual, '\n');
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string a = i < want.size() ? want[i] : "(end of snapshot)";
    const std::string b = i < got.size() ? got[i] : "(end of output)";
    if (a != b) return "line " + std::to_string(i + 1) + ":\n  snapshot: " + a + "\n  now:      " + b;
  }
  return "";
}

fs::path SnapshotPath(const Fixture& fixture) { return SourceDir() / "tests" / "snapshots" / (fixture.name + ".snap"); }

bool Updating() {
  const char* update = std::getenv("UPDATE_SNAPSHOTS");
  return update != nullptr && std::string(update) == "1";
}

TEST_P(FixtureTest, SnapshotAndFixRoundTripMatch) {
  const Fixture& fixture = GetParam();
  if (fixture.kind == FixtureKind::kLaunch && !linter::FindBash()) {
    GTEST_SKIP() << "no bash on this machine: a launcher's syntax error would be reported differently";
  }
  const FixtureRun run = RunFixture(fixture, SourceDir());
  ASSERT_TRUE(run.errors.empty()) << Joined(run.errors);
  std::string actual = Snapshot(fixture, run);
  // Stable across checkouts: no absolute path of this one.
  actual = ReplaceAll(ReplaceAll(actual, SourceDir().string() + "/", ""), SourceDir().string(), "<repo>");
  const fs::path path = SnapshotPath(fixture);
  if (Updating()) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with UPDATE_SNAPSHOTS=1 and review it";
  const std::string expected = ReadFile(path);
  EXPECT_TRUE(actual == expected) << FirstDifference(expected, actual)
                                  << "\nrerun with UPDATE_SNAPSHOTS=1 to accept, then review the diff";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(AllFixtures()),
                         [](const auto& param_info) { return TestName(param_info.param); });

TEST(FixtureSnapshots, EverySnapshotBelongsToAFixture) {
  std::set<fs::path> wanted;
  for (const Fixture& fixture : AllFixtures()) wanted.insert(SnapshotPath(fixture));
  std::size_t seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(SourceDir() / "tests" / "snapshots")) {
    if (!entry.is_regular_file()) continue;
    ++seen;
    EXPECT_TRUE(wanted.contains(entry.path())) << entry.path() << " belongs to no fixture; remove it";
  }
  EXPECT_EQ(seen, wanted.size());
}

TEST(FixtureSnapshots, EveryRuleHasAFixtureThatExpectsIt) {
  std::set<std::string> expected;
  for (const Fixture& fixture : AllFixtures()) {
    for (const Marker& marker : ReadMarkers(SourceDir() / fixture.path).markers) {
      if (marker.kind == MarkerKind::kExpect) expected.insert(marker.rule_id);
    }
  }
  for (const rules::RuleInfo& rule : rules::AllRules()) {
    EXPECT_TRUE(expected.contains(std::string(rule.id))) << rule.id << " has no fixture that expects it";
  }
}

TEST(FixtureSnapshots, EveryRuleThatCanFixHasAFixtureWithAFix) {
  std::set<std::string> fixed;
  for (const Fixture& fixture : AllFixtures()) {
    for (const Diagnostic& d : RunFixture(fixture, SourceDir()).diagnostics) {
      if (d.fix) fixed.insert(d.rule_id);
    }
  }
  for (const rules::RuleInfo& rule : rules::AllRules()) {
    if (rule.fix != rules::FixAvailability::kNone) {
      EXPECT_TRUE(fixed.contains(std::string(rule.id))) << rule.id << " can fix, but no fixture shows a fix";
    }
  }
}

// ---- the annotation reader itself ---------------------------------------------------------------

TEST(FixtureAnnotations, EveryMarkerOnALineIsRead) {
  std::vector<std::string> malformed;
  const std::vector<Marker> markers = ParseMarkers(
      "x = 1  # expect: OPM101/warning, OPM104 # ok: OPM004\ny = 2  # ok: OPM102\n", "f.py", false, "f.py", malformed);
  ASSERT_EQ(markers.size(), 4U);
  EXPECT_EQ(markers[0].rule_id, "OPM101");
  EXPECT_EQ(markers[0].severity, "warning");
  EXPECT_EQ(markers[1].rule_id, "OPM104");
  EXPECT_EQ(markers[2].kind, MarkerKind::kOk);
  EXPECT_EQ(markers[2].rule_id, "OPM004");
  EXPECT_EQ(markers[3].line, 2);
  EXPECT_TRUE(malformed.empty());
}

TEST(FixtureAnnotations, AMarkerThatDoesNotParseIsReportedNotIgnored) {
  std::vector<std::string> malformed;
  ParseMarkers("a  # expect: OPM10\nb  # ok: opm101\nc  # expect: OPM101 and more\nd  # ok to ignore\n", "f.py", false,
               "f.py", malformed);
  EXPECT_EQ(malformed.size(), 3U) << Joined(malformed);
  ParseMarkers("3 expect: OPM301\n\nfour expect: OPM301\n", "c.json", true, "c.json.expect", malformed);
  EXPECT_EQ(malformed.size(), 4U) << Joined(malformed);
}

TEST(FixtureAnnotations, AFindingOnAnOkLineFailsEvenWhereOtherRulesAreExpected) {
  std::vector<std::string> malformed;
  const std::vector<Marker> markers =
      ParseMarkers("x  # expect: OPM101 # ok: OPM004\n", "f.py", false, "f.py", malformed);
  EXPECT_TRUE(CompareWithMarkers(markers, {{"f.py", 1, 1, "OPM101", "error", "m"}}).empty());
  const std::vector<std::string> problems =
      CompareWithMarkers(markers, {{"f.py", 1, 1, "OPM101", "error", "m"}, {"f.py", 1, 5, "OPM004", "warning", "m"}});
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems.front().find("marked `ok: OPM004`"), std::string::npos) << problems.front();
}

TEST(FixtureAnnotations, MissingUnexpectedRepeatedAndWrongSeverityFindingsFail) {
  std::vector<std::string> malformed;
  const std::vector<Marker> markers =
      ParseMarkers("a  # expect: OPM101/warning\nb  # expect: OPM104\n", "f.py", false, "f.py", malformed);
  const std::vector<std::string> problems = CompareWithMarkers(markers, {{"f.py", 1, 1, "OPM101", "error", "m"},
                                                                         {"f.py", 3, 1, "OPM107", "warning", "m"},
                                                                         {"f.py", 3, 1, "OPM107", "warning", "n"}});
  // OPM101 as an error, OPM104 missing, OPM107 unexpected twice and repeated once.
  EXPECT_EQ(problems.size(), 5U) << Joined(problems);
}

TEST(FixtureAnnotations, MarkersThatCanNeverFailAreReported) {
  TempDir dir;
  const fs::path file = fs::weakly_canonical(dir.Write("f.py", "a\nb\n"));
  std::vector<std::string> malformed;
  const std::vector<Marker> markers =
      ParseMarkers("a  # expect: OPM101 # ok: OPM101\nb  # ok: OPM999\n", file, false, "f.py", malformed);
  std::vector<Marker> all = markers;
  all.push_back({file, 7, MarkerKind::kOk, "OPM102", "", "f.py.expect:1"});
  all.push_back({dir.path() / "other.py", 1, MarkerKind::kOk, "OPM102", "", "other.py:1"});
  const std::vector<std::string> inert = InertMarkers(all, {file}, [](const Marker& marker) {
    return marker.rule_id == "OPM999" ? std::optional<std::string>("names no rule") : std::nullopt;
  });
  // The contradiction, the unknown rule, the line f.py does not have, the file not read.
  EXPECT_EQ(inert.size(), 4U) << Joined(inert);
}

}  // namespace
}  // namespace opmfu::testing
