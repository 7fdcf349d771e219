#include "registry/listing.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/text.h"
#include "registry/builtin_flops.h"
#include "registry/locate.h"

namespace opmfu::registry {

namespace {

std::string ShowArgument(const ArgumentValue& value) {
  switch (value.kind) {
    case ArgumentValue::Kind::kAbsent:
      return "";
    case ArgumentValue::Kind::kString:
      return value.text;
    case ArgumentValue::Kind::kNone:
      return "None";
    case ArgumentValue::Kind::kTrue:
      return "true";
    case ArgumentValue::Kind::kFalse:
      return "false";
    case ArgumentValue::Kind::kExpression:
      return "<expr: " + value.text + ">";
  }
  return "";
}

std::string_view SourceName(OpNameSource source) {
  switch (source) {
    case OpNameSource::kExplicit:
      return "explicit";
    case OpNameSource::kTarget:
      return "target";
    case OpNameSource::kFunctionName:
      return "function";
    case OpNameSource::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string ParameterNames(const std::vector<Parameter>& parameters) {
  std::string out;
  for (const Parameter& parameter : parameters) out += (out.empty() ? "" : ", ") + parameter.name;
  return out;
}

std::string Shorten(const std::string& text, std::size_t width) {
  if (CodePointCount(text, text.size()) <= static_cast<int>(width)) return text;
  std::size_t bytes = 0;
  int shown = 0;
  while (bytes < text.size() && shown < static_cast<int>(width) - 3) {
    ++bytes;
    while (bytes < text.size() && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) ++bytes;
    ++shown;
  }
  return text.substr(0, bytes) + "...";
}

std::string IncompleteNote(const FormulaFile& file) {
  auto error = file.tree.FirstError();
  if (!error) return {};
  const SourcePosition position = file.tree.PositionAt(ts_node_start_byte(*error));
  return "incomplete: syntax error at " + file.path + ":" + std::to_string(position.line) + ":" +
         std::to_string(position.column) + "; registrations after it may be missing";
}

// Which torch_npu release the file's built-in formulas are, read from its text; empty when the
// file registers no built-in (is_default=True) formula.
struct VersionNote {
  std::optional<std::string> version;  ///< "v26.1.0", or nullopt when it cannot tell
  std::string evidence;
  std::optional<std::string> torch_npu;  ///< the .dist-info Version next to the file, if any
};

std::optional<VersionNote> FormulasVersionNote(const FormulaFile& file) {
  const bool has_builtins = std::any_of(file.registrations.begin(), file.registrations.end(),
                                        [](const Registration& r) { return r.IsDefault().value_or(false); });
  if (!has_builtins) return std::nullopt;
  VersionNote note;
  if (const auto recognized = RecognizeFormulasVersion(file.tree.source())) {
    note.version = std::string(recognized->version.name);
    note.evidence = recognized->evidence;
  } else {
    note.evidence = "they match none opmfu knows: v26.1.0-beta.2, v26.1.0";
  }
  // <site>/torch_npu/profiler/_flops_formulas.py
  const std::filesystem::path path(file.path);
  if (path.filename() == "_flops_formulas.py" && path.parent_path().filename() == "profiler" &&
      path.parent_path().parent_path().filename() == "torch_npu") {
    const std::filesystem::path site = path.parent_path().parent_path().parent_path();
    note.torch_npu = TorchNpuVersion(site.empty() ? std::filesystem::path(".") : site);
  }
  return note;
}

std::string VersionLine(const VersionNote& note) {
  std::string line = "built-in formulas: " + (note.version ? "torch_npu " + *note.version + " (" + note.evidence + ")"
                                                           : "cannot tell the torch_npu release; " + note.evidence);
  if (note.torch_npu) line += "; installed torch_npu " + *note.torch_npu;
  return line;
}

std::string RenderTable(const FormulaFile& file, const std::vector<ListingRow>& rows) {
  constexpr std::size_t kColumns = 7;
  constexpr std::size_t kParameterWidth = 40;
  constexpr std::size_t kDocWidth = 48;
  using Cells = std::array<std::string, kColumns>;
  std::vector<Cells> cells;
  cells.reserve(rows.size() + 1);
  cells.push_back({"LINE", "TARGET", "OP NAME", "DEFAULT", "FUNCTION", "PARAMETERS", "DOC"});
  for (const ListingRow& row : rows) {
    // Names and docs are the formulas file's text: through the one escaper, as every printed input.
    const auto shown = [](const std::string& text) { return EscapeControlCharacters(text); };
    cells.push_back({std::to_string(row.line), row.target.empty() ? "-" : shown(row.target), shown(row.op_name),
                     shown(row.is_default), shown(row.function), shown(Shorten(row.parameters, kParameterWidth)),
                     shown(Shorten(row.doc, kDocWidth))});
  }
  std::array<std::size_t, kColumns> widths{};
  std::size_t line_width = 0;
  for (const Cells& line : cells) {
    for (std::size_t i = 0; i < kColumns; ++i) {
      widths[i] = std::max(widths[i], static_cast<std::size_t>(CodePointCount(line[i], line[i].size())));
    }
  }
  for (std::size_t width : widths) line_width += width + 2;
  std::string out;
  out.reserve(cells.size() * (line_width + 8) + 256);
  for (const Cells& line : cells) {
    const std::size_t start = out.size();
    for (std::size_t i = 0; i < kColumns; ++i) {
      out += line[i];
      if (i + 1 < kColumns) {
        const auto shown = static_cast<std::size_t>(CodePointCount(line[i], line[i].size()));
        out.append(widths[i] + 2 - shown, ' ');
      }
    }
    while (out.size() > start && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  const std::size_t count = rows.size();
  out += "\n" + std::to_string(count) + (count == 1 ? " registration" : " registrations") + " in " + file.path + "\n";
  if (const auto note = FormulasVersionNote(file)) out += VersionLine(*note) + "\n";
  const std::string incomplete = IncompleteNote(file);
  if (!incomplete.empty()) out += incomplete + "\n";
  return IsValidUtf8(out) ? out : SanitizeUtf8(out);
}

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : SanitizeUtf8(text)) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderMarkdown(const FormulaFile& file, const std::vector<ListingRow>& rows) {
  std::string out = "| line | target | op name | default | function | parameters | doc |\n";
  out += "|---:|---|---|---|---|---|---|\n";
  for (const ListingRow& row : rows) {
    const auto code = [](const std::string& text) {
      return text.empty() ? std::string() : "`" + MarkdownCell(text) + "`";
    };
    out += "| " + std::to_string(row.line) + " | " + code(row.target) + " | " + code(row.op_name) + " | " +
           row.is_default + " | " + code(row.function) + " | " + MarkdownCell(row.parameters) + " | " +
           MarkdownCell(row.doc) + " |\n";
  }
  if (const auto note = FormulasVersionNote(file)) out += "\n" + MarkdownCell(VersionLine(*note)) + "\n";
  const std::string incomplete = IncompleteNote(file);
  if (!incomplete.empty()) out += "\n> " + MarkdownCell(incomplete) + "\n";
  return out;
}

std::string CsvCell(const std::string& text) { return CsvField(SanitizeUtf8(text)); }

std::string RenderCsv(const std::vector<ListingRow>& rows) {
  std::string out = "line,target,op_name,op_name_source,is_default,function,parameters,doc\n";
  for (const ListingRow& row : rows) {
    out += std::to_string(row.line) + "," + CsvCell(row.target) + "," + CsvCell(row.op_name) + "," +
           row.op_name_source + "," + CsvCell(row.is_default) + "," + CsvCell(row.function) + "," +
           CsvCell(row.parameters) + "," + CsvCell(row.doc) + "\n";
  }
  return out;
}

std::string RenderJson(const FormulaFile& file, const std::vector<ListingRow>& rows) {
  using json = nlohmann::ordered_json;
  json registrations = json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ListingRow& row = rows[i];
    const Registration& registration = file.registrations[i];
    json parameters = json::array();
    for (const Parameter& parameter : registration.parameters) {
      parameters.push_back({{"name", parameter.name},
                            {"default", parameter.default_value ? json(*parameter.default_value) : json(nullptr)}});
    }
    const auto literal_or_null = [](const ArgumentValue& value) {
      return value.is_string() ? json(value.text) : json(nullptr);
    };
    const auto default_value = registration.IsDefault();
    registrations.push_back(
        {{"line", row.line},
         {"target", literal_or_null(registration.target)},
         {"target_expression", registration.target.is_expression() ? json(registration.target.text) : json(nullptr)},
         {"op_name", registration.op_name_source == OpNameSource::kUnknown ? json(nullptr) : json(row.op_name)},
         {"op_name_source", row.op_name_source},
         {"is_default", default_value ? json(*default_value) : json(nullptr)},
         {"legacy_form", registration.legacy_positional_op_name},
         {"function", row.function},
         {"parameters", parameters},
         {"doc", row.doc.empty() ? json(nullptr) : json(row.doc)}});
  }
  json document = {{"file", file.path}, {"complete", file.parsed_cleanly()}, {"count", rows.size()}};
  const std::string incomplete = IncompleteNote(file);
  if (!incomplete.empty()) document["incomplete_reason"] = incomplete;
  if (const auto note = FormulasVersionNote(file)) {
    document["formulas_version"] = note->version ? json(*note->version) : json(nullptr);
    document["formulas_version_evidence"] = note->evidence;
    document["torch_npu_version"] = note->torch_npu ? json(*note->torch_npu) : json(nullptr);
  }
  document["registrations"] = registrations;
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

Result<ListFormat> ParseListFormat(std::string_view name) {
  if (name == "table") return ListFormat::kTable;
  if (name == "json") return ListFormat::kJson;
  if (name == "markdown") return ListFormat::kMarkdown;
  if (name == "csv") return ListFormat::kCsv;
  const std::vector<std::string> names = {"table", "json", "markdown", "csv"};
  return Error::Usage("unknown list format '" + std::string(name) + "'" + DidYouMean(name, names) +
                      "; choose table, json, markdown or csv");
}

std::vector<ListingRow> ListingRows(const FormulaFile& file) {
  std::vector<ListingRow> rows;
  rows.reserve(file.registrations.size());
  for (const Registration& registration : file.registrations) {
    ListingRow row;
    row.line = registration.line;
    row.target = ShowArgument(registration.target);
    row.op_name = registration.op_name_source == OpNameSource::kUnknown
                      ? ShowArgument(registration.op_name.is_expression() ? registration.op_name : registration.target)
                      : registration.resolved_op_name;
    row.op_name_source = SourceName(registration.op_name_source);
    row.is_default = registration.is_default.is_expression()
                         ? ShowArgument(registration.is_default)
                         : (registration.IsDefault().value_or(false) ? "true" : "false");
    row.function = registration.function_name;
    row.parameters = ParameterNames(registration.parameters);
    row.doc = registration.doc.value_or("");
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string RenderListing(const FormulaFile& file, ListFormat format) {
  const std::vector<ListingRow> rows = ListingRows(file);
  switch (format) {
    case ListFormat::kTable:
      return RenderTable(file, rows);
    case ListFormat::kJson:
      return RenderJson(file, rows);
    case ListFormat::kMarkdown:
      return RenderMarkdown(file, rows);
    case ListFormat::kCsv:
      return RenderCsv(rows);
  }
  return {};
}

}  // namespace opmfu::registry
