#include "rules/rule_table.h"

#include "rules/registry_checks.h"

namespace opmfu::rules {

namespace {

using enum Severity;
using enum RuleScope;

// clang-format off
constexpr RuleInfo kRules[] = {
  {"OPM001", "syntax-error", kError, kMeta,
   "The file did not parse cleanly; findings after the error may be missing.", CheckSyntaxError},
  {"OPM501", "duplicate-target", kError, kRegistry,
   "Two registrations hook the same function, which torch_npu would wrap twice.", CheckDuplicateTarget},
  {"OPM502", "duplicate-op-name", kError, kRegistry,
   "Two registrations write records under the same op name; one formula silently replaces the other.",
   CheckDuplicateOpName},
  {"OPM503", "malformed-target", kError, kRegistry,
   "A target is not of the form \"module:attr\" with exactly one ':'.", CheckMalformedTarget},
  {"OPM504", "formula-returns-float", kError, kRegistry,
   "A FLOPs formula can return a float; records must carry an integer.", CheckFormulaReturnsFloat},
  {"OPM505", "formula-returns-none", kError, kRegistry,
   "A FLOPs formula can return None, so no record is written for that call.", CheckFormulaReturnsNone},
  {"OPM506", "formula-missing-kwargs", kWarning, kRegistry,
   "A FLOPs formula does not accept **kwargs; a call with an extra keyword gets no record.",
   CheckFormulaMissingKwargs},
  {"OPM507", "registration-without-target", kError, kRegistry,
   "A registration has neither a target nor an op name.", CheckRegistrationWithoutTarget},
  {"OPM508", "unresolved-registration-argument", kWarning, kRegistry,
   "A registration argument is not a literal, so it cannot be checked.", CheckUnresolvedArgument},
  {"OPM509", "legacy-registration", kWarning, kRegistry,
   "A registration uses the pre-release positional op-name form that torch_npu now reads as a target.",
   CheckLegacyRegistration},
};
// clang-format on

}  // namespace

std::span<const RuleInfo> AllRules() { return kRules; }

const RuleInfo* FindRule(std::string_view id_or_name) {
  for (const RuleInfo& rule : kRules) {
    if (rule.id == id_or_name || rule.name == id_or_name) return &rule;
  }
  return nullptr;
}

std::vector<RuleDescriptor> RuleDescriptors(std::optional<RuleScope> scope) {
  std::vector<RuleDescriptor> out;
  for (const RuleInfo& rule : kRules) {
    if (scope && rule.scope != *scope && rule.scope != RuleScope::kMeta) continue;
    out.push_back({std::string(rule.id), std::string(rule.name), rule.severity, std::string(rule.summary),
                   "docs/rules/" + std::string(rule.id) + ".md"});
  }
  return out;
}

}  // namespace opmfu::rules
