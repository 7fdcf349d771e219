#include "report/derived_mfu.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "common/sqlite.h"
#include "common/text.h"
#include "engine/chip.h"
#include "report/presentation.h"
#include "report/report.h"

namespace opmfu::report {

const char* const kDerivedLabel = "derived from kernel shapes (not msprof-analyze)";

namespace {

// Every bandwidth here is uncertain: no Huawei datasheet states one (shared spec chips.md; the
// sources are cited in docs/derived-mfu.md).
constexpr std::string_view kA2 =
    "cores/clock: CANN platform ini; HBM: two Huawei-authored model files (1.6 vs 1.2 TB/s)";
constexpr std::string_view kB4 =
    "cores/clock: CANN platform ini; HBM: two Huawei-authored model files agree on 0.8 TB/s";
constexpr std::string_view kA3 =
    "cores/clock: CANN platform ini; HBM: 3.2 TB/s per package (CloudMatrix384 paper) / 2 dies";
constexpr std::string_view kNone = "cores/clock: CANN platform ini; HBM: no figure found";
constexpr std::string_view k310 =
    "cores/clock: CANN platform ini; memory: Atlas 300I Duo 408 GB/s / 2 chips (third party)";
constexpr std::string_view k950PR = "cores/clock: CANN cann-dev ini; HBM: 1.6 TB/s announced (HC 2025, via reports)";
constexpr std::string_view k950DT = "cores/clock: CANN cann-dev ini; HBM: 4 TB/s announced (HC 2025, via reports)";

constexpr std::array<ChipSpec, 20> kChips = {{
    {"Ascend910A", 32, 1000, 0, true, kNone},          {"Ascend910B1", 24, 1850, 1.6, true, kA2},
    {"Ascend910B2", 24, 1800, 1.6, true, kA2},         {"Ascend910B3", 20, 1800, 1.6, true, kA2},
    {"Ascend910B4", 20, 1500, 0.8, true, kB4},         {"Ascend910_9391", 24, 1850, 1.6, true, kA3},
    {"Ascend910_9392", 24, 1850, 1.6, true, kA3},      {"Ascend910_9381", 24, 1800, 1.6, true, kA3},
    {"Ascend910_9382", 24, 1800, 1.6, true, kA3},      {"Ascend910_9372", 20, 1800, 0, true, kNone},
    {"Ascend910_9362", 20, 1500, 0, true, kNone},      {"Ascend910_9363", 20, 1500, 0, true, kNone},
    {"Ascend310P3", 8, 1060, 0.204, true, k310},       {"Ascend950PR_9579", 28, 1650, 1.6, true, k950PR},
    {"Ascend950PR_9589", 32, 1650, 1.6, true, k950PR}, {"Ascend950PR_9599", 36, 1800, 1.6, true, k950PR},
    {"Ascend950DT_9571", 28, 1650, 4.0, true, k950DT}, {"Ascend950DT_9581", 32, 1650, 4.0, true, k950DT},
    {"Ascend950DT_9591", 36, 1800, 4.0, true, k950DT}, {"Ascend950DT_95A1", 36, 1800, 4.0, true, k950DT},
}};

// "Ascend910B3", "910b3" -> "910b3": a chip name as --chip and the tables may spell it.
std::string ChipKey(std::string_view text) {
  std::string lower = AsciiLower(text);
  if (lower.starts_with("ascend")) lower.erase(0, 6);
  return lower;
}

constexpr double kFp16PerCycle = 16.0 * 16 * 16 * 2;

struct Signature {
  std::array<std::int64_t, 8> ids{};  // name, opType, formats/types/shapes in and out
  bool operator==(const Signature& other) const { return ids == other.ids; }
};
struct SignatureHash {
  std::size_t operator()(const Signature& s) const {
    std::size_t hash = 0;
    for (std::int64_t id : s.ids) hash = hash * 1000003U ^ std::hash<std::int64_t>()(id);
    return hash;
  }
};

struct RankPeaks {
  double fp16 = 0;
  double int8 = 0;
};

double PeakFor(const RankPeaks& peaks, PeakClass peak) {
  if (peak == PeakClass::kInt8) return peaks.int8;
  if (peak == PeakClass::kFloat16 || peak == PeakClass::kFloat32) return peaks.fp16;
  return 0;
}

std::string Text(const std::unordered_map<std::int64_t, std::string>& strings, std::int64_t id) {
  const auto found = strings.find(id);
  return found == strings.end() ? std::string() : found->second;
}

// Shapes are stored in quotes; N/A means not recorded.
std::string_view Unquoted(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') return value.substr(1, value.size() - 2);
  return value;
}

// A rank's kernels by signature read from its DB, grouped as the analysis' scan groups them
// (engine/kernel_signatures.h): only for a rank the scan did not read (a layout it declines, a
// rank whose analysis failed).
Result<engine::KernelSignatures> ReadKernelSignatures(Database& db) {
  std::unordered_map<std::int64_t, std::string> strings;
  {
    OPMFU_ASSIGN_OR_RETURN(Statement read, db.Prepare("SELECT id, value FROM STRING_IDS"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(const bool more, read.Step());
      if (!more) break;
      strings.emplace(read.Int64(0), read.IsNull(1) ? std::string() : std::string(read.Text(1)));
    }
  }
  // Each kernel's time from TASK, joined in memory: SQLite would build an automatic index on TASK
  // for the JOIN, which costs more than one scan into a hash map (bench/run report).
  std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> task_times;
  {
    OPMFU_ASSIGN_OR_RETURN(Statement tasks, db.Prepare("SELECT globalTaskId, startNs, endNs FROM TASK"));
    while (true) {
      OPMFU_ASSIGN_OR_RETURN(const bool more, tasks.Step());
      if (!more) break;
      task_times.try_emplace(tasks.Int64(0), tasks.Int64(1), tasks.Int64(2));
    }
  }
  engine::KernelSignatures signatures;
  std::unordered_map<Signature, std::uint32_t, SignatureHash> index;
  OPMFU_ASSIGN_OR_RETURN(Statement kernels,
                         db.Prepare("SELECT name, opType, inputFormats, inputDataTypes, inputShapes, outputFormats, "
                                    "outputDataTypes, outputShapes, globalTaskId FROM COMPUTE_TASK_INFO"));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(const bool more, kernels.Step());
    if (!more) break;
    const auto task = task_times.find(kernels.Int64(8));
    if (task == task_times.end()) continue;  // no device task: not a kernel that ran
    Signature signature;
    for (int column = 0; column < 8; ++column) {
      signature.ids[static_cast<std::size_t>(column)] = kernels.IsNull(column) ? -1 : kernels.Int64(column);
    }
    auto [found, added] = index.try_emplace(signature, static_cast<std::uint32_t>(signatures.groups.size()));
    if (added) {
      engine::KernelSignatureGroup& group = signatures.groups.emplace_back();
      for (std::size_t column = 0; column < 8; ++column) group.columns[column] = Text(strings, signature.ids[column]);
    }
    const auto [start, end] = task->second;
    engine::KernelSignatureGroup& group = signatures.groups[found->second];
    ++group.count;
    group.duration += std::max<std::int64_t>(0, end - start);
    signatures.kernels.push_back({start, found->second});
  }
  return signatures;
}

}  // namespace

std::span<const ChipSpec> KnownChips() { return kChips; }

const ChipSpec* FindChip(std::string_view name) {
  const std::string wanted = ChipKey(name);
  for (const ChipSpec& chip : kChips) {
    if (ChipKey(chip.name) == wanted) return &chip;
  }
  return nullptr;
}

std::optional<double> DerivedGroup::mfu() const {
  if (time_with_peak <= 0 || !derived.flops || count_with_peak == 0) return std::nullopt;
  return peak_seconds / time_with_peak;
}

std::optional<double> DerivedRank::coverage() const {
  if (kernels == 0) return std::nullopt;
  // Kernels of no measurable duration: the share of kernels.
  if (kernel_time <= 0) return static_cast<double>(derived_kernels) / static_cast<double>(kernels);
  return static_cast<double>(derived_time) / static_cast<double>(kernel_time);
}

const char* const kPaddedNotComparable =
    "a convolution derived as the cube's padded count, recorded below it (the model's count, channels unpadded): "
    "not comparable";

FlopsAgreement CompareFlops(const DerivedKernel& derived, std::int64_t recorded, double tolerance) {
  if (!derived.flops) return FlopsAgreement::kNotComparable;
  const double value = *derived.flops;
  const auto recorded_flops = static_cast<double>(recorded);
  if (std::abs(recorded_flops - value) <= tolerance * std::max(value, 1.0)) return FlopsAgreement::kAgree;
  // The padded count is an upper bound of the model's: only a record above it is known wrong.
  if (derived.padded && recorded_flops < value) return FlopsAgreement::kNotComparable;
  return FlopsAgreement::kDisagree;
}

double DerivedGroup::achieved_flops() const {
  if (duration <= 0 || !derived.flops) return 0;
  return *derived.flops * static_cast<double>(count) / (static_cast<double>(duration) * 1e-9);
}

std::optional<double> DerivedGroup::achieved_bytes_per_second() const {
  if (duration <= 0 || !derived.bytes_read) return std::nullopt;
  return (*derived.bytes_read + *derived.bytes_written) * static_cast<double>(count) /
         (static_cast<double>(duration) * 1e-9);
}

std::optional<double> DerivedGroup::intensity() const {
  if (!derived.flops || !derived.bytes_read) return std::nullopt;
  const double bytes = *derived.bytes_read + *derived.bytes_written;
  if (bytes <= 0) return std::nullopt;
  return *derived.flops / bytes;
}

std::optional<double> DerivedSection::weighted_mfu() const {
  if (derived_time_with_peak <= 0) return std::nullopt;
  return derived_peak_seconds / derived_time_with_peak;
}

std::optional<double> DerivedSection::ridge() const {
  if (peak_fp16 <= 0 || bandwidth <= 0) return std::nullopt;
  return peak_fp16 / bandwidth;
}

Result<DerivedSection> BuildDerivedSection(const ReportData& data, const DerivedOptions& options) {
  DerivedSection section;
  section.tolerance = options.tolerance;
  if (data.source == ReportData::Source::kClusterDb) {
    section.notes.push_back(
        "not available from a cluster DB: it holds no kernel shapes; run `opmfu report -d <profiling dir>`");
    return section;
  }
  const ChipSpec* chosen = nullptr;
  if (!options.chip.empty()) {
    chosen = FindChip(options.chip);
    if (chosen == nullptr) {
      std::string names;
      for (const ChipSpec& chip : kChips) names += (names.empty() ? "" : ", ") + std::string(chip.name);
      return Error::Usage("--chip " + options.chip + ": not a known chip (" + names + ")");
    }
  }
  if (options.hbm_tbps) {
    section.bandwidth = *options.hbm_tbps * 1e12;
    section.bandwidth_source = "--hbm-tbps";
  } else if (chosen != nullptr && chosen->hbm_tbps > 0) {
    section.bandwidth = chosen->hbm_tbps * 1e12;
    section.bandwidth_uncertain = chosen->hbm_uncertain;
    section.bandwidth_source = "chip table, " + std::string(chosen->name) +
                               (chosen->hbm_uncertain ? " (uncertain: " : " (") + std::string(chosen->source) + ")";
  }

  // Signatures are STRING_IDS ids, which each rank DB numbers its own way: the ids index one rank's
  // kernels, and the text of a signature merges the ranks (and derives each kernel once).
  std::unordered_map<std::string, std::size_t> by_text;
  std::vector<DerivedGroup> groups;
  std::vector<std::string> chip_lines;
  // The OperatorMFU rows of compute kernels, by rank and kernel start (the first row of a kernel),
  // to compare recorded with derived: one pass over the rows.
  std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, const engine::OperatorMfuRow*>> recorded_by_rank;
  for (const engine::OperatorMfuRow& row : data.analysis.tables.operator_rows) {
    if (engine::IsComputeKernelName(row.kernel_name().value_or(""))) {
      recorded_by_rank[row.rank_id].emplace(row.kernel_start, &row);
    }
  }
  for (const engine::RankOutcome& outcome : data.analysis.ranks) {
    const std::int64_t rank_id = outcome.location.rank_id;
    DerivedRank& rank = section.ranks.emplace_back();
    rank.rank_id = rank_id;
    if (outcome.location.never_parsed) {
      rank.unreadable = outcome.failure ? engine::DescribeFailure(outcome)
                                        : outcome.location.db_path.string() + ": the rank was never parsed";
      continue;
    }
    // The peaks: info.json as the analysis reads it, else --peak-tflops or --chip.
    RankPeaks peaks;
    std::vector<engine::RankNote> chip_notes;
    const engine::ChipInfo chip = engine::LoadChipInfo(outcome.location.rank_directory, chip_notes);
    std::string chip_line;
    if (options.peak_tflops) {
      peaks.fp16 = *options.peak_tflops * 1e12;
      chip_line = "--peak-tflops " + FormatNumber("%g", *options.peak_tflops);
    } else if (chip.valid() && chip.ai_core_num > 0 && chip.aic_frequency_mhz > 0) {
      peaks.fp16 = chip.PeakFlops(engine::DtypeClass::kFloat16);
      chip_line = "info.json: " + FormatNumber("%g", chip.ai_core_num) + " AI cores at " +
                  FormatNumber("%g", chip.aic_frequency_mhz) + " MHz";
    } else if (chosen != nullptr) {
      peaks.fp16 = chosen->cores * chosen->mhz * kFp16PerCycle * 1e6;
      chip_line = "--chip " + std::string(chosen->name) + ": " + FormatNumber("%g", chosen->cores) + " AI cores at " +
                  FormatNumber("%g", chosen->mhz) + " MHz (CANN platform ini)";
    } else {
      chip_line = "no peak: no device_*/info.json.*; pass --chip NAME or --peak-tflops";
    }
    peaks.int8 = 2 * peaks.fp16;
    rank.peak_fp16 = peaks.fp16;
    if (section.peak_fp16 == 0) section.peak_fp16 = peaks.fp16;
    chip_lines.push_back("rank " + std::to_string(rank_id) + ": " + chip_line);

    auto db = Database::OpenReadOnly(outcome.location.db_path);
    if (!db.ok()) {
      rank.unreadable = db.error().message;
      section.notes.push_back("rank " + std::to_string(rank_id) + ": " + db.error().message);
      continue;
    }
    auto has_compute = db->HasTable("COMPUTE_TASK_INFO");
    auto has_task = db->HasTable("TASK");
    auto has_strings = db->HasTable("STRING_IDS");
    if (!has_compute.ok() || !has_task.ok() || !has_strings.ok() || !*has_compute || !*has_task || !*has_strings) {
      rank.unreadable = outcome.location.db_path.string() +
                        ": no COMPUTE_TASK_INFO, TASK or STRING_IDS table (collected below Level1?)";
      section.notes.push_back("rank " + std::to_string(rank_id) + ": " + *rank.unreadable);
      continue;
    }
    // The analysis' own scan grouped the kernels; only a rank it did not read is read again.
    engine::KernelSignatures read_here;
    const engine::KernelSignatures* signatures =
        outcome.analysis.kernel_signatures ? &*outcome.analysis.kernel_signatures : nullptr;
    if (signatures == nullptr) {
      OPMFU_ASSIGN_OR_RETURN(read_here, ReadKernelSignatures(*db));
      signatures = &read_here;
    }
    struct Local {
      std::size_t merged = 0;
      std::size_t count = 0;
      std::int64_t duration = 0;
    };
    // The rank's signatures into the groups merged over ranks by their text (each derived once).
    std::vector<Local> locals;
    std::unordered_map<std::size_t, std::size_t> local_of_merged;
    std::vector<std::size_t> merged_of;  // by the rank's signature group
    merged_of.reserve(signatures->groups.size());
    for (const engine::KernelSignatureGroup& signature : signatures->groups) {
      std::array<std::string_view, 8> text;
      std::string key;
      for (std::size_t column = 0; column < 8; ++column) {
        text[column] = Unquoted(signature.columns[column]);
        key.append(text[column]).push_back('\x1f');
      }
      auto [merged, added] = by_text.try_emplace(std::move(key), groups.size());
      if (added) {
        DerivedGroup group;
        group.kernel_name = text[0];
        group.op_type = text[1];
        group.input_formats = text[2];
        group.input_types = text[3];
        group.input_shapes = text[4];
        group.output_formats = text[5];
        group.output_types = text[6];
        group.output_shapes = text[7];
        group.derived = DeriveKernel({group.op_type, group.input_formats, group.input_types, group.input_shapes,
                                      group.output_formats, group.output_types, group.output_shapes});
        groups.push_back(std::move(group));
      }
      merged_of.push_back(merged->second);
      auto [local, first] = local_of_merged.try_emplace(merged->second, locals.size());
      if (first) locals.push_back({merged->second, 0, 0});
      locals[local->second].count += signature.count;
      locals[local->second].duration += signature.duration;
    }
    // Derived against recorded, kernel by kernel: an OperatorMFU row's kernel_start is its kernel's.
    std::map<std::tuple<std::string, std::string, std::size_t, std::int64_t>, std::size_t> disagreements;
    const auto rank_rows = recorded_by_rank.find(rank_id);
    if (rank_rows != recorded_by_rank.end()) {
      const std::unordered_map<std::int64_t, const engine::OperatorMfuRow*>& recorded = rank_rows->second;
      for (const engine::KernelStart& kernel : signatures->kernels) {
        const auto row = recorded.find(kernel.start);
        if (row == recorded.end()) continue;
        const std::size_t merged = merged_of[kernel.group];
        const DerivedGroup& group = groups[merged];
        if (!group.derived.flops) {
          ++section.not_compared["not derived: " + std::string(FamilyName(group.derived.family)) + ": " +
                                 group.derived.skip_reason];
          continue;
        }
        switch (CompareFlops(group.derived, row->second->flops, options.tolerance)) {
          case FlopsAgreement::kAgree:
            ++section.compared;
            ++section.agreed;
            break;
          case FlopsAgreement::kDisagree:
            ++section.compared;
            ++disagreements[{std::string(row->second->op_name().value_or("")),
                             std::string(row->second->flops_op_name()), merged, row->second->flops}];
            break;
          case FlopsAgreement::kNotComparable:
            ++section.not_compared[kPaddedNotComparable];
            break;
        }
      }
    }
    for (const auto& [key, count] : disagreements) {
      const auto& [op, flops_op, merged, recorded_flops] = key;
      const DerivedGroup& group = groups[merged];
      section.disagreements.push_back({rank_id, op, flops_op, group.kernel_name, group.op_type, group.input_shapes,
                                       recorded_flops, *group.derived.flops, count});
    }
    // This rank's kernels into the merged groups (and, if kept, as rows of their own).
    for (const Local& local : locals) {
      DerivedGroup& group = groups[local.merged];
      const double peak = PeakFor(peaks, group.derived.peak);
      group.count += local.count;
      group.duration += local.duration;
      rank.kernels += local.count;
      rank.kernel_time += local.duration;
      if (group.derived.flops) {
        rank.derived_kernels += local.count;
        rank.derived_time += local.duration;
      }
      if (peak > 0) {
        group.count_with_peak += local.count;
        group.time_with_peak += static_cast<double>(local.duration) * 1e-9;
        if (group.derived.flops) group.peak_seconds += *group.derived.flops * static_cast<double>(local.count) / peak;
      }
      if (options.keep_rank_groups) {
        DerivedGroup row = group;
        row.rank_id = rank_id;
        row.count = local.count;
        row.duration = local.duration;
        row.count_with_peak = peak > 0 ? local.count : 0;
        row.time_with_peak = peak > 0 ? static_cast<double>(local.duration) * 1e-9 : 0;
        row.peak_seconds =
            peak > 0 && group.derived.flops ? *group.derived.flops * static_cast<double>(local.count) / peak : 0;
        if (peak > 0) row.peak_flops = peak;
        section.rank_groups.push_back(std::move(row));
      }
    }
    // The largest total HBM bandwidth sampled (all HBM units, read and write, at one instant).
    auto has_hbm = db->HasTable("HBM");
    if (has_hbm.ok() && *has_hbm) {
      auto hbm = db->Prepare(
          "SELECT MAX(total) FROM (SELECT SUM(bandwidth) AS total FROM HBM GROUP BY deviceId, timestampNs)");
      if (hbm.ok()) {
        auto step = hbm->Step();
        if (step.ok() && *step && !hbm->IsNull(0))
          section.observed_hbm = std::max(section.observed_hbm, hbm->Double(0));
      }
    }
  }
  // One line when every rank's peak came from the same place.
  std::vector<std::string> distinct;
  for (const std::string& line : chip_lines) {
    const std::string what = line.substr(line.find(": ") + 2);
    if (std::find(distinct.begin(), distinct.end(), what) == distinct.end()) distinct.push_back(what);
  }
  section.chip = distinct.size() == 1 ? distinct.front() : Join(chip_lines, "; ");
  if (section.bandwidth == 0 && section.observed_hbm > 0) {
    section.bandwidth = section.observed_hbm;
    section.bandwidth_uncertain = true;
    section.bandwidth_source =
        "observed: the largest total in the run's HBM table (a lower bound of the peak; --chip or --hbm-tbps for "
        "the chip's)";
  }
  if (section.bandwidth == 0) {
    section.notes.push_back("no HBM bandwidth: pass --chip NAME or --hbm-tbps for the roofline");
  }

  for (DerivedGroup& group : groups) {
    section.kernels += group.count;
    section.kernel_time += group.duration;
    if (group.derived.flops) {
      section.derived_kernels += group.count;
      section.derived_time += group.duration;
      section.derived_flops += *group.derived.flops * static_cast<double>(group.count);
      section.derived_time_with_peak += group.time_with_peak;
      section.derived_peak_seconds += group.peak_seconds;
      section.groups.push_back(std::move(group));
    } else {
      const std::string reason = std::string(FamilyName(group.derived.family)) + ": " + group.derived.skip_reason;
      auto& [count, time] = section.skipped[reason];
      count += group.count;
      time += group.duration;
    }
  }
  std::sort(section.groups.begin(), section.groups.end(), [](const DerivedGroup& a, const DerivedGroup& b) {
    return std::tie(b.duration, a.op_type, a.input_shapes, a.kernel_name, a.output_shapes) <
           std::tie(a.duration, b.op_type, b.input_shapes, b.kernel_name, b.output_shapes);
  });
  std::stable_sort(section.rank_groups.begin(), section.rank_groups.end(),
                   [](const DerivedGroup& a, const DerivedGroup& b) {
                     return a.rank_id != b.rank_id ? a.rank_id < b.rank_id : a.duration > b.duration;
                   });
  std::size_t without_peak = 0;
  for (const DerivedGroup& group : section.groups) without_peak += group.count - group.count_with_peak;
  if (without_peak > 0 && section.derived_time_with_peak > 0) {
    section.notes.push_back(std::to_string(without_peak) +
                            " derived kernels run on ranks without a peak for their dtype: they are in the FLOPs but "
                            "not in the MFU");
  }
  std::stable_sort(section.disagreements.begin(), section.disagreements.end(),
                   [](const DerivedDisagreement& a, const DerivedDisagreement& b) { return a.count > b.count; });
  if (section.peak_fp16 == 0) {
    section.notes.push_back("no MFU: the chip's peak is unknown (no info.json); pass --chip NAME or --peak-tflops");
  }
  if (std::any_of(section.groups.begin(), section.groups.end(),
                  [](const DerivedGroup& g) { return g.derived.peak == PeakClass::kFloat32; })) {
    section.notes.push_back(
        "FP32 kernels are measured against the FP16 peak, as msprof-analyze does: no FP32 cube rate is published");
  }
  if (std::any_of(section.groups.begin(), section.groups.end(),
                  [](const DerivedGroup& g) { return g.derived.padded; })) {
    section.notes.push_back(
        "convolutions in NC1HWC0/FRACTAL_Z: the FLOPs the cube executes with channels padded to C0/16, not the "
        "model's (the true input channel count is not recorded)");
  }
  return section;
}

std::string RooflineNote(const DerivedSection& section, const DerivedGroup& group) {
  const std::optional<double> ridge = section.ridge();
  const std::optional<double> intensity = group.intensity();
  const std::optional<double> bytes_per_second = group.achieved_bytes_per_second();
  const std::optional<double> mfu = group.mfu();
  if (!ridge || !intensity) return "";
  if (*intensity < *ridge) {
    const double utilisation = bytes_per_second ? *bytes_per_second / section.bandwidth : 0;
    if (utilisation > 1.05) {
      return "memory-bound, but above the HBM figure (" + FormatPercent(utilisation) +
             "): the figure is too low, or the data came from L2 cache";
    }
    if (utilisation >= 0.7) {
      return "memory-bound at " + FormatPercent(utilisation) + " of HBM bandwidth: not an optimisation target for MFU";
    }
    return "memory-bound (intensity below the ridge " + FormatNumber("%.0f", *ridge) + " FLOP/B)";
  }
  if (mfu && *mfu < 0.3) return "compute-bound at low MFU: an optimisation target";
  return "compute-bound";
}

namespace {

std::string Tflops(double flops_per_second) { return FormatNumber("%.2f", flops_per_second / 1e12); }

std::string Optional(std::optional<double> value, const char* format, double scale = 1) {
  return value ? FormatNumber(format, *value * scale) : std::string("-");
}

std::vector<TableRow> GroupRows(const DerivedSection& section, std::size_t top) {
  std::vector<TableRow> rows{{"kernel", "op type", "input shapes", "count", "time", "FLOPs each", "TFLOPS", "MFU",
                              "FLOP/B", "TB/s", "BW util", "roofline"}};
  for (std::size_t i = 0; i < section.groups.size() && i < top; ++i) {
    const DerivedGroup& g = section.groups[i];
    const auto bandwidth = g.achieved_bytes_per_second();
    rows.push_back({g.kernel_name, g.op_type + (g.derived.padded ? " (padded)" : ""), g.input_shapes,
                    std::to_string(g.count), FormatDuration(static_cast<double>(g.duration)),
                    FormatNumber("%.4g", *g.derived.flops), Tflops(g.achieved_flops()),
                    g.mfu() ? FormatPercent(*g.mfu()) : "-", Optional(g.intensity(), "%.1f"),
                    Optional(bandwidth, "%.3f", 1e-12),
                    bandwidth && section.bandwidth > 0 ? FormatPercent(*bandwidth / section.bandwidth) : "-",
                    RooflineNote(section, g)});
  }
  return rows;
}

std::string Share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? FormatPercent(static_cast<double>(part) / static_cast<double>(whole)) : "-";
}

}  // namespace

