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
#include "engine/kernel_signatures.h"
#include "engine/rank_analysis.h"
#include "engine/text_export.h"
#include "report/presentation.h"
#include "report/report.h"
#include "report/torch_analysis.h"

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

struct RankPeaks {
  double fp16 = 0;
  double int8 = 0;
  double nominal_mhz = 0;  ///< the clock the peak assumes; 0 for --peak-tflops
  std::string line;        ///< where the peaks came from
};

double PeakFor(const RankPeaks& peaks, PeakClass peak) {
  if (peak == PeakClass::kInt8) return peaks.int8;
  if (peak == PeakClass::kFloat16 || peak == PeakClass::kFloat32) return peaks.fp16;
  return 0;
}

// Shapes are stored in quotes; N/A means not recorded.
std::string_view Unquoted(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') return value.substr(1, value.size() - 2);
  return value;
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

std::optional<double> DerivedGroup::hfu_mac() const {
  if (mac_time <= 0) return std::nullopt;
  return mac_busy_time / mac_time;
}

std::optional<double> DerivedGroup::hfu_fops() const {
  if (fops_time <= 0) return std::nullopt;
  return fops_peak_seconds / fops_time;
}

std::optional<double> DerivedGroup::hfu_mfu_factor() const {
  const auto hfu = hfu_fops() ? hfu_fops() : hfu_mac();
  const auto model = mfu();
  if (!hfu || !model || *hfu <= 0 || *model <= 0) return std::nullopt;
  return std::max(*hfu / *model, *model / *hfu);
}

std::optional<double> DerivedSection::peak_at_measured_clock() const {
  if (!measured_mhz || nominal_mhz <= 0 || peak_fp16 <= 0) return std::nullopt;
  return peak_fp16 * *measured_mhz / nominal_mhz;
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

namespace {

// A rank's peaks: info.json as the analysis reads it, else --peak-tflops or --chip; the clock the
// peak assumes (0 for --peak-tflops) and the line that says where they came from.
RankPeaks PeaksOf(const engine::RankOutcome& outcome, const DerivedOptions& options, const ChipSpec* chosen) {
  RankPeaks peaks;
  double& nominal_mhz = peaks.nominal_mhz;
  std::string& chip_line = peaks.line;
  std::vector<engine::RankNote> chip_notes;
  const engine::ChipInfo chip = engine::LoadChipInfo(outcome.location.rank_directory, chip_notes);
  if (options.peak_tflops) {
    peaks.fp16 = *options.peak_tflops * 1e12;
    chip_line = "--peak-tflops " + FormatNumber("%g", *options.peak_tflops);
  } else if (chip.valid() && chip.ai_core_num > 0 && chip.aic_frequency_mhz > 0) {
    peaks.fp16 = chip.PeakFlops(engine::DtypeClass::kFloat16);
    nominal_mhz = chip.aic_frequency_mhz;
    chip_line = "info.json: " + FormatNumber("%g", chip.ai_core_num) + " AI cores at " +
                FormatNumber("%g", chip.aic_frequency_mhz) + " MHz";
  } else if (chosen != nullptr) {
    peaks.fp16 = chosen->cores * chosen->mhz * kFp16PerCycle * 1e6;
    nominal_mhz = chosen->mhz;
    chip_line = "--chip " + std::string(chosen->name) + ": " + FormatNumber("%g", chosen->cores) + " AI cores at " +
                FormatNumber("%g", chosen->mhz) + " MHz (CANN platform ini)";
  } else {
    chip_line = "no peak: no device_*/info.json.*; pass --chip NAME or --peak-tflops";
  }
  peaks.int8 = 2 * peaks.fp16;
  return peaks;
}

// The largest total HBM bandwidth sampled (all HBM units, read and write, at one instant), bytes/s;
// 0 without an HBM table.
double ObservedHbm(Database& db) {
  auto has_hbm = db.HasTable("HBM");
  if (!has_hbm.ok() || !*has_hbm) return 0;
  auto hbm =
      db.Prepare("SELECT MAX(total) FROM (SELECT SUM(bandwidth) AS total FROM HBM GROUP BY deviceId, timestampNs)");
  if (!hbm.ok()) return 0;
  auto step = hbm->Step();
  return step.ok() && *step && !hbm->IsNull(0) ? hbm->Double(0) : 0;
}

}  // namespace

// The rank's kernels by signature: the analysis' own scan grouped them already; a rank it did not
// read, or a DB with TASK_PMU_INFO (the scan reads no hardware counters, HFU needs them), is read
// again with SQL into `read_here`.
Result<const engine::KernelSignatures*> SignaturesOf(const engine::RankOutcome& outcome, Database* db,
                                                     engine::KernelSignatures& read_here) {
  const engine::KernelSignatures* scanned =
      outcome.analysis.kernel_signatures ? &*outcome.analysis.kernel_signatures : nullptr;
  if (db == nullptr) return scanned;
  if (scanned != nullptr) {
    auto has_pmu = db->HasTable("TASK_PMU_INFO");
    if (!has_pmu.ok() || !*has_pmu) return scanned;
  }
  OPMFU_ASSIGN_OR_RETURN(read_here, engine::ReadKernelSignatures(*db));
  return &read_here;
}

Result<DerivedSection> BuildDerivedSection(const ReportData& data, const DerivedOptions& options) {
  DerivedSection section;
  section.tolerance = options.tolerance;
  if (data.traces != nullptr) return TraceDerivedSection(*data.traces, options.keep_rank_groups);
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
    const RankPeaks peaks = PeaksOf(outcome, options, chosen);
    rank.peak_fp16 = peaks.fp16;
    if (section.peak_fp16 == 0) section.peak_fp16 = peaks.fp16;
    chip_lines.push_back("rank " + std::to_string(rank_id) + ": " + peaks.line);

    // A Text export: the analysis read kernel_details.csv and grouped its kernels already.
    std::optional<Database> db_owner;
    Database* db = nullptr;
    if (outcome.location.text_export) {
      if (!outcome.analysis.kernel_signatures) {
        rank.unreadable = outcome.failure ? engine::DescribeFailure(outcome)
                                          : outcome.location.db_path.string() + ": no kernel_details.csv was read";
        section.notes.push_back("rank " + std::to_string(rank_id) + ": " + *rank.unreadable);
        continue;
      }
      if (engine::IsLevel0(outcome.analysis.recorded)) {
        rank.unreadable = engine::Level0Line(true);
        section.notes.push_back("rank " + std::to_string(rank_id) + ": " + *rank.unreadable);
        continue;
      }
    } else {
      auto opened = Database::OpenReadOnly(outcome.location.db_path);
      if (!opened.ok()) {
        rank.unreadable = opened.error().message;
        section.notes.push_back("rank " + std::to_string(rank_id) + ": " + opened.error().message);
        continue;
      }
      db_owner.emplace(std::move(*opened));
      db = &*db_owner;
    }
    if (db != nullptr) {
      if (engine::IsLevel0(outcome.analysis.recorded)) {
        rank.unreadable = engine::Level0Line(false);
        section.notes.push_back("rank " + std::to_string(rank_id) + ": " + *rank.unreadable);
        continue;
      }
    }
    auto has_compute = db != nullptr ? db->HasTable("COMPUTE_TASK_INFO") : Result<bool>(true);
    auto has_task = db != nullptr ? db->HasTable("TASK") : Result<bool>(true);
    auto has_strings = db != nullptr ? db->HasTable("STRING_IDS") : Result<bool>(true);
    if (!has_compute.ok() || !has_task.ok() || !has_strings.ok() || !*has_compute || !*has_task || !*has_strings) {
      rank.unreadable = outcome.location.db_path.string() +
                        ": no COMPUTE_TASK_INFO, TASK or STRING_IDS table (collected below Level1?)";
      section.notes.push_back("rank " + std::to_string(rank_id) + ": " + *rank.unreadable);
      continue;
    }
    engine::KernelSignatures read_here;
    OPMFU_ASSIGN_OR_RETURN(const engine::KernelSignatures* signatures, SignaturesOf(outcome, db, read_here));
    struct Local {
      std::size_t merged = 0;
      std::size_t count = 0;
      std::int64_t duration = 0;
      double mac_ratio_time = 0;  // the counters, as KernelSignatureGroup has them
      std::int64_t mac_duration = 0;
      double cube_fops = 0;
      std::int64_t fops_duration = 0;
    };
    section.has_mac_ratio = section.has_mac_ratio || signatures->has_mac_ratio;
    section.has_cube_fops = section.has_cube_fops || signatures->has_cube_fops;
    if (!section.measured_mhz && signatures->measured_aicore_mhz && peaks.nominal_mhz > 0) {
      section.measured_mhz = signatures->measured_aicore_mhz;
      section.nominal_mhz = peaks.nominal_mhz;
    }
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
      if (first) locals.push_back({merged->second});
      Local& sums = locals[local->second];
      sums.count += signature.count;
      sums.duration += signature.duration;
      sums.mac_ratio_time += signature.mac_ratio_time;
      sums.mac_duration += signature.mac_duration;
      sums.cube_fops += signature.cube_fops;
      sums.fops_duration += signature.fops_duration;
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
      // HFU: the busy share needs no peak; counted FLOPs are put against the peak MFU uses.
      const double fops_peak = peak > 0 ? peak : peaks.fp16;
      const double mac_time = static_cast<double>(local.mac_duration) * 1e-9;
      const double mac_busy_time = local.mac_ratio_time * 1e-9;
      const double fops_time = fops_peak > 0 ? static_cast<double>(local.fops_duration) * 1e-9 : 0;
      const double fops_peak_seconds = fops_peak > 0 ? local.cube_fops / fops_peak : 0;
      group.mac_time += mac_time;
      group.mac_busy_time += mac_busy_time;
      group.fops_time += fops_time;
      group.fops_peak_seconds += fops_peak_seconds;
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
        row.mac_time = mac_time;
        row.mac_busy_time = mac_busy_time;
        row.fops_time = fops_time;
        row.fops_peak_seconds = fops_peak_seconds;
        section.rank_groups.push_back(std::move(row));
      }
    }
    if (db != nullptr) section.observed_hbm = std::max(section.observed_hbm, ObservedHbm(*db));
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
  section.framework_ops = BuildFrameworkOpView(data, section.ranks);
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

}  // namespace opmfu::report
