#pragma once
// `opmfu registry check`: runs the registry-scope rules over a parsed formulas file.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "registry/formulas.h"
#include "rules/rule_table.h"

namespace opmfu::rules {

/// What a check sees: the file, the rule being run, and a way to report.
struct RuleCheckContext {
  const registry::FormulaFile& file;
  const RuleInfo& rule;
  Severity severity;
  std::vector<Diagnostic>& out;

  /// Reports at `node`, with the node's source line as the snippet.
  Diagnostic& Report(TSNode node, std::string message, std::string help = {});
  /// Reports at a byte offset (for problems that have no node, like invalid UTF-8).
  Diagnostic& ReportAtByte(std::uint32_t offset, std::string message, std::string help = {});
};

/// Runs every registry rule that `effective` enables (rule id -> severity, nullopt = off); rules
/// absent from `effective` run at their default severity. Results are sorted.
std::vector<Diagnostic> CheckFormulaFile(const registry::FormulaFile& file,
                                         const std::map<std::string, std::optional<Severity>>& effective = {});

// One function per rule file (rules/opmNNN_*.cpp), referenced by the rule table.
void CheckSyntaxError(RuleCheckContext& context);                // OPM001
void CheckDuplicateTarget(RuleCheckContext& context);            // OPM501
void CheckDuplicateOpName(RuleCheckContext& context);            // OPM502
void CheckMalformedTarget(RuleCheckContext& context);            // OPM503
void CheckFormulaReturnsFloat(RuleCheckContext& context);        // OPM504
void CheckFormulaReturnsNone(RuleCheckContext& context);         // OPM505
void CheckFormulaMissingKwargs(RuleCheckContext& context);       // OPM506
void CheckRegistrationWithoutTarget(RuleCheckContext& context);  // OPM507
void CheckUnresolvedArgument(RuleCheckContext& context);         // OPM508
void CheckLegacyRegistration(RuleCheckContext& context);         // OPM509

}  // namespace opmfu::rules
