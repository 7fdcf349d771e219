#include "report/derived_render.h"

#include <algorithm>
#include <sstream>

#include "common/text.h"
#include "report/presentation.h"

namespace opmfu::report {

namespace {

std::string Tflops(double flops_per_second) { return FormatNumber("%.2f", flops_per_second / 1e12); }

std::string Optional(std::optional<double> value, const char* format, double scale = 1) {
  return value ? FormatNumber(format, *value * scale) : std::string("-");
}

// A group's HFU cell: "-" without the counter, "!" after it when HFU and MFU differ by more than
// kHfuMfuFactor.
std::string HfuCell(const DerivedGroup& g, std::optional<double> hfu, bool basis) {
  if (!hfu) return "-";
  const auto factor = g.hfu_mfu_factor();
  return FormatPercent(*hfu) + (basis && factor && *factor > kHfuMfuFactor ? " !" : "");
}

std::vector<TableRow> GroupRows(const DerivedSection& section, std::size_t top) {
  std::vector<TableRow> rows{{"kernel", "op type", "input shapes", "count", "time", "FLOPs each", "TFLOPS", "MFU",
                              "FLOP/B", "TB/s", "BW util", "roofline"}};
  // HFU beside MFU, only where the export has the counters (the table is unchanged otherwise).
  const auto add_hfu = [&](TableRow& row, const DerivedGroup* g) {
    if (section.has_cube_fops) row.insert(row.begin() + 8, g ? HfuCell(*g, g->hfu_fops(), true) : "HFU (fops)");
    if (section.has_mac_ratio) {
      row.insert(row.begin() + 8, g ? HfuCell(*g, g->hfu_mac(), !section.has_cube_fops) : "HFU (mac)");
    }
  };
  add_hfu(rows.back(), nullptr);
  for (std::size_t i = 0; i < section.groups.size() && i < top; ++i) {
    const DerivedGroup& g = section.groups[i];
    const auto bandwidth = g.achieved_bytes_per_second();
    rows.push_back({g.kernel_name, g.op_type + (g.derived.padded ? " (padded)" : ""), g.input_shapes,
                    std::to_string(g.count), FormatDuration(static_cast<double>(g.duration)),
                    FormatNumber("%.4g", *g.derived.flops), Tflops(g.achieved_flops()),
                    g.mfu() ? FormatPercent(*g.mfu()) : "-", Optional(g.intensity(), "%.1f"),
                    Optional(bandwidth, "%.3f", 1e-12),
                    bandwidth && section.bandwidth > 0 ? FormatPercent(*bandwidth / section.bandwidth) : "-",
                    RooflineNote(section, g)});
    add_hfu(rows.back(), &g);
  }
  return rows;
}

// What HFU is and what it is read from, the measured clock, and the groups flagged.
std::vector<std::string> HfuLines(const DerivedSection& section) {
  std::vector<std::string> lines;
  if (section.has_mac_ratio) {
    lines.push_back(
        "HFU (mac): hardware counter aic_mac_ratio (aic_metrics=PipeUtilization), the share of each kernel's time "
        "the cube unit was busy, time-weighted: a busy share at the rate of the kernel's dtype, not FLOPs over a peak");
  }
  if (section.has_cube_fops) {
    lines.push_back(
        "HFU (fops): hardware counter aic_cube_fops (aic_metrics=ArithmeticUtilization), the FLOPs the cube "
        "counted over the time at the same peak as MFU (nominal clock)");
  }
  if (section.has_mac_ratio || section.has_cube_fops) {
    std::size_t flagged = 0;
    for (const DerivedGroup& g : section.groups) {
      const auto factor = g.hfu_mfu_factor();
      flagged += factor && *factor > kHfuMfuFactor ? 1 : 0;
    }
    if (flagged > 0) {
      lines.push_back(std::to_string(flagged) + " kernel groups (! in the table) have HFU and MFU more than " +
                      FormatNumber("%g", kHfuMfuFactor) +
                      "x apart: FP32/HF32 kernels measured against the FP16 peak, padded shapes, or a formula "
                      "that is not the kernel's");
    }
  }
  if (const auto measured = section.peak_at_measured_clock()) {
    lines.push_back(
        "AI Core clock measured by the trace (AI Core Freq, median): " + FormatNumber("%g", *section.measured_mhz) +
        " MHz against " + FormatNumber("%g", section.nominal_mhz) + " MHz nominal: FP16 peak " + Tflops(*measured) +
        " TFLOPS at the measured clock, " + Tflops(section.peak_fp16) +
        " TFLOPS nominal (MFU stays at the nominal clock, as upstream)");
  }
  return lines;
}

std::string Share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? FormatPercent(static_cast<double>(part) / static_cast<double>(whole)) : "-";
}

std::vector<TableRow> FrameworkOpRows(const FrameworkOpView& view, std::size_t top) {
  std::vector<TableRow> rows{{"op", "input shapes", "calls", "device time", "FLOPs each", "TFLOPS", "MFU", "why not"}};
  for (std::size_t i = 0; i < view.groups.size() && i < top; ++i) {
    const FrameworkOpGroup& g = view.groups[i];
    const double seconds = static_cast<double>(g.device_time) * 1e-9;
    rows.push_back({g.name, g.input_shapes, std::to_string(g.calls), FormatDuration(static_cast<double>(g.device_time)),
                    g.flops ? FormatNumber("%.4g", *g.flops) : "-",
                    g.flops && seconds > 0 ? Tflops(*g.flops * static_cast<double>(g.calls) / seconds) : "-",
                    g.mfu() ? FormatPercent(*g.mfu()) : "-", g.skip_reason});
  }
  return rows;
}

void RenderFrameworkOps(const FrameworkOpView& view, bool markdown, std::size_t top, std::ostream& out) {
  const std::string bullet = markdown ? "- " : "  ";
  out << (markdown ? "### " : "") << "Framework ops: " << kFrameworkOpLabel << "\n" << (markdown ? "\n" : "");
  out << bullet << view.ranks_read << " ranks read; " << view.groups.size() << " op signatures, "
      << FormatDuration(static_cast<double>(view.device_time)) << " of device time, "
      << Share(view.derived_time, view.device_time) << " of it with FLOPs\n";
  if (const auto mfu = view.weighted_mfu()) {
    out << bullet << "time-weighted MFU of those ops: " << FormatPercent(*mfu) << "\n";
  }
  for (const std::string& note : view.notes) out << bullet << note << "\n";
  out << "\n";
  if (top > 0 && !view.groups.empty()) {
    out << FormatTable(FrameworkOpRows(view, top), markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }
}

}  // namespace

std::string RenderDerivedPlain(const DerivedSection& section, bool markdown, std::size_t top) {
  std::ostringstream out;
  const std::string bullet = markdown ? "- " : "  ";
  out << (markdown ? "## " : "") << "Derived MFU: " << kDerivedLabel << "\n" << (markdown ? "\n" : "");
  out << bullet << "peaks: " << (section.chip.empty() ? "-" : section.chip) << "\n";
  out << bullet << "HBM bandwidth: "
      << (section.bandwidth > 0
              ? FormatNumber("%.3f", section.bandwidth / 1e12) + " TB/s from " + section.bandwidth_source
              : std::string("unknown"))
      << "\n";
  if (section.observed_hbm > 0) {
    out << bullet << "observed HBM ceiling: " << FormatNumber("%.3f", section.observed_hbm / 1e12)
        << " TB/s (largest total in the run's HBM table)\n";
  }
  if (const auto ridge = section.ridge()) {
    out << bullet << "ridge point: " << FormatNumber("%.1f", *ridge) << " FLOP/B (below it a kernel is memory-bound)\n";
  }
  out << bullet << "coverage: " << section.derived_kernels << " of " << section.kernels << " kernels, "
      << Share(section.derived_time, section.kernel_time) << " of kernel time ("
      << FormatDuration(static_cast<double>(section.derived_time)) << " of "
      << FormatDuration(static_cast<double>(section.kernel_time)) << ") have derived FLOPs\n";
  if (const auto mfu = section.weighted_mfu()) {
    out << bullet << "time-weighted derived MFU of those kernels: " << FormatPercent(*mfu) << "\n";
  }
  for (const std::string& line : HfuLines(section)) out << bullet << line << "\n";
  if (section.compared > 0) {
    out << bullet << "against the run's FLOPs records: " << section.compared << " kernels compared, " << section.agreed
        << " agree, " << section.compared - section.agreed << " DISAGREE\n";
  }
  for (const auto& [reason, count] : section.not_compared) {
    out << bullet << count << " kernels with a record not compared: " << reason << "\n";
  }
  for (const std::string& note : section.notes) out << bullet << note << "\n";
  out << "\n";
  if (top > 0 && !section.groups.empty()) {
    out << FormatTable(GroupRows(section, top), markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }
  if (!section.disagreements.empty()) {
    std::vector<TableRow> rows{
        {"rank", "op", "kernel", "op type", "input shapes", "count", "recorded FLOPs", "derived FLOPs"}};
    for (const DerivedDisagreement& d : section.disagreements) {
      rows.push_back({std::to_string(d.rank_id), d.op_name, d.kernel_name, d.op_type, d.input_shapes,
                      std::to_string(d.count), std::to_string(d.recorded), FormatNumber("%.0f", d.derived)});
    }
    out << (markdown ? "### " : "") << "Derived and recorded FLOPs disagree\n"
        << (markdown ? "\n" : "") << FormatTable(rows, markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }
  if (!section.skipped.empty()) {
    out << (markdown ? "### " : "") << "Not derived, and why\n" << (markdown ? "\n" : "");
    std::vector<std::pair<std::string, std::pair<std::size_t, std::int64_t>>> skipped(section.skipped.begin(),
                                                                                      section.skipped.end());
    std::stable_sort(skipped.begin(), skipped.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    for (const auto& [reason, counts] : skipped) {
      out << bullet << counts.first << " kernels, " << FormatDuration(static_cast<double>(counts.second)) << " ("
          << Share(counts.second, section.kernel_time) << "): " << reason << "\n";
    }
    out << "\n";
  }
  if (section.framework_ops) RenderFrameworkOps(*section.framework_ops, markdown, top, out);
  return out.str();
}

nlohmann::ordered_json DerivedJson(const DerivedSection& section) {
  nlohmann::ordered_json json;
  json["label"] = kDerivedLabel;
  json["peaks"] = section.chip;
  json["peak_fp16_flops"] = section.peak_fp16 > 0 ? nlohmann::ordered_json(section.peak_fp16) : nullptr;
  json["hbm_bandwidth_bytes_per_s"] = section.bandwidth > 0 ? nlohmann::ordered_json(section.bandwidth) : nullptr;
  json["hbm_bandwidth_source"] = section.bandwidth_source;
  json["hbm_bandwidth_uncertain"] = section.bandwidth_uncertain;
  json["observed_hbm_bytes_per_s"] = section.observed_hbm > 0 ? nlohmann::ordered_json(section.observed_hbm) : nullptr;
  const auto ridge = section.ridge();
  json["ridge_flop_per_byte"] = ridge ? nlohmann::ordered_json(*ridge) : nullptr;
  json["kernels"] = section.kernels;
  json["kernel_time_ns"] = section.kernel_time;
  json["derived_kernels"] = section.derived_kernels;
  json["derived_time_ns"] = section.derived_time;
  const auto mfu = section.weighted_mfu();
  json["weighted_mfu"] = mfu ? nlohmann::ordered_json(*mfu) : nullptr;
  json["hfu_counters"] = nlohmann::ordered_json::array();
  if (section.has_mac_ratio) json["hfu_counters"].push_back("aic_mac_ratio (PipeUtilization)");
  if (section.has_cube_fops) json["hfu_counters"].push_back("aic_cube_fops (ArithmeticUtilization)");
  const auto measured_peak = section.peak_at_measured_clock();
  json["measured_aicore_mhz"] = measured_peak ? nlohmann::ordered_json(*section.measured_mhz) : nullptr;
  json["peak_fp16_flops_at_measured_clock"] = measured_peak ? nlohmann::ordered_json(*measured_peak) : nullptr;
  json["groups"] = nlohmann::ordered_json::array();
  for (const DerivedGroup& g : section.groups) {
    const auto bandwidth = g.achieved_bytes_per_second();
    const auto intensity = g.intensity();
    const auto group_mfu = g.mfu();
    json["groups"].push_back(
        {{"kernel_name", g.kernel_name},
         {"op_type", g.op_type},
         {"family", FamilyName(g.derived.family)},
         {"input_shapes", g.input_shapes},
         {"output_shapes", g.output_shapes},
         {"input_types", g.input_types},
         {"count", g.count},
         {"duration_ns", g.duration},
         {"flops", *g.derived.flops},
         {"formula", g.derived.formula},
         {"padded", g.derived.padded},
         {"bytes_read", g.derived.bytes_read ? nlohmann::ordered_json(*g.derived.bytes_read) : nullptr},
         {"bytes_written", g.derived.bytes_written ? nlohmann::ordered_json(*g.derived.bytes_written) : nullptr},
         {"achieved_flops_per_s", g.achieved_flops()},
         {"mfu", group_mfu ? nlohmann::ordered_json(*group_mfu) : nullptr},
         {"hfu_mac_ratio", g.hfu_mac() ? nlohmann::ordered_json(*g.hfu_mac()) : nullptr},
         {"hfu_cube_fops", g.hfu_fops() ? nlohmann::ordered_json(*g.hfu_fops()) : nullptr},
         {"intensity", intensity ? nlohmann::ordered_json(*intensity) : nullptr},
         {"achieved_bytes_per_s", bandwidth ? nlohmann::ordered_json(*bandwidth) : nullptr},
         {"bandwidth_utilisation",
          bandwidth && section.bandwidth > 0 ? nlohmann::ordered_json(*bandwidth / section.bandwidth) : nullptr},
         {"roofline", RooflineNote(section, g)}});
  }
  json["skipped"] = nlohmann::ordered_json::array();
  for (const auto& [reason, counts] : section.skipped) {
    json["skipped"].push_back({{"reason", reason}, {"kernels", counts.first}, {"duration_ns", counts.second}});
  }
  json["compared"] = section.compared;
  json["agreed"] = section.agreed;
  json["disagreements"] = nlohmann::ordered_json::array();
  for (const DerivedDisagreement& d : section.disagreements) {
    json["disagreements"].push_back({{"rank_id", d.rank_id},
                                     {"op_name", d.op_name},
                                     {"flops_op_name", d.flops_op_name},
                                     {"kernel_name", d.kernel_name},
                                     {"op_type", d.op_type},
                                     {"input_shapes", d.input_shapes},
                                     {"count", d.count},
                                     {"recorded", d.recorded},
                                     {"derived", d.derived}});
  }
  json["not_compared"] = section.not_compared;
  json["ranks"] = nlohmann::ordered_json::array();
  for (const DerivedRank& rank : section.ranks) {
    const auto coverage = rank.coverage();
    json["ranks"].push_back(
        {{"rank_id", rank.rank_id},
         {"unreadable", rank.unreadable ? nlohmann::ordered_json(*rank.unreadable) : nullptr},
         {"kernels", rank.kernels},
         {"kernel_time_ns", rank.kernel_time},
         {"derived_kernels", rank.derived_kernels},
         {"derived_time_ns", rank.derived_time},
         {"coverage", coverage ? nlohmann::ordered_json(*coverage) : nullptr},
         {"peak_fp16_flops", rank.peak_fp16 > 0 ? nlohmann::ordered_json(rank.peak_fp16) : nullptr}});
  }
  json["notes"] = section.notes;
  if (section.framework_ops) {
    const FrameworkOpView& view = *section.framework_ops;
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (const FrameworkOpGroup& g : view.groups) {
      ops.push_back({{"name", g.name},
                     {"input_shapes", g.input_shapes},
                     {"calls", g.calls},
                     {"device_time_ns", g.device_time},
                     {"flops", g.flops ? nlohmann::ordered_json(*g.flops) : nullptr},
                     {"formula", g.formula},
                     {"mfu", g.mfu() ? nlohmann::ordered_json(*g.mfu()) : nullptr},
                     {"skip_reason", g.skip_reason}});
    }
    const auto view_mfu = view.weighted_mfu();
    json["framework_ops"] = {{"label", kFrameworkOpLabel},
                             {"ranks_read", view.ranks_read},
                             {"device_time_ns", view.device_time},
                             {"derived_time_ns", view.derived_time},
                             {"weighted_mfu", view_mfu ? nlohmann::ordered_json(*view_mfu) : nullptr},
                             {"ops", ops},
                             {"notes", view.notes}};
  }
  return json;
}

namespace {

// Log-log roofline: arithmetic intensity (FLOP/B) against achieved FLOP/s, with the compute
// ceiling (the FP16 peak) and the bandwidth slope meeting at the ridge point.
std::string RooflineChart(const DerivedSection& section) {
  const double left = 70;
  const double top = 30;
  const double width = 600;
  const double height = 300;
  double min_x = 0;  // log10 FLOP/B
  double max_x = 3;
  double min_y = 10;  // log10 FLOP/s
  double max_y = 15;
  std::vector<std::tuple<double, double, const DerivedGroup*>> points;
  for (const DerivedGroup& g : section.groups) {
    const auto intensity = g.intensity();
    const double achieved = g.achieved_flops();
    if (!intensity || *intensity <= 0 || achieved <= 0) continue;
    points.emplace_back(std::log10(*intensity), std::log10(achieved), &g);
    min_x = std::min(min_x, std::floor(std::log10(*intensity)));
    max_x = std::max(max_x, std::ceil(std::log10(*intensity)));
    min_y = std::min(min_y, std::floor(std::log10(achieved)));
  }
  if (section.peak_fp16 > 0) max_y = std::max(max_y, std::ceil(std::log10(section.peak_fp16) + 0.3));
  const auto px = [&](double log_x) { return left + width * (log_x - min_x) / std::max(1.0, max_x - min_x); };
  const auto py = [&](double log_y) { return top + height - height * (log_y - min_y) / std::max(1.0, max_y - min_y); };
  const auto n = [](double v) { return FormatNumber("%.1f", v); };
  std::ostringstream svg;
  const std::string title = std::string("Roofline, ") + kDerivedLabel +
                            ": arithmetic intensity against achieved FLOP/s (log-log; each dot a kernel signature)";
  svg << "<figure><figcaption>" << EscapeHtml(title) << "</figcaption><svg class=\"chart\" data-chart=\"roofline\" "
      << "role=\"img\" aria-label=\"" << EscapeHtml(title) << "\" viewBox=\"0 0 " << left + width + 60 << " "
      << top + height + 40 << "\">";
  for (int step = 0; min_y + step <= max_y; ++step) {
    const double y = min_y + step;
    svg << "<line x1=\"" << left << "\" y1=\"" << n(py(y)) << "\" x2=\"" << left + width << "\" y2=\"" << n(py(y))
        << "\" stroke=\"#eee\"/><text x=\"" << left - 6 << "\" y=\"" << n(py(y) + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << FormatNumber("%g", std::pow(10, y - 12)) << " TF</text>";
  }
  for (int step = 0; min_x + step <= max_x; ++step) {
    const double x = min_x + step;
    svg << "<line x1=\"" << n(px(x)) << "\" y1=\"" << top << "\" x2=\"" << n(px(x)) << "\" y2=\"" << top + height
        << "\" stroke=\"#eee\"/><text x=\"" << n(px(x)) << "\" y=\"" << top + height + 16
        << "\" font-size=\"11\" text-anchor=\"middle\">" << FormatNumber("%g", std::pow(10, x)) << "</text>";
  }
  if (section.peak_fp16 > 0) {
    const double peak = std::log10(section.peak_fp16);
    double knee = min_x;
    if (section.bandwidth > 0) {
      // Bandwidth slope: FLOP/s = intensity x bytes/s, up to the ridge.
      knee = std::clamp(std::log10(section.peak_fp16 / section.bandwidth), min_x, max_x);
      const double start_y = std::log10(section.bandwidth) + min_x;
      svg << "<line class=\"ceiling-bandwidth\" x1=\"" << n(px(min_x)) << "\" y1=\"" << n(py(std::max(start_y, min_y)))
          << "\" x2=\"" << n(px(knee)) << "\" y2=\"" << n(py(peak))
          << "\" stroke=\"#1565c0\" stroke-width=\"2\"><title>"
          << "HBM " << FormatNumber("%.2f", section.bandwidth / 1e12) << " TB/s ("
          << EscapeHtml(section.bandwidth_source) << ")</title></line>";
    }
    svg << "<line class=\"ceiling-compute\" x1=\"" << n(px(knee)) << "\" y1=\"" << n(py(peak)) << "\" x2=\""
        << n(px(max_x)) << "\" y2=\"" << n(py(peak)) << "\" stroke=\"#c62828\" stroke-width=\"2\"><title>FP16 peak "
        << Tflops(section.peak_fp16) << " TFLOPS</title></line>";
  }
  for (const auto& [x, y, group] : points) {
    svg << "<circle cx=\"" << n(px(x)) << "\" cy=\"" << n(py(y)) << "\" r=\"4\" fill=\"#6a1b9a\" fill-opacity=\"0.6\">"
        << "<title>" << EscapeHtml(group->kernel_name) << " " << EscapeHtml(group->input_shapes) << ": "
        << FormatNumber("%.1f", std::pow(10, x)) << " FLOP/B, " << Tflops(std::pow(10, y)) << " TFLOPS"
        << (group->mfu() ? ", MFU " + FormatPercent(*group->mfu()) : std::string()) << "</title></circle>";
  }
  svg << "<text x=\"" << left + width / 2 << "\" y=\"" << top + height + 34
      << "\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text></svg></figure>\n";
  return svg.str();
}

}  // namespace

std::string HtmlTable(const std::vector<TableRow>& rows) {
  std::ostringstream out;
  out << "<table><thead><tr>";
  for (const std::string& cell : rows.front()) out << "<th>" << EscapeHtml(cell) << "</th>";
  out << "</tr></thead><tbody>";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    out << "<tr>";
    for (const std::string& cell : rows[i]) out << HtmlCell(cell);
    out << "</tr>";
  }
  out << "</tbody></table>\n";
  return out.str();
}

std::string RenderDerivedHtml(const DerivedSection& section, std::size_t top) {
  std::ostringstream out;
  out << "<h2 id=\"derived\">Derived MFU: " << EscapeHtml(kDerivedLabel) << "</h2>\n<pre>"
      << EscapeHtml(RenderDerivedPlain(section, false, 0)) << "</pre>\n";
  if (!section.groups.empty()) {
    out << RooflineChart(section);
    const std::vector<TableRow> rows = GroupRows(section, top);
    out << HtmlTable(rows);
  }
  if (section.framework_ops && !section.framework_ops->groups.empty()) {
    const std::vector<TableRow> rows = FrameworkOpRows(*section.framework_ops, top);
    out << HtmlTable(rows);
  }
  return out.str();
}

}  // namespace opmfu::report
