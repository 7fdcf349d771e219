#include "linter/profiler_config.h"

#include <algorithm>
#include <filesystem>

#include "linter/profiler_settings.h"
#include "python/project.h"
#include "python/tracer.h"

namespace opmfu::linter {

namespace {

using python::Value;
using python::ValueKind;
using python::Values;

bool EndsWith(std::string_view text, std::string_view suffix) { return text.ends_with(suffix); }

// The documented default of a setting not given, with a chain step at `at` saying so.
Value Default(const python::PythonModule& module, TSNode at, const ProfilerSettingSpec& spec) {
  Value value;
  value.kind = spec.fallback.kind;
  value.text = std::string(spec.fallback.text);
  value.boolean = spec.fallback.boolean;
  if (spec.type == SettingType::kProfilerLevel) value.container = "ProfilerLevel";
  value.chain.push_back(module.StepAt(
      at, "`" + std::string(spec.python_keyword) + "` not given: defaults to " + std::string(spec.fallback.python)));
  return value;
}

// A setting of `call`: its argument when written, else the documented default.
Setting ReadSetting(const python::Tracer& tracer, TSNode call, const ProfilerSettingSpec& spec) {
  Setting setting;
  setting.name = std::string(spec.python_keyword);
  setting.call = call;
  setting.anchor = call;
  if (auto argument = tracer.FindArgument(call, spec.python_keyword, spec.python_position)) {
    setting.written = true;
    setting.anchor = ts_node_is_null(argument->keyword) ? argument->node : argument->keyword;
    setting.values = std::move(argument->values);
  } else {
    setting.values = {Default(tracer.module(), call, spec)};
  }
  return setting;
}

// A setting of the tensorboard_trace_handler(...) calls the site's `on_trace_ready` can be (the
// `analyse_flag`: whether the raw data is parsed into a DB when the trace is ready): no values
// when it is none of those.
Setting ReadHandlerSetting(const python::Tracer& tracer, const Setting& on_trace_ready,
                           const ProfilerSettingSpec& spec) {
  Setting setting;
  setting.name = std::string(spec.python_keyword);
  setting.anchor = on_trace_ready.anchor;
  setting.call = on_trace_ready.call;
  for (const Value& handler : on_trace_ready.values) {
    if (handler.kind != ValueKind::kCall || !EndsWith(handler.text, "tensorboard_trace_handler") ||
        ts_node_is_null(handler.node)) {
      continue;
    }
    auto argument = tracer.FindArgument(handler.node, spec.python_keyword, spec.python_position);
    if (!argument) {
      setting.values.push_back(Default(tracer.module(), handler.node, spec));
      continue;
    }
    if (!setting.written) {
      setting.written = true;
      setting.anchor = ts_node_is_null(argument->keyword) ? argument->node : argument->keyword;
      setting.call = handler.node;
    }
    for (Value& value : argument->values) setting.values.push_back(std::move(value));
  }
  return setting;
}

// The experimental settings: from each _ExperimentalConfig(...) the call can receive.
void ReadExperimentalSettings(const python::Tracer& tracer, ProfilerCallSite& site) {
  struct Target {
    Setting* setting;
    const ProfilerSettingSpec* spec;
  };
  std::vector<Target> targets;
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.python_call != PythonCall::kExperimentalConfig || spec.site == nullptr) continue;
    Setting& setting = site.*spec.site;
    setting.name = std::string(spec.python_keyword);
    setting.anchor = site.experimental_config.anchor;
    setting.call = site.call;
    targets.push_back({&setting, &spec});
  }
  const auto add = [](Setting& setting, Value value, const std::vector<Note>& prefix, TSNode at = TSNode{}) {
    PrependNotes(value.chain, prefix);
    setting.values.push_back(std::move(value));
    setting.value_anchors.push_back(ts_node_is_null(at) ? setting.anchor : at);
  };

