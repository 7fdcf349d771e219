#pragma once
// The registry of every rule opmfu can report: one row per rule, in id order. Ids are stable and
// never reused. Each row has a docs page at docs/rules/<id>.md.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/diagnostic.h"

namespace opmfu::rules {

/// Which command reports a rule.
enum class RuleScope { kMeta, kLint, kRegistry };

/// An input a rule can report on.
enum class InputKind : std::uint8_t {
  kPython = 1U << 0U,         ///< a Python script: its profiler calls' traced settings, its argparse
  kDynamicConfig = 1U << 1U,  ///< a dynamic-profiler profiler_config.json
  kKnownLauncher = 1U << 2U,  ///< a launch of a known launcher (MindSpeed-LLM, verl, ...), from its description
  kLauncher = 1U << 3U,       ///< a bash launcher itself
  kFormulas = 1U << 4U,       ///< a _flops_formulas.py registry file
};
inline constexpr InputKind kAllInputKinds[] = {InputKind::kPython, InputKind::kDynamicConfig, InputKind::kKnownLauncher,
                                               InputKind::kLauncher, InputKind::kFormulas};

/// A set of inputs: `InputKind::kPython | InputKind::kDynamicConfig`.
class InputKinds {
 public:
  constexpr InputKinds() = default;
  constexpr InputKinds(InputKind input) : bits_(static_cast<std::uint8_t>(input)) {}  // NOLINT: a set of one
  constexpr bool Contains(InputKind input) const { return (bits_ & static_cast<std::uint8_t>(input)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  friend constexpr InputKinds operator|(InputKinds a, InputKinds b) {
    return InputKinds(static_cast<std::uint8_t>(a.bits_ | b.bits_));
  }
  friend constexpr bool operator==(InputKinds, InputKinds) = default;

 private:
  constexpr explicit InputKinds(std::uint8_t bits) : bits_(bits) {}
  std::uint8_t bits_ = 0;
};

constexpr InputKinds operator|(InputKind a, InputKind b) { return InputKinds(a) | InputKinds(b); }

/// "python", "json", "known-launcher", "launcher", "registry".
std::string_view InputKindName(InputKind input);

/// Whether a rule's findings can come with a fix (ruff's FixAvailability).
enum class FixAvailability { kNone, kSometimes, kAlways };
std::string_view FixAvailabilityName(FixAvailability fix);  ///< "none", "sometimes", "always"

struct RuleCheckContext;
struct LintCheckContext;
struct LauncherCheckContext;
struct MetaCheckContext;

// What a rule's check reads; one per row.
/// Reads one fact the lint stages gather about the linting itself (a failed parse, a file's
/// suppressions, an unfound dynamic config, the run; rules/meta_checks.h).
struct MetaCheck {
  void (*run)(MetaCheckContext& context) = nullptr;
};
/// Reads a parsed formulas file.
struct RegistryCheck {
  void (*run)(RuleCheckContext& context);
};
/// Reads the traced profiler settings of one input (a Python file, a dynamic config or a known
/// launcher's launch); runs only on the inputs in the rule's `applies_to`, so a rule that applies
/// to Python only always has the file's module.
struct SettingsCheck {
  void (*run)(LintCheckContext& context);
};
/// Reads one bash launcher's facts.
struct LauncherCheck {
  void (*run)(LauncherCheckContext& context);
};
using RuleCheck = std::variant<MetaCheck, RegistryCheck, SettingsCheck, LauncherCheck>;

/// One rule, all of it: what it is, what it reads, where it can report, whether it can fix. The
/// header of its docs page (docs/rules/<id>.md) and the README's rule list are written from this.
struct RuleInfo {
  std::string_view id;
  std::string_view name;
  Severity severity;
  RuleScope scope;
  std::string_view summary;
  RuleCheck check;
  InputKinds applies_to;
  /// A meta rule whose `check` reads another input also reads the lint stages' facts: OPM001 a
  /// lint input's failed parse, OPM004 an unfound dynamic config.
  MetaCheck meta = {};
  FixAvailability fix = FixAvailability::kNone;
  std::string_view severity_note = {};  ///< for the docs: when it reports at another severity
  std::string_view fix_note = {};       ///< for the docs: what the fix does
};

std::span<const RuleInfo> AllRules();
/// By id ("OPM504") or name ("formula-returns-float").
const RuleInfo* FindRule(std::string_view id_or_name);

/// The severity `rule` reports at, given the per-rule settings of a file (rule id -> severity,
/// nullopt = off; a rule absent from the map keeps its default); nullopt when it is off.
std::optional<Severity> EffectiveSeverity(const RuleInfo& rule,
                                          const std::map<std::string, std::optional<Severity>>& effective);

/// Runs every enabled rule whose check is a `Check` (RegistryCheck, SettingsCheck or
/// LauncherCheck) and that applies to `kind`, each with a `Context{input, rule, severity,
/// findings}`; returns the findings unsorted.
template <typename Check, typename Context, typename InputData>
std::vector<Diagnostic> RunChecks(const InputData& input, InputKind kind,
                                  const std::map<std::string, std::optional<Severity>>& effective) {
  std::vector<Diagnostic> findings;
  for (const RuleInfo& rule : AllRules()) {
    const Check* check = std::get_if<Check>(&rule.check);
    if (check == nullptr || !rule.applies_to.Contains(kind)) continue;
    const std::optional<Severity> severity = EffectiveSeverity(rule, effective);
    if (!severity) continue;
    Context context{input, rule, *severity, findings};
    check->run(context);
  }
  return findings;
}

/// Descriptors (for configs, selectors and SARIF) of the rules a command can report; the meta
/// rules come with every scope.
std::vector<RuleDescriptor> RuleDescriptors(std::optional<RuleScope> scope = std::nullopt);

}  // namespace opmfu::rules
