#include "common/diagnostic_format.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/diagnostic_format_parts.h"
#include "common/text.h"

namespace opmfu {

using format_parts::ByteOfCodePoint;
using format_parts::DiagnosticJson;
using format_parts::DocsLink;
using format_parts::DumpJson;
using format_parts::JsonArrayText;
using format_parts::SeverityColor;
using format_parts::Style;

namespace {

using json = nlohmann::ordered_json;

struct FormatEntry {
  const char* name;
  OutputFormat format;
};
constexpr FormatEntry kFormats[] = {
    {"full", OutputFormat::kFull},     {"concise", OutputFormat::kConcise},
    {"gcc", OutputFormat::kGcc},       {"json", OutputFormat::kJson},
    {"sarif", OutputFormat::kSarif},   {"github", OutputFormat::kGithub},
    {"gitlab", OutputFormat::kGitlab}, {"junit", OutputFormat::kJunit},
    {"rdjson", OutputFormat::kRdjson}, {"json-lines", OutputFormat::kJsonLines},
    {"pylint", OutputFormat::kPylint}, {"grouped", OutputFormat::kGrouped},
    {"azure", OutputFormat::kAzure},
};

std::string Location(const Diagnostic& d) {
  return EscapeControlCharacters(d.file) + ":" + std::to_string(d.range.start.line) + ":" +
         std::to_string(d.range.start.column);
}

// How much of a line a snippet shows: a longer line is cut to a window around the finding, as
// ruff does, so a minified or generated one-line file does not flood the terminal.
constexpr int kSnippetMaxColumns = 160;
constexpr int kSnippetContextBefore = 60;

}  // namespace

namespace format_parts {

std::string DocsLink(const FormatOptions& options, const std::vector<RuleDescriptor>& rules, std::string_view id) {
  for (const RuleDescriptor& rule : rules) {
    if (rule.id == id && !rule.docs_path.empty()) return options.docs_base + rule.docs_path;
  }
  return {};
}

// The byte offset of code point `index` (0-based) in `text`, walking no further than needed.
std::size_t ByteOfCodePoint(std::string_view text, int index) {
  std::size_t byte = 0;
  for (int seen = 0; byte < text.size(); ++byte) {
    if ((static_cast<unsigned char>(text[byte]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (seen++ == index) return byte;
  }
  return text.size();
}

std::string_view SeverityColor(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "1;31";
    case Severity::kWarning:
      return "1;33";
    case Severity::kInfo:
      return "1;36";
  }
  return "1";
}

}  // namespace format_parts

void SetSnippet(Diagnostic& d, std::string_view line) {
  // Four windows' worth: the formatters cut their own window from it (WindowSnippet).
  constexpr int kStoredColumns = 4 * kSnippetMaxColumns;
  d.snippet_first_column = 1;
  if (line.size() <= static_cast<std::size_t>(kStoredColumns)) {
    d.snippet = std::string(line);
    return;
  }
  const int first = std::max(0, d.range.start.column - 1 - 2 * kSnippetContextBefore);
  const std::size_t begin = ByteOfCodePoint(line, first);
  const std::string_view rest = line.substr(begin);
  d.snippet = std::string(rest.substr(0, ByteOfCodePoint(rest, kStoredColumns)));
  d.snippet_first_column = first + 1;
}

SnippetWindow WindowSnippet(std::string_view line, int start_column, int width) {
  start_column = std::max(1, start_column);
  width = std::max(1, width);
  // Cheap bound first: a line no longer in bytes than the budget fits whatever its encoding.
  if (line.size() <= static_cast<std::size_t>(kSnippetMaxColumns) ||
      ByteOfCodePoint(line, kSnippetMaxColumns) == line.size()) {
    return {std::string(line), start_column, width};
  }
  const int first = std::max(0, start_column - 1 - kSnippetContextBefore);
  const std::size_t begin = ByteOfCodePoint(line, first);
  const std::string_view rest = line.substr(begin);
  const std::size_t end = begin + ByteOfCodePoint(rest, kSnippetMaxColumns);
  SnippetWindow window;
  window.start = start_column - first;
  window.width = std::min(width, kSnippetMaxColumns - window.start + 1);
  if (begin > 0) {
    window.text = "\u2026";  // an ellipsis where the line was cut; one column wide
    ++window.start;
  }
  window.text += line.substr(begin, end - begin);
  if (end < line.size()) window.text += "\u2026";
  return window;
}

namespace {

void FormatFull(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  const Style style{options.color};
  for (const Diagnostic& d : diagnostics) {
    out += style.Wrap(SeverityColor(d.severity), std::string(SeverityName(d.severity)) + "[" + d.rule_id + "]");
    out += style.Wrap("1", ": " + EscapeControlCharacters(d.message)) + "\n";
    const std::string line_number = std::to_string(d.range.start.line);
    const std::string gutter(line_number.size() + 1, ' ');
    out += gutter + style.Wrap("1;34", "-->") + " " + Location(d) + "\n";
    if (!d.snippet.empty()) {
      int width = 1;
      if (d.range.end.line == d.range.start.line && d.range.end.column > d.range.start.column) {
        width = d.range.end.column - d.range.start.column;
      } else if (d.range.end.line > d.range.start.line) {
        width = std::numeric_limits<int>::max() / 2;  // to the end of the line; the window cuts it
      }
      SnippetWindow window = WindowSnippet(d.snippet, d.range.start.column - d.snippet_first_column + 1, width);
      if (d.snippet_first_column > 1 && !window.text.starts_with("\u2026")) {
        window.text = "\u2026" + window.text;  // the line was cut before the stored part
        ++window.start;
      }
      // Tabs would shift the caret; show them as single spaces. Other control characters are
      // shown as their control pictures (U+241B for ESC): one column each, as the caret counts,
      // and nothing a terminal acts on.
      std::string shown;
      for (const char c : SanitizeUtf8(window.text)) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\t') {
          shown += ' ';
        } else if (byte < 0x20 || byte == 0x7f) {
          const unsigned picture = byte == 0x7f ? 0x2421 : 0x2400 + byte;
          shown += static_cast<char>(0xe0 | (picture >> 12));
          shown += static_cast<char>(0x80 | ((picture >> 6) & 0x3f));
          shown += static_cast<char>(0x80 | (picture & 0x3f));
        } else {
          shown += c;
        }
      }
      const int start = window.start;
      width = std::max(1, std::min(window.width, CodePointCount(shown, shown.size()) - start + 1));
      out += gutter + style.Wrap("1;34", "|") + "\n";
      out += style.Wrap("1;34", line_number + " |") + " " + shown + "\n";
      out += gutter + style.Wrap("1;34", "|") + " " + std::string(static_cast<std::size_t>(start - 1), ' ') +
             style.Wrap(SeverityColor(d.severity), std::string(static_cast<std::size_t>(width), '^')) + "\n";
      out += gutter + style.Wrap("1;34", "|") + "\n";
    }
    for (const Note& note : d.notes) {
      std::string where = note.file;
      if (note.position) where += ":" + std::to_string(note.position->line);
      out += gutter + "= note: " + (where.empty() ? "" : EscapeControlCharacters(where) + ": ") +
             EscapeControlCharacters(note.message) + "\n";
    }
    if (!d.help.empty()) out += gutter + "= " + style.Wrap("1", "help") + ": " + EscapeControlCharacters(d.help) + "\n";
    if (d.fix)
      out +=
          gutter + "= fix" + (d.fix->safe ? "" : " (unsafe)") + ": " + EscapeControlCharacters(d.fix->message) + "\n";
    const std::string link = DocsLink(options, options.rules, d.rule_id);
    if (!link.empty()) out += gutter + "= docs: " + link + "\n";
    out += "\n";
  }
}

void FormatConcise(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    out += Location(d) + ": " + d.rule_id + (d.fix && d.fix->safe ? " [*] " : " ") +
           EscapeControlCharacters(d.message) + "\n";
  }
}

void FormatGcc(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    out += Location(d) + ": " + std::string(SeverityName(d.severity)) + ": " + EscapeControlCharacters(d.message) +
           " [" + d.rule_id + "]\n";
  }
}