  for (const Value& config : site.experimental_config.values) {
    if (config.kind == ValueKind::kNone) {
      for (const Target& target : targets) {
        add(*target.setting, Default(tracer.module(), site.experimental_config.anchor, *target.spec), config.chain);
      }
      continue;
    }
    if (config.kind == ValueKind::kCall && EndsWith(config.text, "_ExperimentalConfig")) {
      std::vector<Note> prefix = config.chain;
      if (site.experimental_config.written) {
        prefix.insert(prefix.begin(),
                      tracer.module().StepAt(site.experimental_config.anchor, "`experimental_config=`"));
      }
      for (const Target& target : targets) {
        Setting& setting = *target.setting;
        auto argument = tracer.FindArgument(config.node, target.spec->python_keyword, target.spec->python_position);
        if (!argument) {
          // Reported at the config call that leaves it out, unless another path writes it.
          if (!setting.written) {
            setting.anchor = config.node;
            setting.call = config.node;
          }
          if (std::none_of(setting.missing_in.begin(), setting.missing_in.end(),
                           [&](TSNode seen) { return ts_node_eq(seen, config.node); })) {
            setting.missing_in.push_back(config.node);
          }
          add(setting, Default(tracer.module(), config.node, *target.spec), prefix, config.node);
          continue;
        }
        setting.written = true;
        setting.anchor = ts_node_is_null(argument->keyword) ? argument->node : argument->keyword;
        setting.call = config.node;
        for (Value& value : argument->values) add(setting, std::move(value), prefix, setting.anchor);
      }
      continue;
    }
    // Something we cannot see into: every experimental setting is unknown on this path.
    Value unknown = config;
    if (unknown.kind != ValueKind::kUnknown) {
      unknown.kind = ValueKind::kUnknown;
      unknown.unknown_reason =
          "`experimental_config` is " + config.Describe() + ", not a `_ExperimentalConfig(...)` call";
    } else {
      unknown.unknown_reason = "`experimental_config` cannot be followed: " + config.unknown_reason;
    }
    for (const Target& target : targets) {
      target.setting->values.push_back(unknown);
      target.setting->value_anchors.push_back(site.experimental_config.anchor);
    }
  }
}

// Every traced setting of a profile(...) call, as the table says where each is written: the
// call's own arguments, then those of the trace handlers and the _ExperimentalConfig it receives.
void ReadSettings(const python::Tracer& tracer, TSNode call, ProfilerCallSite& site) {
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.python_call == PythonCall::kProfile && spec.site != nullptr)
      site.*spec.site = ReadSetting(tracer, call, spec);
  }
  for (const ProfilerSettingSpec& spec : ProfilerSettings()) {
    if (spec.python_call == PythonCall::kTraceHandler && spec.site != nullptr) {
      site.*spec.site = ReadHandlerSetting(tracer, site.on_trace_ready, spec);
    }
  }
  ReadExperimentalSettings(tracer, site);
}

}  // namespace

std::vector<python::ScriptInvocation> InvocationsOf(const std::vector<Launch>& launches) {
  std::vector<python::ScriptInvocation> invocations;
  for (const Launch& launch : launches) {
    const auto word = [](const ShellWord& shell) {
      python::LaunchWord out;
      out.text = shell.text;
      out.known = shell.known;
      out.origin.file = shell.where.file();
      out.origin.position = shell.where.range().start;
      out.origin.message = "`" + shell.text + "`";
      out.spelled = shell.SpelledAt(0, shell.text.size());
      return out;
    };
    python::ScriptInvocation invocation;
    invocation.launcher = launch.launcher;
    for (const ShellWord& argument : launch.arguments) invocation.arguments.push_back(word(argument));
    if (launch.environment) {
      for (const auto& [name, value] : *launch.environment) invocation.environment[name] = word(value);
    }
    invocations.push_back(std::move(invocation));
  }
  return invocations;
}

