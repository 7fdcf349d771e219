#include "linter/torch_npu.h"

#include <array>
#include <charconv>

namespace opmfu::linter {

namespace {

struct ConstantEntry {
  std::string_view type;
  std::string_view member;
  std::string_view value;
};
constexpr std::array kConstants = {
    ConstantEntry{"ProfilerLevel", "Level_none", "Level_none"},
    ConstantEntry{"ProfilerLevel", "Level0", "Level0"},
    ConstantEntry{"ProfilerLevel", "Level1", "Level1"},
    ConstantEntry{"ProfilerLevel", "Level2", "Level2"},
    ConstantEntry{"ExportType", "Text", "text"},
    ConstantEntry{"ExportType", "Db", "db"},
    ConstantEntry{"ProfilerActivity", "CPU", "CPU"},
    ConstantEntry{"ProfilerActivity", "NPU", "NPU"},
    ConstantEntry{"ProfilerActivity", "CUDA", "CUDA"},
    ConstantEntry{"AiCMetrics", "AiCoreNone", "ACL_AICORE_NONE"},
    ConstantEntry{"AiCMetrics", "PipeUtilization", "ACL_AICORE_PIPE_UTILIZATION"},
    ConstantEntry{"AiCMetrics", "ArithmeticUtilization", "ACL_AICORE_ARITHMETIC_UTILIZATION"},
    ConstantEntry{"AiCMetrics", "Memory", "ACL_AICORE_MEMORY_BANDWIDTH"},
    ConstantEntry{"AiCMetrics", "MemoryL0", "ACL_AICORE_L0B_AND_WIDTH"},
    ConstantEntry{"AiCMetrics", "MemoryUB", "ACL_AICORE_MEMORY_UB"},
    ConstantEntry{"AiCMetrics", "ResourceConflictRatio", "ACL_AICORE_RESOURCE_CONFLICT_RATIO"},
    ConstantEntry{"AiCMetrics", "L2Cache", "ACL_AICORE_L2_CACHE"},
    ConstantEntry{"AiCMetrics", "MemoryAccess", "ACL_AICORE_MEMORY_ACCESS"},
};

}  // namespace

std::optional<python::NamedConstant> FindProfilerConstant(std::string_view qualified_name) {
  if (!qualified_name.starts_with("torch_npu.") && !qualified_name.starts_with("torch.")) return std::nullopt;
  const std::size_t last_dot = qualified_name.rfind('.');
  const std::size_t type_dot = qualified_name.rfind('.', last_dot - 1);
  if (type_dot == std::string_view::npos) return std::nullopt;
  const std::string_view type = qualified_name.substr(type_dot + 1, last_dot - type_dot - 1);
  const std::string_view member = qualified_name.substr(last_dot + 1);
  for (const ConstantEntry& entry : kConstants) {
    if (entry.type != type || entry.member != member) continue;
    python::NamedConstant constant{entry.type, entry.member, entry.value, {}};
    // transfer_to_npu patches torch's CUDA activity to torch_npu's NPU (not torch_npu's own CUDA).
    if (type == "ProfilerActivity" && member == "CUDA" && qualified_name.starts_with("torch.")) {
      constant.patched_value = "NPU";
    }
    return constant;
  }
  return std::nullopt;
}

const python::LibraryKnowledge& TorchNpuKnowledge() {
  static const python::LibraryKnowledge knowledge{
      &FindProfilerConstant, "torch_npu.contrib.transfer_to_npu", {"torch_npu", "torch"}};
  return knowledge;
}

bool TurnsOnMsMonitor(std::string_view value, bool known) {
  if (!known) return true;
  long number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  // int("abc") raises in torch_npu, which then leaves dyno mode off.
  return error == std::errc() && end == value.data() + value.size() && number != 0;
}

}  // namespace opmfu::linter
