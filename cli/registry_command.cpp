// `opmfu registry list|check|add`: thin glue between the flags and the registry and rules libraries.

#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_support.h"
#include "common/config.h"
#include "common/diagnostic_format.h"
#include "common/file_io.h"
#include "common/text.h"
#include "registry/edit.h"
#include "registry/listing.h"
#include "registry/locate.h"
#include "rules/registry_checks.h"

namespace opmfu::cli {
namespace {

struct LocateFlags {
  std::string formulas;
  std::string python;

  void Add(CLI::App& command) {
    command.add_option("--formulas", formulas,
                       "the _flops_formulas.py to use (else $OPMFU_FORMULAS, else found "
                       "on the sys.path of --python)");
    command.add_option("--python", python,
                       "interpreter whose sys.path holds torch_npu (else $OPMFU_PYTHON, "
                       "else python3); only asked for sys.path");
  }

  Result<registry::LocatedFormulas> Locate() const {
    registry::LocateOptions options;
    if (!formulas.empty()) options.formulas_flag = formulas;
    if (!python.empty()) options.python_flag = python;
    options.formulas_env = GetEnv("OPMFU_FORMULAS");
    options.python_env = GetEnv("OPMFU_PYTHON");
    return registry::LocateFormulas(options);
  }
};

// ---- list -------------------------------------------------------------------------------------

struct ListFlags {
  LocateFlags locate;
  std::string format = "table";
  std::string output;
};

int RunList(const ListFlags& flags) {
  auto format = registry::ParseListFormat(flags.format);
  if (!format.ok()) return ReportError(format.error());
  auto located = flags.locate.Locate();
  if (!located.ok()) return ReportError(located.error());
  if (Status safe = RefuseOutputOverInput(flags.output, {located->path}); !safe.ok()) return ReportError(safe.error());
  auto file = registry::LoadFormulaFile(located->path, registry::ParseDepth::kSignatures);
  if (!file.ok()) return ReportError(file.error());

  if (Status written = EmitOutput(registry::RenderListing(*file, *format), flags.output); !written.ok()) {
    return ReportError(written.error());
  }
  if (file->registrations.empty()) {
    std::cerr << file->path << ": no @register_npu_flop registrations found\n";
  }
  if (!file->parsed_cleanly()) {
    const SourcePosition at = file->tree.PositionAt(ts_node_start_byte(*file->tree.FirstError()));
    ReportWarning(file->path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                  ": syntax error; the listing may be incomplete (run `opmfu registry check`)");
    return kExitFindings;
  }
  return kExitOk;
}

// ---- check ------------------------------------------------------------------------------------

struct CheckFlags {
  LocateFlags locate;
  DiagnosticFlags diagnostics;
  std::vector<std::string> files;
  bool fix = false;
  bool diff = false;
};

int RunCheck(const CheckFlags& flags) {
  const std::vector<RuleDescriptor> rules = rules::RuleDescriptors(rules::RuleScope::kRegistry);
  auto parsed = flags.diagnostics.Parse(rules);
  if (!parsed.ok()) return ReportError(parsed.error());
  const OutputFormat format = parsed->format;
  const std::optional<Severity> fail_on_flag = parsed->fail_on;

  std::vector<std::string> files = flags.files;
  if (files.empty()) {
    auto located = flags.locate.Locate();
    if (!located.ok()) return ReportError(located.error());
    files.push_back(located->path.string());
  }
  const std::vector<std::filesystem::path> inputs(files.begin(), files.end());
  if (Status safe = RefuseOutputOverInput(flags.diagnostics.output, inputs); !safe.ok()) {
    return ReportError(safe.error());
  }

  int exit_code = kExitOk;
  std::vector<Diagnostic> diagnostics;
  std::string diff;
  Severity fail_on = fail_on_flag.value_or(Severity::kWarning);
  for (const std::string& path : files) {
    Config config;
    if (!flags.diagnostics.no_config) {
      auto loaded = ConfigFor(path, rules);
      if (!loaded.ok()) return ReportError(loaded.error());
      config = std::move(*loaded);
      if (config.fail_on && !fail_on_flag) fail_on = *config.fail_on;
    }
    auto file = registry::LoadFormulaFile(path);
    if (!file.ok()) {
      exit_code = ReportError(file.error());  // the other files are still checked
      continue;
    }
    std::vector<Diagnostic> found =
        rules::CheckFormulaFile(*file, EffectiveRules(config, parsed->overrides, rules, path));
    if (flags.fix || flags.diff) {
      auto remaining = ApplySafeFixes(file->path, file->tree.source(), file->parsed_cleanly(), std::move(found),
                                      flags.fix && !flags.diff, diff);
      if (!remaining.ok()) return ReportError(remaining.error());
      found = std::move(*remaining);
    }
    diagnostics.insert(diagnostics.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }

  if (flags.diff) {
    // --diff previews the fixes instead of listing findings (ruff's convention): exit 1 if any.
    if (Status written = EmitOutput(diff, flags.diagnostics.output); !written.ok()) return ReportError(written.error());
    if (exit_code != kExitOk) return exit_code;
    return diff.empty() ? kExitOk : kExitFindings;
  }
  FormatOptions options;
  options.tool_version = OPMFU_VERSION;
  options.rules = rules;
  options.color = UseColor(flags.diagnostics.color, !flags.diagnostics.output.empty());
  if (Status written = EmitOutput(FormatDiagnostics(diagnostics, format, options), flags.diagnostics.output);
      !written.ok()) {
    return ReportError(written.error());
  }
  const DiagnosticCounts counts = CountDiagnostics(diagnostics);
  if (format == OutputFormat::kFull || format == OutputFormat::kConcise || format == OutputFormat::kGcc) {
    std::cerr << SummaryLine(counts) << "\n";
  }
  if (exit_code != kExitOk) return exit_code;
  const bool failed =
      std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.severity >= fail_on; });
  return failed ? kExitFindings : kExitOk;
}

// ---- add --------------------------------------------------------------------------------------

struct AddFlags {
  LocateFlags locate;
  std::string target;
  std::string from;
  bool write = false;
  std::string color = "auto";
  std::string format = "text";
};

// docs/schema/registry-add.schema.json: what was (or would be) added, or why it was refused.
void PrintAddJson(const AddFlags& flags, const std::string& formulas_path, const std::string& function_name,
                  int decorator_line, const std::string& diff, const std::string& backup,
                  const std::vector<Diagnostic>& findings) {
  FormatOptions options;
  options.tool_version = OPMFU_VERSION;
  const nlohmann::ordered_json answer{
      {"target", flags.target},
      {"function", function_name},
      {"formulas_file", formulas_path},
      {"decorator_line", decorator_line},
      {"refused", !findings.empty()},
      {"findings", nlohmann::ordered_json::parse(FormatDiagnostics(findings, OutputFormat::kJson, options))},
      {"diff", findings.empty() ? nlohmann::ordered_json(diff) : nlohmann::ordered_json(nullptr)},
      {"written", !backup.empty()},
      {"backup", backup.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(backup)},
  };
  std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// Findings on the inserted function, moved back to where the user wrote it (the --from file).
std::vector<Diagnostic> FindingsOnAddition(const registry::FormulaFile& edited, const registry::PlannedAddition& plan,
                                           const std::string& from_path) {
  const std::vector<RuleDescriptor> rules = rules::RuleDescriptors(rules::RuleScope::kRegistry);
  auto config = ConfigFor(edited.path, rules);
  const auto effective = EffectiveRules(config.ok() ? *config : Config{}, {}, rules, edited.path);
  std::vector<Diagnostic> mine;
  for (Diagnostic& d : rules::CheckFormulaFile(edited, effective)) {
    const int line = d.range.start.line;
    if (line < plan.decorator_line || line >= plan.decorator_line + plan.inserted_line_count) continue;
    if (d.severity == Severity::kInfo) continue;
    const int shift = plan.source_def_line - plan.function_line;
    if (line == plan.decorator_line) {
      d.notes.push_back({"", std::nullopt, "on the decorator opmfu would add: " + d.snippet});
      d.range = {{plan.source_def_line, 1}, {plan.source_def_line, 2}};
      d.snippet.clear();
    } else {
      d.range.start.line += shift;
      d.range.end.line += shift;
    }
    for (Note& note : d.notes) {
      if (note.file != edited.path || !note.position) continue;
      note.file = from_path;
      note.position->line += shift;
    }
    d.file = from_path;
    d.fix.reset();  // its byte offsets point into the edited formulas file
    mine.push_back(std::move(d));
  }
  return mine;
}

int RunAdd(const AddFlags& flags) {
  auto located = flags.locate.Locate();
  if (!located.ok()) return ReportError(located.error());
  auto formulas = registry::LoadFormulaFile(located->path);
  if (!formulas.ok()) return ReportError(formulas.error());
  auto candidate = registry::LoadFormulaFile(flags.from);
  if (!candidate.ok()) return ReportError(candidate.error());
  auto plan = registry::PlanAddition(*formulas, *candidate, flags.target);
  if (!plan.ok()) return ReportError(plan.error());

  auto edited = registry::ParseFormulaFile(formulas->path, plan->new_source);
  if (!edited.ok()) return ReportError(edited.error());
  const std::vector<Diagnostic> findings = FindingsOnAddition(*edited, *plan, flags.from);
  const bool json = flags.format == "json";
  const std::string diff = UnifiedDiff(formulas->path, formulas->tree.source(), {plan->edit});
  if (json && !findings.empty()) {
    std::cerr << "opmfu: error: refusing to add `" << plan->function_name
              << "`: it fails `opmfu registry check` (a wrong formula is worse than none)\n";
    PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, "", findings);
    return kExitFindings;
  }
  if (!findings.empty()) {
    std::cerr << "opmfu: error: refusing to add `" << plan->function_name
              << "`: it fails `opmfu registry check` (a wrong formula is worse than none)\n\n";
    FormatOptions options;
    options.tool_version = OPMFU_VERSION;
    options.color = UseColor(flags.color, false);
    std::cerr << FormatDiagnostics(findings, OutputFormat::kFull, options);
    return kExitFindings;
  }

  if (!flags.write) {
    if (json) {
      PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, "", findings);
      return kExitOk;
    }
    std::cout << diff;
    std::cerr << "Preview only: run again with --write to change " << formulas->path << " (a .bak copy is kept).\n";
    return kExitOk;
  }
  // Refuse to overwrite edits made since we read the file.
  auto current = ReadTextFile(located->path);
  if (!current.ok()) return ReportError(current.error());
  if (*current != formulas->tree.source()) {
    return ReportError(Error::Input(formulas->path + ": changed while opmfu was working; nothing was written"));
  }
  const std::string backup = located->path.string() + ".bak";
  if (Status saved = CopyFileAtomically(located->path, backup); !saved.ok()) return ReportError(saved.error());
  if (Status written = WriteFileAtomically(located->path, plan->new_source); !written.ok()) {
    return ReportError(written.error());
  }
  std::cerr << "Added `" << plan->function_name << "` as target '" << flags.target << "' at " << formulas->path << ":"
            << plan->decorator_line << " (backup: " << backup << ").\n";
  if (json) PrintAddJson(flags, formulas->path, plan->function_name, plan->decorator_line, diff, backup, findings);
  return kExitOk;
}

