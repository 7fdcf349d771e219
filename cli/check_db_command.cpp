// `opmfu check-db`: per rank, did FLOPs land and can MFU come out; if not, why and what next.

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "common/text.h"
#include "engine/db_check.h"
#include "engine/numeric.h"

namespace opmfu::cli {
namespace {

struct CheckDbFlags {
  std::string profiling_path;
  std::string source = "db";
  std::string format = "text";
};

void PrintCheck(const engine::RankCheck& check, const std::string& root) {
  std::ostream& out = std::cout;
  const auto mark = [](bool ok) { return ok ? "  ok   " : "  MISSING "; };
  // Paths, recorded values and DB strings are input: each goes through the one escaper.
  const auto shown = [](const std::string& text) { return EscapeControlCharacters(text); };
  out << "rank " << check.location.rank_id << ": " << shown(check.location.db_path.string()) << "\n";
  if (check.text_export) out << "  export: " << shown(*check.text_export) << "\n";
  for (const auto& ignored : check.location.ignored_directories) {
    out << "  (ignored an older directory for this rank: " << shown(ignored.string()) << ")\n";
  }
  // What the run recorded next to what MFU needs: the evidence for the verdict below.
  if (check.recorded) {
    out << "  recorded configuration (" << shown(check.recorded->file.string()) << "):\n";
    for (const engine::RecordedEntry& entry : engine::RecordedSettings(*check.recorded)) {
      out << "    " << entry.label << ": " << shown(entry.value);
      if (!entry.mfu_needs.empty()) out << "   [MFU needs: " << entry.mfu_needs << "]";
      out << "\n";
    }
  } else if (check.recorded_unreadable) {
    out << "  recorded configuration: " << shown(*check.recorded_unreadable) << "\n";
  } else {
    out << "  recorded configuration: no profiler_info_*.json in " << shown(check.location.rank_directory.string())
        << "\n";
  }
  if (check.location.never_parsed) {
    // No database to look into yet.
  } else if (check.unreadable) {
    out << "  cannot read: " << shown(*check.unreadable) << "\n";
  } else {
    std::string missing;
    for (const std::string& table : check.tables_missing) missing += (missing.empty() ? "" : ", ") + table;
    out << mark(check.tables_missing.empty()) << (check.text_export ? "files" : "tables")
        << (missing.empty() ? "" : ": missing " + missing) << "\n";
    out << mark(check.valid_flops_records > 0) << "FLOPs records (mfu_flops): " << check.flops_records << ", "
        << check.valid_flops_records << " valid";
    if (!check.malformed_examples.empty()) {
      out << "; malformed, e.g.";
      for (const std::string& example : check.malformed_examples) out << " " << QuoteForMessage(example);
    }
    out << "\n";
    out << mark(check.framework_ops > 0)
        << (check.text_export ? "framework ops (cpu_op): " : "framework ops (PYTORCH_API): ") << check.framework_ops
        << (check.framework_ops == 0 ? " (the CPU activity was off)" : "") << "\n";
    out << mark(check.op_kernel_links > 0) << "op-to-kernel links: " << check.op_kernel_links << " of "
        << check.compute_kernels << " compute kernels\n";
    out << mark(check.compute_kernels == 0 || check.kernels_without_shapes < check.compute_kernels)
        << "kernels with shapes: " << check.compute_kernels - check.kernels_without_shapes << " of "
        << check.compute_kernels << (check.kernels_without_shapes > 0 ? " (the rest are N/A and get no MFU)" : "")
        << "\n";
    const bool usable_peak = check.info_file && check.peak_fp16_tflops > 0;
    out << mark(usable_peak) << "chip peak: ";
    if (check.info_file && !usable_peak) {
      out << shown(*check.info_file) << ": no usable peak (the verdict says why)\n";
    } else if (check.info_file) {
      out << shown(*check.info_file) << ": FP16/BF16/FP32 " << engine::PythonFloatRepr(check.peak_fp16_tflops)
          << " TFLOPS, INT8 " << engine::PythonFloatRepr(check.peak_int8_tflops) << " TFLOPS\n";
    } else {
      out << "no device_*/info.json.* under " << shown(check.location.rank_directory.string()) << "\n";
    }
    out << (check.module_ranges > 0 ? "  ok   " : "  none  ") << "Module ranges: " << check.module_ranges
        << (check.module_ranges == 0 ? " (no ModuleMFU; with_modules=True does not change that)" : "") << "\n";
    if (check.derived_mfu) out << "  derived MFU: " << *check.derived_mfu << "\n";
  }
  out << "  verdict: " << shown(check.verdict) << "\n";
  std::string next = check.next_step;
  if (const std::size_t at = next.find("<dir>"); at != std::string::npos) next.replace(at, 5, root);
  out << "  next: " << shown(next) << "\n";
}

// The same facts as PrintCheck, as one object of docs/schema/check-db.schema.json's `ranks`.
nlohmann::ordered_json CheckJson(const engine::RankCheck& check, const std::string& root) {
  const auto optional_text = [](const std::optional<std::string>& text) {
    return text ? nlohmann::ordered_json(*text) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json ignored = nlohmann::ordered_json::array();
  for (const auto& directory : check.location.ignored_directories) ignored.push_back(directory.string());
  nlohmann::ordered_json recorded = nullptr;
  if (check.recorded) {
    nlohmann::ordered_json settings = nlohmann::ordered_json::object();
    for (const engine::RecordedEntry& entry : engine::RecordedSettings(*check.recorded)) {
      settings[entry.label] = {{"value", entry.value},
                               {"mfu_needs", entry.mfu_needs.empty() ? nlohmann::ordered_json(nullptr)
                                                                     : nlohmann::ordered_json(entry.mfu_needs)}};
    }
    recorded = {{"file", check.recorded->file.string()}, {"settings", settings}};
  }
  std::string next = check.next_step;
  if (const std::size_t at = next.find("<dir>"); at != std::string::npos) next.replace(at, 5, root);
  return {
      {"rank", check.location.rank_id},
      {"db_path", check.location.db_path.string()},
      {"never_parsed", check.location.never_parsed},
      {"export", check.location.text_export ? "text" : "db"},
      {"text_export", optional_text(check.text_export)},
      {"derived_mfu", optional_text(check.derived_mfu)},
      {"ignored_directories", ignored},
      {"recorded", recorded},
      {"recorded_unreadable", optional_text(check.recorded_unreadable)},
      {"unreadable", optional_text(check.unreadable)},
      {"tables_missing", check.tables_missing},
      {"flops_records", check.flops_records},
      {"valid_flops_records", check.valid_flops_records},
      {"malformed_examples", check.malformed_examples},
      {"framework_ops", check.framework_ops},
      {"op_kernel_links", check.op_kernel_links},
      {"compute_kernels", check.compute_kernels},
      {"kernels_without_shapes", check.kernels_without_shapes},
      {"module_ranges", check.module_ranges},
      {"info_file", optional_text(check.info_file)},
      {"peak_fp16_tflops", check.peak_fp16_tflops},
      {"peak_int8_tflops", check.peak_int8_tflops},
      {"operator_rows", check.operator_rows},
      {"module_rows", check.module_rows},
      {"can_produce_mfu", check.can_produce_mfu},
      {"verdict", check.verdict},
      {"next_step", next},
  };
}

int RunCheckDb(const CheckDbFlags& flags) {
  const bool json = flags.format == "json";
  auto discovery = engine::DiscoverRanks(flags.profiling_path, ExportSourceOf(flags.source));
  if (!discovery.ok()) return ReportError(discovery.error());
  if (!discovery->correction.empty()) ReportWarning(discovery->correction);
  for (const std::string& note : discovery->notes) ReportWarning(note);
  // What analyze names as errors (a profiling directory that gives no rank, an entry that cannot
  // be followed) is one here too: such a run cannot produce MFU for every rank.
  for (const std::string& problem : engine::DescribeProblems(*discovery)) ReportError(Error::Input(problem));
  bool all_ok = discovery->problems.empty();
  std::vector<engine::RankLocation> locations = discovery->ranks;
  locations.insert(locations.end(), discovery->unparsed.begin(), discovery->unparsed.end());
  std::stable_sort(locations.begin(), locations.end(),
                   [](const auto& a, const auto& b) { return a.rank_id < b.rank_id; });
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const engine::RankLocation& location : locations) {
    const engine::RankCheck check = engine::CheckRank(location);
    if (json) {
      checks.push_back(CheckJson(check, discovery->root.string()));
    } else {
      PrintCheck(check, discovery->root.string());
    }
    all_ok = all_ok && check.can_produce_mfu;
  }
  const std::size_t ranks = locations.size();
  if (json) {
    const nlohmann::ordered_json answer{{"root", discovery->root.string()},
                                        {"all_can_produce_mfu", all_ok},
                                        {"ranks", checks},
                                        {"problems", discovery->problems}};
    std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return all_ok ? kExitOk : kExitFindings;
  }
  const std::size_t problems = discovery->problems.size();
  std::cout << (all_ok ? "Every rank can produce MFU (" : "Some ranks cannot produce MFU (") << ranks
            << (ranks == 1 ? " rank checked" : " ranks checked")
            << (problems == 0 ? std::string()
                              : "; " + std::to_string(problems) +
                                    (problems == 1 ? " profiling directory gives" : " profiling directories give") +
                                    " no rank, named above")
            << ").\n";
  return all_ok ? kExitOk : kExitFindings;
}

}  // namespace

void AddCheckDbCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<CheckDbFlags>();
  CLI::App* command = app.add_subcommand("check-db", "diagnose why a profiling database yields no MFU");
  AddProfilingPathOption(*command, flags->profiling_path, "the profiling directory (as for analyze)");
  AddExportSourceOption(*command, flags->source);
  AddFormatOption(*command, flags->format);
  command->footer("Exit code 0 when every rank can produce MFU, 1 otherwise.");
  command->callback([flags, &action] { action = [flags] { return RunCheckDb(*flags); }; });
}

}  // namespace opmfu::cli
