#pragma once
// What opmfu knows about torch_npu for value tracing: the profiler's enum constants
// (ProfilerLevel, ExportType, ProfilerActivity, AiCMetrics) and `transfer_to_npu`, whose import
// patches torch process-wide. python/ knows Python; this is handed to it as LibraryKnowledge.

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

}  // namespace opmfu::linter