struct VerifyFlags {
  MfuSourceFlags source;
  std::string target;
  std::string op_name;
  std::optional<std::int64_t> expect;
  std::string format = "text";
};

// docs/schema/registry-verify.schema.json.
void PrintVerifyJson(const std::string& op, const std::string& path, const nlohmann::ordered_json& ranks,
                     const std::map<std::int64_t, std::size_t>& values, std::optional<std::int64_t> expect,
                     std::size_t reached_kernel, const std::string& verdict, std::size_t failed_ranks,
                     std::vector<std::string> ops_with_records) {
  std::size_t records = 0;
  nlohmann::ordered_json value_list = nlohmann::ordered_json::array();
  for (const auto& [flops, count] : values) {
    records += count;
    value_list.push_back({{"flops", flops}, {"records", count}});
  }
  nlohmann::ordered_json matching = nullptr;
  if (expect) matching = values.contains(*expect) ? values.at(*expect) : 0;
  const nlohmann::ordered_json answer{
      {"op_name", op},
      {"path", path},
      {"verdict", verdict},
      {"records", records},
      {"reached_kernel", reached_kernel},
      {"values", value_list},
      {"expected", expect ? nlohmann::ordered_json(*expect) : nlohmann::ordered_json(nullptr)},
      {"matching", matching},
      {"failed_ranks", failed_ranks},
      {"ops_with_records", ops_with_records},
      {"ranks", ranks},
  };
  std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// After a formula is registered and data collected: did its records land, with the right value?
int RunVerify(const VerifyFlags& flags) {
  // torch_npu's op name: an explicit op_name, else the part of the target after the first ':'.
  std::string op = flags.op_name;
  if (op.empty()) {
    const std::size_t colon = flags.target.find(':');
    op = colon == std::string::npos ? flags.target : flags.target.substr(colon + 1);
  }
  if (op.empty()) return ReportError(Error::Usage("name the registration: --target module:attr or --op-name NAME"));
  auto data = flags.source.Load();
  if (!data.ok()) return ReportError(data.error());
  ReportFailedRanks(data->analysis, "not verified");
  const std::size_t failed = data->analysis.failed_ranks();

  // In JSON mode the text goes nowhere and the same facts are collected for the one document.
  const bool json = flags.format == "json";
  std::ostringstream discarded;
  std::ostream& out = json ? static_cast<std::ostream&>(discarded) : std::cout;
  nlohmann::ordered_json rank_objects = nlohmann::ordered_json::array();
  out << "registry verify: FLOPs records of `" << op << "` (messages \"<flops>-" << op << "\") under "
      << data->path.string() << "\n";
  std::map<std::int64_t, std::size_t> values;
  std::size_t records = 0;
  std::size_t charged = 0;
  std::map<std::string, std::size_t> other_ops;
  for (const engine::RankOutcome& rank : data->analysis.ranks) {
    const std::string who = "  rank " + std::to_string(rank.location.rank_id) + ": ";
    if (rank.failure) {
      out << who << "failed, not verified: " << engine::DescribeFailure(rank) << "\n";
      rank_objects.push_back(
          {{"rank", rank.location.rank_id}, {"status", "failed"}, {"error", engine::DescribeFailure(rank)}});
      continue;
    }
    if (!rank.analysis.coverage) {
      out << who << "no kernel data, not verified\n";
      rank_objects.push_back({{"rank", rank.location.rank_id}, {"status", "no kernel data"}, {"error", nullptr}});
      continue;
    }
    nlohmann::ordered_json rank_values_json = nlohmann::ordered_json::array();
    std::size_t rank_records = 0;
    std::size_t rank_charged = 0;
    std::string rank_values;
    for (const engine::RecordTally& tally : rank.analysis.coverage->records) {
      if (tally.op_name != op) {
        other_ops[tally.op_name] += tally.records;
        continue;
      }
      rank_records += tally.records;
      rank_charged += tally.charged;
      values[tally.flops] += tally.records;
      rank_values += " " + std::to_string(tally.flops) + " x" + std::to_string(tally.records);
      rank_values_json.push_back({{"flops", tally.flops}, {"records", tally.records}});
    }
    rank_objects.push_back({{"rank", rank.location.rank_id},
                            {"status", "verified"},
                            {"error", nullptr},
                            {"records", rank_records},
                            {"reached_kernel", rank_charged},
                            {"values", rank_values_json}});
    out << who << rank_records << " records" << (rank_values.empty() ? "" : ";" + rank_values) << "; " << rank_charged
        << " reached a kernel\n";
    records += rank_records;
    charged += rank_charged;
  }
  if (records == 0) {
    std::vector<std::string> names;
    for (const auto& [name, count] : other_ops) names.push_back(name);
    out << "verdict: no records for `" << op << "`" << DidYouMean(op, names)
        << ". The formula never ran: was the registration imported before the profiler entered RECORD, "
           "with_flops=True and MSTX on, and does the target name the function the model calls? "
        << (names.empty() ? std::string("No op has FLOPs records at all.")
                          : "Ops with records: " + Join(names, ", ") + ".")
        << (failed > 0 ? " " + std::to_string(failed) + " rank(s) failed first (above)." : std::string()) << "\n";
    if (json) {
      PrintVerifyJson(op, data->path.string(), rank_objects, values, flags.expect, 0, "no records", failed,
                      std::move(names));
    }
    return kExitFindings;
  }
  bool ok = true;
  if (flags.expect) {
    const std::size_t matching = values.contains(*flags.expect) ? values[*flags.expect] : 0;
    out << "  expected " << *flags.expect << ": " << matching << " of " << records << " records match";
    if (matching != records) {
      std::string others;
      for (const auto& [value, count] : values) {
        if (value != *flags.expect) others += " " + std::to_string(value) + " x" + std::to_string(count);
      }
      out << "; the others record" << others;
      ok = false;
    }
    out << "\n";
  }
  if (charged < records) {
    out << "  note: " << records - charged
        << " records reached no kernel (`opmfu report -d DIR` lists them with the reason)\n";
  }
  if (json) {
    PrintVerifyJson(op, data->path.string(), rank_objects, values, flags.expect, charged, ok ? "ok" : "differs", failed,
                    {});
  }
  out << "verdict: " << (ok ? "ok" : "the recorded FLOPs differ from the expected value")
      << (failed > 0 ? ", but incomplete: " + std::to_string(failed) + " rank(s) failed and were not verified"
                     : std::string())
      << "\n";
  return ok && data->analysis.clean() ? kExitOk : kExitFindings;
}

}  // namespace

