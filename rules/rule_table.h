#pragma once
// The registry of every rule opmfu can report: one row per rule, in id order. Ids are stable and
// never reused. Each row has a docs page at docs/rules/<id>.md.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"

namespace opmfu::rules {

/// Which command reports a rule.
enum class RuleScope { kMeta, kLint, kRegistry };

struct RuleCheckContext;
/// A registry check reads the parsed formulas file in the context and reports into it.
using RegistryCheck = void (*)(RuleCheckContext& context);
struct LintCheckContext;
/// A lint check reads one file's profiler facts and reports into the context.
using LintCheck = void (*)(LintCheckContext& context);
struct LauncherCheckContext;
/// A launcher check reads one bash launcher's facts and reports into the context.
using LauncherCheck = void (*)(LauncherCheckContext& context);

struct RuleInfo {
  std::string_view id;
  std::string_view name;
  Severity severity;
  RuleScope scope;
  std::string_view summary;
  RegistryCheck registry_check = nullptr;  ///< set for registry rules
  LintCheck lint_check = nullptr;          ///< set for per-file lint rules (the others run in the linter)
  LauncherCheck launcher_check = nullptr;  ///< set for rules about a bash launcher itself
};

std::span<const RuleInfo> AllRules();
/// By id ("OPM504") or name ("formula-returns-float").
const RuleInfo* FindRule(std::string_view id_or_name);

/// The severity `rule` reports at, given the per-rule settings of a file (rule id -> severity,
/// nullopt = off; a rule absent from the map keeps its default); nullopt when it is off.
std::optional<Severity> EffectiveSeverity(const RuleInfo& rule,
                                          const std::map<std::string, std::optional<Severity>>& effective);

/// Runs every enabled rule that has a check of the kind `member` (registry, lint or launcher),
/// each with a `Context{input, rule, severity, findings}`; returns the findings unsorted.
template <typename Context, typename Check, typename Input>
std::vector<Diagnostic> RunChecks(Check RuleInfo::*member, const Input& input,
                                  const std::map<std::string, std::optional<Severity>>& effective) {
  std::vector<Diagnostic> findings;
  for (const RuleInfo& rule : AllRules()) {
    const Check check = rule.*member;
    if (check == nullptr) continue;
    const std::optional<Severity> severity = EffectiveSeverity(rule, effective);
    if (!severity) continue;
    Context context{input, rule, *severity, findings};
    check(context);
  }
  return findings;
}

/// Descriptors (for configs, selectors and SARIF) of the rules a command can report; the meta
/// rules come with every scope.
std::vector<RuleDescriptor> RuleDescriptors(std::optional<RuleScope> scope = std::nullopt);

}  // namespace opmfu::rules
