#pragma once
// The one reader of fixture annotations, and the comparison of a run's findings with them.
//
// In a fixture, `# expect: OPM101` marks a line a finding of OPM101 must land on and `# ok: OPM101`
// a line it must not; several ids (`# expect: OPM101, OPM104/warning`) and several markers
// (`# expect: OPM101 # ok: OPM004`) may share a line, and an id may name the severity the finding
// must have (`OPM106/warning`: a false error on valid code is the worst defect a linter has, so
// fixtures about it say which one they mean). JSON has no comments, so `X.json.expect` holds
// `LINE expect: OPMnnn` lines about line LINE of X.json. Every finding must be expected.

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opmfu::testing {

enum class MarkerKind { kExpect, kOk };

struct Marker {
  std::filesystem::path about;  ///< the file the marker is about (weakly canonical)
  int line = 0;                 ///< the 1-based line of `about` it is about
  MarkerKind kind = MarkerKind::kExpect;
  std::string rule_id;   ///< "OPM101"
  std::string severity;  ///< "error", "warning", "info", or empty: any
  std::string written;   ///< where it is written, "file:line", for messages
};

/// The markers in one file's text. Source files: comments about the line they are on; sidecars
/// (`sidecar`): `LINE expect: ...` lines about line LINE of `about`. A comment that starts like a
/// marker but does not parse as one (`# expect: OPM10`, `# ok: opm101`) lands in `malformed`:
/// silently ignored, it would check nothing.
std::vector<Marker> ParseMarkers(std::string_view text, const std::filesystem::path& about, bool sidecar,
                                 const std::string& written_in, std::vector<std::string>& malformed);

struct FixtureMarkers {
  std::vector<Marker> markers;
  std::vector<std::string> malformed;  ///< "file:line: text" of marker-like comments that did not parse
};

/// Every marker of a fixture: one file, or every file below a directory (X.expect is about X).
FixtureMarkers ReadMarkers(const std::filesystem::path& fixture);

/// One finding of a run, as the comparison needs it.
struct Finding {
  std::filesystem::path file;  ///< weakly canonical
  int line = 0;
  int column = 0;
  std::string rule_id;
  std::string severity;
  std::string message;
};

/// How `findings` disagree with `markers`, one line per disagreement (empty: they agree): an
/// expected finding that is missing, a finding nothing expects, a finding on a line marked `ok`
/// for its rule, a finding of another severity than its marker names, and the same rule reported
/// twice at one place.
std::vector<std::string> CompareWithMarkers(const std::vector<Marker>& markers, const std::vector<Finding>& findings);

/// Markers that can never make the comparison fail, one line each: a rule id that `why_inert`
/// rejects (unknown, or a rule that cannot report in that file; it returns the reason), an `ok`
/// and an `expect` of the same rule on one line, a marker about a file the run did not read
/// (`read_files`, weakly canonical), or about a line the file does not have.
std::vector<std::string> InertMarkers(const std::vector<Marker>& markers,
                                      const std::set<std::filesystem::path>& read_files,
                                      const std::function<std::optional<std::string>(const Marker&)>& why_inert);

}  // namespace opmfu::testing
