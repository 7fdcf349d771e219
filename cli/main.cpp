// opmfu: operator-level MFU for PyTorch on Ascend, from collection config to analysis.
// The command table below is the index of every subcommand; each lives in its own file.

#include <CLI/CLI.hpp>

#include <malloc.h>
#include <sqlite3.h>

#include <csignal>
#include <iostream>

#include "cli/cli_support.h"
#include "common/file_io.h"
#include "common/parse_allocator.h"
#include "common/text.h"
#include "common/tree_sitter.h"

namespace opmfu::cli {
namespace {

struct CommandEntry {
  const char* name;
  const char* summary;
  void (*add)(CLI::App& app, Action& action);  ///< nullptr: not implemented yet
};

// clang-format off
constexpr CommandEntry kCommands[] = {
  {"lint",     "check training scripts for settings that break MFU collection",              AddLintCommand},
  {"registry", "list, check and add @register_npu_flop FLOPs formulas",                       AddRegistryCommand},
  {"analyze",  "operator- and module-level MFU from a profiling directory",                   AddAnalyzeCommand},
  {"check-db", "diagnose why a profiling database yields no MFU",                              AddCheckDbCommand},
  {"report",   "a readable MFU report with the biggest opportunities first",                  AddReportCommand},
  {"flops",    "the FLOPs a built-in torch_npu formula records for given shapes",            AddFlopsCommand},
  {"audit",    "recompute built-in FLOPs from recorded shapes; flag records that disagree",   nullptr},
  {"diff",     "compare MFU of two runs, kernel group by kernel group",                        AddDiffCommand},
  {"gate",     "fail a CI job when MFU or coverage misses a threshold",                        AddGateCommand},
  {"demo",     "write a synthetic profiling directory and example files to try opmfu on",   AddDemoCommand},
  {"rule",     "print a rule's documentation (by id or name)",                               AddRuleCommand},
};
// clang-format on

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

int Run(int argc, char** argv) {
  if (Status abi = CheckGrammarAbi(); !abi.ok()) {
    std::cerr << "opmfu: error: " << abi.error().message << "\n";
    return kExitUsage;
  }
  CLI::App app{"opmfu: operator-level MFU for PyTorch on Ascend, from collection config to analysis", "opmfu"};
  app.set_version_flag("--version", VersionText());
  app.footer(kExitCodeHelp);
  app.require_subcommand(0, 1);

  Action action;
  for (const CommandEntry& entry : kCommands) {
    if (entry.add != nullptr) {
      entry.add(app, action);
      continue;
    }
    CLI::App* command = app.add_subcommand(entry.name, std::string("(not implemented yet) ") + entry.summary);
    command->allow_extras();
    command->prefix_command();
    command->callback([&action, name = std::string(entry.name)] {
      action = [name] {
        std::cerr << "opmfu: error: `opmfu " << name << "` is not implemented yet\n";
        return static_cast<int>(kExitUsage);
      };
    });
  }

  if (Status known = CheckSubcommandNames(app, argc, argv); !known.ok()) {
    std::cerr << "opmfu: error: " << known.error().message << "\nRun with --help for more information.\n";
    return kExitUsage;
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
    std::cerr << "opmfu: error: " << error.what() << "\n";
    std::cerr << "Run with --help for more information.\n";
    return kExitUsage;
  }
  if (!action) {
    std::cerr << app.help();
    return kExitUsage;
  }
  return action();
}

}  // namespace
}  // namespace opmfu::cli

int main(int argc, char** argv) {
  // Before anything parses: tree-sitter's blocks must all come from one allocator.
  opmfu::InstallParseAllocator();
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
  try {
    return opmfu::cli::Run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "opmfu: internal error: " << error.what() << "\n";
    return opmfu::cli::kExitInternal;
  }
}
