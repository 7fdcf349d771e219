#include "report/verify.h"

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "engine/analyze.h"

namespace opmfu::report {

namespace {

using OrderedJson = nlohmann::ordered_json;

std::string ValueCounts(const std::vector<std::pair<std::int64_t, std::size_t>>& values) {
  std::string text;
  for (const auto& [flops, count] : values) text += " " + std::to_string(flops) + " x" + std::to_string(count);
  return text;
}

std::size_t Matching(const Verification& verification) {
  if (!verification.expected) return 0;
  const auto found = verification.values.find(*verification.expected);
  return found == verification.values.end() ? 0 : found->second;
}

const char* VerdictName(Verification::Verdict verdict) {
  switch (verdict) {
    case Verification::Verdict::kNoRecords:
      return "no records";
    case Verification::Verdict::kOk:
      return "ok";
    case Verification::Verdict::kDiffers:
      return "differs";
  }
  return "differs";
}

OrderedJson ValuesJson(const std::vector<std::pair<std::int64_t, std::size_t>>& values) {
  OrderedJson list = OrderedJson::array();
  for (const auto& [flops, count] : values) list.push_back({{"flops", flops}, {"records", count}});
  return list;
}

OrderedJson RankJson(const RankVerification& rank) {
  switch (rank.status) {
    case RankVerification::Status::kFailed:
      return {{"rank", rank.rank}, {"status", "failed"}, {"error", rank.error}};
    case RankVerification::Status::kNoKernelData:
      return {{"rank", rank.rank}, {"status", "no kernel data"}, {"error", nullptr}};
    case RankVerification::Status::kVerified:
      break;
  }
  return {{"rank", rank.rank},
          {"status", "verified"},
          {"error", nullptr},
          {"records", rank.records},
          {"reached_kernel", rank.reached_kernel},
          {"values", ValuesJson(rank.values)}};
}

}  // namespace

std::string VerifiedOpName(const std::string& target, const std::string& op_name) {
  if (!op_name.empty()) return op_name;
  const std::size_t colon = target.find(':');
  return colon == std::string::npos ? target : target.substr(colon + 1);
}

Verification VerifyRecords(const ReportData& data, const std::string& op_name, std::optional<std::int64_t> expected) {
  Verification verification;
  verification.op_name = op_name;
  verification.path = data.path.string();
  verification.expected = expected;
  verification.failed_ranks = data.analysis.failed_ranks();
  verification.complete = data.analysis.clean();
  std::map<std::string, std::size_t> other_ops;
  for (const engine::RankOutcome& outcome : data.analysis.ranks) {
    RankVerification& rank = verification.ranks.emplace_back();
    rank.rank = outcome.location.rank_id;
    if (outcome.failure) {
      rank.status = RankVerification::Status::kFailed;
      rank.error = engine::DescribeFailure(outcome);
      continue;
    }
    if (!outcome.analysis.coverage) {
      rank.status = RankVerification::Status::kNoKernelData;
      continue;
    }
    for (const engine::RecordTally& tally : outcome.analysis.coverage->records) {
      if (tally.op_name != op_name) {
        other_ops[tally.op_name] += tally.records;
        continue;
      }
      rank.records += tally.records;
      rank.reached_kernel += tally.charged;
      rank.values.emplace_back(tally.flops, tally.records);
      verification.values[tally.flops] += tally.records;
    }
    verification.records += rank.records;
    verification.reached_kernel += rank.reached_kernel;
  }
  if (verification.records == 0) {
    for (const auto& [name, count] : other_ops) verification.ops_with_records.push_back(name);
    verification.verdict = Verification::Verdict::kNoRecords;
  } else {
    const bool differs = expected && Matching(verification) != verification.records;
    verification.verdict = differs ? Verification::Verdict::kDiffers : Verification::Verdict::kOk;
  }
  return verification;
}

std::string RenderVerificationText(const Verification& verification) {
  const std::string& op = verification.op_name;
  std::string text = "registry verify: FLOPs records of `" + op + "` (messages \"<flops>-" + op + "\") under " +
                     verification.path + "\n";
  for (const RankVerification& rank : verification.ranks) {
    text += "  rank " + std::to_string(rank.rank) + ": ";
    switch (rank.status) {
      case RankVerification::Status::kFailed:
        text += "failed, not verified: " + rank.error + "\n";
        break;
      case RankVerification::Status::kNoKernelData:
        text += "no kernel data, not verified\n";
        break;
      case RankVerification::Status::kVerified: {
        const std::string values = ValueCounts(rank.values);
        text += std::to_string(rank.records) + " records" + (values.empty() ? "" : ";" + values) + "; " +
                std::to_string(rank.reached_kernel) + " reached a kernel\n";
        break;
      }
    }
  }
  const std::size_t failed = verification.failed_ranks;
  if (verification.verdict == Verification::Verdict::kNoRecords) {
    const std::vector<std::string>& names = verification.ops_with_records;
    text += "verdict: no records for `" + op + "`" + DidYouMean(op, names) +
            ". The formula never ran: was the registration imported before the profiler entered RECORD, "
            "with_flops=True and MSTX on, and does the target name the function the model calls? " +
            (names.empty() ? std::string("No op has FLOPs records at all.")
                           : "Ops with records: " + Join(names, ", ") + ".") +
            (failed > 0 ? " " + std::to_string(failed) + " rank(s) failed first (above)." : std::string()) + "\n";
    return text;
  }
  if (verification.expected) {
    const std::size_t matching = Matching(verification);
    text += "  expected " + std::to_string(*verification.expected) + ": " + std::to_string(matching) + " of " +
            std::to_string(verification.records) + " records match";
    if (matching != verification.records) {
      std::vector<std::pair<std::int64_t, std::size_t>> others;
      for (const auto& entry : verification.values) {
        if (entry.first != *verification.expected) others.push_back(entry);
      }
      text += "; the others record" + ValueCounts(others);
    }
    text += "\n";
  }
  if (verification.reached_kernel < verification.records) {
    text += "  note: " + std::to_string(verification.records - verification.reached_kernel) +
            " records reached no kernel (`opmfu report -d DIR` lists them with the reason)\n";
  }
  const bool ok = verification.verdict == Verification::Verdict::kOk;
  text += std::string("verdict: ") + (ok ? "ok" : "the recorded FLOPs differ from the expected value") +
          (failed > 0 ? ", but incomplete: " + std::to_string(failed) + " rank(s) failed and were not verified"
                      : std::string()) +
          "\n";
  return text;
}

std::string RenderVerificationJson(const Verification& verification) {
  OrderedJson ranks = OrderedJson::array();
  for (const RankVerification& rank : verification.ranks) ranks.push_back(RankJson(rank));
  const std::vector<std::pair<std::int64_t, std::size_t>> values(verification.values.begin(),
                                                                 verification.values.end());
  const OrderedJson answer{
      {"op_name", verification.op_name},
      {"path", verification.path},
      {"verdict", VerdictName(verification.verdict)},
      {"records", verification.records},
      {"reached_kernel", verification.reached_kernel},
      {"values", ValuesJson(values)},
      {"expected", verification.expected ? OrderedJson(*verification.expected) : OrderedJson(nullptr)},
      {"matching", verification.expected ? OrderedJson(Matching(verification)) : OrderedJson(nullptr)},
      {"failed_ranks", verification.failed_ranks},
      {"ops_with_records", verification.ops_with_records},
      {"ranks", ranks},
  };
  return answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace opmfu::report
