#pragma once
// What a Python file configures for profiling: one ProfilerCallSite per
// `torch_npu.profiler.profile(...)`, `_KinetoProfile(...)` or `torch.profiler.profile(...)` call,
// with every setting the MFU rules read traced to its possible values, and what the launcher
// rules need from the file's argparse model. Rules read these facts; they never call the tracer
// (they use the syntax tree only to place findings and fixes).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "linter/bash_launcher.h"
#include "linter/dynamic_config.h"
#include "linter/known_launchers.h"
#include "python/module.h"
#include "python/project.h"

namespace opmfu::linter {

/// One setting of a call site: where it is written and what it can be.
/// A known launcher's option that computes a setting, where the launcher writes the option's value
/// literally (`--profile-level level0`, `...npu.level=level0`), and the option value that gives
/// each setting value (`Level1` -> `level1`): what a fix rewrites, in the launcher.
struct LauncherOptionValue {
  TextLocation value;  ///< exactly the bytes that spell the value
  std::map<std::string, std::string> option_for;
};

struct Setting {
  std::string name;      ///< "with_flops", "profiler_level", ...
  bool written = false;  ///< passed explicitly (or through **mapping); else `values` is the default
  TSNode anchor{};       ///< the `name=value` argument, or the call that lacks it
  TSNode call{};         ///< the call the setting belongs to (profile or _ExperimentalConfig)
  python::Values values;
  /// With several `_ExperimentalConfig(...)` calls on the traced paths: for each value, the
  /// `name=value` argument it came from or the config call that leaves it out, so a finding lands
  /// on the config that is wrong (empty otherwise: every value is at `anchor`).
  std::vector<TSNode> value_anchors;
  /// The config calls on the traced paths that leave the setting out, each once (where a fix that
  /// adds it must add it).
  std::vector<TSNode> missing_in;
  /// For a setting read from another file (dynamic-profiler JSON): where to report instead of
  /// `anchor`, and what to write there (the rules' own help speaks Python).
  TextLocation where;
  std::string remedy;
  /// Set by a known launcher when its option's value is written literally there.
  std::optional<LauncherOptionValue> launcher_option;
};

/// An argument of a call that a setting's value is, traced when the facts are read.
struct TracedArgument {
  TSNode node{};     ///< the argument's value (or the `**` expression it came from)
  TSNode keyword{};  ///< the whole `name=value` node, when written as a keyword
  python::Values values;
  /// Where a finding about the argument goes: the `name=value`, else the value.
  TSNode anchor() const { return ts_node_is_null(keyword) ? node : keyword; }
};

/// A `...schedule(...)` value of a site's `schedule`: its `active` and `repeat` arguments
/// (nullopt: not passed).
struct ScheduleCall {
  TSNode call{};
  std::optional<TracedArgument> active, repeat;
};

/// A `...tensorboard_trace_handler(...)` value of a site's `on_trace_ready`: its `dir_name`.
struct TraceHandlerCall {
  TSNode call{};
  std::optional<TracedArgument> dir_name;
  /// The one directory `dir_name` can be, when every part of it is fixed: a string, or an f-string
  /// or `os.path.join(...)` of fixed parts (`f"{base}/"` with `base = "./prof"`). nullopt when a
  /// part varies from run to run, or cannot be told.
  std::optional<std::string> fixed_directory;
  /// How many `*_ascend_pt` directories `fixed_directory` already holds on the disk lint reads
  /// (relative to the script's directory); filled by lint's Python stage through its FileReader.
  std::size_t existing_runs = 0;
};

enum class ProfilerApi { kTorchNpuProfile, kKinetoProfile, kTorchProfile };

/// What configures the profiler: a call in Python, the dynamic profiler's JSON, or a known
/// launcher's options (its call is in an installed package).
enum class SiteOrigin { kPythonCall, kDynamicConfig, kKnownLauncher };

struct ProfilerCallSite {
  ProfilerApi api = ProfilerApi::kTorchNpuProfile;
  SiteOrigin origin = SiteOrigin::kPythonCall;
  std::string callee;  ///< the qualified name called
  TSNode call{};       ///< null for a dynamic config
  /// torch.profiler.profile called through a name `from torch.profiler import profile` bound
  /// before the module imports transfer_to_npu: PyTorch's own, whatever the patch does later.
  bool bound_before_patch = false;
  Setting with_flops, activities, record_shapes, with_modules, on_trace_ready, schedule, experimental_config;
  /// The `_ExperimentalConfig` settings this call receives (its defaults when it gets none).
  Setting profiler_level, mstx, msprof_tx, export_type, mstx_domain_include, mstx_domain_exclude;
  /// Whether the trace handler parses the data into a DB: a known launcher's, or the
  /// `analyse_flag` of each `tensorboard_trace_handler(...)` that a Python call's `on_trace_ready`
  /// can be (no values when it is none of those).
  Setting analyse;
  /// For PyTorch's own profiler: the values `activities` has on some path, branches the traced
  /// values decide taken too (`if args.device == "cuda": activities.append(CUDA)` with the default
  /// "npu"): whether the call is meant to collect CUDA on some run.
  python::Values activities_on_some_path;
  /// The `schedule(...)` calls `schedule` can be, and the trace handlers `on_trace_ready` can be,
  /// in the order of their values.
  std::vector<ScheduleCall> schedule_calls;
  std::vector<TraceHandlerCall> trace_handlers;
};

/// What the rules on a file's own command line (OPM201, OPM202) need from its argparse model;
/// read only when the file has launches.
struct ArgparseFacts {
  /// argparse rejects options it does not define (parse_args, and no framework adds options).
  bool rejects_unknown_options = false;
  /// The program's add_argument(...) options.
  std::vector<python::ArgparseOption> options;
  /// The long option each `--name` a launch passes selects (itself or the option it abbreviates;
  /// nullopt: none or ambiguous), by the name as typed, before any `=`. Read when
  /// rejects_unknown_options and there are options.
  std::map<std::string, std::optional<std::string>, std::less<>> long_options;
};

/// A `dynamic_profile.init(dir)` call: the dynamic profiler reads `dir/profiler_config.json`.
struct DynamicProfilerInit {
  TSNode call{};
  python::Values directory;
};

/// A call of torch_npu's offline parser, `torch_npu.profiler.profiler.analyse(profiler_path,
/// max_process_number, export_type)` (torch_npu 7.1.0 on; before, it takes no export_type).
/// export_type None, the default, parses to what the run recorded in profiler_info.json.
struct OfflineAnalyseCall {
  TSNode call{};
  std::string callee;
  std::optional<TracedArgument> export_type;  ///< nullopt: not passed
};

/// A linted file's profiler facts: a Python file (its module and calls) or a dynamic-profiler
/// JSON config (`dynamic_config`, no module).
struct ProfilerFacts {
  std::unique_ptr<python::PythonModule> module;
  /// The program's other modules the facts were traced in (values may name their functions).
  std::unique_ptr<python::ModuleSet> program;
  std::shared_ptr<const DynamicConfig> dynamic_config;
  std::vector<ProfilerCallSite> sites;
  std::vector<DynamicProfilerInit> dynamic_inits;
  /// `torch_npu.contrib.transfer_to_npu` is imported by the program: torch.profiler.profile is
  /// torch_npu's. Read only when the file calls torch.profiler.profile.
  bool transfers_to_npu = false;
  /// The file imports torch_npu (or a module of it).
  bool imports_torch_npu = false;
  /// The file puts work on an NPU (`torch.device("npu:0")`, `torch.npu.set_device`, `.npu()`,
  /// `.to("npu")`), or on a CUDA device. Read only when the file calls torch.profiler.profile.
  bool selects_npu_device = false;
  bool selects_cuda_device = false;
  /// The file calls torch_npu's offline `analyse(...)`, so unparsed data may be parsed later.
  bool analyses_offline = false;
  /// Those calls, each once per callee it can have.
  std::vector<OfflineAnalyseCall> offline_analyses;
  /// The launcher commands that run this file (the tracer took their arguments).
  std::vector<Launch> launches;
  ArgparseFacts argparse;
  /// For a known launcher's launch: values outside its options' choices.
  std::vector<KnownChoiceViolation> choice_violations;
  /// For a known launcher's launch: variables it sets that the package refuses.
  std::vector<KnownRefusedVariable> refused_variables;
  std::string known_launcher;  ///< its name ("MindSpeed-LLM")
};

/// Whether a file's facts ask anything of its program: a possible profiler call, or launches to
/// check. Only then is the program read (python::ReadProgram), so a file that configures nothing
/// reads no other file.
bool NeedsProgram(const python::PythonModule& module, const std::vector<Launch>& launches);

/// Reads the facts, tracing `module` within `program` (its other modules, read beforehand; null:
/// the file alone). Argparse and environment lookups see what `launches` pass; `inherited` are
/// the invocations of the launches of a script that imports this module (InvocationsOf, made once
/// and shared by every module the script reaches): traced the same way, but not this file's own
/// command line (no OPM201/OPM202 here).
ProfilerFacts ReadProfilerFacts(std::unique_ptr<python::PythonModule> module,
                                std::unique_ptr<python::ModuleSet> program = nullptr, std::vector<Launch> launches = {},
                                std::shared_ptr<const std::vector<python::ScriptInvocation>> inherited = nullptr);

/// The invocations (argv and environment) of launches, for a python::Tracer.
std::vector<python::ScriptInvocation> InvocationsOf(const std::vector<Launch>& launches);

/// The facts of a dynamic-profiler config: one site, no module.
ProfilerFacts DynamicConfigFacts(std::shared_ptr<const DynamicConfig> config);

}  // namespace opmfu::linter
