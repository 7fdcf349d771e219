// `opmfu analyze --shard I/N` and `opmfu merge` end to end: the merged tables equal a one-shot
// analysis row for row (and file for file in the other export types), an incomplete or
// inconsistent set of shards is refused naming what is wrong, a failed rank stays failed, and the
// documented xargs recipe works as written.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/sqlite.h"
#include "engine/shard.h"
#include "tests/test_support.h"

namespace opmfu {
namespace {

namespace fs = std::filesystem;
using testing::RunOpmfu;
using testing::TableRows;
using testing::TempDir;

class ShardedDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo_ = dir_->path() / "demo";
    const auto written = RunOpmfu({"demo", demo_.string(), "--ranks", "7", "--steps", "1", "--layers", "2"});
    ASSERT_EQ(written.exit_code, 0) << written.err;
    // One rank's database is corrupt: a failed rank the shards and the merge must keep failed.
    fs::path broken;
    for (const auto& entry : fs::recursive_directory_iterator(demo_)) {
      if (entry.path().filename() == "ascend_pytorch_profiler_4.db") broken = entry.path();
    }
    ASSERT_FALSE(broken.empty());
    fs::resize_file(broken, 1000);
    for (const std::string type : {"db", "csv", "json", "text"}) {
      const auto one = RunOpmfu(
          {"analyze", "-d", demo_.string(), "-o", (dir_->path() / ("one-" + type)).string(), "--export-type", type});
      ASSERT_EQ(one.exit_code, 1) << one.err;  // the broken rank
      one_shot_err_[type] = one.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // Runs the N shards into out/shard-<i>; returns their folders.
  static std::vector<std::string> RunShards(const fs::path& out, int count) {
    std::vector<std::string> folders;
    for (int i = 0; i < count; ++i) {
      const fs::path folder = out / ("shard-" + std::to_string(i));
      const auto shard = RunOpmfu({"analyze", "-d", demo_.string(), "--shard",
                                   std::to_string(i) + "/" + std::to_string(count), "-o", folder.string()});
      EXPECT_EQ(shard.exit_code, 0) << shard.err;  // written; its failed rank is the merge's to report
      EXPECT_TRUE(fs::exists(folder / "opmfu_partial" /
                             ("shard_" + std::to_string(i) + "_of_" + std::to_string(count) + ".db")));
      EXPECT_FALSE(fs::exists(folder / "cluster_analysis_output")) << "a shard wrote a result that looks whole";
      folders.push_back(folder.string());
    }
    return folders;
  }

  static TempDir* dir_;
  static fs::path demo_;
  static std::map<std::string, std::string> one_shot_err_;
};

TempDir* ShardedDemo::dir_ = nullptr;
fs::path ShardedDemo::demo_;
std::map<std::string, std::string> ShardedDemo::one_shot_err_;

TEST_F(ShardedDemo, MergedRowsEqualTheOneShotRowsForOneToFiveShards) {
  const fs::path one_db = dir_->path() / "one-db" / "cluster_analysis_output" / "cluster_analysis.db";
  const auto operator_rows = TableRows(one_db, "OperatorMFU");
  const auto module_rows = TableRows(one_db, "ModuleMFU");
  ASSERT_GT(operator_rows.size(), 7U);
  ASSERT_GT(module_rows.size(), 7U);
  for (int count = 1; count <= 5; ++count) {
    SCOPED_TRACE("N = " + std::to_string(count));
    TempDir work;
    std::vector<std::string> folders = RunShards(work.path(), count);
    // The order the folders are named in does not matter.
    std::reverse(folders.begin(), folders.end());
    std::vector<std::string> merge = {"merge"};
    merge.insert(merge.end(), folders.begin(), folders.end());
    const fs::path out = work.path() / "merged";
    merge.insert(merge.end(), {"-o", out.string()});
    const auto merged = RunOpmfu(merge);
    EXPECT_EQ(merged.exit_code, 1) << merged.err;
    // The same lines about the ranks as the one-shot analysis printed (the broken rank's error).
    EXPECT_EQ(merged.err, one_shot_err_["db"]);
    EXPECT_NE(merged.out.find("rank 4: FAILED: "), std::string::npos) << merged.out;
    const fs::path db = out / "cluster_analysis_output" / "cluster_analysis.db";
    EXPECT_EQ(TableRows(db, "OperatorMFU"), operator_rows);
    EXPECT_EQ(TableRows(db, "ModuleMFU"), module_rows);

    // The other export types, file for file.
    for (const std::string type : {"csv", "json", "text"}) {
      std::vector<std::string> again = merge;
      again.back() = (work.path() / ("merged-" + type)).string();
      again.insert(again.end(), {"--export-type", type});
      ASSERT_EQ(RunOpmfu(again).exit_code, 1);
      const fs::path expected_dir = dir_->path() / ("one-" + type) / "cluster_analysis_output";
      const fs::path actual_dir = work.path() / ("merged-" + type) / "cluster_analysis_output";
      std::size_t files = 0;
      for (const auto& entry : fs::recursive_directory_iterator(expected_dir)) {
        if (!entry.is_regular_file()) continue;
        const fs::path relative = fs::relative(entry.path(), expected_dir);
        ++files;
        if (type == "text") {
          // xlsx files are zip archives with timestamps inside: compare their size, the rows
          // themselves are the db's, checked above.
          ASSERT_TRUE(fs::exists(actual_dir / relative)) << relative;
          continue;
        }
        EXPECT_EQ(testing::ReadFile(actual_dir / relative), testing::ReadFile(entry.path())) << relative;
      }
      EXPECT_GE(files, 2U) << type;
    }
  }
}

TEST_F(ShardedDemo, AShardRecordsWhatItWasResponsibleForAndWhatFailed) {
  TempDir work;
  const auto folders = RunShards(work.path(), 3);
  // Ranks 0..6 round robin over 3 shards: shard 1 has ranks 1 and 4 (the broken one).
  auto db = Database::OpenReadOnly(fs::path(folders[1]) / "opmfu_partial" / "shard_1_of_3.db");
  ASSERT_TRUE(db.ok());
  auto ranks = db->Prepare("SELECT rank_id, status, failure FROM ranks ORDER BY position");
  ASSERT_TRUE(ranks.ok());
  std::vector<std::string> seen;
  while (*ranks->Step()) {
    seen.push_back(std::to_string(ranks->Int64(0)) + " " + std::string(ranks->Text(1)));
    if (ranks->Int64(0) == 4) {
      EXPECT_NE(ranks->Text(2).find("ascend_pytorch_profiler_4.db"), std::string::npos);
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"1 ok", "4 failed"}));
  auto input = db->Prepare("SELECT count(*), sum(shard = 1) FROM input_ranks");
  ASSERT_TRUE(input.ok() && *input->Step());
  EXPECT_EQ(input->Int64(0), 7);
  EXPECT_EQ(input->Int64(1), 2);
  auto info = db->Prepare("SELECT value FROM shard_info WHERE key = 'format'");
  ASSERT_TRUE(info.ok() && *info->Step());
  EXPECT_EQ(info->Text(0), "opmfu-partial/2");
}

TEST_F(ShardedDemo, AnIncompleteOrInconsistentSetIsAUsageErrorNamingIt) {
  TempDir work;
  const auto folders = RunShards(work.path(), 4);
  const std::string out = (work.path() / "merged").string();
  const auto missing = RunOpmfu({"merge", folders[0], folders[1], folders[3], "-o", out});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing shard 2 (ranks 2, 6) of 4"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_FALSE(fs::exists(work.path() / "merged"));

  const auto twice = RunOpmfu({"merge", folders[0], folders[1], folders[2], folders[3], folders[2], "-o", out});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("shard 2 of 4 given twice"), std::string::npos) << twice.err;