json PositionJson(const SourcePosition& position) { return {{"row", position.line}, {"column", position.column}}; }

}  // namespace

namespace format_parts {

std::string DumpJson(const json& value) { return value.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

// One finding as the `json` format writes it (json-lines writes the same, one per line).
json DiagnosticJson(const Diagnostic& d, const FormatOptions& options) {
  json fix = nullptr;
  if (d.fix) {
    json edits = json::array();
    for (const TextEdit& edit : d.fix->edits) {
      json one = {{"begin_byte", edit.begin}, {"end_byte", edit.end}, {"content", edit.replacement}};
      if (!edit.file.empty()) one["filename"] = edit.file;  // another file than the finding's
      edits.push_back(std::move(one));
    }
    fix = {{"message", d.fix->message}, {"applicability", d.fix->safe ? "safe" : "unsafe"}, {"edits", edits}};
  }
  json notes = json::array();
  for (const Note& note : d.notes) {
    json entry = {{"filename", note.file}, {"message", note.message}};
    entry["location"] = note.position ? PositionJson(*note.position) : json(nullptr);
    notes.push_back(entry);
  }
  const std::string link = DocsLink(options, options.rules, d.rule_id);
  return {{"code", d.rule_id},
          {"name", d.rule_name},
          {"severity", SeverityName(d.severity)},
          {"message", d.message},
          {"filename", d.file},
          {"location", PositionJson(d.range.start)},
          {"end_location", PositionJson(d.range.end)},
          {"help", d.help.empty() ? json(nullptr) : json(d.help)},
          {"notes", notes},
          {"fix", fix},
          {"url", link.empty() ? json(nullptr) : json(link)}};
}

}  // namespace format_parts

namespace {

void FormatJson(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  JsonArrayText array(0, out);
  for (const Diagnostic& d : diagnostics) array.Add(DiagnosticJson(d, options));
  array.Finish();
  out += "\n";
}

std::string_view SarifLevel(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "note";
  }
  return "warning";
}

// RFC 3986 path characters stay; everything else is percent-encoded.
std::string UriFromPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

// A relative path is relative to the checkout, which code scanning calls %SRCROOT%; an absolute
// one (a file outside the working directory) is a file URI.
json ArtifactLocation(std::string_view path) {
  if (path.starts_with('/')) return {{"uri", "file://" + UriFromPath(path)}};
  while (path.starts_with("./")) path.remove_prefix(2);
  return {{"uri", UriFromPath(path)}, {"uriBaseId", "%SRCROOT%"}};
}

void FormatSarif(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out) {
  std::vector<RuleDescriptor> rules = options.rules;
  // Rules that reported but were not described still need an entry for ruleIndex.
  for (const Diagnostic& d : diagnostics) {
    const bool known =
        std::any_of(rules.begin(), rules.end(), [&](const RuleDescriptor& r) { return r.id == d.rule_id; });
    if (!known) rules.push_back({d.rule_id, d.rule_name, d.severity, d.message, ""});
  }
  std::map<std::string, std::size_t> rule_index;
  json rule_array = json::array();
  for (const RuleDescriptor& rule : rules) {
    rule_index[rule.id] = rule_array.size();
    json entry = {{"id", rule.id},
                  {"name", rule.name},
                  {"shortDescription", {{"text", rule.summary}}},
                  {"fullDescription", {{"text", rule.summary}}},
                  {"defaultConfiguration", {{"level", SarifLevel(rule.default_severity)}}}};
    if (!rule.docs_path.empty()) {
      // SARIF wants absolute URIs; without a docs base, name the page in the help text instead.
      if (options.docs_base.empty()) {
        entry["help"] = {{"text", "See " + rule.docs_path}};
      } else {
        entry["helpUri"] = options.docs_base + rule.docs_path;
      }
    }
    rule_array.push_back(entry);
  }
  json driver = {{"name", "opmfu"}, {"version", options.tool_version}};
  if (!options.docs_base.empty()) driver["informationUri"] = options.docs_base;
  driver["rules"] = rule_array;
  json log = {
      {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       json::array({{{"tool", {{"driver", driver}}}, {"columnKind", "unicodeCodePoints"}, {"results", nullptr}}})}};
  // The results go where the placeholder is: the only `"results": null` of the document (a null
  // inside a string would be `\"results\": null`).
  const std::string document = DumpJson(log);
  const std::string placeholder = "\"results\": null";
  const std::size_t at = document.find(placeholder) + placeholder.size() - 4;
  out += std::string_view(document).substr(0, at);
  JsonArrayText results(6, out);  // runs[0].results, as DumpJson(log) would indent it
  for (const Diagnostic& d : diagnostics) {
    json region = {{"startLine", d.range.start.line},
                   {"startColumn", d.range.start.column},
                   {"endLine", d.range.end.line},
                   {"endColumn", d.range.end.column}};
    if (!d.snippet.empty()) {
      region["snippet"] = {
          {"text", WindowSnippet(d.snippet, d.range.start.column - d.snippet_first_column + 1, 1).text}};
    }
    std::string text = d.message;
    if (!d.help.empty()) text += "\nhelp: " + d.help;
    json result = {
        {"ruleId", d.rule_id},
        {"ruleIndex", rule_index[d.rule_id]},
        {"level", SarifLevel(d.severity)},
        {"message", {{"text", text}}},
        {"locations",
         json::array({{{"physicalLocation", {{"artifactLocation", ArtifactLocation(d.file)}, {"region", region}}}}})}};
    if (!d.notes.empty()) {
      json related = json::array();
      for (const Note& note : d.notes) {
        json location = {{"message", {{"text", note.message}}}};
        if (!note.file.empty()) {
          json physical = {{"artifactLocation", ArtifactLocation(note.file)}};
          if (note.position) {
            physical["region"] = {{"startLine", note.position->line}, {"startColumn", note.position->column}};
          }
          location["physicalLocation"] = physical;
        }
        related.push_back(location);
      }
      result["relatedLocations"] = related;
    }
    results.Add(result);
  }
  results.Finish();
  out += std::string_view(document).substr(at + 4);
}

// GitHub workflow commands: data escapes %, CR, LF; property values also ':' and ','.
std::string EscapeGithubData(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeGithubProperty(std::string_view text) {
  std::string out;
  for (char c : EscapeGithubData(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

void FormatGithub(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  for (const Diagnostic& d : diagnostics) {
    std::string_view command = d.severity == Severity::kError     ? "error"
                               : d.severity == Severity::kWarning ? "warning"
                                                                  : "notice";
    out += "::" + std::string(command) + " title=" + EscapeGithubProperty("opmfu (" + d.rule_id + ")") +
           ",file=" + EscapeGithubProperty(d.file) + ",line=" + std::to_string(d.range.start.line);
    // GitHub rejects columns on annotations that span lines.
    if (d.range.end.line == d.range.start.line) {
      out += ",col=" + std::to_string(d.range.start.column) + ",endLine=" + std::to_string(d.range.end.line) +
             ",endColumn=" + std::to_string(d.range.end.column);
    } else {
      out += ",endLine=" + std::to_string(d.range.end.line);
    }
    std::string message = d.message;
    if (!d.help.empty()) message += "\nhelp: " + d.help;
    out += "::" + EscapeGithubData(SanitizeUtf8(message)) + "\n";
  }
}

// GitLab's Code Quality report: one issue per finding, each with a fingerprint that stays the same
// while the finding does (rule, file and message; not the line, which moves with unrelated edits),
// made unique within the report by counting repeats.
void FormatGitlab(const std::vector<Diagnostic>& diagnostics, TextSink& out) {
  JsonArrayText issues(0, out);
  std::map<std::uint64_t, int> seen;
  for (const Diagnostic& d : diagnostics) {
    std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
    const auto mix = [&](std::string_view text) {
      for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
      hash = (hash ^ 0xffU) * 1099511628211ULL;
    };
    mix(d.rule_id);
    mix(d.file);
    mix(d.message);
    mix(std::to_string(seen[hash]++));
    char fingerprint[17];
    // 16 hex digits and the NUL always fit: the count it returns says nothing here.
    (void)std::snprintf(fingerprint, sizeof fingerprint, "%016llx", static_cast<unsigned long long>(hash));
    const char* severity = d.severity == Severity::kError     ? "major"
                           : d.severity == Severity::kWarning ? "minor"
                                                              : "info";
    issues.Add(
        {{"description", SanitizeUtf8(d.rule_id + " " + d.message)},
         {"check_name", d.rule_id},
         {"fingerprint", fingerprint},
         {"severity", severity},
         {"location",
          {{"path", SanitizeUtf8(d.file)}, {"lines", {{"begin", d.range.start.line}, {"end", d.range.end.line}}}}}});
  }
  issues.Finish();
  out += "\n";
}

}  // namespace

const std::vector<std::string>& OutputFormatNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const FormatEntry& entry : kFormats) list.emplace_back(entry.name);
    return list;
  }();
  return names;
}

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (const FormatEntry& entry : kFormats) {
    if (name == entry.name) return entry.format;
  }
  std::string choices;
  for (const std::string& known : OutputFormatNames()) choices += (choices.empty() ? "" : ", ") + known;
  return Error::Usage("unknown output format '" + std::string(name) + "'" + DidYouMean(name, OutputFormatNames()) +
                      "; choose one of " + choices);
}

