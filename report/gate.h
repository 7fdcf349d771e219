#pragma once
// `opmfu diff` and `opmfu gate`: MFU compared across runs, and thresholds a CI job can enforce.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report.h"

namespace opmfu::report {

/// One kernel group, (op_name, kernel_name, input_shapes), in each run.
struct DiffGroup {
  std::string op_name;
  std::string kernel_name;
  std::string input_shapes;
  std::optional<MfuAggregate> base;
  std::optional<MfuAggregate> candidate;

  /// MFU points lost (negative) or gained, weighted by the candidate's time: the ranking key.
  double TimeWeightedChange() const;
};

struct MfuDiff {
  MfuAggregate base;
  MfuAggregate candidate;
  std::vector<DiffGroup> groups;  ///< biggest time-weighted MFU loss first; one-sided groups last
};

MfuDiff DiffRuns(const ReportData& base, const ReportData& candidate);

enum class DiffFormat { kText, kMarkdown, kJson };
std::string RenderDiff(const MfuDiff& diff, DiffFormat format, std::size_t top);

struct GateThresholds {
  std::optional<double> min_mfu;                           ///< time-weighted MFU over every row
  std::vector<std::pair<std::string, double>> min_op_mfu;  ///< per op_name
  std::optional<double> min_coverage;                      ///< per rank: share of compute time inside FLOPs ranges
  std::optional<double> max_drop;  ///< relative MFU drop against the baseline, overall and per op
};

struct GateCheck {
  std::string rule;              ///< "gate/min-mfu"
  std::string subject;           ///< "all kernels", "aten::mm", "rank 3"
  std::optional<double> actual;  ///< nullopt: there was nothing to measure
  double threshold = 0;
  bool at_most = false;  ///< the threshold is an upper bound (a drop)
  bool passed = false;
  std::string message;
};

/// What a gate measures, from one source: the OperatorMFU rows (recorded, msprof-analyze's figures)
/// or the FLOPs derived from kernel shapes (report/derived_mfu).
struct GateFigures {
  bool derived = false;
  std::string scope;          ///< the min-mfu subject: "all kernels", "derived kernels"
  std::optional<double> mfu;  ///< time-weighted MFU; nullopt: nothing to measure
  std::string no_mfu;         ///< why mfu is absent, one line
  std::string basis;          ///< what the MFU rests on, appended to its message ("", or derived coverage)
  std::string op_word;        ///< "op" (an op_name) or "op type" (a kernel's opType)
  std::vector<std::pair<std::string, double>> op_mfu;  ///< time-weighted MFU per op (or op type)
  struct Coverage {
    std::string subject;  ///< "rank 3 coverage"
    std::optional<double> share;
    std::string nothing;  ///< the message when share is absent
  };
  std::vector<Coverage> coverage;
  /// Ranks the figures miss (subject, message): a gate/incomplete check each, which never passes.
  std::vector<std::pair<std::string, std::string>> incomplete;
};

/// The recorded figures: OperatorMFU rows; a rank that failed the analysis is incomplete.
GateFigures RecordedFigures(const ReportData& data, const MfuReport& report);
/// The derived figures: MFU over the kernels whose FLOPs were derived, per kernel op type, coverage
/// as the share of kernel time derived; a rank whose kernels could not be read is incomplete. No
/// derived kernel, or no peak, leaves the MFU absent with the reason (a check on it fails).
GateFigures DerivedFigures(const DerivedSection& section);

/// Every check the thresholds ask for (plus one per incomplete rank: incomplete data never passes).
/// `baseline` (figures of the same source) is required for max_drop.
std::vector<GateCheck> RunGate(const GateFigures& figures, const GateFigures* baseline,
                               const GateThresholds& thresholds);

/// The gate's table, each failed check's message, and the verdict line.
std::string RenderGateText(const std::vector<GateCheck>& checks, bool passed);
/// What a derived gate rests on, one line: the figures are not msprof-analyze's, and they cover
/// only the kernels whose FLOPs could be derived.
std::string DerivedGateBasis(const DerivedSection& section);
/// docs/schema/gate.schema.json; `derived` when the MFU is the derived one (--mfu-source derived).
std::string RenderGateJson(const std::vector<GateCheck>& checks, bool passed,
                           const std::optional<DerivedSection>& derived);

/// "0.4", "40%" -> 0.4; an Error names the option.
Result<double> ParseRatio(std::string_view option, std::string_view text);

}  // namespace opmfu::report