  // A shard of another N.
  const fs::path other = work.path() / "other";
  ASSERT_EQ(RunOpmfu({"analyze", "-d", demo_.string(), "--shard", "0/3", "-o", other.string()}).exit_code, 0);
  const auto mixed = RunOpmfu({"merge", folders[0], folders[1], folders[2], other.string(), "-o", out});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("shards of different N"), std::string::npos) << mixed.err;

  // A shard of another input (a copy of the demo with one rank changed).
  const fs::path copy = work.path() / "copy";
  fs::copy(demo_, copy, fs::copy_options::recursive);
  for (const auto& entry : fs::recursive_directory_iterator(demo_)) {
    // As `cp -a` copies: the same times, so only the rank changed below differs.
    if (entry.is_regular_file()) {
      fs::last_write_time(copy / fs::relative(entry.path(), demo_), fs::last_write_time(entry.path()));
    }
  }
  for (const auto& entry : fs::recursive_directory_iterator(copy)) {
    if (entry.path().filename() == "ascend_pytorch_profiler_5.db") {
      fs::resize_file(entry.path(), fs::file_size(entry.path()) + 4096);
    }
  }
  const fs::path foreign = work.path() / "foreign";
  ASSERT_EQ(RunOpmfu({"analyze", "-d", copy.string(), "--shard", "3/4", "-o", foreign.string()}).exit_code, 0);
  const auto different = RunOpmfu({"merge", folders[0], folders[1], folders[2], foreign.string(), "-o", out});
  EXPECT_EQ(different.exit_code, 2);
  EXPECT_NE(different.err.find("shards of different inputs"), std::string::npos) << different.err;
  EXPECT_NE(different.err.find("rank 5's database differs"), std::string::npos) << different.err;

  // A folder that is no shard output, and a file that is no partial.
  const auto empty = RunOpmfu({"merge", folders[0], work.path().string(), "-o", out});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find(work.path().string() + ": not a shard output"), std::string::npos) << empty.err;
  const fs::path fake = work.Write("fake/opmfu_partial/shard_1_of_4.db", "not a database");
  const auto bogus = RunOpmfu({"merge", folders[0], fake.string(), folders[2], folders[3], "-o", out});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("not an opmfu shard partial"), std::string::npos) << bogus.err;
  EXPECT_FALSE(fs::exists(work.path() / "merged"));
}

