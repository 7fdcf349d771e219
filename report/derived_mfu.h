#pragma once
// The report's derived section: every kernel of every rank DB (COMPUTE_TASK_INFO joined to TASK)
// through report/derived_flops, grouped by signature, with the chip's peaks and HBM bandwidth, a
// roofline (intensity, compute- or memory-bound, achieved TB/s), coverage (the share of kernel time
// derived, what was skipped and why) and, where the run has FLOPs records, derived against recorded
// per kernel. Always labelled "derived from kernel shapes (not msprof-analyze)"; docs/derived-mfu.md.
// The model only: its text, JSON and HTML are report/derived_render's; the kernels come from the
// engine (its scan, or engine::ReadKernelSignatures for a rank the scan did not read).

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "report/derived_flops.h"
#include "report/framework_ops.h"

namespace opmfu::report {

struct ReportData;

/// One row of the chip table (docs/derived-mfu.md cites the sources; spec: shared chips.md).
struct ChipSpec {
  std::string_view name;  ///< CANN SoC name, "Ascend910B2"
  double cores = 0;
  double mhz = 0;
  double hbm_tbps = 0;  ///< 0: no figure found
  bool hbm_uncertain = false;
  std::string_view source;
};
std::span<const ChipSpec> KnownChips();
/// Case-insensitive, with or without the "Ascend" prefix; nullptr if unknown.
const ChipSpec* FindChip(std::string_view name);

struct DerivedOptions {
  std::string chip;                   ///< --chip: a KnownChips() name
  std::optional<double> peak_tflops;  ///< --peak-tflops: the FP16 peak (INT8 is twice it)
  std::optional<double> hbm_tbps;     ///< --hbm-tbps
  /// Derived against recorded: the relative difference still agreeing. 0, exact, by default: both
  /// values come from the same built-in formula code on the same operands (CompareFlops).
  double tolerance = 0;
  /// Keep every signature of every rank, skipped ones included, in DerivedSection::rank_groups
  /// (the DerivedMFU table of `analyze --derived`); the report needs only the merged groups.
  bool keep_rank_groups = false;
};

struct DerivedGroup {
  std::int64_t rank_id = -1;  ///< in DerivedSection::rank_groups; -1 in the groups merged over ranks
  std::string op_type;
  std::string kernel_name;
  std::string input_formats;
  std::string input_types;
  std::string input_shapes;
  std::string output_formats;
  std::string output_types;
  std::string output_shapes;
  DerivedKernel derived;
  std::size_t count = 0;
  std::int64_t duration = 0;        ///< ns, all kernels of the group
  std::size_t count_with_peak = 0;  ///< kernels on ranks with a peak for their dtype: those the MFU covers
  /// Over those kernels: their time (s), and the time their FLOPs take at the peak (FLOPs / peak, s).
  /// MFU = peak_seconds / time_with_peak: the time-weighted mean of each kernel's MFU, as the
  /// recorded MFU is weighted (with INT8 and FP16 kernels mixed, FLOPs over time x peak is not).
  double time_with_peak = 0;
  double peak_seconds = 0;
  std::optional<double> peak_flops;  ///< in rank_groups: the rank's peak FLOP/s for the kernel's dtype
  /// HFU from the hardware counters (Text export): over the kernels with aic_mac_ratio, their time
  /// and the time the cube was busy (ratio x time), s; over the kernels with aic_cube_fops on a
  /// rank with a peak, their time and the time their counted FLOPs take at that peak, s.
  double mac_time = 0;
  double mac_busy_time = 0;
  double fops_time = 0;
  double fops_peak_seconds = 0;
  std::optional<double> mfu() const;
  /// The cube's busy share (aic_mac_ratio, time-weighted): not FLOPs over a peak.
  std::optional<double> hfu_mac() const;
  /// Counted FLOPs (aic_cube_fops) over the time at the same peak as MFU (the nominal clock).
  std::optional<double> hfu_fops() const;
  /// The counter-based figure (FLOPs if counted, else the busy share) over MFU, or its inverse,
  /// whichever is at least 1; nullopt without both.
  std::optional<double> hfu_mfu_factor() const;
  double achieved_flops() const;  ///< FLOP/s
  std::optional<double> achieved_bytes_per_second() const;
  std::optional<double> intensity() const;  ///< FLOP/byte
};

/// Derived against recorded FLOPs for one kernel. Matmuls, grouped matmuls and attention are
/// computed with torch_npu's built-in formula code on the operands the kernel records, so a record
/// written by that formula for the same operands is equal to the last FLOP: any difference is a
/// different formula or different operands, and the default tolerance is 0. A convolution in
/// NC1HWC0 is derived as the padded count the cube executes, an upper bound of the model's count:
/// equal agrees, above it disagrees (more FLOPs than the hardware ran), below it is not comparable.
enum class FlopsAgreement { kAgree, kDisagree, kNotComparable };
FlopsAgreement CompareFlops(const DerivedKernel& derived, std::int64_t recorded, double tolerance);
extern const char* const kPaddedNotComparable;  ///< the reason CompareFlops gave kNotComparable

struct DerivedDisagreement {
  std::int64_t rank_id = 0;
  std::string op_name;        ///< the framework op of the OperatorMFU row
  std::string flops_op_name;  ///< the FLOPs range's op
  std::string kernel_name;
  std::string op_type;
  std::string input_shapes;
  std::int64_t recorded = 0;
  double derived = 0;
  std::size_t count = 0;
};

/// One rank as the derived section read it.
struct DerivedRank {
  std::int64_t rank_id = 0;
  std::optional<std::string> unreadable;  ///< why none of its kernels could be read (then it counts nothing)
  std::size_t kernels = 0;
  std::int64_t kernel_time = 0;  ///< ns
  std::size_t derived_kernels = 0;
  std::int64_t derived_time = 0;
  double peak_fp16 = 0;  ///< FLOP/s; 0 unknown
  /// The share of kernel time whose FLOPs were derived; nullopt without kernels.
  std::optional<double> coverage() const;
};

struct DerivedSection {
  std::string chip;              ///< what the peaks come from, one line
  double peak_fp16 = 0;          ///< FLOP/s of the first rank with one; 0 unknown
  double bandwidth = 0;          ///< bytes/s used for the roofline; 0 unknown
  std::string bandwidth_source;  ///< "--hbm-tbps", "chip table: ... (uncertain)", "observed"
  bool bandwidth_uncertain = false;
  double observed_hbm = 0;  ///< largest summed HBM table sample, bytes/s; 0 none
  std::size_t kernels = 0;
  std::int64_t kernel_time = 0;  ///< ns
  std::size_t derived_kernels = 0;
  std::int64_t derived_time = 0;
  double derived_flops = 0;
  double derived_time_with_peak = 0;  ///< s, for the weighted MFU (DerivedGroup::time_with_peak)
  double derived_peak_seconds = 0;    ///< s, for the weighted MFU (DerivedGroup::peak_seconds)
  std::map<std::string, std::pair<std::size_t, std::int64_t>> skipped;  ///< reason -> (kernels, ns)
  std::vector<DerivedGroup> groups;  ///< every signature with derived FLOPs, merged over ranks, by time
  std::vector<DerivedRank> ranks;    ///< in the analysis' rank order
  /// With DerivedOptions::keep_rank_groups: every signature of every rank, derived or skipped, by
  /// rank then time.
  std::vector<DerivedGroup> rank_groups;
  double tolerance = 0;      ///< DerivedOptions::tolerance, as compared
  std::size_t compared = 0;  ///< OperatorMFU compute rows matched to a derived kernel
  std::size_t agreed = 0;
  std::vector<DerivedDisagreement> disagreements;
  std::map<std::string, std::size_t> not_compared;  ///< reason -> matched rows whose values cannot be compared
  std::vector<std::string> notes;
  /// What HFU is read from: kernel_details.csv's counter columns with a value other than 0.
  bool has_mac_ratio = false;
  bool has_cube_fops = false;
  /// The AI Core clock trace_view.json measured (the median of its `AI Core Freq` samples) and the
  /// nominal one the peak assumes, of the first rank with both, MHz.
  std::optional<double> measured_mhz;
  double nominal_mhz = 0;
  /// Where a rank has operator_details.csv: its leaf framework ops with logical shapes.
  std::optional<FrameworkOpView> framework_ops;
  std::optional<double> weighted_mfu() const;
  /// The FP16 peak at the measured clock (FLOP/s), beside the nominal one.
  std::optional<double> peak_at_measured_clock() const;
  /// The ridge point, FLOP/byte: below it a kernel is memory-bound.
  std::optional<double> ridge() const;
};

/// Reads every rank DB of `data` (read-only). Needs a profiling directory: from a cluster DB the
/// section says it is not available.
Result<DerivedSection> BuildDerivedSection(const ReportData& data, const DerivedOptions& options);

/// "memory-bound at 91% of HBM bandwidth: not an optimisation target", or empty.
std::string RooflineNote(const DerivedSection& section, const DerivedGroup& group);

extern const char* const kDerivedLabel;
/// A group whose HFU and MFU differ by more than this factor is flagged.
inline constexpr double kHfuMfuFactor = 2.0;  ///< "derived from kernel shapes (not msprof-analyze)"

}  // namespace opmfu::report