bool IsTerminalFormat(OutputFormat format) {
  return format == OutputFormat::kFull || format == OutputFormat::kConcise || format == OutputFormat::kGcc ||
         format == OutputFormat::kPylint || format == OutputFormat::kGrouped;
}

void WriteDiagnostics(const std::vector<Diagnostic>& diagnostics, OutputFormat format, const FormatOptions& options,
                      TextSink& out) {
  switch (format) {
    case OutputFormat::kFull:
      return FormatFull(diagnostics, options, out);
    case OutputFormat::kConcise:
      return FormatConcise(diagnostics, out);
    case OutputFormat::kGcc:
      return FormatGcc(diagnostics, out);
    case OutputFormat::kJson:
      return FormatJson(diagnostics, options, out);
    case OutputFormat::kSarif:
      return FormatSarif(diagnostics, options, out);
    case OutputFormat::kGithub:
      return FormatGithub(diagnostics, out);
    case OutputFormat::kGitlab:
      return FormatGitlab(diagnostics, out);
    case OutputFormat::kJunit:
      return format_parts::FormatJunit(diagnostics, out);
    case OutputFormat::kRdjson:
      return format_parts::FormatRdjson(diagnostics, options, out);
    case OutputFormat::kJsonLines:
      return format_parts::FormatJsonLines(diagnostics, options, out);
    case OutputFormat::kPylint:
      return format_parts::FormatPylint(diagnostics, out);
    case OutputFormat::kGrouped:
      return format_parts::FormatGrouped(diagnostics, options, out);
    case OutputFormat::kAzure:
      return format_parts::FormatAzure(diagnostics, out);
  }
}

std::string FormatDiagnostics(const std::vector<Diagnostic>& diagnostics, OutputFormat format,
                              const FormatOptions& options) {
  std::string text;
  TextSink out([&](std::string_view piece) { text += piece; });
  WriteDiagnostics(diagnostics, format, options, out);
  out.Flush();
  return text;
}

std::string FormatStatistics(const std::vector<Diagnostic>& diagnostics, OutputFormat format) {
  std::map<std::string, std::pair<std::string, int>> counts;
  for (const Diagnostic& d : diagnostics) {
    auto& entry = counts[d.rule_id];
    entry.first = d.rule_name;
    ++entry.second;
  }
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [id, entry] : counts)
      out.push_back({{"code", id}, {"name", entry.first}, {"count", entry.second}});
    return out.dump(2) + "\n";
  }
  std::string out;
  for (const auto& [id, entry] : counts) {
    out += std::to_string(entry.second) + "\t" + id + "\t" + entry.first + "\n";
  }
  return out;
}

}  // namespace opmfu