// A partial edited so that its ranks table repeats rank 0 would merge rank 0's rows three times.
TEST_F(ShardedDemo, APartialWhoseRanksRepeatARankIsRefusedByName) {
  TempDir work;
  const auto folders = RunShards(work.path(), 2);
  const fs::path partial = fs::path(folders[0]) / "opmfu_partial" / "shard_0_of_2.db";
  const std::string before = testing::ReadFile(partial);
  {
    auto db = Database::OpenForWrite(partial);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Execute("UPDATE ranks SET rank_id = 0").ok());
  }
  const auto merged = RunOpmfu({"merge", folders[0], folders[1], "-o", (work.path() / "merged").string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(
      merged.err.find(partial.string() + ": damaged shard partial: ranks holds rank 0 where input_ranks has rank 2"),
      std::string::npos)
      << merged.err;
  EXPECT_EQ(std::count(merged.err.begin(), merged.err.end(), '\n'), 1) << merged.err;
  EXPECT_FALSE(fs::exists(work.path() / "merged"));
  EXPECT_NE(testing::ReadFile(partial), before);  // the edit is there: the refusal is no accident
}

TEST(Shard, TheFlagIsValidated) {
  TempDir dir;
  for (const auto& [flag, message] : std::vector<std::pair<std::string, std::string>>{
           {"4/4", "I must be below N"},
           {"1/0", "N must be at least 1"},
           {"1", "expected I/N"},
           {"a/4", "whole numbers"},
           {"-1/4", "whole numbers"},
           {"1/4/2", "whole numbers"},
           {"", "expected I/N"},
       }) {
    const auto result = RunOpmfu({"analyze", "-d", dir.path().string(), "--shard", flag});
    EXPECT_EQ(result.exit_code, 2) << flag;
    EXPECT_NE(result.err.find(message), std::string::npos) << flag << ": " << result.err;
  }
  const auto exported = RunOpmfu({"analyze", "-d", dir.path().string(), "--shard", "0/2", "--export-type", "csv"});
  EXPECT_EQ(exported.exit_code, 2);
  EXPECT_NE(exported.err.find("--export-type goes to the whole analysis"), std::string::npos) << exported.err;
  EXPECT_EQ(engine::ParseShardSpec("0/1")->count, 1U);
  EXPECT_EQ(engine::ParseShardSpec("2/3")->index, 2U);
  EXPECT_EQ(engine::ShardOfPartialName("shard_2_of_3.db")->index, 2U);
  EXPECT_FALSE(engine::ShardOfPartialName("shard_2_of_3.db.tmp").has_value());
  EXPECT_EQ(engine::ShardOfPartialName("shard_2_of_3.db")->count, 3U);
  for (const char* name : {"shard_1_of_2_of_3.db", "shard__of_3.db", "shard_1_of_.db", "shard_x_of_3.db",
                           "shard_1234567890_of_3.db", "xshard_1_of_3.db"}) {
    EXPECT_FALSE(engine::ShardOfPartialName(name).has_value()) << name;
  }
}

// A Text export sharded and merged: the merge says each rank was read from the Text export, as a
// one-shot analysis does, and writes the same rows.
TEST(Shard, MergedTextShardsKeepTheirExport) {
  TempDir dir;
  const fs::path demo = dir.path() / "demo";
  ASSERT_EQ(RunOpmfu({"demo", demo.string(), "--ranks", "3", "--steps", "1", "--export-type", "text"}).exit_code, 0);
  const auto one = RunOpmfu({"analyze", "-d", demo.string(), "-o", (dir.path() / "one").string(), "--format", "json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::vector<std::string> merge = {"merge"};
  for (int i = 0; i < 2; ++i) {
    const fs::path folder = dir.path() / ("shard-" + std::to_string(i));
    const auto shard =
        RunOpmfu({"analyze", "-d", demo.string(), "--shard", std::to_string(i) + "/2", "-o", folder.string()});
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    merge.push_back(folder.string());
  }
  merge.insert(merge.end(), {"-o", (dir.path() / "merged").string(), "--format", "json"});
  const auto merged = RunOpmfu(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto one_json = nlohmann::json::parse(one.out);
  const auto merged_json = nlohmann::json::parse(merged.out);
  ASSERT_EQ(merged_json["ranks"].size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(one_json["ranks"][i]["export"], "text");
    EXPECT_EQ(merged_json["ranks"][i]["export"], "text") << merged.out;
  }
  for (const std::string table : {"OperatorMFU", "ModuleMFU"}) {
    const auto rows = TableRows(dir.path() / "one" / "cluster_analysis_output" / "cluster_analysis.db", table);
    EXPECT_FALSE(rows.empty()) << table;
    EXPECT_EQ(TableRows(dir.path() / "merged" / "cluster_analysis_output" / "cluster_analysis.db", table), rows);
  }
}

// docs/sharding.md's xargs recipe, word for word (the block between its markers), on the demo.
TEST_F(ShardedDemo, TheDocumentedXargsRecipeRunsAsWritten) {
  const std::string doc = testing::ReadFile(testing::SourceDir() / "docs" / "sharding.md");
  const std::string begin = "<!-- xargs-recipe -->\n```bash\n";
  const auto start = doc.find(begin);
  ASSERT_NE(start, std::string::npos);
  const auto end = doc.find("```", start + begin.size());
  ASSERT_NE(end, std::string::npos);
  TempDir work;
  const fs::path script = work.Write("recipe.sh", doc.substr(start + begin.size(), end - start - begin.size()));
  const fs::path bin = work.path() / "bin";
  fs::create_directories(bin);
  fs::create_symlink(OPMFU_BINARY, bin / "opmfu");
  const std::string command = "cd " + work.path().string() + " && PATH=" + bin.string() +
                              ":$PATH DATA=" + demo_.string() + " N=3 OUT=" + (work.path() / "out").string() +
                              " bash " + script.string() + " > log 2>&1";
  const int status = std::system(command.c_str());  // NOLINT(cert-env33-c): the recipe is a shell script
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  EXPECT_EQ(code, 1) << testing::ReadFile(work.path() / "log");  // the broken rank
  const fs::path db = work.path() / "out" / "cluster_analysis_output" / "cluster_analysis.db";
  const fs::path one_db = dir_->path() / "one-db" / "cluster_analysis_output" / "cluster_analysis.db";
  EXPECT_EQ(TableRows(db, "OperatorMFU"), TableRows(one_db, "OperatorMFU"));
  EXPECT_EQ(TableRows(db, "ModuleMFU"), TableRows(one_db, "ModuleMFU"));
}

// packaging/scheduler/slurm-analyze.sh with a stand-in `sbatch` that runs each job at once on
// this machine (the array's tasks one by one with SLURM_ARRAY_TASK_ID set, then the dependent
// merge): the commands the script submits really shard and merge.
TEST_F(ShardedDemo, TheSlurmScriptSubmitsShardsAndADependentMerge) {
  const fs::path script = testing::SourceDir() / "packaging" / "scheduler" / "slurm-analyze.sh";
  TempDir work;
  const fs::path bin = work.path() / "bin";
  work.Write("bin/sbatch", R"(#!/usr/bin/env bash
# Stand-in for Slurm's sbatch: records its arguments, runs the --wrap command now.
echo "$*" >> "$SBATCH_LOG"
array= wrap= output=
for arg in "$@"; do
  case $arg in
    --array=*) array=${arg#--array=} ;;
    --wrap=*) wrap=${arg#--wrap=} ;;
    --output=*) output=${arg#--output=} ;;
  esac
done
if [[ -n $array ]]; then
  for ((i = ${array%-*}; i <= ${array#*-}; i++)); do
    SLURM_ARRAY_TASK_ID=$i bash -c "$wrap" > "${output//%a/$i}" 2>&1
  done
  echo 1001
else
  bash -c "$wrap" > "$output" 2>&1 || true
  echo "1002;cluster"
fi
)");
  fs::permissions(bin / "sbatch", fs::perms::owner_all);
  fs::create_symlink(OPMFU_BINARY, bin / "opmfu");
  ASSERT_EQ(std::system(("bash -n " + script.string()).c_str()), 0);  // NOLINT(cert-env33-c)
  const fs::path out = work.path() / "out";
  const std::string command = "PATH=" + bin.string() + ":$PATH SBATCH_LOG=" + (work.path() / "sbatch.log").string() +
                              " SBATCH_ARGS='--partition=cpu --time=1:00:00' bash " + script.string() + " " +
                              demo_.string() + " " + out.string() + " 3 > " + (work.path() / "log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0)  // NOLINT(cert-env33-c): the script is a shell script
      << testing::ReadFile(work.path() / "log");
  const std::string printed = testing::ReadFile(work.path() / "log");
  EXPECT_NE(printed.find("job array 1001 (3 tasks"), std::string::npos) << printed;
  EXPECT_NE(printed.find("merge:  job 1002 after the array"), std::string::npos) << printed;
  const std::string submitted = testing::ReadFile(work.path() / "sbatch.log");
  EXPECT_NE(submitted.find("--partition=cpu --time=1:00:00 --job-name=opmfu-shards --array=0-2"), std::string::npos)
      << submitted;
  EXPECT_NE(submitted.find("--dependency=afterany:1001"), std::string::npos) << submitted;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(
        fs::exists(out / "shards" / std::to_string(i) / "opmfu_partial" / ("shard_" + std::to_string(i) + "_of_3.db")));
  }
  const std::string merge_log = testing::ReadFile(out / "logs" / "merge.log");
  EXPECT_NE(merge_log.find("Merged 3 shards"), std::string::npos) << merge_log;
  const fs::path db = out / "cluster_analysis_output" / "cluster_analysis.db";
  const fs::path one_db = dir_->path() / "one-db" / "cluster_analysis_output" / "cluster_analysis.db";
  EXPECT_EQ(TableRows(db, "OperatorMFU"), TableRows(one_db, "OperatorMFU"));
  EXPECT_EQ(TableRows(db, "ModuleMFU"), TableRows(one_db, "ModuleMFU"));

  // Bad arguments are refused before anything is submitted.
  EXPECT_NE(std::system(("PATH=" + bin.string() + ":$PATH bash " + script.string() + " " + demo_.string() +
                         " " +  // NOLINT(cert-env33-c)
                         out.string() + " 0 2>/dev/null")
                            .c_str()),
            0);
}

// The Kubernetes manifest is two valid YAML documents: the Indexed Job and the merge Job.
TEST(Shard, TheKubernetesManifestParses) {
  const fs::path manifest = testing::SourceDir() / "packaging" / "scheduler" / "k8s-analyze.yaml";
  const std::string check =
      "python3 -c 'import sys, yaml; docs = list(yaml.safe_load_all(open(sys.argv[1]))); "
      "assert [d[\"kind\"] for d in docs] == [\"Job\", \"Job\"]; "
      "assert docs[0][\"spec\"][\"completionMode\"] == \"Indexed\"; "
      "assert \"--shard \\\"$JOB_COMPLETION_INDEX/4\\\"\" in "
      "docs[0][\"spec\"][\"template\"][\"spec\"][\"containers\"][0][\"args\"][0]; "
      "assert \"opmfu merge\" in docs[1][\"spec\"][\"template\"][\"spec\"][\"containers\"][0][\"args\"][0]' " +
      manifest.string();
  if (std::system("python3 -c 'import yaml' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-yaml is not installed";  // NOLINT(cert-env33-c)
  EXPECT_EQ(std::system(check.c_str()), 0) << check;  // NOLINT(cert-env33-c)
}

}  // namespace
}  // namespace opmfu
