#include "report/gate.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "common/text.h"
#include "report/presentation.h"

namespace opmfu::report {

double DiffGroup::TimeWeightedChange() const {
  if (!base || !candidate) return 0;
  return (candidate->weighted_mfu() - base->weighted_mfu()) * static_cast<double>(candidate->duration);
}

MfuDiff DiffRuns(const ReportData& base, const ReportData& candidate) {
  MfuDiff diff;
  std::unordered_map<std::string, std::size_t> index;
  const auto collect = [&](const ReportData& data, bool is_base) {
    for (const engine::OperatorMfuRow& row : data.analysis.tables.operator_rows) {
      const std::string_view op = row.op_name().value_or("");
      const std::string_view kernel = row.kernel_name().value_or("");
      const std::string_view shapes = row.input_shapes().value_or("");
      std::string key = std::string(op) + '\x1f' + std::string(kernel) + '\x1f' + std::string(shapes);
      auto [found, added] = index.try_emplace(std::move(key), diff.groups.size());
      if (added) diff.groups.push_back({std::string(op), std::string(kernel), std::string(shapes), {}, {}});
      std::optional<MfuAggregate>& side =
          is_base ? diff.groups[found->second].base : diff.groups[found->second].candidate;
      if (!side) side.emplace();
      side->Add(row);
      (is_base ? diff.base : diff.candidate).Add(row);
    }
  };
  collect(base, true);
  collect(candidate, false);
  std::stable_sort(diff.groups.begin(), diff.groups.end(), [](const DiffGroup& a, const DiffGroup& b) {
    const bool a_both = a.base && a.candidate;
    const bool b_both = b.base && b.candidate;
    if (a_both != b_both) return a_both;
    if (a_both) return a.TimeWeightedChange() < b.TimeWeightedChange();
    const auto time = [](const DiffGroup& g) {
      return (g.base ? g.base->duration : 0) + (g.candidate ? g.candidate->duration : 0);
    };
    return time(a) > time(b);
  });
  return diff;
}

namespace {

double MeanDuration(const MfuAggregate& a) { return a.count > 0 ? static_cast<double>(a.duration) / a.count : 0; }
double MeanFlops(const MfuAggregate& a) { return a.count > 0 ? a.flops / static_cast<double>(a.count) : 0; }

nlohmann::ordered_json SideJson(const std::optional<MfuAggregate>& side) {
  if (!side) return nullptr;
  return {{"count", side->count},
          {"total_duration_ns", side->duration},
          {"weighted_mfu", side->weighted_mfu()},
          {"mean_duration_ns", MeanDuration(*side)},
          {"mean_flops", MeanFlops(*side)}};
}

}  // namespace

std::string RenderDiff(const MfuDiff& diff, DiffFormat format, std::size_t top) {
  if (format == DiffFormat::kJson) {
    nlohmann::ordered_json json;
    json["base"] = SideJson(diff.base);
    json["candidate"] = SideJson(diff.candidate);
    json["groups"] = nlohmann::json::array();
    for (const DiffGroup& group : diff.groups) {
      json["groups"].push_back({{"op_name", group.op_name},
                                {"kernel_name", group.kernel_name},
                                {"input_shapes", group.input_shapes},
                                {"base", SideJson(group.base)},
                                {"candidate", SideJson(group.candidate)},
                                {"time_weighted_change", group.TimeWeightedChange()}});
    }
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool markdown = format == DiffFormat::kMarkdown;
  std::ostringstream out;
  out << (markdown ? "# opmfu diff\n\n" : "opmfu diff\n");
  out << (markdown ? "- " : "  ") << "base: " << diff.base.count << " rows, time-weighted MFU "
      << FormatPercent(diff.base.weighted_mfu()) << ", kernel time "
      << FormatDuration(static_cast<double>(diff.base.duration)) << "\n"
      << (markdown ? "- " : "  ") << "candidate: " << diff.candidate.count << " rows, time-weighted MFU "
      << FormatPercent(diff.candidate.weighted_mfu()) << " ("
      << FormatNumber("%+.1f", (diff.candidate.weighted_mfu() - diff.base.weighted_mfu()) * 100)
      << " points), kernel time " << FormatDuration(static_cast<double>(diff.candidate.duration)) << "\n\n";
  out << (markdown ? "## " : "") << "Kernel groups (op, kernel, input shapes), biggest MFU loss x time first\n"
      << (markdown ? "\n" : "");
  std::vector<std::vector<std::string>> rows;
  const std::vector<std::string> header{"op",     "kernel",    "input shapes", "count", "MFU",
                                        "change", "mean time", "mean FLOPs",   "note"};
  for (const DiffGroup& group : diff.groups) {
    if (rows.size() >= top) break;
    const auto both = [&](auto&& value) {
      return (group.base ? value(*group.base) : std::string("-")) + " -> " +
             (group.candidate ? value(*group.candidate) : std::string("-"));
    };
    std::string note;
    if (!group.base) note = "only in candidate";
    if (!group.candidate) note = "only in base";
    if (group.base && group.candidate && MeanFlops(*group.base) != MeanFlops(*group.candidate)) {
      note = "FLOPs per kernel changed: a formula or its arguments changed";
    }
    rows.push_back(
        {group.op_name, group.kernel_name, group.input_shapes,
         both([](const MfuAggregate& a) { return std::to_string(a.count); }),
         both([](const MfuAggregate& a) { return FormatPercent(a.weighted_mfu()); }),
         group.base && group.candidate
             ? FormatNumber("%+.1f pts", (group.candidate->weighted_mfu() - group.base->weighted_mfu()) * 100)
             : "-",
         both([](const MfuAggregate& a) { return FormatDuration(MeanDuration(a)); }),
         both([](const MfuAggregate& a) { return FormatNumber("%.4g", MeanFlops(a)); }), note.empty() ? "-" : note});
  }
  std::vector<TableRow> table{header};
  table.insert(table.end(), rows.begin(), rows.end());
  out << FormatTable(table, markdown ? TableStyle::kMarkdown : TableStyle::kText);
  if (diff.groups.size() > rows.size()) {
    out << "\n" << diff.groups.size() - rows.size() << " more groups (--top N, or --format json for all)\n";
  }
  return out.str();
}

Result<double> ParseRatio(std::string_view option, std::string_view text) {
  std::string_view number = TrimWhitespace(text);
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || error != std::errc() || end != number.data() + number.size() || !std::isfinite(value) ||
      value < 0) {
    return Error::Usage(std::string(option) + ": '" + std::string(text) + "' is not a ratio (write 0.4 or 40%)");
  }
  return percent ? value / 100 : value;
}

std::vector<GateCheck> RunGate(const ReportData& data, const MfuReport& report, const MfuReport* baseline,
                               const GateThresholds& thresholds) {
  std::vector<GateCheck> checks;
  for (const engine::RankOutcome& outcome : data.analysis.ranks) {
    if (!outcome.failure) continue;
    checks.push_back({"gate/incomplete", "rank " + std::to_string(outcome.location.rank_id), std::nullopt, 0, false,
                      false, "the rank failed, so every figure misses it: " + DescribeFailure(outcome)});
  }
  const auto at_least = [&](std::string rule, std::string subject, std::optional<double> actual, double threshold,
                            const std::string& nothing) {
    GateCheck check{std::move(rule), std::move(subject), actual, threshold, false, false, ""};
    check.passed = actual && *actual >= threshold;
    check.message = !actual ? nothing
                            : check.subject + ": " + FormatPercent(*actual) + (check.passed ? " >= " : " < ") +
                                  FormatPercent(threshold);
    checks.push_back(std::move(check));
  };
  if (thresholds.min_mfu) {
    at_least("gate/min-mfu", "all kernels", report.rows > 0 ? std::optional(report.weighted_mfu) : std::nullopt,
             *thresholds.min_mfu, "no OperatorMFU rows: there is no MFU to check (`opmfu check-db` says why)");
  }
  for (const auto& op_threshold : thresholds.min_op_mfu) {
    const std::string& op = op_threshold.first;
    const auto found = std::find_if(report.by_op.begin(), report.by_op.end(),
                                    [&](const GroupStats& group) { return group.op_name == op; });
    at_least("gate/min-mfu-op", op, found != report.by_op.end() ? std::optional(found->weighted_mfu) : std::nullopt,
             op_threshold.second, op + ": no OperatorMFU rows for this op");
  }
  if (thresholds.min_coverage) {
    for (const RankSummary& rank : report.ranks) {
      if (rank.failure) continue;  // already a failed check
      const std::string subject = "rank " + std::to_string(rank.rank_id) + " coverage";
      at_least(
          "gate/min-coverage", subject,
          rank.coverage && rank.coverage->compute_time > 0 ? std::optional(rank.coverage->time_share()) : std::nullopt,
          *thresholds.min_coverage, subject + ": no compute kernels to cover");
    }
  }
  if (thresholds.max_drop && baseline != nullptr) {
    const auto drop_check = [&](const std::string& subject, std::optional<double> before, std::optional<double> after) {
      GateCheck check{"gate/max-drop", subject, std::nullopt, *thresholds.max_drop, true, false, ""};
      if (!before || !after || *before <= 0) {
        check.message = subject + ": not in both runs, so no drop can be measured";
        checks.push_back(std::move(check));
        return;
      }
      const double drop = (*before - *after) / *before;
      check.actual = drop;
      check.passed = drop <= *thresholds.max_drop;
      check.message = subject + ": MFU " + FormatPercent(*before) + " -> " + FormatPercent(*after) + " (" +
                      FormatNumber("%+.1f%%", -drop * 100) + (check.passed ? "), within " : "), beyond ") + "the " +
                      FormatPercent(*thresholds.max_drop) + " allowed drop";
      checks.push_back(std::move(check));
    };
    drop_check("all kernels", baseline->rows > 0 ? std::optional(baseline->weighted_mfu) : std::nullopt,
               report.rows > 0 ? std::optional(report.weighted_mfu) : std::nullopt);
    for (const GroupStats& before : baseline->by_op) {
      const auto after = std::find_if(report.by_op.begin(), report.by_op.end(),
                                      [&](const GroupStats& group) { return group.op_name == before.op_name; });
      if (after == report.by_op.end()) continue;  // an op that disappeared is a diff question, not a drop
      drop_check(before.op_name, before.weighted_mfu, after->weighted_mfu);
    }
  }
  return checks;
}

}  // namespace opmfu::report
