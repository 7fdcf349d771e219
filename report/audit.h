#pragma once
// `opmfu audit`: for OperatorMFU rows whose FLOPs came from a built-in torch_npu formula, recompute
// the FLOPs from the kernel's recorded input shapes and flag records that disagree (a wrong custom
// formula registered over a built-in, shared weights, a range spanning several calls, a causal
// factor). From a profiling directory, also every recorded kernel against the FLOPs derived from
// its own shapes and type (report/derived_mfu: matmuls, grouped matmuls, attention, convolutions,
// whatever the range's op). Rows that cannot be recomputed are counted with the reason, never guessed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace opmfu::report {

struct AuditDisagreement {
  std::string op_name;        ///< the framework op
  std::string flops_op_name;  ///< the range's op (a built-in target)
  std::string kernel_name;
  std::string input_shapes;
  std::int64_t recorded = 0;
  std::int64_t recomputed = 0;
  std::size_t count = 0;  ///< rows with exactly this disagreement
  std::string likely_cause;
};

/// Recorded against derived, per kernel (the derived section's comparison).
struct DerivedAudit {
  double tolerance = 0;  ///< DerivedOptions::tolerance (exact by default; CompareFlops says why)
  std::size_t compared = 0;
  std::size_t agreed = 0;
  std::vector<DerivedDisagreement> disagreements;   ///< most kernels first
  std::map<std::string, std::size_t> not_compared;  ///< reason -> kernels with a record
};

struct AuditResult {
  double tolerance = 0.01;
  std::size_t rows = 0;
  std::size_t checked = 0;
  std::size_t agreed = 0;
  std::vector<AuditDisagreement> disagreements;  ///< most rows first
  std::map<std::string, std::size_t> skipped;    ///< reason -> rows
  /// From a profiling directory; otherwise `derived_unavailable` says why not.
  std::optional<DerivedAudit> derived;
  std::string derived_unavailable;
};

/// `tolerance`: the relative difference still counted as agreement. `derived`: the run's derived
/// section (nullptr from a cluster DB, which holds no kernel shapes).
AuditResult AuditFlops(const ReportData& data, double tolerance, const DerivedSection* derived = nullptr);
/// "2 times: the range spans several calls ...": what a recorded/expected ratio suggests.
std::string LikelyCause(double recorded, double expected);

enum class AuditFormat { kText, kJson };
std::string RenderAudit(const AuditResult& audit, AuditFormat format);

}  // namespace opmfu::report
