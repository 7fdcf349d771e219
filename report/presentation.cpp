#include "report/presentation.h"

#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace opmfu::report {

std::string FormatNumber(const char* format, double value) {
  char buffer[64];
  (void)std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string FormatPercent(double ratio) { return FormatNumber("%.1f%%", ratio * 100); }

std::string FormatDuration(double nanoseconds) {
  if (nanoseconds >= 1e9) return FormatNumber("%.2f s", nanoseconds / 1e9);
  if (nanoseconds >= 1e6) return FormatNumber("%.2f ms", nanoseconds / 1e6);
  return FormatNumber("%.1f us", nanoseconds / 1e3);
}

std::string FormatTable(const std::vector<TableRow>& raw_rows, TableStyle style) {
  std::string out;
  if (raw_rows.empty()) return out;
  // Cells hold names and shapes from the rank DBs: escaped, so that none breaks a row or reaches a
  // terminal raw.
  std::vector<TableRow> rows;
  rows.reserve(raw_rows.size());
  for (const TableRow& raw : raw_rows) {
    TableRow& row = rows.emplace_back();
    for (const std::string& cell : raw) row.push_back(EscapeControlCharacters(cell));
  }
  if (style == TableStyle::kMarkdown) {
    const auto line = [&](const TableRow& row) {
      out += "|";
      for (const std::string& cell : row) {
        out += " ";
        for (char c : cell) {
          if (c == '|') out += '\\';
          out += c == '\n' ? ' ' : c;
        }
        out += " |";
      }
      out += "\n";
    };
    line(rows.front());
    out += "|";
    for (std::size_t i = 0; i < rows.front().size(); ++i) out += "---|";
    out += "\n";
    for (std::size_t r = 1; r < rows.size(); ++r) line(rows[r]);
    return out;
  }
  std::vector<std::size_t> widths;
  for (const TableRow& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const TableRow& row : rows) {
    out += " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += " " + row[i];
      if (i + 1 < row.size()) out += std::string(widths[i] - row[i].size(), ' ');
    }
    out += "\n";
  }
  return out;
}

std::string WithBreaksAfterSeparators(std::string_view escaped_html) {
  std::string html;
  html.reserve(escaped_html.size());
  bool in_entity = false;  // the ';' that ends "&lt;" is no separator
  for (const char c : escaped_html) {
    html.push_back(c);
    if (c == '&') in_entity = true;
    if ((c == ',' || c == ';') && !in_entity) html += "<wbr>";
    if (c == ';') in_entity = false;
  }
  return html;
}

bool IsFigure(std::string_view text) {
  static constexpr std::string_view kUnits[] = {"ns", "us", "ms",   "s",    "min",    "x",   "!",      "B", "KB",
                                                "MB", "GB", "TB/s", "GB/s", "FLOP/B", "MHz", "TFLOPS", "%"};
  bool any = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const bool unit = std::find(std::begin(kUnits), std::end(kUnits), word) != std::end(kUnits);
    const std::size_t digit = word.front() == '-' || word.front() == '+' ? 1 : 0;
    const bool number = word.size() > digit && std::isdigit(static_cast<unsigned char>(word[digit])) != 0 &&
                        word.find_first_not_of("0123456789.,e+-%x") == std::string_view::npos;
    if (!unit && !number) return false;
    any = any || number;
  }
  return any;
}

std::string HtmlCell(std::string_view text) {
  if (IsFigure(text)) return "<td class=\"n\">" + EscapeHtml(text) + "</td>";
  return "<td>" + WithBreaksAfterSeparators(EscapeHtml(text)) + "</td>";
}

std::string EscapeHtml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : SanitizeUtf8(text)) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

}  // namespace opmfu::report
