#pragma once
// The report's derived section: every kernel of every rank DB (COMPUTE_TASK_INFO joined to TASK)
// through report/derived_flops, grouped by signature, with the chip's peaks and HBM bandwidth, a
// roofline (intensity, compute- or memory-bound, achieved TB/s), coverage (the share of kernel time
// derived, what was skipped and why) and, where the run has FLOPs records, derived against recorded
// per kernel. Always labelled "derived from kernel shapes (not msprof-analyze)"; docs/derived-mfu.md.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "report/derived_flops.h"

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
  double tolerance = 0.01;            ///< derived against recorded: relative difference still agreeing
};

struct DerivedGroup {
  std::string op_type;
  std::string kernel_name;
  std::string input_shapes;
  std::string output_shapes;
  std::string input_types;
  DerivedKernel derived;
  std::size_t count = 0;
  std::int64_t duration = 0;  ///< ns, all kernels of the group
  double peak_time = 0;       ///< sum of duration (s) x the kernel's peak FLOPS; 0 when no peak is known
  std::optional<double> mfu() const;
  double achieved_flops() const;  ///< FLOP/s
  std::optional<double> achieved_bytes_per_second() const;
  std::optional<double> intensity() const;  ///< FLOP/byte
};

struct DerivedDisagreement {
  std::int64_t rank_id = 0;
  std::string kernel_name;
  std::string input_shapes;
  std::int64_t recorded = 0;
  double derived = 0;
  std::size_t count = 0;
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
  double derived_peak_time = 0;                                         ///< for the weighted MFU
  std::map<std::string, std::pair<std::size_t, std::int64_t>> skipped;  ///< reason -> (kernels, ns)
  std::vector<DerivedGroup> groups;                                     ///< every signature with derived FLOPs, by time
  std::size_t compared = 0;  ///< OperatorMFU compute rows matched to a derived kernel
  std::size_t agreed = 0;
  std::vector<DerivedDisagreement> disagreements;
  std::vector<std::string> notes;
  std::optional<double> weighted_mfu() const;
  /// The ridge point, FLOP/byte: below it a kernel is memory-bound.
  std::optional<double> ridge() const;
};

/// Reads every rank DB of `data` (read-only). Needs a profiling directory: from a cluster DB the
/// section says it is not available.
Result<DerivedSection> BuildDerivedSection(const ReportData& data, const DerivedOptions& options);

/// "memory-bound at 91% of HBM bandwidth: not an optimisation target", or empty.
std::string RooflineNote(const DerivedSection& section, const DerivedGroup& group);

extern const char* const kDerivedLabel;  ///< "derived from kernel shapes (not msprof-analyze)"

std::string RenderDerivedPlain(const DerivedSection& section, bool markdown, std::size_t top);
nlohmann::ordered_json DerivedJson(const DerivedSection& section);
std::string RenderDerivedHtml(const DerivedSection& section, std::size_t top);

}  // namespace opmfu::report
