#include "engine/rank_analysis.h"

#include "common/text.h"

#include <algorithm>

#include "common/parallel.h"
#include "common/sqlite.h"
#include "engine/chip.h"
#include "engine/module_mfu.h"
#include "engine/operator_mfu.h"
#include "engine/profiler_info.h"
#include "engine/text_export.h"

namespace opmfu::engine {

namespace {

// --step-id: keep what starts inside the step (ops, FLOPs ranges, modules).
Status RestrictToStep(const RankInput& input, RankData& data) {
  if (input.text_export) {
    return Error::Input(input.db_path.string() +
                        ": --step-id reads STEP_TIME of the Db export; a Text export has none");
  }
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

std::string WithEvidence(std::string cause, const std::vector<RecordedBlocker>& blockers,
                         const std::optional<RecordedConfig>& recorded) {
  if (recorded && !blockers.empty()) cause += "; " + DescribeBlockers(blockers, *recorded);
  return cause;
}

// Why the FLOPs records give nothing, if they are the cause: no table, no record, none valid.
std::optional<std::string> FlopsRecordCause(const RankData& data, const std::optional<RecordedConfig>& recorded) {
  const std::vector<RecordedBlocker> blockers = recorded ? FlopsBlockers(*recorded) : std::vector<RecordedBlocker>{};
  if (data.text_export && data.flops_ranges && data.flops_ranges->empty()) {
    if (std::find(data.missing_tables.begin(), data.missing_tables.end(), kTraceViewFile) !=
        data.missing_tables.end()) {
      return WithEvidence("no trace_view.json, so there are no FLOPs records", blockers, recorded);
    }
    return WithEvidence(
        "no FLOPs records: trace_view.json has no msTX range in the mfu_flops domain (\"ph\": \"X\" events with "
        "args.domain \"mfu_flops\")",
        blockers, recorded);
  }
  if (std::find(data.missing_tables.begin(), data.missing_tables.end(), "MSTX_EVENTS") != data.missing_tables.end()) {
    return WithEvidence("no MSTX_EVENTS table: the run recorded no msTX events, so there are no FLOPs records",
                        blockers, recorded);
  }
  if (data.flops_query_error) return "the FLOPs records cannot be read: " + *data.flops_query_error;
  if (!data.flops_ranges || data.flops_ranges->empty()) {
    return WithEvidence("no FLOPs records: MSTX_EVENTS has no event in the mfu_flops domain", blockers, recorded);
  }
  std::size_t valid = 0;
  std::optional<std::string> example;
  for (const FlopsRange& range : *data.flops_ranges) {
    const auto message = range.message == kNoString ? std::nullopt : std::optional(data.strings->View(range.message));
    const auto parsed = ParseFlopsMessage(message);
    if (parsed && parsed->flops > 0) {
      ++valid;
    } else if (!example) {
      example = message ? "'" + std::string(message->substr(0, 80)) + "'" : std::string("a record without message");
    }
  }
  if (valid > 0) return std::nullopt;
  return "none of the " + std::to_string(data.flops_ranges->size()) +
         " FLOPs records is \"<flops>-<op name>\" with flops > 0 (e.g. " + example.value_or("?") + ")";
}

// Why no kernel can be charged, if the op-to-kernel links are the cause.
std::optional<std::string> KernelCause(const RankData& data, const std::optional<RecordedConfig>& recorded) {
  if (data.compute_link_count > 0) return std::nullopt;
  std::vector<std::string> missing;
  for (const std::string& table : data.missing_tables) {
    if (table != "MSTX_EVENTS") missing.push_back(table);
  }
  if (!missing.empty() && data.text_export) {
    return "no " + Join(missing, ", ") + " in the Text export, so no compute kernel is linked to a framework op";
  }
  if (data.text_export) {
    return WithEvidence(
        "no torch_to_npu flow of trace_view.json links a cpu_op to a compute kernel of kernel_details.csv",
        recorded ? KernelBlockers(*recorded) : std::vector<RecordedBlocker>{}, recorded);
  }
  if (!missing.empty()) {
    return "no " + Join(missing, ", ") + (missing.size() == 1 ? " table" : " tables") +
           ", so no compute kernel is linked to a framework op";
  }
  if (data.link_query_error) return "the op-to-kernel links cannot be read: " + *data.link_query_error;
  return WithEvidence(
      "no framework op is linked to a compute kernel (PYTORCH_API, CONNECTION_IDS, TASK and "
      "COMPUTE_TASK_INFO join to nothing)",
      recorded ? KernelBlockers(*recorded) : std::vector<RecordedBlocker>{}, recorded);
}

// Valid FLOPs records, yet no kernel charged: say which way each record missed.
std::string NoMatchReason(const MfuCalculation& calculation, bool shapes_all_unavailable,
                          const std::optional<RecordedConfig>& recorded) {
  if (shapes_all_unavailable) {
    std::vector<RecordedBlocker> blockers;
    if (recorded) {
      for (RecordedBlocker& blocker : KernelBlockers(*recorded)) {
        if (blocker.id == SettingId::kRecordShapes || blocker.id == SettingId::kProfilerLevel) {
          blockers.push_back(std::move(blocker));
        }
      }
    }
    return WithEvidence("every compute kernel has N/A shapes, so none can receive MFU", blockers, recorded);
  }
  std::size_t no_op = 0;
  std::size_t no_duration = 0;
  std::size_t empty_span = 0;
  std::size_t valid = 0;
  for (const RangeOutcome& outcome : calculation.range_outcomes) {
    switch (outcome.fate) {
      case RangeOutcome::Fate::kNoOpInside:
        ++no_op;
        ++valid;
        break;
      case RangeOutcome::Fate::kNoDuration:
        ++no_duration;
        ++valid;
        break;
      case RangeOutcome::Fate::kEmptySpan:
        ++empty_span;
        ++valid;
        break;
      case RangeOutcome::Fate::kCharged:
        ++valid;
        break;
      default:
        break;
    }
  }
  std::string reason = "no kernel matched any of the " + std::to_string(valid) + " valid FLOPs records:";
  std::string parts;
  const auto part = [&](std::size_t count, const char* what) {
    if (count > 0) parts += (parts.empty() ? " " : "; ") + std::to_string(count) + " " + what;
  };
  part(no_op, "with no framework op with a compute kernel (and shapes) starting inside");
  part(no_duration, "whose kernels last 0 ns");
  part(empty_span, "that end before they start");
  return reason + (parts.empty() ? " their kernels got no MFU" : parts);
}

// Kernels and FLOPs ranges whose end comes before their start: no profiler writes them, so the
// database was damaged or edited. Each kind is one line: how many, and the first one.
std::vector<std::string> EndsBeforeStarts(const RankData& data) {
  std::vector<std::string> errors;
  std::size_t kernels = 0;
  const KernelShape* first_kernel = nullptr;
  for (const KernelShape& shape : data.shapes) {
    if (!shape.kernel_ts || !shape.kernel_end || *shape.kernel_end >= *shape.kernel_ts) continue;
    if (kernels++ == 0) first_kernel = &shape;
  }
  if (first_kernel != nullptr) {
    errors.push_back(std::to_string(kernels) + (kernels == 1 ? " compute kernel ends" : " compute kernels end") +
                     " before it starts (the first: " + std::string(data.strings->View(first_kernel->kernel_name)) +
                     ", startNs " + std::to_string(*first_kernel->kernel_ts) + ", endNs " +
                     std::to_string(*first_kernel->kernel_end) + "); " + (kernels == 1 ? "it gets" : "they get") +
                     " no MFU");
  }
  std::size_t ranges = 0;
  const FlopsRange* first_range = nullptr;
  if (data.flops_ranges) {
    for (const FlopsRange& range : *data.flops_ranges) {
      if (range.end >= range.start) continue;
      if (ranges++ == 0) first_range = &range;
    }
  }
  if (first_range != nullptr) {
    errors.push_back(std::to_string(ranges) + (ranges == 1 ? " FLOPs range ends" : " FLOPs ranges end") +
                     " before it starts (the first: '" + std::string(data.strings->View(first_range->message)) +
                     "', startNs " + std::to_string(first_range->start) + ", endNs " +
                     std::to_string(first_range->end) + "); " + (ranges == 1 ? "its FLOPs go" : "their FLOPs go") +
                     " to no kernel");
  }
  return errors;
}

}  // namespace

bool IsLevel0(const std::optional<RecordedConfig>& recorded) {
  if (!recorded) return false;
  const std::string* level = recorded->Text(SettingId::kProfilerLevel);
  return level != nullptr && (*level == "Level0" || *level == "level0");
}

Result<RankAnalysis> AnalyzeRank(const RankInput& input) {
  RankAnalysis analysis;
  StageClock clock;
  const auto stage_done = [&](const char* stage) { analysis.stages.push_back(clock.Lap(stage)); };
  analysis.rank_id = input.rank_id;
  const std::string rank = std::to_string(input.rank_id);
  if (auto recorded = ReadRecordedConfig(input.rank_directory, input.rank_id); recorded.ok()) {
    analysis.recorded = std::move(*recorded);
  } else {
    analysis.notes.push_back({RankNote::Level::kWarning, recorded.error().message});
  }
  auto data = input.text_export ? ReadTextRank(input.db_path, analysis.notes, input.with_kernel_signatures)
                                : ReadRank(input.db_path, analysis.notes, input.read_threads, ReadMethod::kAuto,
                                           input.with_kernel_signatures);
  if (!data.ok()) return data.take_error();
  if (IsLevel0(analysis.recorded)) analysis.notes.push_back({RankNote::Level::kWarning, Level0Line(input.text_export)});
  // All of the rank's kernels, as the derived section reads them: before --step-id restricts.
  analysis.kernel_signatures = std::move(data->kernel_signatures);
  data->kernel_signatures.reset();
  if (input.step_id) OPMFU_RETURN_IF_ERROR(RestrictToStep(input, *data));
  analysis.data_errors = EndsBeforeStarts(*data);
  stage_done("read");
  if (data->text_task_time) {
    // Kernel times as text order and compare as strings, not as the ops' integer times.
    analysis.failure = *data->text_task_time +
                       " where CANN writes integer nanoseconds, so no kernel time can be compared with the framework "
                       "ops' and FLOPs ranges' (msprof-analyze writes nothing for this rank either)";
    return analysis;
  }

  // The root cause comes first: without FLOPs records nothing downstream (kernels, chip) matters.
  const std::optional<std::string> flops_cause = FlopsRecordCause(*data, analysis.recorded);
  if (data->kernel_links.empty()) {
    analysis.notes.push_back(
        {RankNote::Level::kError, "Can not export framework op to kernel mapper from rank " + rank});
    analysis.notes.push_back({RankNote::Level::kError, "No kernel data found for rank " + rank});
    analysis.failure = flops_cause ? flops_cause : KernelCause(*data, analysis.recorded);
    return analysis;
  }
  const std::size_t notes_before_chip = analysis.notes.size();
  const ChipInfo chip = LoadChipInfo(input.rank_directory, analysis.notes);
  std::optional<std::string> chip_problem;
  if (!chip.valid()) {
    chip_problem = analysis.notes.size() > notes_before_chip ? analysis.notes[notes_before_chip].text
                                                             : std::string("no valid device_*/info.json.*");
  }
  const bool shapes_all_unavailable = data->shapes_query_returned_rows && data->shapes.empty();
  auto calculation = CalculateMfu(*data, chip, analysis.notes, input.read_threads);
  if (!calculation.ok()) return calculation.take_error();
  if (calculation->results.empty()) {
    analysis.notes.push_back({RankNote::Level::kWarning, "No MFU calculated for kernels."});
  }
  stage_done("calculate");
  if (input.with_coverage) analysis.coverage = ComputeCoverage(*data, *calculation);
  // The shapes are in the results now; free them before the two biggest steps.
  std::vector<KernelShape>().swap(data->shapes);
  const std::vector<MergedKernel> merged = MergeMfu(*data, *calculation, input.read_threads);
  stage_done("merge");
  const auto got_mfu = [](const MergedKernel& m) { return m.mfu.has_value(); };
  analysis.all_kernels_matched = std::all_of(merged.begin(), merged.end(), got_mfu);
  analysis.all_messages_parsed = calculation->all_messages_parsed;
  if (std::none_of(merged.begin(), merged.end(), got_mfu)) {
    analysis.notes.push_back({RankNote::Level::kWarning, "No valid MFU data for rank " + rank});
  }
  if (input.early_operator_rows) {
    // One rank alone leaves a core idle after the read: its rows are written there while the
    // module pass runs here (each reads only what the other does not change).
    // The rows are built and handed over a slice at a time, so only a slice's rows are held.
    constexpr std::size_t kSlice = 65536;
    analysis.operator_rows_handed_over = static_cast<std::size_t>(std::count_if(merged.begin(), merged.end(), got_mfu));
    Result<std::vector<ModuleMfuRow>> modules = std::vector<ModuleMfuRow>{};
    ForEachInParallel(analysis.operator_rows_handed_over > 0 ? 2 : 1, 2, [&](std::size_t task) {
      if (task == 1) {
        const std::span<const MergedKernel> all(merged);
        for (std::size_t begin = 0; begin < all.size(); begin += kSlice) {
          const std::vector<OperatorMfuRow> rows = BuildOperatorRows(
              input.rank_id, *data, *calculation, all.subspan(begin, std::min(kSlice, all.size() - begin)));
          if (!rows.empty()) input.early_operator_rows(rows);
        }
      } else {
        modules = ModuleRows(input.rank_id, *data, *calculation, merged, analysis.notes);
      }
    });
    if (!modules.ok()) return modules.take_error();
    analysis.module_rows = std::move(*modules);
    stage_done("rows and modules");
  } else {
    // ModuleMFU first: its working set is freed before the OperatorMFU rows are built.
    OPMFU_ASSIGN_OR_RETURN(analysis.module_rows,
                           ModuleRows(input.rank_id, *data, *calculation, merged, analysis.notes));
    stage_done("modules");
    analysis.operator_rows = BuildOperatorRows(input.rank_id, *data, *calculation, merged);
    stage_done("rows");
  }
  analysis.strings = data->strings;
  // The kernels' starts only match OperatorMFU rows to their kernels.
  const bool no_rows = analysis.operator_rows.empty() && analysis.operator_rows_handed_over == 0;
  if (no_rows && analysis.kernel_signatures) {
    std::vector<KernelStart>().swap(analysis.kernel_signatures->kernels);
  }
  if (no_rows) {
    if (flops_cause) {
      analysis.failure = flops_cause;
    } else if (auto kernel_cause = KernelCause(*data, analysis.recorded)) {
      analysis.failure = kernel_cause;
    } else if (chip_problem) {
      analysis.failure = "no usable chip peak: " + *chip_problem + " (under " + input.rank_directory.string() + ")";
    } else if (data->shapes_query_error) {
      analysis.failure = "the kernel shapes cannot be read: " + *data->shapes_query_error;
    } else if (!data->shapes_query_returned_rows) {
      analysis.failure = "no compute kernel has a TASK row, so no kernel has a duration or shapes";
    } else {
      analysis.no_rows_reason = NoMatchReason(*calculation, shapes_all_unavailable, analysis.recorded);
    }
  }
  return analysis;
}

}  // namespace opmfu::engine
