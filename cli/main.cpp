// opmfu: operator-level MFU for PyTorch on Ascend, from collection config to analysis.
// The command table below is the index of every subcommand; each lives in its own file.

#include <CLI/CLI.hpp>

#include <malloc.h>
#include <sqlite3.h>

#include <csignal>
#include <iostream>

#include "cli/cli_support.h"
#include "cli/msprof_compat.h"
#include "common/file_io.h"
#include "common/output_file.h"
#include "common/parse_allocator.h"
#include "common/text.h"
#include "common/tree_sitter.h"

namespace opmfu::cli {
namespace {

// Every subcommand in `opmfu --help` order; each adds itself (options, help, action).
using AddCommand = void (*)(CLI::App& app, Action& action);
constexpr AddCommand kCommands[] = {
    AddLintCommand,   AddRegistryCommand, AddAnalyzeCommand,    AddMergeCommand, AddCheckDbCommand,
    AddReportCommand, AddFlopsCommand,    AddAuditCommand,      AddDiffCommand,  AddGateCommand,
    AddDemoCommand,   AddRuleCommand,     AddCompletionCommand, AddMcpCommand,
};

constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  ran; nothing at or above the failure threshold\n"
    "  1  ran; findings, or a check failed\n"
    "  2  usage or input error (the result is not to be trusted)\n"
    "  3  internal error in opmfu\n";

std::string VersionText() {
  return std::string("opmfu ") + OPMFU_VERSION + " (" + OPMFU_GRAMMAR_VERSIONS + ", tree-sitter ABI " +
         std::to_string(TREE_SITTER_LANGUAGE_VERSION) + ", SQLite " + sqlite3_libversion() + ")";
}

// `--format json`, `--output-format=json`, ...: known before parsing, so that even a usage error
// comes out as the JSON error object.
bool AsksForJson(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    for (const std::string_view option : {"--format", "--output-format"}) {
      if (word == option && i + 1 < argc && std::string_view(argv[i + 1]) == "json") return true;
      if (word.starts_with(option) && word.substr(option.size()) == "=json") return true;
    }
  }
  return false;
}

// `analyze ... --agent`: msprof-analyze's agent line must come out whatever fails, usage errors too.
bool AsksForAgentLine(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "analyze") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "--agent") return true;
  }
  return false;
}

// CLI11 reports a mistyped subcommand as "arguments not expected"; name it and suggest instead.
Status CheckSubcommandNames(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word.front() == '-') return Ok();  // options end the walk: CLI11 takes over
    const std::vector<CLI::App*> children = level->get_subcommands({});
    if (children.empty() || level->get_prefix_command()) return Ok();
    std::vector<std::string> names;
    CLI::App* match = nullptr;
    for (CLI::App* child : children) {
      names.push_back(child->get_name());
      if (child->get_name() == word) match = child;
    }
    if (match == nullptr) {
      const std::string where = level == &app ? "" : " for `" + level->get_name() + "`";
      return Error::Usage("unknown command '" + word + "'" + where + DidYouMean(word, names));
    }
    level = match;
  }
  return Ok();
}

int Run(int original_argc, char** original_argv) {
  if (Status abi = CheckGrammarAbi(); !abi.ok()) {
    std::cerr << "opmfu: error: " << abi.error().message << "\n";
    return kExitUsage;
  }
  InstallCheckedStdout();
  // msprof-analyze's command line (`opmfu -m operator_mfu -d DIR`, `opmfu cluster ...`, a link named
  // msprof-analyze) is `opmfu analyze ...`: rewritten before anything reads argv.
  const std::vector<std::string> given(original_argv + 1, original_argv + original_argc);
  const Result<UpstreamCommandLine> upstream = ReadUpstreamCommandLine(original_argv[0], given);
  std::vector<std::string> words = {original_argv[0]};
  if (upstream.ok() && upstream->ask == UpstreamCommandLine::Ask::kAnalyze) {
    words.push_back("analyze");
    words.insert(words.end(), upstream->analyze_args.begin(), upstream->analyze_args.end());
  } else {
    if (!upstream.ok() && (given.empty() || given.front() != "analyze")) words.push_back("analyze");
    words.insert(words.end(), given.begin(), given.end());
  }
  std::vector<char*> rewritten;
  for (std::string& word : words) rewritten.push_back(word.data());
  rewritten.push_back(nullptr);
  const int argc = static_cast<int>(words.size());
  char** argv = rewritten.data();
  if (AsksForAgentLine(argc, argv)) {
    SetAgentMode();
  } else {
    SetJsonMode(AsksForJson(argc, argv));
  }
  if (!upstream.ok()) return ReportError(upstream.error());
  if (upstream->ask == UpstreamCommandLine::Ask::kVersion) {
    std::cout << VersionText() << "\n";
    return kExitOk;
  }
  CLI::App app{"opmfu: operator-level MFU for PyTorch on Ascend, from collection config to analysis", "opmfu"};
  app.set_version_flag("-V,-v,--version", VersionText());
  app.footer(kExitCodeHelp);
  app.require_subcommand(0, 1);

  Action action;
  for (AddCommand add : kCommands) add(app, action);

  if (Status known = CheckSubcommandNames(app, argc, argv); !known.ok()) {
    const int code = ReportError(known.error());
    std::cerr << "Run with --help for more information.\n";
    return code;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << VersionText() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    // Help requested on a subcommand is raised from that subcommand's parse.
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      return app.exit(error);
    }
    const int code = ReportError(Error::Usage(error.what()));
    std::cerr << "Run with --help for more information.\n";
    return code;
  }
  if (!action) {
    std::cerr << app.help();
    return kExitUsage;
  }
  if (Status environment = CheckEnvironment(); !environment.ok()) return ReportError(environment.error());
  return action();
}

}  // namespace
}  // namespace opmfu::cli

int main(int argc, char** argv) {
  // Before anything parses: tree-sitter's blocks must all come from one allocator.
  opmfu::InstallParseAllocator();
  // No -o may replace a file the run read, named or not (docs/reliability.md).
  opmfu::NoteEveryFileReadAsRunInput();
  // Large buffers (sources, rows) are freed and grown again; reusing heap memory beats fresh
  // mappings, whose page faults cost more than the work on them.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  // A full disk or a file-size limit must be a write error we report (EFBIG), not a signal that
  // kills the process mid-output.
  (void)std::signal(SIGXFSZ, SIG_IGN);
  // Ctrl-C while an output is being written removes the temporary file, never the old output.
  opmfu::InstallInterruptCleanup();
  int code = opmfu::cli::kExitInternal;
  try {
    code = opmfu::cli::Run(argc, argv);
  } catch (const std::exception& error) {
    code = opmfu::cli::ReportError(opmfu::Error::Internal(std::string("internal error: ") + error.what()));
  }
  opmfu::cli::FinishJsonOutput();
  // Output that did not reach stdout is an error whatever the command decided: a report cut off
  // by a full disk must not exit 0, nor lint's exit 1 claim findings that were never printed.
  if (opmfu::Status out = opmfu::cli::StdoutStatus(); !out.ok()) {
    const int failed = opmfu::cli::ReportError(out.error());
    if (code != opmfu::cli::kExitInternal) code = failed;
  }
  return code;
}
