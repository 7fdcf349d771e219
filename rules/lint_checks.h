#pragma once
// `opmfu lint`: the Python rules (OPM1xx, OPM004) over the facts of one file, and the helpers they
// share. A rule reads linter::ProfilerFacts (traced values, argparse facts), never calls the
// tracer; the module's syntax tree only places findings and fixes.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "linter/profiler_config.h"
#include "rules/rule_table.h"

namespace opmfu::rules {

struct LintCheckContext {
  const linter::ProfilerFacts& facts;
  const RuleInfo& rule;
  Severity severity;
  std::vector<Diagnostic>& out;

  /// The Python file's module, to place findings and fixes (its path and tree; tracing is done by
  /// then). Only a Python file's facts have one: a rule that reads it applies to Python alone (the
  /// runner runs it on nothing else), or reads it for Python call sites.
  const python::PythonModule& module() const { return *facts.module; }
  /// Reports at `node`, with the node's source line as the snippet.
  Diagnostic& Report(TSNode node, std::string message, std::string help = {});
  /// Reports at a setting: its Python anchor, or its place in a config file (with the setting's
  /// own remedy instead of `help`).
  Diagnostic& Report(const linter::Setting& setting, std::string message, std::string help = {});
  /// Reports in another file (a launcher word).
  Diagnostic& ReportAt(const TextLocation& where, std::string message, std::string help = {});
};

/// A launcher and where each of its launches' scripts was found (nullopt: not found).
struct LauncherLint {
  linter::LauncherFacts facts;
  std::vector<std::optional<std::string>> scripts;  ///< parallel to facts.launches
  std::vector<const linter::KnownLauncher*> known;  ///< parallel to facts.launches; nullptr: not known
  /// Parallel to facts.launches when filled: false for a launched script that is found and never
  /// mentions torch, so cannot write profiling output (it only reads it).
  std::vector<bool> writes_traces;
  /// Parallel to facts.launches: true for a launch under msprof of a found script that builds a
  /// torch_npu profiler (which msprof's own collection turns into a no-op).
  std::vector<bool> npu_profiler_under_msprof;
};

struct LauncherCheckContext {
  const LauncherLint& launcher;
  const RuleInfo& rule;
  Severity severity;
  std::vector<Diagnostic>& out;