std::string RenderDerivedPlain(const DerivedSection& section, bool markdown, std::size_t top) {
  std::ostringstream out;
  const std::string bullet = markdown ? "- " : "  ";
  out << (markdown ? "## " : "") << "Derived MFU: " << kDerivedLabel << "\n" << (markdown ? "\n" : "");
  out << bullet << "peaks: " << (section.chip.empty() ? "-" : section.chip) << "\n";
  out << bullet << "HBM bandwidth: "
      << (section.bandwidth > 0
              ? FormatNumber("%.3f", section.bandwidth / 1e12) + " TB/s from " + section.bandwidth_source
              : std::string("unknown"))
      << "\n";
  if (section.observed_hbm > 0) {
    out << bullet << "observed HBM ceiling: " << FormatNumber("%.3f", section.observed_hbm / 1e12)
        << " TB/s (largest total in the run's HBM table)\n";
  }
  if (const auto ridge = section.ridge()) {
    out << bullet << "ridge point: " << FormatNumber("%.1f", *ridge) << " FLOP/B (below it a kernel is memory-bound)\n";
  }
  out << bullet << "coverage: " << section.derived_kernels << " of " << section.kernels << " kernels, "
      << Share(section.derived_time, section.kernel_time) << " of kernel time ("
      << FormatDuration(static_cast<double>(section.derived_time)) << " of "
      << FormatDuration(static_cast<double>(section.kernel_time)) << ") have derived FLOPs\n";
  if (const auto mfu = section.weighted_mfu()) {
    out << bullet << "time-weighted derived MFU of those kernels: " << FormatPercent(*mfu) << "\n";
  }
  if (section.compared > 0) {
    out << bullet << "against the run's FLOPs records: " << section.compared << " kernels compared, " << section.agreed
        << " agree, " << section.compared - section.agreed << " DISAGREE\n";
  }
  for (const auto& [reason, count] : section.not_compared) {
    out << bullet << count << " kernels with a record not compared: " << reason << "\n";
  }
  for (const std::string& note : section.notes) out << bullet << note << "\n";
  out << "\n";
  if (!section.groups.empty()) {
    out << FormatTable(GroupRows(section, top), markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }
  if (!section.disagreements.empty()) {
    std::vector<TableRow> rows{
        {"rank", "op", "kernel", "op type", "input shapes", "count", "recorded FLOPs", "derived FLOPs"}};
    for (const DerivedDisagreement& d : section.disagreements) {
      rows.push_back({std::to_string(d.rank_id), d.op_name, d.kernel_name, d.op_type, d.input_shapes,
                      std::to_string(d.count), std::to_string(d.recorded), FormatNumber("%.0f", d.derived)});
    }
    out << (markdown ? "### " : "") << "Derived and recorded FLOPs disagree\n"
        << (markdown ? "\n" : "") << FormatTable(rows, markdown ? TableStyle::kMarkdown : TableStyle::kText) << "\n";
  }
  if (!section.skipped.empty()) {
    out << (markdown ? "### " : "") << "Not derived, and why\n" << (markdown ? "\n" : "");
    std::vector<std::pair<std::string, std::pair<std::size_t, std::int64_t>>> skipped(section.skipped.begin(),
                                                                                      section.skipped.end());
    std::stable_sort(skipped.begin(), skipped.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    for (const auto& [reason, counts] : skipped) {
      out << bullet << counts.first << " kernels, " << FormatDuration(static_cast<double>(counts.second)) << " ("
          << Share(counts.second, section.kernel_time) << "): " << reason << "\n";
    }
    out << "\n";
  }
  return out.str();
}

nlohmann::ordered_json DerivedJson(const DerivedSection& section) {
  nlohmann::ordered_json json;
  json["label"] = kDerivedLabel;
  json["peaks"] = section.chip;
  json["peak_fp16_flops"] = section.peak_fp16 > 0 ? nlohmann::ordered_json(section.peak_fp16) : nullptr;
  json["hbm_bandwidth_bytes_per_s"] = section.bandwidth > 0 ? nlohmann::ordered_json(section.bandwidth) : nullptr;
  json["hbm_bandwidth_source"] = section.bandwidth_source;
  json["hbm_bandwidth_uncertain"] = section.bandwidth_uncertain;
  json["observed_hbm_bytes_per_s"] = section.observed_hbm > 0 ? nlohmann::ordered_json(section.observed_hbm) : nullptr;
  const auto ridge = section.ridge();
  json["ridge_flop_per_byte"] = ridge ? nlohmann::ordered_json(*ridge) : nullptr;
  json["kernels"] = section.kernels;
  json["kernel_time_ns"] = section.kernel_time;
  json["derived_kernels"] = section.derived_kernels;
  json["derived_time_ns"] = section.derived_time;
  const auto mfu = section.weighted_mfu();
  json["weighted_mfu"] = mfu ? nlohmann::ordered_json(*mfu) : nullptr;
  json["groups"] = nlohmann::ordered_json::array();
  for (const DerivedGroup& g : section.groups) {
    const auto bandwidth = g.achieved_bytes_per_second();
    const auto intensity = g.intensity();
    const auto group_mfu = g.mfu();
    json["groups"].push_back(
        {{"kernel_name", g.kernel_name},
         {"op_type", g.op_type},
         {"family", FamilyName(g.derived.family)},
         {"input_shapes", g.input_shapes},
         {"output_shapes", g.output_shapes},
         {"input_types", g.input_types},
         {"count", g.count},
         {"duration_ns", g.duration},
         {"flops", *g.derived.flops},
         {"formula", g.derived.formula},
         {"padded", g.derived.padded},
         {"bytes_read", g.derived.bytes_read ? nlohmann::ordered_json(*g.derived.bytes_read) : nullptr},
         {"bytes_written", g.derived.bytes_written ? nlohmann::ordered_json(*g.derived.bytes_written) : nullptr},
         {"achieved_flops_per_s", g.achieved_flops()},
         {"mfu", group_mfu ? nlohmann::ordered_json(*group_mfu) : nullptr},
         {"intensity", intensity ? nlohmann::ordered_json(*intensity) : nullptr},
         {"achieved_bytes_per_s", bandwidth ? nlohmann::ordered_json(*bandwidth) : nullptr},
         {"bandwidth_utilisation",
          bandwidth && section.bandwidth > 0 ? nlohmann::ordered_json(*bandwidth / section.bandwidth) : nullptr},
         {"roofline", RooflineNote(section, g)}});
  }
  json["skipped"] = nlohmann::ordered_json::array();
  for (const auto& [reason, counts] : section.skipped) {
    json["skipped"].push_back({{"reason", reason}, {"kernels", counts.first}, {"duration_ns", counts.second}});
  }
  json["compared"] = section.compared;
  json["agreed"] = section.agreed;
  json["disagreements"] = nlohmann::ordered_json::array();
  for (const DerivedDisagreement& d : section.disagreements) {
    json["disagreements"].push_back({{"rank_id", d.rank_id},
                                     {"op_name", d.op_name},
                                     {"flops_op_name", d.flops_op_name},
                                     {"kernel_name", d.kernel_name},
                                     {"op_type", d.op_type},
                                     {"input_shapes", d.input_shapes},
                                     {"count", d.count},
                                     {"recorded", d.recorded},
                                     {"derived", d.derived}});
  }
  json["not_compared"] = section.not_compared;
  json["ranks"] = nlohmann::ordered_json::array();
  for (const DerivedRank& rank : section.ranks) {
    const auto coverage = rank.coverage();
    json["ranks"].push_back(
        {{"rank_id", rank.rank_id},
         {"unreadable", rank.unreadable ? nlohmann::ordered_json(*rank.unreadable) : nullptr},
         {"kernels", rank.kernels},
         {"kernel_time_ns", rank.kernel_time},
         {"derived_kernels", rank.derived_kernels},
         {"derived_time_ns", rank.derived_time},
         {"coverage", coverage ? nlohmann::ordered_json(*coverage) : nullptr},
         {"peak_fp16_flops", rank.peak_fp16 > 0 ? nlohmann::ordered_json(rank.peak_fp16) : nullptr}});
  }
  json["notes"] = section.notes;
  return json;
}

namespace {

// Log-log roofline: arithmetic intensity (FLOP/B) against achieved FLOP/s, with the compute
// ceiling (the FP16 peak) and the bandwidth slope meeting at the ridge point.
std::string RooflineChart(const DerivedSection& section) {
  const double left = 70;
  const double top = 30;
  const double width = 600;
  const double height = 300;
  double min_x = 0;  // log10 FLOP/B
  double max_x = 3;
  double min_y = 10;  // log10 FLOP/s
  double max_y = 15;
  std::vector<std::tuple<double, double, const DerivedGroup*>> points;
  for (const DerivedGroup& g : section.groups) {
    const auto intensity = g.intensity();
    const double achieved = g.achieved_flops();
    if (!intensity || *intensity <= 0 || achieved <= 0) continue;
    points.emplace_back(std::log10(*intensity), std::log10(achieved), &g);
    min_x = std::min(min_x, std::floor(std::log10(*intensity)));
    max_x = std::max(max_x, std::ceil(std::log10(*intensity)));
    min_y = std::min(min_y, std::floor(std::log10(achieved)));
  }
  if (section.peak_fp16 > 0) max_y = std::max(max_y, std::ceil(std::log10(section.peak_fp16) + 0.3));
  const auto px = [&](double log_x) { return left + width * (log_x - min_x) / std::max(1.0, max_x - min_x); };
  const auto py = [&](double log_y) { return top + height - height * (log_y - min_y) / std::max(1.0, max_y - min_y); };
  const auto n = [](double v) { return FormatNumber("%.1f", v); };
  std::ostringstream svg;
  const std::string title = std::string("Roofline, ") + kDerivedLabel +
                            ": arithmetic intensity against achieved FLOP/s (log-log; each dot a kernel signature)";
  svg << "<figure><figcaption>" << EscapeHtml(title) << "</figcaption><svg class=\"chart\" data-chart=\"roofline\" "
      << "role=\"img\" aria-label=\"" << EscapeHtml(title) << "\" viewBox=\"0 0 " << left + width + 60 << " "
      << top + height + 40 << "\" width=\"" << left + width + 60 << "\" height=\"" << top + height + 40 << "\">";
  for (int step = 0; min_y + step <= max_y; ++step) {
    const double y = min_y + step;
    svg << "<line x1=\"" << left << "\" y1=\"" << n(py(y)) << "\" x2=\"" << left + width << "\" y2=\"" << n(py(y))
        << "\" stroke=\"#eee\"/><text x=\"" << left - 6 << "\" y=\"" << n(py(y) + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << FormatNumber("%g", std::pow(10, y - 12)) << " TF</text>";
  }
  for (int step = 0; min_x + step <= max_x; ++step) {
    const double x = min_x + step;
    svg << "<line x1=\"" << n(px(x)) << "\" y1=\"" << top << "\" x2=\"" << n(px(x)) << "\" y2=\"" << top + height
        << "\" stroke=\"#eee\"/><text x=\"" << n(px(x)) << "\" y=\"" << top + height + 16
        << "\" font-size=\"11\" text-anchor=\"middle\">" << FormatNumber("%g", std::pow(10, x)) << "</text>";
  }
  if (section.peak_fp16 > 0) {
    const double peak = std::log10(section.peak_fp16);
    double knee = min_x;
    if (section.bandwidth > 0) {
      // Bandwidth slope: FLOP/s = intensity x bytes/s, up to the ridge.
      knee = std::clamp(std::log10(section.peak_fp16 / section.bandwidth), min_x, max_x);
      const double start_y = std::log10(section.bandwidth) + min_x;
      svg << "<line class=\"ceiling-bandwidth\" x1=\"" << n(px(min_x)) << "\" y1=\"" << n(py(std::max(start_y, min_y)))
          << "\" x2=\"" << n(px(knee)) << "\" y2=\"" << n(py(peak))
          << "\" stroke=\"#1565c0\" stroke-width=\"2\"><title>"
          << "HBM " << FormatNumber("%.2f", section.bandwidth / 1e12) << " TB/s ("
          << EscapeHtml(section.bandwidth_source) << ")</title></line>";
    }
    svg << "<line class=\"ceiling-compute\" x1=\"" << n(px(knee)) << "\" y1=\"" << n(py(peak)) << "\" x2=\""
        << n(px(max_x)) << "\" y2=\"" << n(py(peak)) << "\" stroke=\"#c62828\" stroke-width=\"2\"><title>FP16 peak "
        << Tflops(section.peak_fp16) << " TFLOPS</title></line>";
  }
  for (const auto& [x, y, group] : points) {
    svg << "<circle cx=\"" << n(px(x)) << "\" cy=\"" << n(py(y)) << "\" r=\"4\" fill=\"#6a1b9a\" fill-opacity=\"0.6\">"
        << "<title>" << EscapeHtml(group->kernel_name) << " " << EscapeHtml(group->input_shapes) << ": "
        << FormatNumber("%.1f", std::pow(10, x)) << " FLOP/B, " << Tflops(std::pow(10, y)) << " TFLOPS"
        << (group->mfu() ? ", MFU " + FormatPercent(*group->mfu()) : std::string()) << "</title></circle>";
  }
  svg << "<text x=\"" << left + width / 2 << "\" y=\"" << top + height + 34
      << "\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text></svg></figure>\n";
  return svg.str();
}

}  // namespace

std::string RenderDerivedHtml(const DerivedSection& section, std::size_t top) {
  std::ostringstream out;
  out << "<h2 id=\"derived\">Derived MFU: " << EscapeHtml(kDerivedLabel) << "</h2>\n<pre>"
      << EscapeHtml(RenderDerivedPlain(section, false, 0)) << "</pre>\n";
  if (!section.groups.empty()) {
    out << RooflineChart(section);
    const std::vector<TableRow> rows = GroupRows(section, top);
    out << "<table><thead><tr>";
    for (const std::string& cell : rows.front()) out << "<th>" << EscapeHtml(cell) << "</th>";
    out << "</tr></thead><tbody>";
    for (std::size_t i = 1; i < rows.size(); ++i) {
      out << "<tr>";
      for (const std::string& cell : rows[i]) out << "<td>" << WithBreaksAfterSeparators(EscapeHtml(cell)) << "</td>";
      out << "</tr>";
    }
    out << "</tbody></table>\n";
  }
  return out.str();
}

}  // namespace opmfu::report
