#include "lint/python_stage.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <tuple>

#include "common/text.h"
#include "lint/dynamic_config_stage.h"
#include "lint/suppression_stage.h"
#include "linter/profiler_settings.h"
#include "linter/torch_npu.h"
#include "python/project.h"
#include "python/syntax.h"
#include "python/tracer.h"
#include "rules/lint_checks.h"
#include "rules/meta_checks.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

namespace {

// The modules an input's tracing may follow, read now (tracing never reads a file): its imports,
// and its entry script with that script's imports (where its callers are).
std::unique_ptr<python::ModuleSet> ReadProgramModules(const ProgramPaths& paths, const std::string& source,
                                                      const LintOptions& options) {
  python::ModuleLocator locator({paths.entry.parent_path(), paths.root}, paths.root, FilesOf(options),
                                options.module_cache);
  std::vector<python::SourceFile> files = python::ReadProgram(locator, paths.self, source, paths.entry);
  return std::make_unique<python::ModuleSet>(std::move(locator), paths.self, std::move(files),
                                             linter::TorchNpuKnowledge());
}

// One traced value as torch_npu records it in profiler_info_<rank>.json; nullopt when it cannot
// be told. Lists are sorted and joined with ",".
std::optional<std::string> RecordedSpelling(SettingId setting, const python::Value& value) {
  using python::ValueKind;
  const auto item = [&](const python::Value& v) -> std::optional<std::string> {
    if (v.kind == ValueKind::kEnum) return setting == SettingId::kExportType ? AsciiLower(v.text) : v.text;
    if (v.kind == ValueKind::kString) return setting == SettingId::kExportType ? AsciiLower(v.text) : v.text;
    return std::nullopt;
  };
  switch (value.kind) {
    case ValueKind::kBool:
      return value.boolean ? "true" : "false";
    case ValueKind::kNone:
      if (setting == SettingId::kActivities) return "CPU,NPU";  // torch_npu's default set
      return std::nullopt;
    case ValueKind::kEnum:
    case ValueKind::kString:
      return item(value);
    case ValueKind::kSequence: {
      if (setting == SettingId::kActivities && value.items.empty()) return "CPU,NPU";  // [] is "not given"
      std::vector<std::string> items;
      for (const python::Value& element : value.items) {
        auto spelled = item(element);
        if (!spelled) return std::nullopt;
        if (std::find(items.begin(), items.end(), *spelled) == items.end()) items.push_back(std::move(*spelled));
      }
      std::sort(items.begin(), items.end());
      std::string joined;
      for (const std::string& text : items) joined += (joined.empty() ? "" : ",") + text;
      return joined;
    }
    default:
      return std::nullopt;
  }
}

TracedSite TraceSite(const linter::ProfilerCallSite& site, const python::PythonModule& module) {
  TracedSite traced;
  traced.file = module.path();
  traced.line = static_cast<int>(module.tree().RangeOf(site.call).start.line);
  traced.callee = site.callee;
  // The settings profiler_info_<rank>.json records, in the table's listing order.
  std::vector<const linter::ProfilerSettingSpec*> recorded;
  for (const linter::ProfilerSettingSpec& spec : linter::ProfilerSettings()) {
    if (spec.Shared().run_listing > 0 && spec.site != nullptr) recorded.push_back(&spec);
  }
  std::sort(recorded.begin(), recorded.end(),
            [](const auto* a, const auto* b) { return a->Shared().run_listing < b->Shared().run_listing; });
  for (const linter::ProfilerSettingSpec* spec : recorded) {
    const linter::Setting* setting = &(site.*spec->site);
    TracedSetting out;
    out.id = spec->id;
    out.name = setting->name;
    for (const python::Value& value : setting->values) {
      auto spelled = RecordedSpelling(spec->id, value);
      if (!spelled) {
        out.unknown = true;
      } else if (std::find(out.values.begin(), out.values.end(), *spelled) == out.values.end()) {
        out.values.push_back(std::move(*spelled));
      }
    }
    traced.settings.push_back(std::move(out));
  }
  return traced;
}

// How many *_ascend_pt directories each fixed trace directory already holds (OPM112 says so).
// Relative directories are taken from the script's directory, where runs usually start.
void CountExistingRuns(const FileReader& files, linter::ProfilerFacts& facts, const std::string& path) {
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  for (linter::ProfilerCallSite& site : facts.sites) {
    for (linter::TraceHandlerCall& handler : site.trace_handlers) {
      if (!handler.fixed_directory) continue;
      const std::filesystem::path fixed(*handler.fixed_directory);
      const std::string directory = (fixed.is_absolute() ? fixed : base / fixed).string();
      if (files.Stat(directory) != FileKind::kDirectory) continue;
      auto entries = files.ListDirectory(directory);
      if (!entries.ok()) continue;  // unreadable: the finding stands without the count
      handler.existing_runs = static_cast<std::size_t>(std::count_if(
          entries->begin(), entries->end(), [](const DirectoryEntry& e) { return e.name.ends_with("_ascend_pt"); }));
    }
  }
}

// The dp.init(dir) calls of a file: the configs they read, or the meta rules (OPM004) where none
// can be found.
void FindInitConfigs(const FileReader& files, const linter::ProfilerFacts& facts, const std::string& path,
                     const Effective& effective, FileOutcome& outcome, std::vector<Diagnostic>& diagnostics) {
  const SyntaxTree& tree = facts.module->tree();
  for (const linter::DynamicProfilerInit& init : facts.dynamic_inits) {
    for (const python::Value& directory : init.directory) {
      rules::UnfoundDynamicConfig unfound;
      if (directory.kind == python::ValueKind::kString) {
        if (auto found = FindDynamicConfig(files, directory.text, path)) {
          outcome.dynamic_configs.push_back(std::move(*found));
          continue;
        }
        unfound.directory = directory.text;
      } else {
        unfound.unknown_reason =
            directory.kind == python::ValueKind::kUnknown ? directory.unknown_reason : directory.Describe();
      }
      unfound.file = path;
      unfound.range = tree.RangeOf(init.call);
      unfound.snippet = std::string(tree.LineOf(ts_node_start_byte(init.call)));
      unfound.chain = directory.chain;
      for (Diagnostic& d : rules::CheckMeta(unfound, effective)) diagnostics.push_back(std::move(d));
    }
  }
}

// Syntax nested deeper than this is not code anyone writes (CPython refuses 200 nested brackets):
// an attack or a generator's output. The tracer's own questions stop at python's kMaxDepth steps;
// this says so once, at the first node past the limit (docs/reliability.md, "Limits").
constexpr int kMaxPythonNesting = 1000;

std::optional<TSNode> FirstNodeTooDeep(const SyntaxTree& tree) {
  for (TSNode root : tree.roots()) {
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    struct CursorGuard {
      TSTreeCursor* cursor;
      ~CursorGuard() { ts_tree_cursor_delete(cursor); }
    } guard{&cursor};
    int depth = 0;
    bool more = true;
    while (more) {
      if (depth > kMaxPythonNesting) return ts_tree_cursor_current_node(&cursor);
      if (ts_tree_cursor_goto_first_child(&cursor)) {
        ++depth;
        continue;
      }
      while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          more = false;
          break;
        }
        --depth;
      }
    }
  }
  return std::nullopt;
}

