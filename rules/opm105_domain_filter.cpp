#include "rules/lint_checks.h"

namespace opmfu::rules {

namespace {

// A list of domain names, or nullopt when it is not one (None, or a value torch_npu resets to []).
std::optional<std::vector<std::string>> DomainList(const python::Value& value) {
  if (value.kind != python::ValueKind::kSequence || value.container != "list") return std::nullopt;
  std::vector<std::string> names;
  for (const python::Value& item : value.items) {
    if (item.kind != python::ValueKind::kString) return std::nullopt;
    names.push_back(item.text);
  }
  return names;
}

bool Lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void CheckDomainFilter(LintCheckContext& context) {
  const std::string help =
      "add \"mfu_flops\" to `mstx_domain_include` (or leave both lists empty), and keep it out of "
      "`mstx_domain_exclude`";
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    bool include_set = false;  // on some path a non-empty include list makes torch_npu ignore exclude
    Diagnostic* found = ReportBadValues(
        context, site.mstx_domain_include,
        [&](const python::Value& v) {
          auto names = DomainList(v);
          if (!names || names->empty()) return Verdict::kGood;
          include_set = true;
          return Lists(*names, "mfu_flops") ? Verdict::kGood : Verdict::kBad;
        },
        [](const python::Value& v) {
          return "`mstx_domain_include` is " + v.Describe() +
                 " without \"mfu_flops\": the FLOPs ranges are filtered out when they are emitted";
        },
        help);
    // A list written here gets the domain, quoted as its first name is.
    if (const python::Value* literal = EditableLiteral(context, site.mstx_domain_include);
        found != nullptr && literal != nullptr && IsType(literal->node, "list")) {
      const TSNode first =
          ts_node_named_child_count(literal->node) > 0 ? ts_node_named_child(literal->node, 0) : TSNode{};
      const std::string_view written =
          ts_node_is_null(first) ? std::string_view() : context.module().tree().Text(first);
      const char quote = !written.empty() && written.front() == '\'' ? '\'' : '"';
      found->fix = AppendToListFix(context, literal->node, std::string(1, quote) + "mfu_flops" + quote);
    }
    if (include_set) continue;
    ReportBadValues(
        context, site.mstx_domain_exclude,
        [](const python::Value& v) {
          auto names = DomainList(v);
          return names && Lists(*names, "mfu_flops") ? Verdict::kBad : Verdict::kGood;
        },
        [](const python::Value& v) {
          return "`mstx_domain_exclude` is " + v.Describe() +
                 ", which drops the \"mfu_flops\" domain: no FLOPs ranges reach the DB";
        },
        help);
  }
}

}  // namespace opmfu::rules