namespace {

std::optional<TracedArgument> TraceArgument(const python::Tracer& tracer, TSNode call, std::string_view keyword,
                                            int position) {
  auto argument = tracer.FindArgument(call, keyword, position);
  if (!argument) return std::nullopt;
  return TracedArgument{argument->node, argument->keyword, std::move(argument->values)};
}

// The values of `setting` that are calls of a callee ending in `suffix` ("schedule").
std::vector<const Value*> CallsTo(const Setting& setting, std::string_view suffix) {
  std::vector<const Value*> out;
  for (const Value& value : setting.values) {
    if (value.kind == ValueKind::kCall && value.text.ends_with(suffix)) out.push_back(&value);
  }
  return out;
}

std::optional<std::string> FixedText(const python::Tracer& tracer, const Value& value, int depth);

// The one fixed text an expression of `module` can be.
std::optional<std::string> FixedExpression(const python::Tracer& tracer, TSNode expression, int depth) {
  const python::Values values = tracer.Resolve(expression);
  if (values.size() != 1) return std::nullopt;
  return FixedText(tracer, values.front(), depth + 1);
}

// An f-string whose every interpolation is fixed (no conversion, no format spec, no escapes).
std::optional<std::string> FixedFString(const python::Tracer& tracer, TSNode string, int depth) {
  const SyntaxTree& tree = tracer.module().tree();
  std::string text;
  for (std::uint32_t i = 0; i < ts_node_named_child_count(string); ++i) {
    const TSNode part = ts_node_named_child(string, i);
    const std::string_view type = ts_node_type(part);
    if (type == "string_start") {
      const std::string_view prefix = tree.Text(part);
      if (prefix.find_first_of("fF") == std::string_view::npos ||
          prefix.find_first_of("bBrR") != std::string_view::npos) {
        return std::nullopt;
      }
    } else if (type == "string_content") {
      if (ts_node_named_child_count(part) != 0) return std::nullopt;  // escapes: left to the evaluator
      text += tree.Text(part);
    } else if (type == "interpolation") {
      if (ts_node_named_child_count(part) != 1) return std::nullopt;  // a !conversion or :format spec
      const std::optional<std::string> piece = FixedExpression(tracer, ts_node_named_child(part, 0), depth);
      if (!piece) return std::nullopt;
      text += *piece;
    } else if (type != "string_end") {
      return std::nullopt;
    }
  }
  return text;
}

std::optional<std::string> FixedText(const python::Tracer& tracer, const Value& value, int depth) {
  // A number in a path is taken as varying: in real code it is a run, rank or step id that the
  // program counts (`f"./prof/{run_id}"`), and a fixed one is rare enough not to guess at.
  if (value.kind == ValueKind::kString) return value.text;
  if (depth > 8 || ts_node_is_null(value.node)) return std::nullopt;  // null: read in another file
  if (value.kind == ValueKind::kDynamicString && std::string_view(ts_node_type(value.node)) == "string") {
    return FixedFString(tracer, value.node, depth);
  }
  if (value.kind == ValueKind::kCall && (value.text == "os.path.join" || value.text == "posixpath.join")) {
    const TSNode arguments = ts_node_child_by_field_name(value.node, "arguments", 9);
    if (ts_node_is_null(arguments) || ts_node_named_child_count(arguments) == 0) return std::nullopt;
    std::filesystem::path joined;
    for (std::uint32_t i = 0; i < ts_node_named_child_count(arguments); ++i) {
      const TSNode argument = ts_node_named_child(arguments, i);
      if (std::string_view(ts_node_type(argument)) == "keyword_argument" ||
          std::string_view(ts_node_type(argument)) == "list_splat") {
        return std::nullopt;
      }
      const std::optional<std::string> part = FixedExpression(tracer, argument, depth);
      if (!part) return std::nullopt;
      joined /= *part;  // as os.path.join: an absolute part starts over
    }
    return joined.string();
  }
  return std::nullopt;
}

// The arguments OPM112 and OPM113 read, of the calls a site's settings can be.
void ReadCalledArguments(const python::Tracer& tracer, ProfilerCallSite& site) {
  for (const Value* schedule : CallsTo(site.schedule, "schedule")) {
    site.schedule_calls.push_back(ScheduleCall{schedule->node, TraceArgument(tracer, schedule->node, "active", 1),
                                               TraceArgument(tracer, schedule->node, "repeat", 3)});
  }
  for (const Value* handler : CallsTo(site.on_trace_ready, "tensorboard_trace_handler")) {
    TraceHandlerCall call{handler->node, TraceArgument(tracer, handler->node, "dir_name", 0), std::nullopt};
    if (call.dir_name && call.dir_name->values.size() == 1) {
      call.fixed_directory = FixedText(tracer, call.dir_name->values.front(), 0);
    }
    site.trace_handlers.push_back(std::move(call));
  }
}

// What OPM201 and OPM202 read of the argparse model, for the file's own command lines.
void ReadArgparseFacts(const python::Tracer& tracer, ProfilerFacts& facts) {
  if (facts.launches.empty()) return;
  ArgparseFacts& argparse = facts.argparse;
  argparse.rejects_unknown_options = tracer.RejectsUnknownOptions();
  argparse.options = tracer.ArgparseOptions();
  if (!argparse.rejects_unknown_options || argparse.options.empty()) return;
  for (const Launch& launch : facts.launches) {
    for (const ShellWord& word : launch.arguments) {
      if (!word.known || !word.text.starts_with("--") || word.text == "--") continue;
      std::string name = word.text.substr(0, word.text.find('='));
      if (argparse.long_options.contains(name)) continue;
      std::optional<std::string> expanded = tracer.ExpandAbbreviation(name);
      argparse.long_options.emplace(std::move(name), std::move(expanded));
    }
  }
}

// The module's top-level statements in file order (a large file is parsed in parts).
std::vector<TSNode> TopLevelStatements(const SyntaxTree& tree) {
  std::vector<TSNode> statements;
  for (const TSNode root : tree.roots()) {
    for (std::uint32_t i = 0; i < ts_node_named_child_count(root); ++i)
      statements.push_back(ts_node_named_child(root, i));
  }
  return statements;
}

// Where a top-level import of this module imports torch_npu's transfer_to_npu patch, if one does.
std::optional<std::uint32_t> PatchImportedAt(const python::PythonModule& module) {
  const SyntaxTree& tree = module.tree();
  for (const TSNode statement : TopLevelStatements(tree)) {
    const std::string_view text = tree.Text(statement);
    const std::string_view type = ts_node_type(statement);
    if ((type == "import_statement" || type == "import_from_statement") &&
        text.find("transfer_to_npu") != std::string_view::npos && text.find("torch_npu") != std::string_view::npos) {
      return ts_node_start_byte(statement);
    }
  }
  return std::nullopt;
}

// `from torch.profiler import profile` (or `... as P`) at the top level, before `at`: the name is
// bound to PyTorch's own profile, which transfer_to_npu's later patch of torch.profiler does not
// change.
bool BoundBefore(const python::PythonModule& module, std::string_view local, std::uint32_t at) {
  const SyntaxTree& tree = module.tree();
  for (const TSNode statement : TopLevelStatements(tree)) {
    if (ts_node_start_byte(statement) >= at) break;
    if (std::string_view(ts_node_type(statement)) != "import_from_statement") continue;
    const TSNode from = ts_node_child_by_field_name(statement, "module_name", 11);
    if (ts_node_is_null(from) || tree.Text(from) != "torch.profiler") continue;
    for (std::uint32_t j = 0; j < ts_node_named_child_count(statement); ++j) {
      const TSNode name = ts_node_named_child(statement, j);
      const std::string_view kind = ts_node_type(name);
      if (kind == "dotted_name" && tree.Text(name) == local && local == "profile") return true;
      if (kind == "aliased_import") {
        const TSNode original = ts_node_child_by_field_name(name, "name", 4);
        const TSNode alias = ts_node_child_by_field_name(name, "alias", 5);
        if (!ts_node_is_null(alias) && tree.Text(alias) == local && tree.Text(original) == "profile") return true;
      }
    }
  }
  return false;
}

// Which accelerator the file puts its work on, from the calls that name one: torch.device("npu:0"),
// torch.npu.set_device / torch_npu.npu.set_device, x.npu(), x.to("npu") (and the same for CUDA).
void ReadDeviceFacts(const python::Tracer& tracer, ProfilerFacts& facts) {
  const auto note = [&](std::string_view device) {
    if (device.starts_with("npu")) facts.selects_npu_device = true;
    if (device.starts_with("cuda")) facts.selects_cuda_device = true;
  };
  const auto note_argument = [&](TSNode call, std::string_view keyword) {
    auto argument = tracer.FindArgument(call, keyword, 0);
    if (!argument) return;
    for (const Value& value : argument->values) {
      if (value.kind == ValueKind::kString) note(value.text);
    }
  };
  for (TSNode call : tracer.module().CallsMaybeTo({"device", "set_device", "npu", "cuda", "to"})) {
    const std::optional<std::string> callee = tracer.CalleeName(call);
    const TSNode function = ts_node_child_by_field_name(call, "function", 8);
    const TSNode attribute =
        ts_node_is_null(function) ? TSNode{} : ts_node_child_by_field_name(function, "attribute", 9);
    const std::string_view method =
        ts_node_is_null(attribute) ? std::string_view() : tracer.module().tree().Text(attribute);
    const TSNode arguments = ts_node_child_by_field_name(call, "arguments", 9);
    const bool no_arguments = ts_node_is_null(arguments) || ts_node_named_child_count(arguments) == 0;
    if (callee && *callee == "torch.device") {
      note_argument(call, "type");
    } else if (callee && EndsWith(*callee, "npu.set_device")) {
      facts.selects_npu_device = true;
    } else if (callee && EndsWith(*callee, "cuda.set_device")) {
      facts.selects_cuda_device = true;
    } else if ((method == "npu" || method == "cuda") && no_arguments) {
      note(method);
    } else if (method == "to") {
      note_argument(call, "device");
    }
  }
}

}  // namespace

