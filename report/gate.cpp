#include "report/gate.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
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

GateFigures RecordedFigures(const ReportData& data, const MfuReport& report) {
  GateFigures figures;
  figures.scope = "all kernels";
  if (report.rows > 0) figures.mfu = report.all_kernels_weighted_mfu;
  figures.no_mfu = "no OperatorMFU rows: there is no MFU to check (`opmfu check-db` says why)";
  figures.op_word = "op";
  for (const GroupStats& group : report.by_op) figures.op_mfu.emplace_back(group.op_name, group.weighted_mfu);
  for (const RankSummary& rank : report.ranks) {
    if (rank.failure) continue;  // an incomplete check below
    const std::string subject = "rank " + std::to_string(rank.rank_id) + " coverage";
    figures.coverage.push_back(
        {subject,
         rank.coverage && rank.coverage->compute_time > 0 ? std::optional(rank.coverage->time_share()) : std::nullopt,
         subject + ": no compute kernels to cover"});
  }
  for (const engine::RankOutcome& outcome : data.analysis.ranks) {
    if (!outcome.failure) continue;
    figures.incomplete.emplace_back("rank " + std::to_string(outcome.location.rank_id),
                                    "the rank failed, so every figure misses it: " + DescribeFailure(outcome));
  }
  return figures;
}

GateFigures DerivedFigures(const DerivedSection& section) {
  GateFigures figures;
  figures.derived = true;
  figures.scope = "derived kernels";
  figures.mfu = section.weighted_mfu();
  figures.op_word = "op type";
  const auto share = [](std::int64_t part, std::int64_t whole) {
    return whole > 0 ? FormatPercent(static_cast<double>(part) / static_cast<double>(whole)) : std::string("-");
  };
  figures.basis = " (" + std::string(kDerivedLabel) + "; " + std::to_string(section.derived_kernels) + " of " +
                  std::to_string(section.kernels) + " kernels, " + share(section.derived_time, section.kernel_time) +
                  " of kernel time)";
  if (section.kernels == 0) {
    figures.no_mfu = "no kernel could be read: there is no derived MFU to check";
    for (const std::string& note : section.notes) figures.no_mfu += "; " + note;
  } else if (section.derived_kernels == 0) {
    // The reason that cost the most time first: what the user would have to change.
    std::string reasons;
    std::vector<std::pair<std::string, std::pair<std::size_t, std::int64_t>>> skipped(section.skipped.begin(),
                                                                                      section.skipped.end());
    std::stable_sort(skipped.begin(), skipped.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    for (std::size_t i = 0; i < skipped.size() && i < 2; ++i) {
      reasons += (i == 0 ? "" : "; ") + std::to_string(skipped[i].second.first) + " kernels: " + skipped[i].first;
    }
    figures.no_mfu = "none of the " + std::to_string(section.kernels) +
                     " kernels has FLOPs derivable from its shapes, so there is no derived MFU to check (" + reasons +
                     ")";
  } else {
    figures.no_mfu =
        "no derived MFU: the chip's peak is unknown (no device_*/info.json); pass --chip NAME or --peak-tflops";
  }
  // op type -> (time at peak, time): time-weighted, as the overall MFU.
  std::map<std::string, std::pair<double, double>> by_type;
  for (const DerivedGroup& group : section.groups) {
    if (group.time_with_peak <= 0 || !group.derived.flops) continue;
    auto& [peak_seconds, time] = by_type[group.op_type];
    peak_seconds += group.peak_seconds;
    time += group.time_with_peak;
  }
  for (const auto& [type, sums] : by_type) figures.op_mfu.emplace_back(type, sums.first / sums.second);
  for (const DerivedRank& rank : section.ranks) {
    const std::string subject = "rank " + std::to_string(rank.rank_id);
    if (rank.unreadable) {
      figures.incomplete.emplace_back(
          subject, "the rank's kernels could not be read, so every figure misses it: " + *rank.unreadable);
      continue;
    }
    figures.coverage.push_back({subject + " derived coverage", rank.coverage(), subject + ": no kernels recorded"});
  }
  return figures;
}

std::vector<GateCheck> RunGate(const GateFigures& figures, const GateFigures* baseline,
                               const GateThresholds& thresholds) {
  std::vector<GateCheck> checks;
  for (const auto& [subject, message] : figures.incomplete) {
    checks.push_back({"gate/incomplete", subject, std::nullopt, 0, false, false, message});
  }
  const auto at_least = [&](std::string rule, std::string subject, std::optional<double> actual, double threshold,
                            const std::string& nothing, const std::string& basis = "") {
    GateCheck check{std::move(rule), std::move(subject), actual, threshold, false, false, ""};
    check.passed = actual && *actual >= threshold;
    check.message = !actual ? nothing
                            : check.subject + ": " + FormatPercent(*actual) + (check.passed ? " >= " : " < ") +
                                  FormatPercent(threshold) + basis;
    checks.push_back(std::move(check));
  };
  const auto op_mfu = [](const GateFigures& of, const std::string& op) -> std::optional<double> {
    for (const auto& [name, mfu] : of.op_mfu) {
      if (name == op) return mfu;
    }
    return std::nullopt;
  };
  if (thresholds.min_mfu) {
    at_least("gate/min-mfu", figures.scope, figures.mfu, *thresholds.min_mfu, figures.no_mfu, figures.basis);
  }
  for (const auto& [op, threshold] : thresholds.min_op_mfu) {
    at_least("gate/min-mfu-op", op, op_mfu(figures, op), threshold,
             op + (figures.derived ? ": no kernel of this op type has derived FLOPs and a peak"
                                   : ": no OperatorMFU rows for this op"),
             figures.derived ? " (" + std::string(kDerivedLabel) + ")" : "");
  }
  if (thresholds.min_coverage) {
    for (const GateFigures::Coverage& coverage : figures.coverage) {
      at_least("gate/min-coverage", coverage.subject, coverage.share, *thresholds.min_coverage, coverage.nothing);
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
    drop_check(figures.scope, baseline->mfu, figures.mfu);
    for (const auto& [op, before] : baseline->op_mfu) {
      // An op that disappeared is a diff question, not a drop.
      if (const std::optional<double> after = op_mfu(figures, op)) drop_check(op, before, after);
    }
  }
  return checks;
}

namespace {

std::string Ratio(std::optional<double> value) { return value ? FormatPercent(*value) : "-"; }

}  // namespace

std::string RenderGateText(const std::vector<GateCheck>& checks, bool passed) {
  std::vector<std::vector<std::string>> rows{{"check", "subject", "actual", "threshold", "result"}};
  for (const GateCheck& check : checks) {
    rows.push_back({check.rule, check.subject, Ratio(check.actual),
                    (check.at_most ? "<= " : ">= ") + Ratio(check.threshold), check.passed ? "pass" : "FAIL"});
  }
  std::ostringstream out;
  out << FormatTable(rows, TableStyle::kText);
  for (const GateCheck& check : checks) {
    if (!check.passed) out << "FAIL " << check.message << "\n";
  }
  const auto failed = std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return !c.passed; });
  out << (passed ? "gate passed: " + std::to_string(checks.size()) + " checks\n"
                 : "gate failed: " + std::to_string(failed) + " of " + std::to_string(checks.size()) + " checks\n");
  return out.str();
}