// A file found in a directory walk that is too large to read whole (a generated `_pb2.py`): read
// in pieces, one that mentions no profiler is skipped (said under --verbose), one that does is a
// finding on that file (OPM005); the run goes on. False: another read failure, the run's error.
bool PastTheSizeLimit(const Input& input, const LintOptions& options, const Error& failed, const Effective& effective,
                      FileOutcome& outcome) {
  const auto limit = InputSizeLimit();
  if (!limit.ok()) return false;
  const auto scan = FilesOf(options).Scan(input.path, kMentionsOfTheProfiler);
  if (!scan.ok() || scan->size <= *limit) return false;
  if (!scan->mentions) {
    outcome.skipped = true;
    outcome.skipped_because = input.path + ": " + DescribeBytes(scan->size) + ", above the input size limit of " +
                              DescribeBytes(*limit) + ", and it mentions no profiler or torch_npu: skipped unread";
    return true;
  }
  LintedFile linted;
  linted.path = input.path;
  linted.parsed_cleanly = false;  // not read: nothing to fix
  const std::string& message = failed.message;
  const std::string cause = message.starts_with(input.path + ": ") ? message.substr(input.path.size() + 2) : message;
  linted.diagnostics =
      rules::CheckMeta(rules::PastALimit{input.path, SourceRange{{1, 1}, {1, 1}}, "", cause}, effective);
  outcome.linted = std::move(linted);
  return true;
}

}  // namespace