  Diagnostic& ReportAt(const TextLocation& where, std::string message, std::string help = {});
};

/// Sorts findings and drops repeats (one place, rule and message: several launch paths or profiler
/// calls can lead to the same finding).
void SortAndDeduplicate(std::vector<Diagnostic>& diagnostics);

/// Runs every enabled launcher rule over one launcher.
std::vector<Diagnostic> CheckLauncher(const LauncherLint& launcher,
                                      const std::map<std::string, std::optional<Severity>>& effective = {});

/// Which input facts are of: a Python file (only those have a module, and launches bound into
/// it), a dynamic config, or a known launcher's launch.
InputKind InputOf(const linter::ProfilerFacts& facts);

/// Runs every lint rule that `effective` enables (rule id -> severity, nullopt = off); absent
/// rules run at their default severity.
std::vector<Diagnostic> CheckProfilerFacts(const linter::ProfilerFacts& facts,
                                           const std::map<std::string, std::optional<Severity>>& effective = {});

// ---- shared by the rules ----------------------------------------------------------------------

enum class Verdict { kGood, kBad, kSkip };  ///< kSkip: another rule speaks for this value

/// True for values the rules cannot judge (OPM004 reports them).
bool IsOpaque(const python::Value& value);

/// "`level` (train.py:80) <- argparse default of `--prof-level` (train.py:21)"
std::string RenderChain(const std::vector<Note>& chain);

/// Reports `setting` if any value is bad: at the rule's severity when every judged value is bad,
/// as a warning ("may") when some paths are fine or unknown. `problem(value)` says what is wrong
/// with one bad value. The chain of the first bad value goes into the message and the notes.
/// Returns the diagnostic, or nullptr. `on_every_path`, when given, says whether every traced value
/// was judged bad: what decides a fix, not the severity, which a config or --severity may change.
Diagnostic* ReportBadValues(LintCheckContext& context, const linter::Setting& setting,
                            const std::function<Verdict(const python::Value&)>& classify,
                            const std::function<std::string(const python::Value&)>& problem, std::string help,
                            bool* on_every_path = nullptr);

/// A safe fix that sets the setting to `replacement`: replaces the literal when the single bad
/// value is a literal written in this file, or adds `name=replacement` to a call that lacks it.
/// nullopt for settings read from a config file.
std::optional<Fix> SetSettingFix(const LintCheckContext& context, const linter::Setting& setting,
                                 const std::string& replacement);

/// The setting's one value when it is a literal written in this file (a list, a string, an enum
/// member) that a safe fix may edit in place: the setting has that value on every traced path, is
/// not read from a config file, and is written as the argument or a variable's value (not as an
/// item of a table another key also reads); a variable's value only outside a branch of an
/// if/elif/else, match or conditional expression (an `if` alone only guards). nullptr otherwise.
const python::Value* EditableLiteral(const LintCheckContext& context, const linter::Setting& setting);

/// For a profile(...) call of this file that passes no `experimental_config` at all (its defaults
/// are Level0, Text only, no MSTX): the one edit that adds a config with what MFU needs,
/// `experimental_config=_ExperimentalConfig(profiler_level=Level1, export_type=[Text, Db], mstx=True,
/// msprof_tx=True)`, each name spelled through the file's imports. OPM102, OPM103 and OPM104 each
/// offer this same edit, which is applied once. nullopt when a config is passed or a name cannot
/// be spelled.
std::optional<Fix> AddExperimentalConfigFix(const LintCheckContext& context, const linter::ProfilerCallSite& site);

/// A safe fix that writes `replacement` in place of the literal `node` ("replace `x` with `y`").
Fix ReplaceLiteralFix(const LintCheckContext& context, TSNode node, const std::string& replacement);

/// For a setting a known launcher computes from an option whose value it writes literally
/// (`--profile-level level0`, `...npu.level=level0`): rewrite that value to the option value that
/// gives `wanted` (`level1` for Level1). nullopt when the value is not written literally in the
/// finding's own file, or no option value gives `wanted`.
std::optional<Fix> LauncherOptionFix(const Diagnostic& finding, const linter::Setting& setting,
                                     const std::string& wanted);

/// For a setting whose one value was looked up in a literal mapping by a key a launcher spells
/// (`LEVELS[args.profile_level]` with `--profile-level level0`): rewrite the key in the launcher to
/// the first of the mapping's keys (in its order) whose value is `good`. nullopt otherwise: no such
/// key, or one that is not a plain shell word.
std::optional<Fix> LauncherKeyFix(const linter::Setting& setting,
                                  const std::function<bool(const python::Value&)>& good);

/// A safe fix that adds `item` as the last element of the list literal `list` ("add `item`").
std::optional<Fix> AppendToListFix(const LintCheckContext& context, TSNode list, const std::string& item);

/// The shortest way this file can name `qualified` ("torch_npu.profiler.ProfilerLevel.Level1") through
/// its imports (`ProfilerLevel.Level1` after `from torch_npu.profiler import ProfilerLevel`);
/// nullopt when no import leads to it.
std::optional<std::string> SpelledInFile(const LintCheckContext& context, std::string_view qualified);

/// `prefix.member` spelled as `like` is (`torch_npu.profiler.ProfilerActivity.NPU`, `P.NPU`): `like`
/// with its last component replaced by `member`; nullopt when `like` is not a dotted name.
std::optional<std::string> SpelledLike(const LintCheckContext& context, TSNode like, std::string_view member);

// One function per rule file (rules/opmNNN_*.cpp), referenced by the rule table.
void CheckUnresolvedSetting(LintCheckContext& context);                 // OPM004
void CheckWithFlops(LintCheckContext& context);                         // OPM101
void CheckMstx(LintCheckContext& context);                              // OPM102
void CheckExportType(LintCheckContext& context);                        // OPM103
void CheckProfilerLevel(LintCheckContext& context);                     // OPM104
void CheckDomainFilter(LintCheckContext& context);                      // OPM105
void CheckActivities(LintCheckContext& context);                        // OPM106
void CheckRecordShapes(LintCheckContext& context);                      // OPM107
void CheckTraceParsed(LintCheckContext& context);                       // OPM108
void CheckSilentReset(LintCheckContext& context);                       // OPM109
void CheckWrongProfiler(LintCheckContext& context);                     // OPM110
void CheckWithModules(LintCheckContext& context);                       // OPM111
void CheckFixedTraceDirectory(LintCheckContext& context);               // OPM112
void CheckSchedule(LintCheckContext& context);                          // OPM113
void CheckIncludeAndExclude(LintCheckContext& context);                 // OPM114
void CheckOfflineAnalyseWithoutDb(LintCheckContext& context);           // OPM115
void CheckUnknownOption(LintCheckContext& context);                     // OPM201
void CheckValueOutsideChoices(LintCheckContext& context);               // OPM202
void CheckAnalysisDirectory(LauncherCheckContext& context);             // OPM203
void CheckMsprofCollection(LauncherCheckContext& context);              // OPM204
void CheckMissingScript(LauncherCheckContext& context);                 // OPM205
void CheckReusedOutputDirectory(LauncherCheckContext& context);         // OPM206
void CheckMsmonitorConfiguredAtRunTime(LauncherCheckContext& context);  // OPM207
void CheckRefusedByTheLauncher(LintCheckContext& context);              // OPM208
void CheckMisplacedConfigKey(LintCheckContext& context);                // OPM301
void CheckConfigValueReset(LintCheckContext& context);                  // OPM302
void CheckDynamicProfilerNeverStarts(LintCheckContext& context);        // OPM303
void CheckDynamicTraceNotParsed(LintCheckContext& context);             // OPM304

}  // namespace opmfu::rules
