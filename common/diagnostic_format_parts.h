#pragma once
// The pieces the renderers of diagnostic_format.cpp share with those of diagnostic_format_ci.cpp
// (junit, rdjson, json-lines, pylint, grouped, azure). Internal to common/: use diagnostic_format.h.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostic_format.h"

namespace opmfu::format_parts {

using json = nlohmann::ordered_json;

/// ANSI styling, or none.
struct Style {
  bool on;
  std::string Wrap(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
};

/// The docs link of rule `id` (FormatOptions::docs_base + its page), or "".
std::string DocsLink(const FormatOptions& options, const std::vector<RuleDescriptor>& rules, std::string_view id);
/// The byte offset of code point `index` (0-based) in `text` (its size when past the end).
std::size_t ByteOfCodePoint(std::string_view text, int index);
/// The ANSI colour of a severity's name.
std::string_view SeverityColor(Severity severity);
/// `value` as `dump(2)` writes it, invalid UTF-8 replaced, and a line break.
std::string DumpJson(const json& value);
/// One finding as the `json` format writes it (json-lines writes the same, one per line).
json DiagnosticJson(const Diagnostic& d, const FormatOptions& options);

// A JSON array written element by element, byte for byte as `dump(2)` of the whole array would
// write it at `indent` spaces: a run's hundreds of thousands of findings never stand in memory as
// one JSON tree (541 configs' findings took 1 GB more as JSON, 2.5 GB more as SARIF).
class JsonArrayText {
 public:
  JsonArrayText(std::size_t indent, TextSink& out) : inner_(indent + 2, ' '), indent_(indent), out_(out) {}

  void Add(const json& element) {
    out_ += empty_ ? "[\n" : ",\n";
    out_ += inner_;
    empty_ = false;
    for (const char c : element.dump(2, ' ', false, json::error_handler_t::replace)) {
      out_ += c;
      if (c == '\n') out_ += inner_;
    }
  }
  void Finish() {
    if (empty_) {
      out_ += "[]";
      return;
    }
    out_ += "\n";
    out_ += std::string(indent_, ' ');
    out_ += "]";
  }

 private:
  std::string inner_;
  std::size_t indent_;
  TextSink& out_;
  bool empty_ = true;
};

void FormatPylint(const std::vector<Diagnostic>& diagnostics, TextSink& out);
void FormatGrouped(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out);
void FormatJsonLines(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out);
void FormatJunit(const std::vector<Diagnostic>& diagnostics, TextSink& out);
void FormatRdjson(const std::vector<Diagnostic>& diagnostics, const FormatOptions& options, TextSink& out);
void FormatAzure(const std::vector<Diagnostic>& diagnostics, TextSink& out);

}  // namespace opmfu::format_parts