FileOutcome LintPython(Input& input, const LintOptions& options, const Effective& effective) {
  FileOutcome outcome;
  std::string source;
  if (input.cannot_matter) {
    outcome.skipped = true;
    return outcome;
  }
  if (input.from_stdin) {
    source = *options.stdin_source;
    if (source.find('\0') != std::string::npos) {
      outcome.error = Error::Input(input.path + ": binary input (it contains NUL bytes)");
      return outcome;
    }
  } else if (input.source) {
    source = std::move(*input.source);
  } else {
    auto read = FilesOf(options).ReadFile(input.path);
    if (!read.ok()) {
      if (input.from_directory && PastTheSizeLimit(input, options, read.error(), effective, outcome)) return outcome;
      outcome.error = read.take_error();
      return outcome;
    }
    source = std::move(*read);
  }
  if (input.from_directory && !CanMatter(source)) {
    outcome.skipped = true;
    return outcome;
  }
  // PEP 263: a file that declares another encoding (`# -*- coding: gbk -*-`) is what Python
  // compiles, so it is linted on its ASCII-compatible text (each other character one U+FFFD, by
  // the encoding's byte structure); its fixes are dropped, since an edit would be written in UTF-8
  // into a file of another encoding.
  bool decoded = false;
  if (!IsValidUtf8(source)) {
    const std::optional<std::string> declared = DeclaredPythonEncoding(source);
    if (!declared || *declared == "utf-8" || *declared == "utf8" || *declared == "utf-8-sig") {
      outcome.error = Error::Input(input.path +
                                   ": not valid UTF-8 (Python source must be, unless a coding line "
                                   "declares its encoding: PEP 263)");
      return outcome;
    }
    std::string why;
    std::optional<std::string> utf8 = AsciiCompatibleText(source, *declared, why);
    if (!utf8) {
      outcome.error = Error::Input(input.path + ": " + why + " (the encoding its coding line declares)");
      return outcome;
    }
    source = std::move(*utf8);
    decoded = true;
  }
  auto parsed = python::PythonModule::Parse(input.path, source, linter::TorchNpuKnowledge());
  if (!parsed.ok()) {
    outcome.error = parsed.take_error();
    return outcome;
  }
  // Where its program lies is resolved now, so a path that cannot be is this file's error; the
  // program itself is read only when the facts have something to trace.
  std::optional<ProgramPaths> program_paths;
  if (!input.from_stdin) {
    auto resolved = ResolveProgramPaths(input, options);
    if (!resolved.ok()) {
      outcome.error = resolved.take_error();
      return outcome;
    }
    program_paths = std::move(*resolved);
  }
  auto module = std::make_unique<python::PythonModule>(std::move(*parsed));
  LintedFile linted;
  linted.path = input.path;
  linted.parsed_cleanly = !python::FirstSyntaxError(module->tree());
  if (!linted.parsed_cleanly) {
    linted.diagnostics = rules::CheckMeta(rules::PythonParse{input.path, module->tree()}, effective);
  }
  std::unique_ptr<python::ModuleSet> program;
  const bool needs_program = linter::NeedsProgram(*module, input.launches);
  if (needs_program) {
    if (const std::optional<TSNode> deep = FirstNodeTooDeep(module->tree())) {
      const SyntaxTree& tree = module->tree();
      const std::string cause = "the syntax is nested deeper than " + std::to_string(kMaxPythonNesting) +
                                " levels here; values are traced " + std::to_string(python::kMaxTraceDepth) +
                                " steps deep at most";
      for (Diagnostic& d :
           rules::CheckMeta(rules::PastALimit{input.path, tree.RangeOf(*deep),
                                              std::string(tree.LineOf(ts_node_start_byte(*deep))), cause},
                            effective)) {
        linted.diagnostics.push_back(std::move(d));
      }
    }
  }
  if (program_paths && needs_program) {
    program = ReadProgramModules(*program_paths, module->tree().source(), options);
  }
  linter::ProfilerFacts facts =
      linter::ReadProfilerFacts(std::move(module), std::move(program), input.launches, input.inherited);
  outcome.has_profiler_call = !facts.sites.empty() || !facts.dynamic_inits.empty() || !facts.offline_analyses.empty();
  if (options.keep_settings) {
    for (const linter::ProfilerCallSite& site : facts.sites) {
      if (site.api == linter::ProfilerApi::kTorchNpuProfile) outcome.sites.push_back(TraceSite(site, *facts.module));
    }
  }
  CountExistingRuns(FilesOf(options), facts, input.path);
  FindInitConfigs(FilesOf(options), facts, input.path, effective, outcome, linted.diagnostics);
  // Two calls that share one config or mapping see the same setting at the same place: one finding.
  std::set<std::tuple<std::string, int, int, std::string>> reported;
  for (Diagnostic& d : rules::CheckProfilerFacts(facts, effective)) {
    if (!reported.emplace(d.file, d.range.start.line, d.range.start.column, d.rule_id).second) continue;
    (d.file == input.path ? linted.diagnostics : outcome.elsewhere).push_back(std::move(d));
  }
  linter::Suppressions suppressions = ReadFileSuppressions(facts.module->tree(), facts.module->comments());
  Suppress(suppressions, input.path, effective, linted.diagnostics);
  if (decoded) {
    for (Diagnostic& d : linted.diagnostics) d.fix.reset();
  }
  if (options.keep_sources) linted.source = facts.module->tree().source();
  outcome.linted = std::move(linted);
  return outcome;
}

}  // namespace opmfu::lint
