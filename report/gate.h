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

/// Every check the thresholds ask for (plus one per failed rank: incomplete data never passes).
/// `baseline` is required for max_drop.
std::vector<GateCheck> RunGate(const ReportData& data, const MfuReport& report, const MfuReport* baseline,
                               const GateThresholds& thresholds);

/// "0.4", "40%" -> 0.4; an Error names the option.
Result<double> ParseRatio(std::string_view option, std::string_view text);

}  // namespace opmfu::report
