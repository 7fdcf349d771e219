#pragma once
// Finding torch_npu's `_flops_formulas.py` without importing torch_npu: the interpreter is asked
// for its sys.path only, and the file is looked for there.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace opmfu::registry {

inline constexpr const char* kFormulasRelativePath = "torch_npu/profiler/_flops_formulas.py";

/// Where to look, in order of precedence: an explicit file (--formulas), $OPMFU_FORMULAS, then the
/// sys.path of --python, $OPMFU_PYTHON or python3.
struct LocateOptions {
  std::optional<std::string> formulas_flag;
  std::optional<std::string> formulas_env;
  std::optional<std::string> python_flag;
  std::optional<std::string> python_env;
  /// The interpreter of the environment opmfu was installed into (the wheel's): asked after
  /// --python and $OPMFU_PYTHON, before `python3` on PATH.
  std::optional<std::string> installed_python;
};

struct LocatedFormulas {
  std::filesystem::path path;
  std::string found_by;  ///< e.g. "--formulas", "$OPMFU_FORMULAS", "sys.path of python3"
};

Result<LocatedFormulas> LocateFormulas(const LocateOptions& options);

/// Looks for the formulas file in the given sys.path entries (what LocateFormulas does after asking
/// the interpreter). The error explains a missing torch_npu or one that predates FLOPs collection.
Result<std::filesystem::path> FindFormulasInSearchPath(const std::vector<std::string>& search_path,
                                                       const std::string& interpreter);

/// The `Version:` of torch_npu's .dist-info next to a site directory, if any.
std::optional<std::string> TorchNpuVersion(const std::filesystem::path& site_directory);

}  // namespace opmfu::registry