namespace {

// The calls that may build a profiler or start the dynamic one: what the facts trace.
std::vector<TSNode> ProfilerCandidates(const python::PythonModule& module) {
  return module.CallsMaybeTo({"profile", "_KinetoProfile", "analyse", "init", "enable_profiler_in_child_thread"});
}

}  // namespace

namespace {

// `torch_npu.profiler.profile.enable_profiler_in_child_thread(record_shapes, profile_memory,
// with_stack, with_flops, with_modules)` profiles the calling thread under a running profiler. It
// takes with_flops, and builds a default _ExperimentalConfig (torch_npu's current release
// branches): mstx and msprof_tx are off whatever the parent profiler has. Only what it decides
// is a setting of its site; the rest (activities, level, export, trace handler) is the parent's,
// checked at the parent's call.
void ReadChildThreadCall(const python::Tracer& tracer, TSNode call, const std::string& callee, ProfilerFacts& facts) {
  ProfilerCallSite site;
  site.call = call;
  site.callee = callee;
  site.api = ProfilerApi::kTorchNpuProfile;
  ProfilerSettingSpec with_flops = *FindProfilerSetting("with_flops");
  with_flops.python_position = 3;
  site.with_flops = ReadSetting(tracer, call, with_flops);
  for (Setting ProfilerCallSite::*member : {&ProfilerCallSite::mstx, &ProfilerCallSite::msprof_tx}) {
    Setting& setting = site.*member;
    setting.name = member == &ProfilerCallSite::mstx ? "mstx" : "msprof_tx";
    setting.call = call;
    setting.anchor = call;
    Value off;
    off.kind = ValueKind::kBool;
    off.boolean = false;
    off.node = call;
    off.chain.push_back(
        {"", std::nullopt,
         "enable_profiler_in_child_thread(...) builds a default _ExperimentalConfig: `" + setting.name + "` is False"});
    setting.values = {std::move(off)};
  }
  facts.sites.push_back(std::move(site));
}

// The facts of one call to `callee` (a profiler, the dynamic profiler's init, or the offline
// analyse), traced by `tracer` (along one path of the call's callee, when it has several).
void ReadCall(const python::Tracer& tracer, TSNode call, const std::string& callee, ProfilerFacts& facts) {
  const python::PythonModule& module = tracer.module();
  if (EndsWith(callee, "dynamic_profile.init") && callee.starts_with("torch_npu")) {
    DynamicProfilerInit init;
    init.call = call;
    if (auto directory = tracer.FindArgument(call, "path", 0)) init.directory = std::move(directory->values);
    facts.dynamic_inits.push_back(std::move(init));
    return;
  }
  if (callee.starts_with("torch_npu.profiler") && EndsWith(callee, "profile.enable_profiler_in_child_thread")) {
    ReadChildThreadCall(tracer, call, callee, facts);
    return;
  }
  ProfilerCallSite site;
  site.call = call;
  site.callee = callee;
  if (callee == "torch_npu.profiler.profile" || callee == "torch_npu.profiler.profiler.profile") {
    site.api = ProfilerApi::kTorchNpuProfile;
  } else if (EndsWith(callee, "_KinetoProfile") && callee.starts_with("torch_npu")) {
    site.api = ProfilerApi::kKinetoProfile;
  } else if (callee == "torch.profiler.profile" || callee == "torch.autograd.profiler.profile") {
    facts.transfers_to_npu = facts.transfers_to_npu || tracer.ImportsPatch();
    // transfer_to_npu makes torch.profiler.profile torch_npu's, process-wide; but a name bound
    // to it by `from torch.profiler import profile` before this module imports the patch keeps
    // PyTorch's own.
    const TSNode function = ts_node_child_by_field_name(call, "function", 8);
    const std::optional<std::uint32_t> patched_at = facts.transfers_to_npu ? PatchImportedAt(module) : std::nullopt;
    site.bound_before_patch = patched_at && !ts_node_is_null(function) &&
                              std::string_view(ts_node_type(function)) == "identifier" &&
                              BoundBefore(module, module.tree().Text(function), *patched_at);
    site.api = callee == "torch.profiler.profile" && facts.transfers_to_npu && !site.bound_before_patch
                   ? ProfilerApi::kTorchNpuProfile
                   : ProfilerApi::kTorchProfile;
  } else {
    if (callee.starts_with("torch_npu.profiler") && EndsWith(callee, ".analyse")) {
      facts.analyses_offline = true;
      facts.offline_analyses.push_back({call, callee, TraceArgument(tracer, call, "export_type", 2)});
    }
    return;
  }
  ReadSettings(tracer, call, site);
  ReadCalledArguments(tracer, site);
  if (site.api == ProfilerApi::kTorchProfile) {
    // OPM110's exemption asks whether the call can collect CUDA on some run, branches an argparse
    // default decides included.
    site.activities_on_some_path = ReadSetting(tracer.OnEveryPath(), call, *FindProfilerSetting("activities")).values;
  }
  facts.sites.push_back(std::move(site));
}

}  // namespace

