#pragma once
// `opmfu audit`: for OperatorMFU rows whose FLOPs came from a built-in torch_npu formula, recompute
// the FLOPs from the kernel's recorded input shapes and flag records that disagree (a wrong custom
// formula registered over a built-in, shared weights, a range spanning several calls, a causal
// factor). Rows that cannot be recomputed are counted with the reason, never guessed.

#include <cstdint>
#include <map>
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

struct AuditResult {
  double tolerance = 0.01;
  std::size_t rows = 0;
  std::size_t checked = 0;
  std::size_t agreed = 0;
  std::vector<AuditDisagreement> disagreements;  ///< most rows first
  std::map<std::string, std::size_t> skipped;    ///< reason -> rows
};

/// `tolerance`: the relative difference still counted as agreement.
AuditResult AuditFlops(const ReportData& data, double tolerance);

enum class AuditFormat { kText, kJson };
std::string RenderAudit(const AuditResult& audit, AuditFormat format);

}  // namespace opmfu::report
