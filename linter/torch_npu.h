#pragma once
// What opmfu knows about torch_npu for value tracing: the profiler's enum constants
// (ProfilerLevel, ExportType, ProfilerActivity, AiCMetrics) and `transfer_to_npu`, whose import
// patches torch process-wide. python/ knows Python; this is handed to it as LibraryKnowledge.

#include <array>
#include <optional>
#include <string_view>

#include "python/module.h"

namespace opmfu::linter {

/// The torch_npu (or torch) profiler constant behind a qualified name such as
/// "torch_npu.profiler.ProfilerLevel.Level1"; nullopt for names that are none.
std::optional<python::NamedConstant> FindProfilerConstant(std::string_view qualified_name);

/// torch_npu's constants, `torch_npu.contrib.transfer_to_npu` as the patch module, and torch and
/// torch_npu as names that can only be those modules. Lives for the whole program.
const python::LibraryKnowledge& TorchNpuKnowledge();

/// The variables that put torch_npu's profiler in msMonitor (dyno) mode: MSMONITOR_USE_DAEMON and
/// its old name KINETO_USE_DAEMON (torch_npu `_NonIntrusiveProfile.init`).
inline constexpr std::array<std::string_view, 2> kMsMonitorVariables = {"MSMONITOR_USE_DAEMON", "KINETO_USE_DAEMON"};

/// Whether a value of one of them turns dyno mode on: torch_npu reads it as an int, on unless 0
/// (a value only known at run time may).
bool TurnsOnMsMonitor(std::string_view value, bool known);

}  // namespace opmfu::linter
