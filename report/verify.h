#pragma once
// `opmfu registry verify`: after a formula is registered and data collected, did its FLOPs
// records land, reach a kernel, and carry the expected value? A sibling of the audit: it reads the
// same per-rank record tallies (engine::RankAnalysis::coverage).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report.h"

namespace opmfu::report {

struct RankVerification {
  enum class Status { kVerified, kFailed, kNoKernelData };
  std::int64_t rank = 0;
  Status status = Status::kVerified;
  std::string error;  ///< kFailed: engine::DescribeFailure
  std::size_t records = 0;
  std::size_t reached_kernel = 0;
  std::vector<std::pair<std::int64_t, std::size_t>> values;  ///< FLOPs value -> records, as tallied
};

struct Verification {
  enum class Verdict { kNoRecords, kOk, kDiffers };
  std::string op_name;  ///< torch_npu's op name: messages "<flops>-<op_name>"
  std::string path;     ///< the profiling directory
  std::optional<std::int64_t> expected;
  std::vector<RankVerification> ranks;
  std::map<std::int64_t, std::size_t> values;  ///< over all ranks
  std::size_t records = 0;
  std::size_t reached_kernel = 0;
  std::size_t failed_ranks = 0;
  std::vector<std::string> ops_with_records;  ///< kNoRecords: the ops that do have records
  bool complete = true;                       ///< every rank analysed without error
  Verdict verdict = Verdict::kNoRecords;
};

/// torch_npu's op name of a registration: `op_name` when given, else the part of `target` after
/// its first ':' (the whole target when it has none).
std::string VerifiedOpName(const std::string& target, const std::string& op_name);

Verification VerifyRecords(const ReportData& data, const std::string& op_name, std::optional<std::int64_t> expected);

/// The text `registry verify` prints, one line per rank and the verdict.
std::string RenderVerificationText(const Verification& verification);
/// docs/schema/registry-verify.schema.json.
std::string RenderVerificationJson(const Verification& verification);

}  // namespace opmfu::report
