// `opmfu demo`: writes the synthetic profiling directory and the example files.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/embedded_files.h"
#include "common/file_io.h"
#include "engine/demo.h"
#include "engine/demo_directory.h"

namespace opmfu::cli {
namespace {

namespace fs = std::filesystem;

struct DemoFlags {
  std::string directory = "opmfu-demo";
  int ranks = 2;
  int steps = 2;
  int layers = 4;
  std::uint64_t seed = 1;
  bool without_modules = false;
  std::string communication = "schedule";
  std::string export_type = "db";
  std::string format = "text";
};

int RunDemo(const DemoFlags& flags) {
  const fs::path directory = flags.directory;
  std::error_code ec;
  // Never write over somebody's data: only into a new or empty directory, or exactly an earlier demo.
  if (Status ready = engine::PrepareDemoDirectory(directory); !ready.ok()) return ReportError(ready.error());
  engine::DemoOptions options;
  options.directory = directory;
  options.ranks = flags.ranks;
  options.steps = flags.steps;
  options.layers = flags.layers;
  options.seed = flags.seed;
  options.with_modules = !flags.without_modules;
  options.communication = flags.communication == "task-info" ? engine::CommunicationTables::kTaskInfo
                                                             : engine::CommunicationTables::kSchedule;
  options.export_type = flags.export_type == "text"   ? engine::DemoExport::kText
                        : flags.export_type == "both" ? engine::DemoExport::kBoth
                                                      : engine::DemoExport::kDb;
  auto summary = engine::WriteDemo(options);
  if (!summary.ok()) return ReportError(summary.error());
  for (const EmbeddedFile& file : EmbeddedExampleFiles()) {
    const fs::path path = directory / "example" / std::string(file.name);
    fs::create_directories(path.parent_path(), ec);
    if (Status written = WriteFileAtomically(path, file.content); !written.ok()) return ReportError(written.error());
    if (path.extension() == ".sh") fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add, ec);
  }
  if (Status recorded = engine::RecordDemoDirectory(directory); !recorded.ok()) return ReportError(recorded.error());
  if (flags.format == "json") {
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (const fs::path& rank : summary->rank_directories) ranks.push_back(rank.string());
    const nlohmann::ordered_json answer{
        {"directory", directory.string()},
        {"ranks", flags.ranks},
        {"steps", flags.steps},
        {"kernels_per_rank", summary->kernels_per_rank},
        {"rank_directories", ranks},
        {"example_directory", (directory / "example").string()},
        {"next", {"opmfu", "analyze", "-d", directory.string()}},
    };
    std::cout << answer.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "Wrote a synthetic profiling directory: " << flags.ranks << (flags.ranks == 1 ? " rank" : " ranks")
            << ", " << summary->kernels_per_rank << " kernels per rank, under " << directory.string() << "\n";
  for (const fs::path& rank : summary->rank_directories) std::cout << "  " << rank.string() << "\n";
  std::cout << "and the example launcher, script and formulas in " << (directory / "example").string() << "\n"
            << "Next: opmfu analyze -d " << directory.string() << "\n";
  return kExitOk;
}

}  // namespace

void AddDemoCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* command =
      app.add_subcommand("demo", "write a synthetic profiling directory and example files to try opmfu on");
  command->add_option("directory", flags->directory, "where to write (new, empty, or an earlier demo)")
      ->capture_default_str();
  command->add_option("--ranks", flags->ranks, "ranks (one DB each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  command->add_option("--steps", flags->steps, "training steps per rank")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  command->add_option("--layers,--ops-per-step", flags->layers, "transformer layers per step (about 14 kernels each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  command->add_option("--seed", flags->seed, "random seed; the same seed gives the same data")->capture_default_str();
  command->add_flag("--without-modules", flags->without_modules, "no Module ranges (so no ModuleMFU)");
  command
      ->add_option("--communication", flags->communication,
                   "how HCCL tasks are recorded: schedule (COMMUNICATION_SCHEDULE_TASK_INFO, newer CANN) or "
                   "task-info (COMMUNICATION_TASK_INFO, older CANN)")
      ->capture_default_str()
      ->check(CLI::IsMember({"schedule", "task-info"}));
  command
      ->add_option(
          "--export-type,--export_type", flags->export_type,
          "the layout torch_npu would write: db (ascend_pytorch_profiler_<rank>.db), text (kernel_details.csv, "
          "operator_details.csv and trace_view.json, torch_npu's default) or both (analysis reads the DB unless "
          "--source text)")
      ->capture_default_str()
      ->check(CLI::IsMember({"db", "text", "both"}));
  AddFormatOption(*command, flags->format);
  command->callback([flags, &action] { action = [flags] { return RunDemo(*flags); }; });
}

}  // namespace opmfu::cli