void AddRegistryCommand(CLI::App& app, Action& action) {
  CLI::App* registry = app.add_subcommand("registry", "list, check and add @register_npu_flop FLOPs formulas");
  registry->require_subcommand(1);
  registry->footer("The formulas file is torch_npu/profiler/_flops_formulas.py. It is read, never imported or run.");

  auto list = std::make_shared<ListFlags>();
  CLI::App* list_command = registry->add_subcommand("list", "every @register_npu_flop registration, in file order");
  list->locate.Add(*list_command);
  list_command->add_option("--format", list->format, "table, json, markdown or csv")
      ->capture_default_str()
      ->check(Choices({"table", "json", "markdown", "csv"}));
  list_command->add_option("-o,--output", list->output, "write the listing to FILE (atomically)");
  list_command->callback([list, &action] { action = [list] { return RunList(*list); }; });

  auto check = std::make_shared<CheckFlags>();
  CLI::App* check_command =
      registry->add_subcommand("check", "validate registrations: duplicates, malformed targets, unsafe formulas");
  check_command->add_option("files", check->files, "formulas files (default: the one --formulas/--python find)");
  check->locate.Add(*check_command);
  check->diagnostics.Add(*check_command);
  check_command->add_flag("--fix", check->fix, "apply the safe fixes in place (files that parse cleanly only)");
  check_command->add_flag("--diff", check->diff, "print the safe fixes as a unified diff and change nothing");
  check_command->callback([check, &action] { action = [check] { return RunCheck(*check); }; });

  auto add = std::make_shared<AddFlags>();
  CLI::App* add_command =
      registry->add_subcommand("add", "insert a new formula under a target; prints the diff unless --write");
  add_command->add_option("--target", add->target, "what to hook, as module:attr (e.g. torch_npu:npu_my_op)")
      ->required();
  add_command->add_option("--from", add->from, "a Python file holding exactly one plain function: the formula")
      ->required();
  add->locate.Add(*add_command);
  add_command->add_flag("--write", add->write, "change the formulas file (atomically, keeping FILE.bak)");
  add_command->add_option("--color", add->color, "colour for refusals: auto, always or never");
  AddFormatOption(*add_command, add->format);
  add_command->callback([add, &action] { action = [add] { return RunAdd(*add); }; });

  auto verify = std::make_shared<VerifyFlags>();
  CLI::App* verify_command = registry->add_subcommand(
      "verify", "after collection: confirm a registration's FLOPs records exist and carry the expected value");
  verify->source.Add(*verify_command, false);
  verify_command->add_option("--target", verify->target, "the registration's target, e.g. torch:baddbmm");
  verify_command->add_option("--op-name", verify->op_name, "its explicit op_name, when it has one");
  verify_command->add_option("--expect", verify->expect,
                             "the hand-computed FLOPs every record must carry (see `opmfu flops` for built-ins)");
  AddFormatOption(*verify_command, verify->format);
  verify_command->footer("Exit codes: 0 records found (and all equal --expect); 1 none found, or a value differs.");
  verify_command->callback([verify, &action] { action = [verify] { return RunVerify(*verify); }; });
}

}  // namespace opmfu::cli
