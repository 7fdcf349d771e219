#pragma once
// How figures are written for people: units, percentages, and aligned or Markdown tables. Shared
// by report, diff and gate so the same number reads the same everywhere.

#include <string>
#include <string_view>
#include <vector>

namespace opmfu::report {

/// printf-style formatting of one number ("%.2f").
std::string FormatNumber(const char* format, double value);
/// 0.4213 -> "42.1%".
std::string FormatPercent(double ratio);
/// Nanoseconds in the unit that reads best: "812.4 us", "12.30 ms", "1.05 s".
std::string FormatDuration(double nanoseconds);

using TableRow = std::vector<std::string>;
enum class TableStyle { kText, kMarkdown };
/// `rows[0]` is the header. Text: columns padded to their widest cell, two-space indent.
/// Markdown: a pipe table, with '|' in cells escaped.
std::string FormatTable(const std::vector<TableRow>& rows, TableStyle style);

/// Text made safe inside HTML elements and attribute values (& < > " '), invalid UTF-8 replaced:
/// the one HTML escaper of every page opmfu writes.
std::string EscapeHtml(std::string_view text);

/// Escaped HTML of a table cell with a line-break opportunity (<wbr>) after each ',' and ';': an
/// input shape such as "32768,4096;4096,12288" then wraps between numbers instead of widening the
/// table past the page or breaking names mid-word.
std::string WithBreaksAfterSeparators(std::string_view escaped_html);

/// A figure the report prints: numbers with their units or a band flag ("531.59 ms", "42.9%",
/// "1.1e+12", "15.1% !"), which a table must never break across lines.
bool IsFigure(std::string_view text);

/// One HTML table cell of `text`: a figure in a `td.n` (kept on one line), anything else wrapping
/// after its separators.
std::string HtmlCell(std::string_view text);

}  // namespace opmfu::report