std::string DerivedGateBasis(const DerivedSection& section) {
  const auto share =
      section.kernel_time > 0
          ? FormatPercent(static_cast<double>(section.derived_time) / static_cast<double>(section.kernel_time))
          : std::string("-");
  return std::string("MFU ") + kDerivedLabel + ": FLOPs derived for " + std::to_string(section.derived_kernels) +
         " of " + std::to_string(section.kernels) + " kernels, " + share +
         " of kernel time; peaks: " + (section.chip.empty() ? "-" : section.chip) + "\n";
}

std::string RenderGateJson(const std::vector<GateCheck>& checks, bool passed,
                           const std::optional<DerivedSection>& derived) {
  nlohmann::ordered_json json;
  json["passed"] = passed;
  json["mfu_source"] = derived ? "derived" : "recorded";
  if (derived) {
    const auto mfu = derived->weighted_mfu();
    json["derived"] = {
        {"label", kDerivedLabel},
        {"peaks", derived->chip},
        {"kernels", derived->kernels},
        {"kernel_time_ns", derived->kernel_time},
        {"derived_kernels", derived->derived_kernels},
        {"derived_time_ns", derived->derived_time},
        {"weighted_mfu", mfu ? nlohmann::ordered_json(*mfu) : nlohmann::ordered_json(nullptr)},
    };
  }
  json["checks"] = nlohmann::json::array();
  for (const GateCheck& check : checks) {
    json["checks"].push_back({{"rule", check.rule},
                              {"subject", check.subject},
                              {"actual", check.actual ? nlohmann::json(*check.actual) : nlohmann::json()},
                              {"threshold", check.threshold},
                              {"bound", check.at_most ? "at_most" : "at_least"},
                              {"passed", check.passed},
                              {"message", check.message}});
  }
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace opmfu::report
