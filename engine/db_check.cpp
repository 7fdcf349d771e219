#include "engine/db_check.h"

#include <algorithm>

#include "common/sqlite.h"
#include "engine/chip.h"
#include "engine/numeric.h"
#include "engine/operator_mfu.h"
#include "engine/rank_analysis.h"
#include "engine/text_export.h"

namespace opmfu::engine {

namespace {

const char* const kNeededTables[] = {"STRING_IDS", "PYTORCH_API",       "CONNECTION_IDS",
                                     "TASK",       "COMPUTE_TASK_INFO", "MSTX_EVENTS"};

std::size_t CountRows(Database& db, const std::string& sql) {
  auto statement = db.Prepare(sql);
  if (!statement.ok()) return 0;
  auto row = statement->Step();
  return row.ok() && *row ? static_cast<std::size_t>(statement->Int64(0)) : 0;
}

void Decide(RankCheck& check) {
  const auto verdict = [&](bool ok, std::string what, std::string next) {
    check.can_produce_mfu = ok;
    check.verdict = std::move(what);
    check.next_step = std::move(next);
  };
  // The recorded configuration, where it explains a cause: "; this run had with_flops=false (...)".
  const auto evidence = [&](const std::vector<RecordedBlocker>& blockers) {
    return check.recorded && !blockers.empty() ? "; " + DescribeBlockers(blockers, *check.recorded) : std::string();
  };
  const std::string flops_evidence = check.recorded ? evidence(FlopsBlockers(*check.recorded)) : "";
  const std::string kernel_evidence = check.recorded ? evidence(KernelBlockers(*check.recorded)) : "";
  if (check.location.never_parsed) {
    return verdict(false, NeverParsedCause(check.location),
                   "parse it (the python3 line above), then run opmfu check-db again");
  }
  const bool missing_mstx =
      std::find(check.tables_missing.begin(), check.tables_missing.end(), "MSTX_EVENTS") != check.tables_missing.end();
  if (check.unreadable) {
    if (check.location.text_export) {
      return verdict(false, "the Text export cannot be read: " + *check.unreadable,
                     "re-export it (torch_npu.profiler.profiler.analyse(path)) or fix the file named above");
    }
    return verdict(false, "the database cannot be read: " + *check.unreadable,
                   "re-export it (torch_npu.profiler.profiler.analyse(path, export_type='db')) or check the file");
  }
  if (check.text_export && check.flops_records == 0) {
    return verdict(
        false,
        "no FLOPs records (no mfu_flops msTX range in trace_view.json): recorded MFU is not possible" + flops_evidence,
        "for recorded MFU profile again with with_flops=True and msprof_tx=True (or mstx=True); " +
            std::string(check.derived_mfu && check.derived_mfu->rfind("possible", 0) == 0
                            ? "derived MFU works now: opmfu report -d <dir> --chip NAME"
                            : "derived MFU needs profiler_level=Level1 or Level2"));
  }
  if (missing_mstx || check.flops_records == 0) {
    return verdict(false,
                   std::string(missing_mstx ? "no MSTX_EVENTS table, so no FLOPs records"
                                            : "no FLOPs records (no mfu_flops MSTX events)") +
                       ": a collection-config problem" + flops_evidence,
                   "profile again with with_flops=True, mstx=True (or msprof_tx=True), and an mstx_domain_include "
                   "that keeps mfu_flops; run `opmfu lint` on your launcher once it lands");
  }
  if (check.valid_flops_records == 0) {
    return verdict(false, "every FLOPs record is malformed (expected \"<positive int>-<op name>\")",
                   "a formula returns a float, zero or None: run `opmfu registry check` on _flops_formulas.py");
  }
  if (check.framework_ops == 0) {
    return verdict(false,
                   "no framework ops (PYTORCH_API is missing or empty): the CPU activity was off" + kernel_evidence,
                   "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.NPU]");
  }
  if (check.op_kernel_links == 0) {
    return verdict(false, "no framework op is linked to a compute kernel" + kernel_evidence,
                   "profile with profiler_level=ProfilerLevel.Level1 or Level2 (Level0 does not link ops to kernels)");
  }
  if (check.compute_kernels > 0 && check.kernels_without_shapes == check.compute_kernels) {
    return verdict(false, "every compute kernel has N/A shapes, so none can receive MFU" + kernel_evidence,
                   "profile with record_shapes=True and profiler_level Level1 or Level2");
  }
  if (!check.info_file) {
    return verdict(false, "no device_*/info.json.* under the rank directory: the chip peak is unknown",
                   "keep the PROF_*/device_*/ directory that torch_npu writes next to ASCEND_PROFILER_OUTPUT");
  }
  if (check.analysis_failure) {
    return verdict(false, "the analysis fails: " + *check.analysis_failure,
                   "see docs/cli.md (opmfu analyze) for what msprof-analyze does with this rank");
  }
  if (check.root_cause) {
    return verdict(false, *check.root_cause, "see docs/cli.md (opmfu analyze, failed ranks) for this cause");
  }
  if (check.operator_rows == 0) {
    return verdict(false,
                   check.no_rows_reason.value_or(
                       "no kernel falls in a FLOPs range: no framework op starts inside an mfu_flops range"),
                   "check that the ops with FLOPs formulas ran on the profiled steps (schedule active steps)");
  }
  std::string ok = "can produce MFU: " + std::to_string(check.operator_rows) + " OperatorMFU rows";
  if (check.module_ranges == 0) {
    return verdict(true, ok + "; no Module ranges, so no ModuleMFU",
                   "for ModuleMFU, emit Module-domain MSTX ranges around your modules (with_modules=True does not)");
  }
  return verdict(true, ok + ", " + std::to_string(check.module_rows) + " ModuleMFU rows", "opmfu analyze -d <dir>");
}

}  // namespace

void CheckDbTables(const RankLocation& location, RankCheck& check);

RankCheck CheckRank(const RankLocation& location) {
  RankCheck check;
  check.location = location;
  if (auto recorded = ReadRecordedConfig(location.rank_directory, location.rank_id); recorded.ok()) {
    check.recorded = std::move(*recorded);
  } else {
    check.recorded_unreadable = recorded.error().message;
  }
  if (location.never_parsed) {
    Decide(check);
    return check;
  }
  if (location.text_export) {
    std::vector<RankNote> notes;
    TextExportFacts facts;
    auto data = ReadTextRank(location.db_path, notes, false, &facts);
    if (!data.ok()) {
      check.unreadable = data.error().message;
      Decide(check);
      return check;
    }
    std::string files;
    for (const auto& [present, name] : {std::pair{facts.kernel_details, kKernelDetailsFile},
                                        {facts.trace_view, kTraceViewFile},
                                        {facts.operator_details, kOperatorDetailsFile}}) {
      if (present) files += (files.empty() ? "" : ", ") + std::string(name);
      if (!present && name != std::string_view(kOperatorDetailsFile)) check.tables_missing.emplace_back(name);
    }
    const std::string* level = check.recorded ? check.recorded->Text(SettingId::kProfilerLevel) : nullptr;
    const bool level0 = IsLevel0(check.recorded) || (facts.kernel_details && !facts.has_shape_columns);
    check.text_export = "Text (" + files + "); " + (level ? *level : std::string("level not recorded")) +
                        (facts.has_shape_columns ? "; kernel_details.csv has shapes" : "; no kernel shapes") + "; " +
                        std::to_string(facts.mstx_ranges) + " msTX ranges";
    const std::size_t with_shapes = facts.compute_kernels - facts.kernels_without_shapes;
    if (level0) {
      check.derived_mfu = "not possible: " + Level0Line(true);
    } else if (with_shapes == 0) {
      check.derived_mfu = "not possible: no compute kernel of kernel_details.csv has shapes";
    } else {
      check.derived_mfu = "possible from " + std::to_string(with_shapes) +
                          " kernels with shapes (opmfu report -d DIR "
                          "--chip NAME, or analyze --derived)";
    }
    for (const FlopsRange& range : *data->flops_ranges) {
      ++check.flops_records;
      const auto message = data->strings->OptionalView(range.message);
      const auto parsed = ParseFlopsMessage(message);
      if (parsed && parsed->flops > 0 && range.end > range.start) {
        ++check.valid_flops_records;
      } else if (check.malformed_examples.size() < 3) {
        check.malformed_examples.push_back(message ? std::string(*message) : "(no message)");
      }
    }
    check.framework_ops = facts.framework_ops;
    check.compute_kernels = facts.compute_kernels;
    check.op_kernel_links = facts.compute_links;
    check.kernels_without_shapes = facts.kernels_without_shapes;
    check.module_ranges = facts.module_ranges;
  } else {
    CheckDbTables(location, check);
    if (check.unreadable) {
      Decide(check);
      return check;
    }
  }
  std::vector<RankNote> notes;
  const ChipInfo chip = LoadChipInfo(location.rank_directory, notes);
  if (!chip.info_file.empty()) check.info_file = chip.info_file.string();
  if (chip.valid()) {
    check.peak_fp16_tflops = Round2(chip.PeakFlops(DtypeClass::kFloat16) / 1e12);
    check.peak_int8_tflops = Round2(chip.PeakFlops(DtypeClass::kInt8) / 1e12);
  }
  RankInput input{location.rank_id, location.rank_directory, location.db_path, std::nullopt};
  input.text_export = location.text_export;
  auto analysis = AnalyzeRank(input);
  if (analysis.ok()) {
    check.operator_rows = analysis->operator_rows.size();
    check.module_rows = analysis->module_rows.size();
    check.root_cause = analysis->failure;
    check.no_rows_reason = analysis->no_rows_reason;
  } else {
    check.analysis_failure = analysis.error().message;
  }
  Decide(check);
  return check;
}

void CheckDbTables(const RankLocation& location, RankCheck& check) {
  auto opened = Database::OpenReadOnly(location.db_path);
  if (!opened.ok()) {
    check.unreadable = opened.error().message;
    return;
  }
  Database& db = *opened;
  for (const char* table : kNeededTables) {
    auto present = db.HasTable(table);
    if (!present.ok() || !*present) check.tables_missing.emplace_back(table);
  }
  if (auto statement = db.Prepare(
          "SELECT e.startNs, e.endNs, message.value FROM MSTX_EVENTS e LEFT JOIN STRING_IDS message ON "
          "e.message = message.id LEFT JOIN STRING_IDS domain ON e.domainId = domain.id WHERE domain.value = "
          "'mfu_flops'");
      statement.ok()) {
    while (true) {
      auto row = statement->Step();
      if (!row.ok() || !*row) break;
      ++check.flops_records;
      std::optional<std::string> message;
      if (!statement->IsNull(2)) message = std::string(statement->Text(2));
      const auto parsed = ParseFlopsMessage(message);
      if (parsed && parsed->flops > 0 && statement->Int64(1) > statement->Int64(0)) {
        ++check.valid_flops_records;
      } else if (check.malformed_examples.size() < 3) {
        check.malformed_examples.push_back(!message                      ? "(no message)"
                                           : parsed && parsed->flops > 0 ? *message + " (range ends before it starts)"
                                                                         : *message);
      }
    }
  }
  check.framework_ops = CountRows(db, "SELECT count(*) FROM PYTORCH_API");
  check.compute_kernels = CountRows(db, "SELECT count(*) FROM COMPUTE_TASK_INFO");
  check.op_kernel_links =
      CountRows(db,
                "SELECT count(*) FROM COMPUTE_TASK_INFO k JOIN TASK t ON k.globalTaskId = t.globalTaskId "
                "JOIN CONNECTION_IDS c ON c.connectionId = t.connectionId JOIN PYTORCH_API a ON a.connectionId = c.id");
  check.kernels_without_shapes =
      CountRows(db,
                "SELECT count(*) FROM COMPUTE_TASK_INFO k LEFT JOIN STRING_IDS i ON i.id = k.inputShapes "
                "LEFT JOIN STRING_IDS o ON o.id = k.outputShapes "
                "WHERE trim(i.value, '\"''') = 'N/A' OR trim(o.value, '\"''') = 'N/A'");
  check.module_ranges =
      CountRows(db,
                "SELECT count(*) FROM MSTX_EVENTS e JOIN STRING_IDS d ON e.domainId = d.id WHERE e.eventType = 2 AND "
                "d.value = 'Module'");
}

}  // namespace opmfu::engine
