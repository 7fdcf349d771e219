#pragma once
// What a Python file configures for profiling: one ProfilerCallSite per
// `torch_npu.profiler.profile(...)`, `_KinetoProfile(...)` or `torch.profiler.profile(...)` call,
// with every setting the MFU rules read traced to its possible values. Rules read only this.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "linter/bash_launcher.h"
#include "linter/python_values.h"

namespace opmfu::linter {

/// One setting of a call site: where it is written and what it can be.
struct Setting {
  std::string name;      ///< "with_flops", "profiler_level", ...
  bool written = false;  ///< passed explicitly (or through **mapping); else `values` is the default
  TSNode anchor{};       ///< the `name=value` argument, or the call that lacks it
  TSNode call{};         ///< the call the setting belongs to (profile or _ExperimentalConfig)
  python::Values values;
};

enum class ProfilerApi { kTorchNpuProfile, kKinetoProfile, kTorchProfile };

struct ProfilerCallSite {
  ProfilerApi api = ProfilerApi::kTorchNpuProfile;
  std::string callee;  ///< the qualified name called
  TSNode call{};
  Setting with_flops, activities, record_shapes, with_modules, on_trace_ready, schedule, experimental_config;
  /// The `_ExperimentalConfig` settings this call receives (its defaults when it gets none).
  Setting profiler_level, mstx, msprof_tx, export_type, mstx_domain_include, mstx_domain_exclude;
};

/// A linted Python file: the module and the facts read from it.
struct PythonFacts {
  std::unique_ptr<python::PythonModule> module;
  std::vector<ProfilerCallSite> sites;
  /// `torch_npu.contrib.transfer_to_npu` is imported: torch.profiler.profile is torch_npu's.
  bool transfers_to_npu = false;
  /// The file calls torch_npu's offline `analyse(...)`, so unparsed data may be parsed later.
  bool analyses_offline = false;
  /// The launcher commands that run this file (their arguments are bound in `module`).
  std::vector<Launch> launches;
};

/// Reads the facts; `launches` are bound into the module first, so argparse and environment
/// lookups see what the launchers pass.
PythonFacts ReadProfilerFacts(std::unique_ptr<python::PythonModule> module, std::vector<Launch> launches = {});

}  // namespace opmfu::linter
