#include "engine/rank_analysis.h"

#include <algorithm>

#include "common/sqlite.h"
#include "engine/chip.h"
#include "engine/module_mfu.h"
#include "engine/operator_mfu.h"

namespace opmfu::engine {

namespace {

// --step-id: keep what starts inside the step (ops, FLOPs ranges, modules).
Status RestrictToStep(const RankInput& input, RankData& data) {
  OPMFU_ASSIGN_OR_RETURN(Database db, Database::OpenReadOnly(input.db_path));
  OPMFU_ASSIGN_OR_RETURN(bool has_steps, db.HasTable("STEP_TIME"));
  if (!has_steps) return Error::Input(input.db_path.string() + ": no STEP_TIME table, so --step-id cannot apply");
  OPMFU_ASSIGN_OR_RETURN(Statement statement, db.Prepare("SELECT startNs, endNs FROM STEP_TIME WHERE id = ?1"));
  OPMFU_RETURN_IF_ERROR(statement.Bind(1, *input.step_id));
  OPMFU_ASSIGN_OR_RETURN(bool found, statement.Step());
  if (!found) {
    return Error::Input(input.db_path.string() + ": step " + std::to_string(*input.step_id) + " is not in STEP_TIME");
  }
  const std::int64_t start = statement.Int64(0);
  const std::int64_t end = statement.Int64(1);
  const auto inside = [&](std::int64_t t) { return start <= t && t <= end; };
  std::vector<KernelLink> links;
  std::size_t compute = 0;
  for (std::size_t i = 0; i < data.kernel_links.size(); ++i) {
    if (!inside(data.kernel_links[i].op_ts)) continue;
    if (i < data.compute_link_count) ++compute;
    links.push_back(data.kernel_links[i]);
  }
  data.kernel_links = std::move(links);
  data.compute_link_count = compute;
  if (data.flops_ranges) {
    std::erase_if(*data.flops_ranges, [&](const FlopsRange& r) { return !inside(r.start); });
  }
  std::erase_if(data.modules, [&](const ModuleRange& m) { return !inside(m.start); });
  return Ok();
}

}  // namespace

Result<RankAnalysis> AnalyzeRank(const RankInput& input) {
  RankAnalysis analysis;
  analysis.rank_id = input.rank_id;
  const std::string rank = std::to_string(input.rank_id);
  auto data = ReadRank(input.db_path, analysis.notes);
  if (!data.ok()) return data.take_error();
  if (input.step_id) OPMFU_RETURN_IF_ERROR(RestrictToStep(input, *data));

  if (data->kernel_links.empty()) {
    analysis.notes.push_back(
        {RankNote::Level::kError, "Can not export framework op to kernel mapper from rank " + rank});
    analysis.notes.push_back({RankNote::Level::kError, "No kernel data found for rank " + rank});
    return analysis;
  }
  const ChipInfo chip = LoadChipInfo(input.rank_directory, analysis.notes);
  auto calculation = CalculateMfu(*data, chip, analysis.notes);
  if (!calculation.ok()) {
    return Error::Input(calculation.error().message +
                        " (first input type of the first kernel in a FLOPs range; "
                        "only FLOAT, FLOAT16, BF16, DT_BF16 and INT8 have a peak)");
  }
  if (calculation->results.empty()) {
    analysis.notes.push_back({RankNote::Level::kWarning, "No MFU calculated for kernels."});
  }
  if (input.with_coverage) analysis.coverage = ComputeCoverage(*data, *calculation);
  // The shapes are in the results now; free them before the two biggest steps.
  std::vector<KernelShape>().swap(data->shapes);
  const std::vector<MergedKernel> merged = MergeMfu(*data, *calculation);
  const auto got_mfu = [](const MergedKernel& m) { return m.mfu.has_value(); };
  analysis.all_kernels_matched = std::all_of(merged.begin(), merged.end(), got_mfu);
  analysis.all_messages_parsed = calculation->all_messages_parsed;
  if (std::none_of(merged.begin(), merged.end(), got_mfu)) {
    analysis.notes.push_back({RankNote::Level::kWarning, "No valid MFU data for rank " + rank});
  }
  // ModuleMFU first: its working set is freed before the OperatorMFU rows are built.
  OPMFU_ASSIGN_OR_RETURN(analysis.module_rows, ModuleRows(input.rank_id, *data, *calculation, merged, analysis.notes));
  analysis.operator_rows = BuildOperatorRows(input.rank_id, *data, *calculation, merged);
  analysis.strings = data->strings;
  return analysis;
}

}  // namespace opmfu::engine
