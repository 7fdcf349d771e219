#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/diagnostic_format_parts.h"
#include "common/text.h"

// The renderers of the formats added after the first seven: junit, rdjson, json-lines, pylint,
// grouped, azure (diagnostic_format.cpp dispatches to them).

namespace opmfu::format_parts {

namespace {

// Text for XML 1.0 character data and attribute values: the five special characters as entities,
// a line break in an attribute as a character reference (else a parser reads a space), and the
// control characters XML forbids (all below 0x20 but tab, LF and CR) as visible `\x..` escapes.
std::string EscapeXml(std::string_view text, bool attribute) {
  std::string out;
  for (const char c : SanitizeUtf8(text)) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += attribute ? "&#13;" : "\r";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        if (byte < 0x20) {
          char escaped[5];
          (void)std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out;
}

// Lines and UTF-8 byte columns in one file's text, which is what reviewdog's positions count.
class ByteColumns {
 public:
  explicit ByteColumns(std::string_view text) : text_(text), starts_(LineStarts(text)) {}

  // The 1-based line and byte column of a byte offset.
  json At(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    const auto next = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const std::size_t line = static_cast<std::size_t>(next - starts_.begin());  // >= 1: starts_[0] is 0
    return {{"line", line}, {"column", offset - starts_[line - 1] + 1}};
  }
  // The byte column of a position whose column counts code points; nullopt past the text.
  std::optional<int> ByteColumn(const SourcePosition& position) const {
    const auto number = static_cast<std::size_t>(std::max(0, position.line));
    if (number < 1 || number > starts_.size()) return std::nullopt;
    const std::size_t begin = starts_[number - 1];
    const std::size_t end = number < starts_.size() ? starts_[number] : text_.size();
    const std::string_view line = text_.substr(begin, end - begin);
    const int index = std::max(0, position.column - 1);
    const std::size_t byte = ByteOfCodePoint(line, index);
    const int beyond = index - CodePointCount(line, byte);  // columns past the line's end
    return static_cast<int>(byte) + std::max(0, beyond) + 1;
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// Azure Pipelines logging commands: `%` is written %AZP25 everywhere, CR and LF as %0D and %0A;
// in a property value also `;` and `]`, which end a property and the command.
std::string EscapeAzure(std::string_view text, bool property) {
  std::string out;
  for (const char c : SanitizeUtf8(text)) {
    if (c == '%') {
      out += "%AZP25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ';') {
      out += "%3B";
    } else if (property && c == ']') {
      out += "%5D";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

// pylint's parseable format (`--output-format=parseable`), which log parsers built for pylint read:
// the line, no column.
void FormatPylint(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    out += EscapeControlCharacters(d.file) + ":" + std::to_string(d.range.start.line) + ": [" + d.rule_id + "] " +
           EscapeControlCharacters(d.message) + "\n";
  }
}

// Each file's name once, then its findings one a line, `line:column` aligned within the file, a
// blank line after each file. The findings come sorted, so a file's findings are together.
void FormatGrouped(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  const Style style{options.color};
  for (std::size_t first = 0; first < diagnostics.size();) {
    std::size_t last = first;
    std::size_t line_width = 0;
    std::size_t column_width = 0;
    for (; last < diagnostics.size() && diagnostics[last].file == diagnostics[first].file; ++last) {
      line_width = std::max(line_width, std::to_string(diagnostics[last].range.start.line).size());
      column_width = std::max(column_width, std::to_string(diagnostics[last].range.start.column).size());
    }
    out += style.Wrap("1", EscapeControlCharacters(diagnostics[first].file)) + ":\n";
    for (std::size_t i = first; i < last; ++i) {
      const Diagnostic& d = diagnostics[i];
      const std::string line = std::to_string(d.range.start.line);
      const std::string column = std::to_string(d.range.start.column);
      out += "  " + std::string(line_width - line.size(), ' ') + line + ":" + column +
             std::string(column_width - column.size(), ' ') + " " + style.Wrap(SeverityColor(d.severity), d.rule_id) +
             (d.fix && d.fix->safe ? " [*] " : " ") + EscapeControlCharacters(d.message) + "\n";
    }
    out += "\n";
    first = last;
  }
}

// JSON Lines: each finding's `json` object on a line of its own, nothing around them (no findings,
// no lines), so `grep` and a line-at-a-time reader can take them.
void FormatJsonLines(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    out += DiagnosticJson(d, options).dump(-1, ' ', false, json::error_handler_t::replace);
    out += '\n';
  }
}

// JUnit XML, as CI test-report viewers read it (GitLab's `artifacts: reports: junit:`, Jenkins,
// Azure's PublishTestResults): a test suite per file, a failed test case per finding. No findings
// is one passing test case, so the report says the lint ran.
void FormatJunit(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  const std::string total = std::to_string(diagnostics.size());
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  if (diagnostics.empty()) {
    out +=
        "<testsuites name=\"opmfu\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
        "  <testsuite name=\"opmfu\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
        "    <testcase name=\"no findings\" classname=\"opmfu\"/>\n"
        "  </testsuite>\n"
        "</testsuites>\n";
    return;
  }
  out += "<testsuites name=\"opmfu\" tests=\"" + total + "\" failures=\"" + total + "\" errors=\"0\">\n";
  for (std::size_t first = 0; first < diagnostics.size();) {
    std::size_t last = first;
    while (last < diagnostics.size() && diagnostics[last].file == diagnostics[first].file) ++last;
    const std::string file = EscapeXml(diagnostics[first].file, true);
    const std::string count = std::to_string(last - first);
    out += "  <testsuite name=\"" + file + "\" tests=\"" + count + "\" failures=\"" + count + "\" errors=\"0\">\n";
    for (std::size_t i = first; i < last; ++i) {
      const Diagnostic& d = diagnostics[i];
      const std::string line = std::to_string(d.range.start.line);
      const std::string column = std::to_string(d.range.start.column);
      std::string body = d.file + ":" + line + ":" + column + ": " + d.message;
      if (!d.help.empty()) body += "\nhelp: " + d.help;
      out += "    <testcase name=\"" + EscapeXml(d.rule_id + " " + d.rule_name, true) + "\" classname=\"" + file +
             "\" file=\"" + file + "\" line=\"" + line + "\">\n";
      out += "      <failure message=\"" + EscapeXml(d.message, true) + "\" type=\"" +
             std::string(SeverityName(d.severity)) + "\">" + EscapeXml(body, false) + "</failure>\n";
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
    first = last;
  }
  out += "</testsuites>\n";
}

// reviewdog's Diagnostic Format, the whole-result form (`reviewdog -f=rdjson`): positions in UTF-8
// bytes, each safe fix whose edits are all in the finding's file as suggestions (with the file's
// text from FormatOptions::source; without it, none). Without the text a column is converted
// through the finding's snippet when it holds the line from its start, else left in code points
// (the same for ASCII lines).
void FormatRdjson(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  json source = {{"name", "opmfu"}};
  if (!options.docs_base.empty()) source["url"] = options.docs_base;
  const std::string document = DumpJson({{"source", source}, {"diagnostics", nullptr}});
  const std::string placeholder = "\"diagnostics\": null";
  const std::size_t at = document.rfind(placeholder) + placeholder.size() - 4;
  out += std::string_view(document).substr(0, at);
  JsonArrayText array(2, out);
  std::string indexed_file;  // the findings come sorted: one file's index at a time
  std::optional<ByteColumns> index;
  for (const Diagnostic& d : diagnostics) {
    const std::string* text = options.source ? options.source(d.file) : nullptr;
    if (text != nullptr && (!index || indexed_file != d.file)) {
      index.emplace(*text);
      indexed_file = d.file;
    } else if (text == nullptr) {
      index.reset();
      indexed_file.clear();
    }
    const auto position = [&](const SourcePosition& where) {
      std::optional<int> column;
      if (index) column = index->ByteColumn(where);
      if (!column && !d.snippet.empty() && d.snippet_first_column == 1 && where.line == d.range.start.line) {
        const int code_points = std::max(0, where.column - 1);
        const std::size_t byte = ByteOfCodePoint(d.snippet, code_points);
        column = static_cast<int>(byte) + std::max(0, code_points - CodePointCount(d.snippet, byte)) + 1;
      }
      return json{{"line", where.line}, {"column", column.value_or(where.column)}};
    };
    std::string message = d.message;
    if (!d.help.empty()) message += "\nhelp: " + d.help;
    const char* severity = d.severity == Severity::kError     ? "ERROR"
                           : d.severity == Severity::kWarning ? "WARNING"
                                                              : "INFO";
    json code = {{"value", d.rule_id}};
    const std::string link = DocsLink(options, options.rules, d.rule_id);
    if (!link.empty()) code["url"] = link;
    json entry = {{"message", SanitizeUtf8(message)},
                  {"location",
                   {{"path", SanitizeUtf8(d.file)},
                    {"range", {{"start", position(d.range.start)}, {"end", position(d.range.end)}}}}},
                  {"severity", severity},
                  {"code", code}};
    if (d.fix && d.fix->safe && index && text != nullptr) {
      const bool here = std::all_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit& edit) {
        return (edit.file.empty() || edit.file == d.file) && edit.begin <= edit.end && edit.end <= text->size();
      });
      if (here && !d.fix->edits.empty()) {
        json suggestions = json::array();
        for (const TextEdit& edit : d.fix->edits) {
          suggestions.push_back({{"range", {{"start", index->At(edit.begin)}, {"end", index->At(edit.end)}}},
                                 {"text", SanitizeUtf8(edit.replacement)}});
        }
        entry["suggestions"] = std::move(suggestions);
      }
    }
    array.Add(entry);
  }
  array.Finish();
  out += std::string_view(document).substr(at + 4);
}

// One `##vso[task.logissue]` per finding: an error or a warning (the only two types Azure has; an
// info is a warning there) on the file, line and column, with the rule as its code.
void FormatAzure(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    std::string message = d.message;
    if (!d.help.empty()) message += "\nhelp: " + d.help;
    out += std::string("##vso[task.logissue type=") + (d.severity == Severity::kError ? "error" : "warning") +
           ";sourcepath=" + EscapeAzure(d.file, true) + ";linenumber=" + std::to_string(d.range.start.line) +
           ";columnnumber=" + std::to_string(d.range.start.column) + ";code=" + EscapeAzure(d.rule_id, true) + ";]" +
           EscapeAzure(message, false) + "\n";
  }
}

}  // namespace opmfu::format_parts