bool NeedsProgram(const python::PythonModule& module, const std::vector<Launch>& launches) {
  return !launches.empty() || !ProfilerCandidates(module).empty();
}

ProfilerFacts ReadProfilerFacts(std::unique_ptr<python::PythonModule> module_ptr,
                                std::unique_ptr<python::ModuleSet> program, std::vector<Launch> launches,
                                std::shared_ptr<const std::vector<python::ScriptInvocation>> inherited) {
  ProfilerFacts facts;
  if (!launches.empty()) {  // its own command lines first, then the inherited ones
    std::vector<python::ScriptInvocation> invocations = InvocationsOf(launches);
    if (inherited != nullptr) invocations.insert(invocations.end(), inherited->begin(), inherited->end());
    inherited = std::make_shared<const std::vector<python::ScriptInvocation>>(std::move(invocations));
  }
  facts.launches = std::move(launches);
  const python::PythonModule& module = *module_ptr;
  const python::Tracer tracer(module, program.get(), std::move(inherited));
  // Only a torch.profiler call asks whether the program imports transfer_to_npu (that reads the
  // import closure).
  facts.transfers_to_npu = false;
  for (const auto& [local, imported] : module.imports()) {
    facts.imports_torch_npu = facts.imports_torch_npu || imported == "torch_npu" || imported.starts_with("torch_npu.");
  }
  const std::vector<TSNode> candidates = ProfilerCandidates(module);
  for (TSNode call : candidates) {
    // One site per callee the call can have: an alias assigned on two branches (`prof =
    // torch_npu.profiler` / `prof = torch.profiler`) makes two paths, each traced along its own.
    for (const python::Tracer::Callee& callee : tracer.Callees(call)) {
      std::optional<python::Tracer> along;
      if (callee.path) along.emplace(tracer.Along(*callee.path));
      ReadCall(along ? *along : tracer, call, callee.name, facts);
    }
  }
  ReadArgparseFacts(tracer, facts);
  if (std::any_of(facts.sites.begin(), facts.sites.end(),
                  [](const ProfilerCallSite& site) { return site.api == ProfilerApi::kTorchProfile; })) {
    ReadDeviceFacts(tracer, facts);  // only OPM110 asks, of a torch.profiler call
  }
  facts.module = std::move(module_ptr);
  facts.program = std::move(program);
  return facts;
}

}  // namespace opmfu::linter
