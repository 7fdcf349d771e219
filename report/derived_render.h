#pragma once
// The derived section (report/derived_mfu) as text or Markdown, JSON and HTML with its roofline
// chart (SVG), escaped as report/presentation escapes every page.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "report/derived_mfu.h"

namespace opmfu::report {

/// The derived section as text or markdown, with its tables cut to `top` rows; `top` 0 leaves the
/// tables out (the HTML page draws them itself).
std::string RenderDerivedPlain(const DerivedSection& section, bool markdown, std::size_t top);
nlohmann::ordered_json DerivedJson(const DerivedSection& section);
std::string RenderDerivedHtml(const DerivedSection& section, std::size_t top);

}  // namespace opmfu::report
