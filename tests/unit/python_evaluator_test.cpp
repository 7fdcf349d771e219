#include <gtest/gtest.h>

#include <string>

#include "linter/torch_npu.h"
#include "python/tracer.h"

namespace opmfu::python {
namespace {

// The values of the right-hand side of the last top-level `name = ...` in `source`.
Values ResolveLast(const std::string& source, std::string_view name,
                   const LibraryKnowledge& knowledge = LibraryKnowledge::None()) {
  auto module = PythonModule::Parse("t.py", source, knowledge);
  EXPECT_TRUE(module.ok());
  if (!module.ok()) return {};
  TSNode right{};
  for (TSNode root : module->tree().roots()) {
    WalkTree(root, [&](TSNode node) {
      if (IsType(node, "assignment") && module->tree().Text(ChildByField(node, "left")) == name) {
        right = ChildByField(node, "right");
      }
      return true;
    });
  }
  EXPECT_FALSE(ts_node_is_null(right)) << "no assignment to " << name;
  if (ts_node_is_null(right)) return {};
  return Tracer(*module, nullptr, {}).Resolve(right);
}

TEST(PythonEvaluator, IntegerAdditionThatOverflowsIsUnknownNotNegative) {
  const Values values = ResolveLast("x = 9223372036854775807 + 1\n", "x");
  ASSERT_EQ(values.size(), 1U);
  EXPECT_EQ(values[0].kind, ValueKind::kUnknown);
  EXPECT_NE(values[0].unknown_reason.find("beyond 64 bits"), std::string::npos) << values[0].unknown_reason;
}

TEST(PythonEvaluator, IntegerAdditionUpToTheLimitIsExact) {
  const Values values = ResolveLast("x = 9223372036854775806 + 1\ny = -9223372036854775807 + -1\n", "y");
  ASSERT_EQ(values.size(), 1U);
  ASSERT_EQ(values[0].kind, ValueKind::kInt);
  EXPECT_EQ(values[0].integer, INT64_MIN);
  const Values x = ResolveLast("x = 9223372036854775806 + 1\n", "x");
  ASSERT_EQ(x.size(), 1U);
  ASSERT_EQ(x[0].kind, ValueKind::kInt);
  EXPECT_EQ(x[0].integer, INT64_MAX);
}

TEST(PythonEvaluator, NegatingTheSmallestIntegerIsUnknown) {
  const Values values = ResolveLast("x = -(-9223372036854775807 + -1)\n", "x");
  ASSERT_EQ(values.size(), 1U);
  EXPECT_EQ(values[0].kind, ValueKind::kUnknown);
  const Values fits = ResolveLast("x = -(-9223372036854775807)\n", "x");
  ASSERT_EQ(fits.size(), 1U);
  ASSERT_EQ(fits[0].kind, ValueKind::kInt);
  EXPECT_EQ(fits[0].integer, INT64_MAX);
}

TEST(PythonEvaluator, AugmentedAdditionThatOverflowsIsUnknown) {
  const Values values = ResolveLast("x = 9223372036854775807\nx += 1\ny = x\n", "y");
  ASSERT_EQ(values.size(), 1U);
  EXPECT_EQ(values[0].kind, ValueKind::kUnknown);
  const Values fits = ResolveLast("x = 9223372036854775806\nx += 1\ny = x\n", "y");
  ASSERT_EQ(fits.size(), 1U);
  ASSERT_EQ(fits[0].kind, ValueKind::kInt);
  EXPECT_EQ(fits[0].integer, INT64_MAX);
}

// python/ knows Python only: a torch_npu constant is a constant with linter's knowledge, a
// dotted module name without it.
TEST(PythonEvaluator, LibraryConstantsComeFromTheKnowledgeItIsGiven) {
  const std::string source = "import torch_npu\nx = torch_npu.profiler.ExportType.Db\n";
  const Values plain = ResolveLast(source, "x");
  ASSERT_EQ(plain.size(), 1U);
  EXPECT_EQ(plain[0].kind, ValueKind::kModule);
  const Values known = ResolveLast(source, "x", linter::TorchNpuKnowledge());
  ASSERT_EQ(known.size(), 1U);
  ASSERT_EQ(known[0].kind, ValueKind::kEnum);
  EXPECT_EQ(known[0].text, "db");
  EXPECT_EQ(known[0].Describe(), "ExportType.Db");
}

TEST(PythonEvaluator, TransferToNpuPatchesTorchsCudaActivity) {
  const Values patched =
      ResolveLast("import torch\nimport torch_npu.contrib.transfer_to_npu\nx = torch.profiler.ProfilerActivity.CUDA\n",
                  "x", linter::TorchNpuKnowledge());
  ASSERT_EQ(patched.size(), 1U);
  EXPECT_EQ(patched[0].Describe(), "ProfilerActivity.NPU");
  const Values unpatched =
      ResolveLast("import torch\nx = torch.profiler.ProfilerActivity.CUDA\n", "x", linter::TorchNpuKnowledge());
  ASSERT_EQ(unpatched.size(), 1U);
  EXPECT_EQ(unpatched[0].Describe(), "ProfilerActivity.CUDA");
}

}  // namespace
}  // namespace opmfu::python
