#pragma once
// torch_npu's Text export (`export_type=Text`, its default) as the MFU analysis reads it:
// ASCEND_PROFILER_OUTPUT/kernel_details.csv (the kernels, their shapes and types at Level1+) and
// trace_view.json (the framework ops, the op-to-kernel flows, the msTX ranges), read into the same
// RankData the profiler DB gives, so OperatorMFU, ModuleMFU and the derived section need no second
// implementation. docs/text-export.md says what each file gives and how they are joined.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/profile_data.h"
#include "engine/rank_reader.h"

namespace opmfu::engine {

inline constexpr const char* kKernelDetailsFile = "kernel_details.csv";
inline constexpr const char* kTraceViewFile = "trace_view.json";
inline constexpr const char* kOperatorDetailsFile = "operator_details.csv";

/// Whether `output_directory` (an ASCEND_PROFILER_OUTPUT) holds a Text export: kernel_details.csv
/// or trace_view.json.
bool HoldsTextExport(const std::filesystem::path& output_directory);

/// What a Text export holds, for check-db and the Level0 line.
struct TextExportFacts {
  bool kernel_details = false;  ///< kernel_details.csv exists
  bool trace_view = false;      ///< trace_view.json exists
  bool operator_details = false;
  bool has_shape_columns = false;   ///< kernel_details.csv has Input Shapes (Level1+)
  std::size_t compute_kernels = 0;  ///< kernel_details.csv rows that are not HCCL tasks
  std::size_t kernels_without_shapes = 0;
  std::size_t communication_tasks = 0;
  std::size_t framework_ops = 0;    ///< trace_view.json cpu_op events
  std::size_t op_kernel_flows = 0;  ///< torch_to_npu flows whose both ends were found
  std::size_t compute_links = 0;
  std::size_t mstx_ranges = 0;
  std::size_t flops_records = 0;
  std::size_t module_ranges = 0;
  /// The AI Core Freq counter's samples (MHz), in trace order.
  std::vector<double> ai_core_mhz;
  /// The counter columns of kernel_details.csv that give hardware utilisation (aic_mac_ratio, ...).
  std::vector<std::string> counter_columns;
};

/// Reads one rank's Text export below `output_directory`. A file that is missing is read as empty
/// (and said in `notes`); a file that is malformed is an Error naming the file, the line and the
/// cause. With `with_kernel_signatures`, RankData::kernel_signatures is filled from
/// kernel_details.csv. `facts`, when given, receives what the export holds.
Result<RankData> ReadTextRank(const std::filesystem::path& output_directory, std::vector<RankNote>& notes,
                              bool with_kernel_signatures, TextExportFacts* facts = nullptr);

/// The one line said for a Level0 run (Text or Db): no shapes or op types, what still works, the
/// setting to change.
std::string Level0Line(bool text_export);

}  // namespace opmfu::engine
