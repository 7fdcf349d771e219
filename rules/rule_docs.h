#pragma once
// The parts of the documentation that the rule table says: the header of every docs/rules/*.md
// page and the README's rule list. A test compares them with the files; UPDATE_RULE_DOCS=1
// rewrites the files from the table (tests/unit/rule_docs_test.cpp).

#include <optional>
#include <string>
#include <string_view>

#include "rules/rule_table.h"

namespace opmfu::rules {

/// The first three lines of a rule's page: `# OPM101 with-flops-not-true`, a blank line, and the
/// facts (severity, the commands that report it, the inputs it applies to, its fix).
std::string RulePageHeader(const RuleInfo& rule);

/// `page` with its header (everything up to its `**Severity:**` line) replaced by the rule's;
/// nullopt when the page has no such line within its first lines.
std::optional<std::string> WithRulePageHeader(std::string_view page, const RuleInfo& rule);

/// The README's rule list: a Markdown table of every rule, between the two marker comments.
std::string RuleListMarkdown();
inline constexpr std::string_view kRuleListBegin =
    "<!-- rule list: generated from rules/rule_table.cpp; edit the table, then run "
    "UPDATE_RULE_DOCS=1 build/tests/opmfu_tests --gtest_filter='RuleDocs.*' -->";
inline constexpr std::string_view kRuleListEnd = "<!-- end of the rule list -->";

/// `readme` with the text between the markers replaced by RuleListMarkdown(); nullopt without
/// both markers.
std::optional<std::string> WithRuleList(std::string_view readme);

}  // namespace opmfu::rules
