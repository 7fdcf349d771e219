#pragma once
// The meta rules of `opmfu lint` (OPM001-004, OPM010): findings about the linting itself, not
// about a profiler setting. The lint stages gather their facts (a parse that failed, a file's
// suppression comments, a dynamic-profiler config that was not found, whether anything was
// checked) and run them through RunChecks like every other rule (ruff's unused-noqa is a rule
// driven by its noqa checker in the same way).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/diagnostic.h"
#include "common/text_location.h"
#include "common/tree_sitter.h"
#include "linter/bash_syntax_check.h"
#include "linter/dynamic_config.h"
#include "linter/suppressions.h"
#include "rules/rule_table.h"

namespace opmfu::rules {

/// A Python file tree-sitter could not parse cleanly.
struct PythonParse {
  const std::string& path;
  const SyntaxTree& tree;
};

/// A dynamic-profiler config (profiler_config.json) as its reader saw it.
struct JsonParse {
  const std::string& path;
  const linter::DynamicConfig& config;
};

/// A launcher tree-sitter-bash could not parse cleanly; `ask_bash` asks bash itself (`bash -n`),
/// which is costly, so only a rule that reports calls it.
struct LauncherParse {
  const std::string& path;
  const SyntaxTree& tree;
  std::function<linter::BashVerdict()> ask_bash;
};

/// One file's suppression comments after they were applied to its findings (`used` is set), and
/// the rules that ran on it.
struct SuppressionUse {
  const std::string& path;
  const linter::Suppressions& suppressions;
  const std::map<std::string, std::optional<Severity>>& effective;
};

/// A dynamic profiler whose config was not found: `directory` is the directory it reads (nullopt
/// when it cannot be told, with `unknown_reason` saying why), at `where`.
struct UnfoundDynamicConfig {
  enum class Source { kInitCall, kEnvironment };  ///< dp.init(dir) in Python, PROF_CONFIG_PATH in a launch
  Source source = Source::kInitCall;
  std::string file;
  SourceRange range;
  std::string snippet;
  std::optional<std::string> directory;
  std::string unknown_reason;
  std::vector<Note> chain;
};

/// A file past one of opmfu's stated limits (docs/reliability.md, "Limits"), so it was not read
/// or not traced whole: `cause` names the limit, `range` is where (the file's start when not read).
struct PastALimit {
  std::string file;
  SourceRange range;
  std::string snippet;
  std::string cause;
};

/// The whole run: whether any linted file configures a profiler, and the file a run-level
/// finding lands on (one the user named, where a suppression can reach it).
struct RunSummary {
  bool any_profiler_call = false;
  std::string landing_file;
};

using MetaFacts =
    std::variant<PythonParse, JsonParse, LauncherParse, SuppressionUse, UnfoundDynamicConfig, PastALimit, RunSummary>;

struct MetaCheckContext {
  const MetaFacts& facts;
  const RuleInfo& rule;
  Severity severity;
  std::vector<Diagnostic>& out;

  /// Reports at `range` of `file`, with `snippet` as the source line shown.
  Diagnostic& Report(const std::string& file, SourceRange range, std::string message, std::string snippet,
                     Severity at_most = Severity::kError);
};

/// Runs every enabled meta rule over one fact; returns the findings unsorted.
std::vector<Diagnostic> CheckMeta(const MetaFacts& facts,
                                  const std::map<std::string, std::optional<Severity>>& effective);

// One function per rule file (rules/opmNNN_*.cpp), referenced by the rule table.
void CheckLintSyntaxError(MetaCheckContext& context);       // OPM001
void CheckMalformedSuppression(MetaCheckContext& context);  // OPM002
void CheckUnusedSuppression(MetaCheckContext& context);     // OPM003
void CheckUnfoundDynamicConfig(MetaCheckContext& context);  // OPM004
void CheckPastALimit(MetaCheckContext& context);            // OPM005
void CheckNoProfilerCall(MetaCheckContext& context);        // OPM010

}  // namespace opmfu::rules
