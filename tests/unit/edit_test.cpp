#include "registry/edit.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace opmfu::registry {
namespace {

const char* kFormulas =
    "from torch_npu.profiler._flops_registry import register_npu_flop\n"
    "\n\n"
    "@register_npu_flop(target=\"torch:mm\", is_default=True)\n"
    "def mm_flop(input, other, **kwargs):\n"
    "    return 2 * input.shape[0] * input.shape[1] * other.shape[1]\n"
    "\n\n"
    "def _helper(x):\n"
    "    return x\n";

const char* kNewFunction =
    "# A comment is fine.\n"
    "def bmm_flop(input, other, **kwargs):\n"
    "    b, m, k = input.shape\n"
    "    return 2 * b * m * k * other.shape[-1]\n";

FormulaFile Parse(const std::string& path, const std::string& source) {
  auto file = ParseFormulaFile(path, source);
  EXPECT_TRUE(file.ok());
  return std::move(file).value();
}

TEST(PlanAddition, InsertsAfterTheLastRegistrationAndKeepsEveryOtherByte) {
  const FormulaFile formulas = Parse("f.py", kFormulas);
  const FormulaFile candidate = Parse("new.py", kNewFunction);
  auto plan = PlanAddition(formulas, candidate, "torch:bmm");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string expected_insert =
      "\n\n@register_npu_flop(target=\"torch:bmm\", is_default=True)\n"
      "def bmm_flop(input, other, **kwargs):\n"
      "    b, m, k = input.shape\n"
      "    return 2 * b * m * k * other.shape[-1]\n";
  const std::string original = kFormulas;
  const std::size_t at = original.find("\n\n\ndef _helper") + 1;
  EXPECT_EQ(plan->new_source, original.substr(0, at) + expected_insert + original.substr(at));
  EXPECT_EQ(plan->decorator_line, 9);
  EXPECT_EQ(plan->function_line, 10);
  EXPECT_EQ(plan->source_def_line, 2);
  EXPECT_EQ(plan->function_name, "bmm_flop");
}

TEST(PlanAddition, FollowsTheDecoratorAliasAndDefaultStyle) {
  const FormulaFile formulas = Parse("f.py",
                                     "from torch_npu.profiler._flops_registry import register_npu_flop as reg\n"
                                     "@reg(target='torch:mm')\ndef mm(x, **kwargs):\n    return 1\n");
  auto plan = PlanAddition(formulas, Parse("n.py", kNewFunction), "torch:bmm");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->new_source.find("@reg(target=\"torch:bmm\")\ndef bmm_flop"), std::string::npos);
}

TEST(PlanAddition, AppendsToAFileWithoutRegistrationsOrFinalNewline) {
  const FormulaFile formulas = Parse("f.py", "from torch_npu.profiler._flops_registry import register_npu_flop");
  auto plan = PlanAddition(formulas, Parse("n.py", kNewFunction), "torch:bmm");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->new_source.rfind("from torch_npu.profiler._flops_registry import register_npu_flop\n\n\n@", 0), 0U);
}

struct Refusal {
  const char* name;
  std::string formulas;
  std::string candidate;
  std::string target;
  std::string message_part;
};

class PlanAdditionRefuses : public ::testing::TestWithParam<Refusal> {};

TEST_P(PlanAdditionRefuses, WithAReason) {
  const Refusal& r = GetParam();
  auto plan = PlanAddition(Parse("f.py", r.formulas), Parse("new.py", r.candidate), r.target);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find(r.message_part), std::string::npos) << plan.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanAdditionRefuses,
    ::testing::Values(
        Refusal{"registered", kFormulas, kNewFunction, "torch:mm", "target 'torch:mm' is already registered at f.py:4"},
        Refusal{"same_object",
                std::string(kFormulas) + "@register_npu_flop(target='torch.nn.functional:linear', is_default=True)\n"
                                         "def lin(x, **kwargs):\n    return 1\n",
                kNewFunction, "torch:nn.functional.linear", "is already registered"},
        Refusal{"op_name_taken", kFormulas, kNewFunction, "torch_npu:mm", "op name 'mm' is already registered"},
        Refusal{"malformed", kFormulas, kNewFunction, "torch.bmm", "--target 'torch.bmm' has no ':'"},
        Refusal{"name_taken", kFormulas, "def _helper(x, **kwargs):\n    return 1\n", "torch:bmm",
                "already defines '_helper'"},
        Refusal{"two_functions", kFormulas, std::string(kNewFunction) + "def other(x):\n    return 1\n", "torch:bmm",
                "a second function"},
        Refusal{"decorated", kFormulas, "@functools.cache\ndef f(x, **kwargs):\n    return 1\n", "torch:bmm",
                "has a decorator"},
        Refusal{"already_registered_candidate", kFormulas,
                "from torch_npu.profiler._flops_registry import register_npu_flop\n"
                "@register_npu_flop(target='torch:bmm')\ndef f(x, **kwargs):\n    return 1\n",
                "torch:bmm", "already has a @register_npu_flop decorator"},
        Refusal{"foreign_import", kFormulas, "import numpy as np\n" + std::string(kNewFunction), "torch:bmm",
                "imports 'np' (numpy)"},
        Refusal{"top_level_code", kFormulas, "x = 1\n" + std::string(kNewFunction), "torch:bmm",
                "top-level code other than one function"},
        Refusal{"no_function", kFormulas, "# nothing\n", "torch:bmm", "no function definition found"},
        Refusal{"broken_formulas", std::string(kFormulas) + "def broken(:\n", kNewFunction, "torch:bmm",
                "syntax error; refusing to use a formulas file"},
        Refusal{"broken_candidate", kFormulas, "def f(x:\n", "torch:bmm",
                "syntax error; refusing to use a --from file"},
        Refusal{"no_decorator_import", "def unrelated():\n    return 1\n", kNewFunction, "torch:bmm",
                "does not import register_npu_flop"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace opmfu::registry
