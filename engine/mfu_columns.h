#pragma once
// The columns of OperatorMFU and ModuleMFU, said once: their names (cluster_analysis.db, CSV and
// JSON), the types upstream's writer declares, and the headers and widths of its xlsx export. The
// writer, the exports and the report's reader of a cluster DB all read them from here.

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace opmfu::engine {

struct MfuColumn {
  std::string_view name;         ///< as in cluster_analysis.db, CSV and JSON
  std::string_view sql_type;     ///< the type pandas' to_sql declares for it
  std::string_view xlsx_header;  ///< upstream's xlsx header
  double xlsx_width = 0;         ///< upstream's xlsx column width
};

inline constexpr std::string_view kOperatorTable = "OperatorMFU";
inline constexpr std::string_view kModuleTable = "ModuleMFU";

inline constexpr std::array<MfuColumn, 13> kOperatorColumns = {{
    {"rank_id", "INTEGER", "Rank ID", 10},
    {"op_name", "TEXT", "Op Name", 30},
    {"kernel_name", "TEXT", "Kernel Name", 50},
    {"kernel_start(ns)", "INTEGER", "Kernel Start(ns)", 20},
    {"kernel_end(ns)", "INTEGER", "Kernel End(ns)", 20},
    {"kernel_duration(ns)", "INTEGER", "Kernel Duration(ns)", 20},  // REAL when a rank's is fractional
    {"mfu", "REAL", "MFU", 10},
    {"actual_tflops", "REAL", "actual_tflops", 15},
    {"chip_peak_tflops", "REAL", "chip_peak_tflops", 18},
    {"flops", "INTEGER", "flops", 18},  // REAL when a rank's is past 2^63 or fractional
    {"flops_op_name", "TEXT", "flops_op_name", 25},
    {"input_shapes", "TEXT", "input_shapes", 30},
    {"output_shapes", "TEXT", "output_shapes", 30},
}};
inline constexpr std::size_t kOperatorDurationColumn = 5;
inline constexpr std::size_t kOperatorFlopsColumn = 9;

inline constexpr std::array<MfuColumn, 9> kModuleColumns = {{
    {"rank_id", "INTEGER", "Rank ID", 10},
    {"parent_module", "TEXT", "Parent Module", 40},
    {"module", "TEXT", "Module", 30},
    {"op_name", "TEXT", "Op Name", 30},
    {"kernel_list", "TEXT", "Kernel List", 60},
    {"total_kernel_duration(ns)", "REAL", "Total Kernel Duration(ns)", 25},
    {"avg_kernel_duration(ns)", "REAL", "Avg Kernel Duration(ns)", 25},
    {"op_count", "INTEGER", "Op Count", 10},
    {"avg_mfu", "TEXT", "Avg MFU", 30},  // left out when empty in every row (upstream drops it)
}};

/// ModuleMFU's columns, without avg_mfu when `with_avg_mfu` is false.
std::span<const MfuColumn> ModuleColumns(bool with_avg_mfu);

/// The CREATE TABLE statement upstream's writer leaves (byte for byte: readers compare schemas).
std::string OperatorTableSql(bool duration_integer, bool flops_integer);
std::string ModuleTableSql();

/// `"a", "b", ...`: the columns quoted for a SELECT.
std::string QuotedColumnList(std::span<const MfuColumn> columns);

}  // namespace opmfu::engine
