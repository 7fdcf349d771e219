#pragma once
// `--export-type text`: msprof-analyze's per-rank Excel workbooks, via libxlsxwriter.

#include <filesystem>
#include <vector>

#include "common/result.h"
#include "engine/output.h"

namespace opmfu::engine {

/// Writes `operator_mfu_kernel_<rank>.xlsx` and `operator_mfu_module_<rank>.xlsx` (each only when
/// that rank has rows) into `directory`, each with one sheet `Sheet1`: a bold Times New Roman
/// header on #AFEEEE, bordered cells, numbers as numbers; in module workbooks, runs of equal
/// `Parent Module` and `Module` cells are merged. Each file is written under a temporary name and
/// renamed into place. Column widths fit the columns (msprof-analyze applies them to the wrong
/// columns). `tree`: a directory above `directory` (OutputOptions::tree); empty: `directory`.
Result<std::vector<std::filesystem::path>> WriteWorkbooks(const std::filesystem::path& directory,
                                                          const AnalysisTables& tables,
                                                          const std::filesystem::path& tree = {});

}  // namespace opmfu::engine
