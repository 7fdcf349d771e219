// The four faces of an MfuReport: text for a terminal, Markdown for a pull request, JSON for
// tools, and one self-contained HTML file with inline SVG charts.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/text.h"
#include "report/derived_render.h"
#include "report/presentation.h"
#include "report/report.h"

namespace opmfu::report {

namespace {

const char* BandName(MfuBand band) {
  switch (band) {
    case MfuBand::kFar:
      return "far";
    case MfuBand::kLow:
      return "low";
    case MfuBand::kTypical:
      return "typical";
    case MfuBand::kGood:
      return "good";
    case MfuBand::kNearLimit:
      return "near-limit";
    case MfuBand::kAbovePeak:
      return "above-peak";
  }
  return "";
}

constexpr MfuBand kBands[] = {MfuBand::kFar,  MfuBand::kLow,       MfuBand::kTypical,
                              MfuBand::kGood, MfuBand::kNearLimit, MfuBand::kAbovePeak};

std::string Shorten(std::string_view text, std::size_t width) {
  if (text.size() <= width) return std::string(text);
  return std::string(text.substr(0, width - 3)) + "...";
}

const char* kBasis =
    "Based on the operator-level MFU analysis (msprof-analyze -m operator_mfu semantics): kernel MFU = FLOPs / "
    "(kernel duration x chip peak FLOPS). Group MFU is time-weighted: sum of MFU x time over sum of time (with "
    "one peak, = sum of FLOPs over sum of time x peak). Lost time = duration x (1 - MFU).";

std::string SourceLine(const MfuReport& report) {
  if (report.source == ReportData::Source::kClusterDb) {
    return "cluster DB " + report.path.string() + " (its OperatorMFU and ModuleMFU tables)";
  }
  return "profiling directory " + report.path.string() + " (analysed in memory; nothing was written)";
}

std::string ArtifactNote(const MfuReport& report) {
  return report.source == ReportData::Source::kProfilingDirectory
             ? " (an earlier analysis's output; the figures here come from the rank DBs)"
             : "";
}

// "353.89 TFLOPS", or "353.89 and 707.78 TFLOPS" when INT8 rows divide by twice the FP16 peak.
std::string PeakText(const MfuReport& report) {
  if (report.peak_tflops.empty()) return "no row, so no peak";
  const std::vector<double>& peaks = report.peak_tflops;
  if (peaks.size() == 2 && std::abs(peaks[1] - 2 * peaks[0]) < 0.02) {
    return FormatNumber("%.2f", peaks[0]) + " TFLOPS (FP16; INT8 kernels: " + FormatNumber("%.2f", peaks[1]) + ")";
  }
  std::string text;
  for (std::size_t i = 0; i < report.peak_tflops.size(); ++i) {
    text += (i == 0                               ? ""
             : i + 1 == report.peak_tflops.size() ? " and "
                                                  : ", ") +
            FormatNumber("%.2f", report.peak_tflops[i]);
  }
  return text + " TFLOPS";
}

// The headline's basis and the auxiliary kernels beside it, one sentence each.
std::string HeadlineText(const MfuReport& report) {
  return "time-weighted MFU of the compute kernels " + FormatPercent(report.weighted_mfu) + " (" +
         std::to_string(report.compute.count) + " matmul/attention rows, " +
         FormatDuration(static_cast<double>(report.compute.duration)) + ")";
}

std::string AuxiliaryText(const MfuReport& report) {
  if (report.auxiliary.count == 0) return "";
  return "auxiliary kernels (TransData, Cast, ...): " + std::to_string(report.auxiliary.count) + " rows, " +
         FormatDuration(static_cast<double>(report.auxiliary.duration)) + ", " +
         FormatPercent(report.auxiliary.weighted_mfu()) +
         " as upstream charges them: they inherit their range's FLOPs, so this is no hardware figure and is left "
         "out of the headline" +
         (report.attribute_compute ? " and every other figure (--attribute compute)" : "") +
         "; all OperatorMFU rows together: " + FormatPercent(report.all_kernels_weighted_mfu);
}

// --- text and Markdown -------------------------------------------------------------------------

using Row = TableRow;

// Writes a header and rows as one table, followed by a blank line.
class TableWriter {
 public:
  TableWriter(bool markdown, std::ostringstream& out) : markdown_(markdown), out_(out) {}
  void Write(const Row& header, const std::vector<Row>& rows) const {
    std::vector<Row> all{header};
    all.insert(all.end(), rows.begin(), rows.end());
    out_ << FormatTable(all, markdown_ ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }

 private:
  bool markdown_;
  std::ostringstream& out_;
};

std::vector<Row> GroupRows(const std::vector<GroupStats>& groups, std::size_t top, bool with_op, bool with_shape) {
  std::vector<Row> rows;
  for (std::size_t i = 0; i < std::min(top, groups.size()); ++i) {
    const GroupStats& group = groups[i];
    Row row{std::to_string(i + 1)};
    if (with_op) row.push_back(group.op_name.empty() ? "(none)" : group.op_name);
    if (with_shape) row.push_back(group.input_shapes.empty() ? "(none)" : Shorten(group.input_shapes, 48));
    if (!with_op) row.push_back(Join(group.ops, ", "));
    row.push_back(Join(group.kernels, ", "));
    row.push_back(std::to_string(group.count));
    row.push_back(FormatDuration(static_cast<double>(group.total_duration)));
    row.push_back(FormatPercent(group.weighted_mfu));
    row.push_back(FormatDuration(group.lost_time));
    row.push_back(BandName(group.band));
    row.push_back(group.hints.empty() ? "-" : Join(group.hints, "; "));
    rows.push_back(std::move(row));
  }
  return rows;
}

Row GroupHeader(bool with_op, bool with_shape) {
  Row header{"#"};
  if (with_op) header.emplace_back("op");
  if (with_shape) header.emplace_back("input shapes");
  if (!with_op) header.emplace_back("ops");
  for (const char* column : {"kernels", "count", "total time", "MFU", "lost time", "band", "hints"}) {
    header.emplace_back(column);
  }
  return header;
}

std::vector<Row> KernelRows(const std::vector<KernelEntry>& kernels) {
  std::vector<Row> rows;
  for (const KernelEntry& k : kernels) {
    rows.push_back({std::to_string(k.rank_id), k.op_name, k.kernel_name,
                    FormatDuration(static_cast<double>(k.duration)), FormatNumber("%.2f", k.actual_tflops),
                    FormatPercent(k.mfu), Shorten(k.input_shapes, 48)});
  }
  return rows;
}

std::string RenderPlain(const MfuReport& report, bool markdown, std::size_t top) {
  std::ostringstream out;
  const TableWriter table(markdown, out);
  const auto heading = [&](const std::string& title) {
    out << (markdown ? "## " + title : title) << "\n" << (markdown ? "\n" : "");
  };
  out << (markdown ? "# opmfu report\n\n" : "opmfu report\n") << kBasis << "\n\n";
  heading("Inputs and artifacts");
  const std::string bullet = markdown ? "- " : "  ";
  // Paths, names and messages come from the input: each goes through the one escaper (the tables'
  // cells do in FormatTable).
  const auto escaped = [](std::string_view text) { return EscapeControlCharacters(text); };
  out << bullet << "source: " << escaped(SourceLine(report)) << "\n";
  for (const auto& input : report.inputs) out << bullet << "input: " << escaped(input.string()) << "\n";
  for (const auto& artifact : report.artifacts) {
    out << bullet << "artifact: " << escaped(artifact.string()) << ArtifactNote(report) << "\n";
  }
  out << "\n";
  heading("Summary");
  out << bullet << report.rows << " OperatorMFU rows over " << report.ranks.size() << " rank(s); kernel time "
      << FormatDuration(static_cast<double>(report.total_duration)) << "; " << HeadlineText(report) << "; lost time "
      << FormatDuration(report.lost_time) << "\n";
  if (const std::string auxiliary = AuxiliaryText(report); !auxiliary.empty()) out << bullet << auxiliary << "\n";
  out << bullet << "chip peak: " << PeakText(report) << ", from " << escaped(report.peak_source) << "\n";
  if (report.attribute_compute) {
    out << bullet << "--attribute compute: " << report.excluded_aux_rows
        << " auxiliary-kernel rows left out (a departure from upstream)\n";
  }
  out << bullet << "bands:";
  for (MfuBand band : kBands)
    out << (band == MfuBand::kFar ? " " : " | ") << BandName(band) << " = " << BandLabel(band);
  out << "\n\n";

  heading("Top opportunities: op at an input shape, by lost time");
  table.Write(GroupHeader(true, true), GroupRows(report.by_op_shape, top, true, true));
  heading("By operator type");
  table.Write(GroupHeader(true, false), GroupRows(report.by_op, top, true, false));
  heading("By input shape (different ops at the same shape)");
  table.Write(GroupHeader(false, true), GroupRows(report.by_shape, top, false, true));
  const Row kernel_header{"rank", "op", "kernel", "duration", "TFLOPS", "MFU", "input shapes"};
  heading("Lowest MFU kernels (compute kernels)");
  table.Write(kernel_header, KernelRows(report.lowest));
  heading("Highest MFU kernels (compute kernels)");
  table.Write(kernel_header, KernelRows(report.highest));

  heading("Ranks and coverage");
  std::vector<Row> ranks;
  for (const RankSummary& rank : report.ranks) {
    Row row{std::to_string(rank.rank_id), rank.failure ? "failed" : std::to_string(rank.rows),
            FormatDuration(static_cast<double>(rank.total_duration)), FormatPercent(rank.weighted_mfu),
            FormatDuration(rank.lost_time)};
    if (rank.coverage) {
      row.push_back(FormatPercent(rank.coverage->time_share()) + " of " +
                    FormatDuration(static_cast<double>(rank.coverage->compute_time)));
      row.push_back(std::to_string(rank.coverage->charged_ranges) + " of " + std::to_string(rank.coverage->ranges));
      row.push_back(std::to_string(rank.coverage->aux_kernels.size()));
    } else {
      row.insert(row.end(), {"-", "-", "-"});
    }
    ranks.push_back(std::move(row));
  }
  table.Write({"rank", "rows", "kernel time", "MFU", "lost time", "compute time in FLOPs ranges",
               "FLOPs records matched", "aux kernel types"},
              ranks);
  for (const RankSummary& rank : report.ranks) {
    if (!rank.coverage) continue;
    for (const engine::AuxKernelCharge& aux : rank.coverage->aux_kernels) {
      out << bullet << "rank " << rank.rank_id << ": " << escaped(aux.kernel_name) << " carries "
          << escaped(aux.flops_op_name) << " FLOPs in " << aux.count << " row(s), "
          << FormatDuration(static_cast<double>(aux.duration)) << " (not a compute kernel)\n";
    }
    const std::size_t shown = std::min<std::size_t>(rank.coverage->unmatched.size(), top);
    for (std::size_t i = 0; i < shown; ++i) {
      const engine::UnmatchedRange& range = rank.coverage->unmatched[i];
      out << bullet << "rank " << rank.rank_id << ": unmatched range '" << escaped(Shorten(range.message, 60)) << "' ["
          << range.start << ", " << range.end << "]: " << engine::FateReason(range.fate) << "\n";
    }
    if (rank.coverage->unmatched.size() > shown) {
      out << bullet << "rank " << rank.rank_id << ": ... and " << rank.coverage->unmatched.size() - shown
          << " more unmatched ranges (--format json lists all)\n";
    }
  }
  out << "\n";
  if (report.derived) out << RenderDerivedPlain(*report.derived, markdown, top);
  heading("What is missing and why");
  if (report.missing.empty()) out << bullet << "nothing: every rank produced rows and every FLOPs record matched\n";
  for (const std::string& line : report.missing) out << bullet << escaped(line) << "\n";
  return out.str();
}

// --- JSON ----------------------------------------------------------------------------------------

nlohmann::ordered_json GroupJson(const GroupStats& group) {
  nlohmann::ordered_json json;
  json["op_name"] = group.op_name;
  json["input_shapes"] = group.input_shapes;
  json["ops"] = group.ops;
  json["kernels"] = group.kernels;
  json["count"] = group.count;
  json["total_duration_ns"] = group.total_duration;
  json["total_flops"] = group.total_flops;
  json["weighted_mfu"] = group.weighted_mfu;
  json["lost_time_ns"] = group.lost_time;
  json["band"] = BandName(group.band);
  json["hints"] = group.hints;
  return json;
}

nlohmann::ordered_json KernelJson(const KernelEntry& kernel) {
  nlohmann::ordered_json json;
  json["rank_id"] = kernel.rank_id;
  json["op_name"] = kernel.op_name;
  json["kernel_name"] = kernel.kernel_name;
  json["flops_op_name"] = kernel.flops_op_name;
  json["input_shapes"] = kernel.input_shapes;
  json["duration_ns"] = kernel.duration;
  json["actual_tflops"] = kernel.actual_tflops;
  json["mfu"] = kernel.mfu;
  json["flops"] = kernel.flops;
  return json;
}

std::string RenderJson(const MfuReport& report) {
  nlohmann::ordered_json json;
  json["basis"] = kBasis;
  json["source"] = report.source == ReportData::Source::kClusterDb ? "cluster_db" : "profiling_directory";
  json["path"] = report.path.string();
  json["inputs"] = nlohmann::json::array();
  for (const auto& input : report.inputs) json["inputs"].push_back(input.string());
  json["artifacts"] = nlohmann::json::array();
  for (const auto& artifact : report.artifacts) json["artifacts"].push_back(artifact.string());
  json["attribute_compute"] = report.attribute_compute;
  json["summary"] = {{"rows", report.rows},
                     {"excluded_aux_rows", report.excluded_aux_rows},
                     {"module_rows", report.module_rows},
                     {"total_duration_ns", report.total_duration},
                     {"weighted_mfu", report.weighted_mfu},
                     {"lost_time_ns", report.lost_time},
                     {"compute_rows", report.compute.count},
                     {"compute_duration_ns", report.compute.duration},
                     {"auxiliary",
                      {{"rows", report.auxiliary.count},
                       {"total_duration_ns", report.auxiliary.duration},
                       {"weighted_mfu", report.auxiliary.count > 0 ? nlohmann::json(report.auxiliary.weighted_mfu())
                                                                   : nlohmann::json()}}},
                     {"all_kernels_weighted_mfu", report.all_kernels_weighted_mfu},
                     {"peak_tflops", report.peak_tflops},
                     {"peak_source", report.peak_source}};
  for (const auto& [name, groups] : {std::pair{"by_op", &report.by_op}, std::pair{"by_op_shape", &report.by_op_shape},
                                     std::pair{"by_shape", &report.by_shape}}) {
    json[name] = nlohmann::json::array();
    for (const GroupStats& group : *groups) json[name].push_back(GroupJson(group));
  }
  json["lowest"] = nlohmann::json::array();
  for (const KernelEntry& kernel : report.lowest) json["lowest"].push_back(KernelJson(kernel));
  json["highest"] = nlohmann::json::array();
  for (const KernelEntry& kernel : report.highest) json["highest"].push_back(KernelJson(kernel));
  json["ranks"] = nlohmann::json::array();
  for (const RankSummary& rank : report.ranks) {
    nlohmann::ordered_json r;
    r["rank_id"] = rank.rank_id;
    r["db_path"] = rank.db_path ? nlohmann::json(rank.db_path->string()) : nlohmann::json();
    r["failure"] = rank.failure ? nlohmann::json(*rank.failure) : nlohmann::json();
    r["rows"] = rank.rows;
    r["total_duration_ns"] = rank.total_duration;
    r["weighted_mfu"] = rank.weighted_mfu;
    r["lost_time_ns"] = rank.lost_time;
    if (rank.coverage) {
      const engine::RankCoverage& c = *rank.coverage;
      nlohmann::ordered_json coverage;
      coverage["compute_kernels"] = c.compute_kernels;
      coverage["compute_time_ns"] = c.compute_time;
      coverage["charged_kernels"] = c.charged_kernels;
      coverage["charged_time_ns"] = c.charged_time;
      coverage["time_share"] = c.time_share();
      coverage["flops_records"] = c.ranges;
      coverage["matched_records"] = c.charged_ranges;
      coverage["record_share"] = c.range_share();
      coverage["unmatched"] = nlohmann::json::array();
      for (const engine::UnmatchedRange& range : c.unmatched) {
        coverage["unmatched"].push_back({{"start_ns", range.start},
                                         {"end_ns", range.end},
                                         {"message", range.message},
                                         {"reason", engine::FateReason(range.fate)}});
      }
      coverage["aux_kernels"] = nlohmann::json::array();
      for (const engine::AuxKernelCharge& aux : c.aux_kernels) {
        coverage["aux_kernels"].push_back({{"kernel_name", aux.kernel_name},
                                           {"flops_op_name", aux.flops_op_name},
                                           {"count", aux.count},
                                           {"duration_ns", aux.duration}});
      }
      r["coverage"] = std::move(coverage);
    } else {
      r["coverage"] = nullptr;
    }
    json["ranks"].push_back(std::move(r));
  }
  json["missing"] = report.missing;
  if (report.derived) json["derived"] = DerivedJson(*report.derived);
  // Invalid UTF-8 in a DB's names must not make the dump throw.
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// --- HTML ----------------------------------------------------------------------------------------

const char* BandColor(MfuBand band) {
  switch (band) {
    case MfuBand::kFar:
      return "#d64541";
    case MfuBand::kLow:
      return "#f0883e";
    case MfuBand::kTypical:
      return "#d4b000";
    case MfuBand::kGood:
      return "#5aa469";
    case MfuBand::kNearLimit:
      return "#2b7bb9";
    case MfuBand::kAbovePeak:
      return "#8e44ad";
  }
  return "#888";
}

std::string Number(double value) { return FormatNumber("%.1f", value); }

struct Bar {
  std::string label;
  double value;  ///< bar length, in the chart's unit
  std::string text;
  MfuBand band;
};

// Horizontal bars with labels on the left; `maximum` is the axis end.
std::string BarChart(const std::string& id, const std::string& title, const std::vector<Bar>& bars, double maximum,
                     bool percent_axis) {
  const double left = 300;
  const double row = 22;
  const double height = 40 + row * static_cast<double>(bars.size()) + 24;
  // The value after each bar must fit inside the drawing: its room is taken from the bars'.
  std::size_t longest_text = 4;
  for (const Bar& bar : bars) longest_text = std::max(longest_text, bar.text.size());
  const double total = 820;
  const double text_room = 12 + 6.6 * static_cast<double>(longest_text);
  const double width = std::max(160.0, total - left - text_room);
  std::ostringstream svg;
  svg << "<figure><figcaption>" << EscapeHtml(title) << "</figcaption><svg class=\"chart\" data-chart=\"" << id
      << "\" role=\"img\" aria-label=\"" << EscapeHtml(title) << "\" viewBox=\"0 0 " << Number(left + width + text_room)
      << " " << height << "\">";
  if (maximum <= 0) maximum = 1;
  for (int tick = 0; tick <= 4; ++tick) {
    const double x = left + width * tick / 4;
    const double value = maximum * tick / 4;
    svg << "<line x1=\"" << Number(x) << "\" y1=\"30\" x2=\"" << Number(x) << "\" y2=\"" << Number(height - 20)
        << "\" stroke=\"#ddd\"/><text x=\"" << Number(x) << "\" y=\"" << Number(height - 6)
        << "\" font-size=\"11\" text-anchor=\"middle\">"
        << (percent_axis ? FormatNumber("%.0f%%", value * 100) : FormatDuration(value)) << "</text>";
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = 34 + row * static_cast<double>(i);
    const double length = std::max(1.0, width * std::min(bars[i].value, maximum) / maximum);
    svg << "<text x=\"" << Number(left - 6) << "\" y=\"" << Number(y + 14) << "\" font-size=\"12\" text-anchor=\"end\">"
        << EscapeHtml(Shorten(bars[i].label, 40)) << "<title>" << EscapeHtml(bars[i].label)
        << "</title></text><rect x=\"" << Number(left) << "\" y=\"" << Number(y) << "\" width=\"" << Number(length)
        << "\" height=\"" << Number(row - 6) << "\" fill=\"" << BandColor(bars[i].band) << "\"><title>"
        << EscapeHtml(bars[i].label + ": " + bars[i].text) << "</title></rect>"
        << "<text x=\"" << Number(left + length + 4) << "\" y=\"" << Number(y + 13) << "\" font-size=\"11\">"
        << EscapeHtml(bars[i].text) << "</text>";
  }
  svg << "</svg></figure>\n";
  return svg.str();
}

std::string ScatterChart(const MfuReport& report) {
  const double left = 60;
  const double top = 30;
  const double width = 620;
  const double height = 300;
  double max_mfu = 1.0;
  double min_log = 0;  // 1 us
  double max_log = 3;  // 1 ms
  for (const MfuReport::Point& point : report.scatter) {
    max_mfu = std::max(max_mfu, point.mfu);
    const double log_us = std::log10(std::max(1.0, static_cast<double>(point.duration) / 1000));
    min_log = std::min(min_log, std::floor(log_us));
    max_log = std::max(max_log, std::ceil(log_us));
  }
  // An implausible MFU (an auxiliary kernel charged with a whole range's FLOPs reaches
  // thousands of percent) would squash every real point: such points sit on the top edge, hollow.
  max_mfu = std::min(1.5, std::ceil(max_mfu * 10) / 10);
  std::ostringstream svg;
  const std::string title =
      "MFU against kernel duration (each dot a kernel; log time axis; hollow dots are above the axis)";
  svg << "<figure><figcaption>" << EscapeHtml(title) << "</figcaption><svg class=\"chart\" data-chart=\"mfu-duration\" "
      << "role=\"img\" aria-label=\"" << EscapeHtml(title) << "\" viewBox=\"0 0 " << left + width + 50 << " "
      << top + height + 40 << "\">";
  for (int tick = 0; tick <= 4; ++tick) {
    const double y = top + height - height * tick / 4;
    svg << "<line x1=\"" << left << "\" y1=\"" << Number(y) << "\" x2=\"" << left + width << "\" y2=\"" << Number(y)
        << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << Number(y + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << FormatNumber("%.0f%%", max_mfu * tick / 4 * 100) << "</text>";
  }
  for (int step = 0; min_log + step <= max_log; ++step) {
    const double decade = min_log + step;
    const double x = left + width * (decade - min_log) / std::max(1.0, max_log - min_log);
    svg << "<line x1=\"" << Number(x) << "\" y1=\"" << top << "\" x2=\"" << Number(x) << "\" y2=\"" << top + height
        << "\" stroke=\"#eee\"/><text x=\"" << Number(x) << "\" y=\"" << top + height + 16
        << "\" font-size=\"11\" text-anchor=\"middle\">" << FormatDuration(std::pow(10, decade) * 1000) << "</text>";
  }
  for (const MfuReport::Point& point : report.scatter) {
    const double log_us = std::log10(std::max(1.0, static_cast<double>(point.duration) / 1000));
    const double x = left + width * (log_us - min_log) / std::max(1.0, max_log - min_log);
    const bool clipped = point.mfu > max_mfu;
    const double y = top + height - height * std::clamp(point.mfu, 0.0, max_mfu) / max_mfu;
    svg << "<circle cx=\"" << Number(x) << "\" cy=\"" << Number(y) << "\" r=\"3\" "
        << (clipped ? "fill=\"none\" stroke=\"#555\"" : std::string("fill=\"") + BandColor(BandOf(point.mfu)) + "\"")
        << " fill-opacity=\"0.6\"><title>" << (clipped ? "above the axis: " : "") << EscapeHtml(point.op_name) << ": "
        << FormatDuration(static_cast<double>(point.duration)) << ", " << FormatPercent(point.mfu)
        << "</title></circle>";
  }
  svg << "<text x=\"" << left + width / 2 << "\" y=\"" << top + height + 34
      << "\" font-size=\"12\" text-anchor=\"middle\">kernel duration</text></svg></figure>\n";
  return svg.str();
}

std::string HtmlTable(const Row& header, const std::vector<Row>& rows) {
  std::ostringstream out;
  out << "<table><thead><tr>";
  for (const std::string& cell : header) out << "<th>" << EscapeHtml(cell) << "</th>";
  out << "</tr></thead><tbody>";
  for (const Row& row : rows) {
    out << "<tr>";
    for (const std::string& cell : row) out << HtmlCell(cell);
    out << "</tr>";
  }
  out << "</tbody></table>\n";
  return out.str();
}

std::string RenderHtml(const MfuReport& report, std::size_t top) {
  std::ostringstream out;
  // Cells wrap `anywhere`, not `break-word`: only `anywhere` lowers a cell's min-content width, so
  // the twelve-column derived table fits a 1,000 px window instead of widening the page.
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>opmfu report</title>\n"
      << "<meta name=\"viewport\" content=\"width=device-width\">\n<style>\n"
      << "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 16px}\n"
      << "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\n"
      << "table{border-collapse:collapse;font-size:12px;margin:8px 0;max-width:100%}td,th{border:1px solid #ddd;"
      << "padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}td:last-child{min-width:16em}"
      << "td.n{white-space:nowrap;overflow-wrap:normal}"
      << "th{background:#f4f4f4}figure{margin:12px 0;max-width:100%}figcaption{font-weight:600}"
      << "svg.chart{display:block;width:100%;height:auto}.headline{font-size:15px}"
      << ".legend span{display:inline-block;padding:1px 8px;margin-right:6px;color:#fff;border-radius:3px}"
      // Each chart takes the page's width (its viewBox scales, labels with it).
      << ".charts{display:flex;flex-wrap:wrap;gap:8px 32px}.charts figure{flex:1 1 100%;min-width:0}"
      << "code{font-size:12px}\n</style></head><body>\n";
  out << "<h1>opmfu report</h1>\n<p>" << EscapeHtml(kBasis) << "</p>\n";
  out << "<h2>Inputs and artifacts</h2><ul><li>source: " << EscapeHtml(SourceLine(report)) << "</li>";
  for (const auto& input : report.inputs) out << "<li>input: <code>" << EscapeHtml(input.string()) << "</code></li>";
  for (const auto& artifact : report.artifacts) {
    out << "<li>artifact: <code>" << EscapeHtml(artifact.string()) << "</code>" << EscapeHtml(ArtifactNote(report))
        << "</li>";
  }
  out << "</ul>\n<h2>Summary</h2><p class=\"headline\" id=\"headline\">Time-weighted MFU of the compute kernels: <b>"
      << FormatPercent(report.weighted_mfu) << "</b> (" << report.compute.count << " matmul/attention rows, "
      << FormatDuration(static_cast<double>(report.compute.duration)) << ").</p>\n<p id=\"peak\">Chip peak: <b>"
      << EscapeHtml(PeakText(report)) << "</b>, from " << EscapeHtml(report.peak_source) << ".</p>\n<p>" << report.rows
      << " OperatorMFU rows over " << report.ranks.size() << " rank(s); kernel time "
      << FormatDuration(static_cast<double>(report.total_duration)) << "; lost time "
      << FormatDuration(report.lost_time) << ".</p>\n";
  if (const std::string auxiliary = AuxiliaryText(report); !auxiliary.empty()) {
    out << "<p id=\"auxiliary\">Beside it, " << EscapeHtml(auxiliary) << ".</p>\n";
  }
  out << "<p class=\"legend\">";
  for (MfuBand band : kBands) {
    out << "<span style=\"background:" << BandColor(band) << "\">" << EscapeHtml(BandLabel(band)) << "</span>";
  }
  out << "</p>\n<div class=\"charts\">\n";

  const std::size_t bars = std::min<std::size_t>(15, top * 2);
  std::vector<GroupStats> by_time = report.by_op;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const GroupStats& a, const GroupStats& b) { return a.total_duration > b.total_duration; });
  std::vector<Bar> op_bars;
  double op_max = 1.0;
  for (std::size_t i = 0; i < std::min(bars, by_time.size()); ++i) {
    const GroupStats& group = by_time[i];
    op_bars.push_back(
        {group.op_name.empty() ? "(none)" : group.op_name, group.weighted_mfu,
         FormatPercent(group.weighted_mfu) + " over " + FormatDuration(static_cast<double>(group.total_duration)),
         group.band});
    op_max = std::max(op_max, group.weighted_mfu);
  }
  // These figures are upstream's, over every row; the headline counts compute kernels only.
  out << BarChart("op-mfu",
                  "MFU per operator type (the ops with the most kernel time; every OperatorMFU row, auxiliary "
                  "kernels such as TransData included, as msprof-analyze counts them)",
                  op_bars, op_max, true);
  out << ScatterChart(report);
  std::vector<Bar> shape_bars;
  double lost_max = 0;
  for (std::size_t i = 0; i < std::min(bars, report.by_op_shape.size()); ++i) {
    const GroupStats& group = report.by_op_shape[i];
    shape_bars.push_back({group.op_name + " [" + group.input_shapes + "]", group.lost_time,
                          FormatDuration(group.lost_time) + " lost at " + FormatPercent(group.weighted_mfu),
                          group.band});
    lost_max = std::max(lost_max, group.lost_time);
  }
  out << BarChart("shape-lost", "Lost time by op and input shape (bar colour: MFU band)", shape_bars, lost_max, false);
  std::vector<Bar> rank_bars;
  double rank_max = 1.0;
  for (const RankSummary& rank : report.ranks) {
    rank_bars.push_back({"rank " + std::to_string(rank.rank_id), rank.weighted_mfu,
                         rank.failure ? "failed" : FormatPercent(rank.weighted_mfu), BandOf(rank.weighted_mfu)});
    rank_max = std::max(rank_max, rank.weighted_mfu);
  }
  out << BarChart("rank-mfu",
                  "Time-weighted MFU per rank (every OperatorMFU row, not only the headline's compute kernels)",
                  rank_bars, rank_max, true);
  out << "</div>\n";

  out << "<h2>Top opportunities: op at an input shape, by lost time</h2>\n"
      << HtmlTable(GroupHeader(true, true), GroupRows(report.by_op_shape, top, true, true));
  out << "<h2>By operator type</h2>\n"
      << HtmlTable(GroupHeader(true, false), GroupRows(report.by_op, top, true, false));
  out << "<h2>By input shape</h2>\n"
      << HtmlTable(GroupHeader(false, true), GroupRows(report.by_shape, top, false, true));
  const Row kernel_header{"rank", "op", "kernel", "duration", "TFLOPS", "MFU", "input shapes"};
  out << "<h2>Lowest MFU kernels (compute kernels)</h2>\n" << HtmlTable(kernel_header, KernelRows(report.lowest));
  out << "<h2>Highest MFU kernels (compute kernels)</h2>\n" << HtmlTable(kernel_header, KernelRows(report.highest));
  out << "<h2>Coverage</h2>\n";
  std::vector<Row> coverage;
  for (const RankSummary& rank : report.ranks) {
    if (!rank.coverage) continue;
    const engine::RankCoverage& c = *rank.coverage;
    coverage.push_back({std::to_string(rank.rank_id), FormatPercent(c.time_share()),
                        std::to_string(c.charged_ranges) + " of " + std::to_string(c.ranges),
                        std::to_string(c.unmatched.size()), std::to_string(c.aux_kernels.size())});
  }
  out << (coverage.empty() ? "<p>Not available: " +
                                 EscapeHtml(report.source == ReportData::Source::kClusterDb
                                                ? "a cluster DB holds only the result rows."
                                                : "no rank produced data.") +
                                 "</p>\n"
                           : HtmlTable({"rank", "compute time in FLOPs ranges", "FLOPs records matched",
                                        "unmatched records", "aux kernel types"},
                                       coverage));
  if (report.derived) out << RenderDerivedHtml(*report.derived, top);
  out << "<h2>What is missing and why</h2><ul>";
  if (report.missing.empty()) out << "<li>nothing</li>";
  for (const std::string& line : report.missing) out << "<li>" << EscapeHtml(line) << "</li>";
  out << "</ul>\n";
  // Records each chart's drawn size, so a headless browser can confirm the charts render. The
  // report needs no script to display.
  // Also counts the labels that reach outside their chart's drawing (which the browser cuts) and
  // records how far the page is wider than the window, and how many figures in tables run over
  // more than one line, for the layout check at several widths.
  out << "<script>document.querySelectorAll('svg.chart').forEach(function(s){var b=s.getBBox();"
      << "s.setAttribute('data-drawn',Math.round(b.width)+'x'+Math.round(b.height)+':'+"
      << "s.querySelectorAll('rect,circle').length);var v=s.viewBox.baseVal,c=0;"
      << "s.querySelectorAll('text').forEach(function(t){var r=t.getBBox();"
      << "if(r.x<-0.5||r.y<-0.5||r.x+r.width>v.width+0.5||r.y+r.height>v.height+0.5)c++});"
      << "s.setAttribute('data-clipped-labels',c)});var d=document.documentElement;"
      << "d.setAttribute('data-overflow-x',Math.max(0,d.scrollWidth-d.clientWidth));var n=0;"
      << "document.querySelectorAll('td.n').forEach(function(t){var r=document.createRange();r.selectNodeContents(t);"
      << "var l={};Array.prototype.forEach.call(r.getClientRects(),function(q){l[Math.round(q.top)]=1});"
      << "if(Object.keys(l).length>1)n++});d.setAttribute('data-broken-figures',n);</script>\n</body></html>\n";
  return out.str();
}

}  // namespace

std::string RenderReport(const MfuReport& report, ReportFormat format, std::size_t top) {
  switch (format) {
    case ReportFormat::kText:
      return RenderPlain(report, false, top);
    case ReportFormat::kMarkdown:
      return RenderPlain(report, true, top);
    case ReportFormat::kJson:
      return RenderJson(report);
    case ReportFormat::kHtml:
      return RenderHtml(report, top);
  }
  return {};
}

}  // namespace opmfu::report
