#include "tests/fixture_annotations.h"

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>

#include "common/text.h"
#include "tests/test_support.h"

namespace opmfu::testing {

namespace fs = std::filesystem;

namespace {

// `OPM101`, `OPM106/warning`, comma-separated.
const std::regex& IdList() {
  static const std::regex ids(
      R"(^\s*(OPM\d{3}(?:/(?:error|warning|info))?(?:\s*,\s*OPM\d{3}(?:/(?:error|warning|info))?)*)\s*$)");
  return ids;
}

// Adds the markers of one `kind: ids` text; false when `ids` is not an id list.
bool AddMarkers(std::string_view kind, const std::string& ids, const fs::path& about, int line,
                const std::string& written, std::vector<Marker>& out) {
  std::smatch match;
  if (!std::regex_match(ids, match, IdList())) return false;
  for (const std::string& annotated : SplitString(match[1].str(), ',')) {
    const std::string_view trimmed = TrimWhitespace(annotated);
    const std::size_t slash = trimmed.find('/');
    Marker marker;
    marker.about = about;
    marker.line = line;
    marker.kind = kind == "expect" ? MarkerKind::kExpect : MarkerKind::kOk;
    marker.rule_id = std::string(trimmed.substr(0, slash));
    if (slash != std::string_view::npos) marker.severity = std::string(trimmed.substr(slash + 1));
    marker.written = written;
    out.push_back(std::move(marker));
  }
  return true;
}

}  // namespace

std::vector<Marker> ParseMarkers(std::string_view text, const fs::path& about, bool sidecar,
                                 const std::string& written_in, std::vector<std::string>& malformed) {
  // A marker runs from `# expect:` or `# ok:` to the next `#` or the end of the line.
  static const std::regex comment_marker(R"(#\s*(expect|ok)\s*:([^#]*))");
  static const std::regex sidecar_line(R"(^\s*(\d+)\s+(expect|ok)\s*:(.*)$)");
  std::vector<Marker> markers;
  const std::vector<std::string> lines = SplitString(text, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string written = written_in + ":" + std::to_string(i + 1);
    if (sidecar) {
      if (TrimWhitespace(lines[i]).empty()) continue;
      std::smatch match;
      if (!std::regex_match(lines[i], match, sidecar_line) ||
          !AddMarkers(match[2].str(), match[3].str(), about, std::stoi(match[1].str()), written, markers)) {
        malformed.push_back(written + ": " + lines[i]);
      }
      continue;
    }
    for (auto it = std::sregex_iterator(lines[i].begin(), lines[i].end(), comment_marker); it != std::sregex_iterator();
         ++it) {
      if (!AddMarkers((*it)[1].str(), (*it)[2].str(), about, static_cast<int>(i) + 1, written, markers)) {
        malformed.push_back(written + ": " + it->str());
      }
    }
  }
  return markers;
}

FixtureMarkers ReadMarkers(const fs::path& fixture) {
  std::vector<fs::path> files;
  if (fs::is_directory(fixture)) {
    for (const auto& entry : fs::recursive_directory_iterator(fixture)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  } else {
    files.push_back(fixture);
  }
  std::sort(files.begin(), files.end());
  FixtureMarkers out;
  for (const fs::path& file : files) {
    const bool sidecar = file.extension() == ".expect";
    const fs::path about = fs::weakly_canonical(sidecar ? fs::path(file).replace_extension() : file);
    const std::string written = file.lexically_relative(SourceDir()).generic_string();
    std::vector<Marker> markers = ParseMarkers(ReadFile(file), about, sidecar, written, out.malformed);
    out.markers.insert(out.markers.end(), markers.begin(), markers.end());
  }
  return out;
}

std::vector<std::string> CompareWithMarkers(const std::vector<Marker>& markers, const std::vector<Finding>& findings) {
  using Key = std::tuple<fs::path, int, std::string>;
  std::map<Key, const Marker*> expected;
  std::map<Key, const Marker*> forbidden;
  for (const Marker& marker : markers) {
    (marker.kind == MarkerKind::kExpect ? expected : forbidden)[{marker.about, marker.line, marker.rule_id}] = &marker;
  }
  std::vector<std::string> problems;
  std::set<Key> found;
  std::set<std::tuple<fs::path, int, int, std::string>> places;
  for (const Finding& finding : findings) {
    const std::string where = finding.file.filename().string() + ":" + std::to_string(finding.line) + ": " +
                              finding.rule_id + " (" + finding.message + ")";
    const Key key = {finding.file, finding.line, finding.rule_id};
    found.insert(key);
    if (!places.emplace(finding.file, finding.line, finding.column, finding.rule_id).second) {
      problems.push_back(where + ": reported twice at one place");
    }
    if (auto ok = forbidden.find(key); ok != forbidden.end()) {
      problems.push_back(where + ": on a line marked `ok: " + finding.rule_id + "` (" + ok->second->written + ")");
      continue;
    }
    auto wanted = expected.find(key);
    if (wanted == expected.end()) {
      problems.push_back(where + ": not expected");
      continue;
    }
    if (!wanted->second->severity.empty() && wanted->second->severity != finding.severity) {
      problems.push_back(where + ": " + finding.severity + ", expected " + wanted->second->severity + " (" +
                         wanted->second->written + ")");
    }
  }
  for (const auto& [key, marker] : expected) {
    if (!found.contains(key)) problems.push_back(marker->written + ": expected " + marker->rule_id + ", not reported");
  }
  return problems;
}

std::vector<std::string> InertMarkers(const std::vector<Marker>& markers, const std::set<fs::path>& read_files,
                                      const std::function<std::optional<std::string>(const Marker&)>& why_inert) {
  std::vector<std::string> problems;
  std::set<std::tuple<fs::path, int, std::string>> expected;
  for (const Marker& marker : markers) {
    if (marker.kind == MarkerKind::kExpect) expected.emplace(marker.about, marker.line, marker.rule_id);
  }
  std::map<fs::path, std::size_t> line_counts;
  for (const Marker& marker : markers) {
    const std::string what =
        marker.written + ": `" + (marker.kind == MarkerKind::kExpect ? "expect" : "ok") + ": " + marker.rule_id + "` ";
    if (std::optional<std::string> why = why_inert(marker)) {
      problems.push_back(what + *why);
      continue;
    }
    if (marker.kind == MarkerKind::kOk && expected.contains({marker.about, marker.line, marker.rule_id})) {
      problems.push_back(what + "contradicts an `expect` of the same rule on that line");
    }
    if (!read_files.contains(marker.about)) {
      problems.push_back(what + "is about " + marker.about.filename().string() + ", which the run did not read");
      continue;
    }
    auto [count, added] = line_counts.try_emplace(marker.about, 0);
    if (added) count->second = SplitString(ReadFile(marker.about), '\n').size();
    if (marker.line < 1 || static_cast<std::size_t>(marker.line) > count->second) {
      problems.push_back(what + "is about line " + std::to_string(marker.line) + ", which " +
                         marker.about.filename().string() + " does not have");
    }
  }
  return problems;
}

}  // namespace opmfu::testing
