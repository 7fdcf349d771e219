#include "registry/formulas.h"

#include <gtest/gtest.h>

#include "registry/listing.h"
#include "tests/test_support.h"

namespace opmfu::registry {
namespace {

FormulaFile Parse(const std::string& source) {
  auto file = ParseFormulaFile("f.py", source);
  EXPECT_TRUE(file.ok());
  return std::move(file).value();
}

TEST(ParseFormulaFile, ReadsTheBundledExample) {
  auto file = LoadFormulaFile(testing::SourceDir() / "examples" / "_flops_formulas.py");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->parsed_cleanly());
  ASSERT_EQ(file->registrations.size(), 7U);
  const Registration& linear = file->registrations[3];
  EXPECT_EQ(linear.TargetText(), "torch.nn.functional:linear");  // a multi-line decorator
  EXPECT_EQ(linear.resolved_op_name, "linear");
  EXPECT_EQ(linear.op_name_source, OpNameSource::kTarget);
  EXPECT_EQ(linear.IsDefault(), true);
  EXPECT_EQ(linear.function_name, "linear_flop");
  EXPECT_EQ(linear.line, 64);
  ASSERT_EQ(linear.parameters.size(), 5U);
  EXPECT_EQ(linear.parameters[2].name, "bias");
  EXPECT_EQ(linear.parameters[2].default_value, "None");
  EXPECT_EQ(linear.parameters[4].name, "**kwargs");
  EXPECT_EQ(linear.doc, "x @ W^T with x [..., in] and W [out, in]: 2*prod(x[:-1])*out*in; bias ignored.");
  const Registration& attention = file->registrations[5];
  EXPECT_EQ(attention.parameters.size(), 19U);
  EXPECT_EQ(attention.parameters[16].default_value, "0");
}

TEST(ParseFormulaFile, ReadsEveryArgumentForm) {
  const FormulaFile file = Parse(
      "from torch_npu.profiler import _flops_registry as fr\n"
      "from torch_npu.profiler._flops_registry import register_npu_flop as reg\n"
      "@fr.register_npu_flop('torch:mm', 'my_mm', is_default=True)\n"
      "def a(x, **kwargs):\n    return 1\n"
      "@reg(op_name='bmm')\n"
      "def b(x, **kwargs):\n    return 1\n"
      "@reg(target=TARGETS[0], op_name=None, is_default=flag)\n"
      "def c(x, **kwargs):\n    return 1\n"
      "@reg('legacy_name')\n"
      "def d(x, **kwargs):\n    return 1\n"
      "@reg()\n"
      "def e(x, **kwargs):\n    return 1\n"
      "@other_decorator\n"
      "def not_registered(x):\n    return 1\n");
  ASSERT_EQ(file.registrations.size(), 5U);
  EXPECT_EQ(file.decorator_names, (std::vector<std::string>{"reg"}));

  const Registration& a = file.registrations[0];
  EXPECT_EQ(a.decorator, "fr.register_npu_flop");
  EXPECT_EQ(a.TargetText(), "torch:mm");
  EXPECT_EQ(a.resolved_op_name, "my_mm");
  EXPECT_EQ(a.op_name_source, OpNameSource::kExplicit);

  const Registration& b = file.registrations[1];
  EXPECT_TRUE(b.target.absent());
  EXPECT_EQ(b.resolved_op_name, "bmm");
  EXPECT_EQ(b.IsDefault(), false);  // keyword-only, False when absent

  const Registration& c = file.registrations[2];
  EXPECT_TRUE(c.target.is_expression());
  EXPECT_EQ(c.target.text, "TARGETS[0]");
  EXPECT_EQ(c.op_name_source, OpNameSource::kUnknown);
  EXPECT_EQ(c.IsDefault(), std::nullopt);

  const Registration& d = file.registrations[3];
  EXPECT_TRUE(d.legacy_positional_op_name);
  EXPECT_TRUE(d.target.absent());
  EXPECT_EQ(d.resolved_op_name, "legacy_name");

  const Registration& e = file.registrations[4];
  EXPECT_EQ(e.resolved_op_name, "e");
  EXPECT_EQ(e.op_name_source, OpNameSource::kFunctionName);
}

TEST(ParseFormulaFile, NestedRegistrationsInModuleBlocksAreSeen) {
  const FormulaFile file = Parse(
      "from torch_npu.profiler._flops_registry import register_npu_flop\n"
      "if HAS_NEW_OPS:\n"
      "    @register_npu_flop(target='torch_npu:npu_new', is_default=True)\n"
      "    def new_flop(x, **kwargs):\n        return 2\n");
  ASSERT_EQ(file.registrations.size(), 1U);
  EXPECT_EQ(file.registrations[0].line, 3);
}

TEST(ParseFormulaFile, SurvivesBrokenEmptyAndOddInput) {
  const FormulaFile broken = Parse(
      "from torch_npu.profiler._flops_registry import register_npu_flop\n"
      "@register_npu_flop(target='torch:mm')\ndef mm(x, **kwargs):\n    return 1\n"
      "def broken(:\n");
  EXPECT_FALSE(broken.parsed_cleanly());
  EXPECT_EQ(broken.registrations.size(), 1U);

  const FormulaFile empty = Parse("");
  EXPECT_TRUE(empty.parsed_cleanly());
  EXPECT_TRUE(empty.registrations.empty());

  const FormulaFile plain = Parse("def f(x):\n    return 1\n");
  EXPECT_TRUE(plain.registrations.empty());

  const FormulaFile latin1 = Parse(
      "from torch_npu.profiler._flops_registry import register_npu_flop\n"
      "@register_npu_flop(target='torch:mm')\ndef mm(x, **kwargs):\n    \"\"\"caf\xE9\"\"\"\n    return 1\n");
  ASSERT_EQ(latin1.registrations.size(), 1U);
  EXPECT_NE(RenderListing(latin1, ListFormat::kJson).find("caf\xEF\xBF\xBD"), std::string::npos);

  auto binary = ParseFormulaFile("bin.py", std::string("x = 1\0", 6));
  ASSERT_FALSE(binary.ok());
  EXPECT_EQ(binary.error().message, "bin.py: binary file (NUL byte at offset 5)");
}

TEST(ParseFormulaFile, DeepNestingIsRefusedNamingTheLimitNotAStackOverflow) {
  // Deeper than CPython's 200 nested brackets is not Python: refused before tree-sitter (issue 47).
  const std::string nested = "x = " + std::string(50000, '(') + "1" + std::string(50000, ')') + "\n";
  auto file = ParseFormulaFile("f.py", "from torch_npu.profiler._flops_registry import register_npu_flop\n" + nested);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().message.find("f.py:2: brackets nested deeper than 200 levels"), std::string::npos)
      << file.error().message;
  const std::string deep_enough = "x = " + std::string(200, '(') + "1" + std::string(200, ')') + "\n";
  const FormulaFile parsed = Parse("from torch_npu.profiler._flops_registry import register_npu_flop\n" + deep_enough +
                                   "@register_npu_flop(target='torch:mm')\ndef mm(x, **kwargs):\n    return 1\n");
  EXPECT_EQ(parsed.registrations.size(), 1U);
}

TEST(ParseFormulaFile, HandlesATenMegabyteFile) {
  std::string source = "from torch_npu.profiler._flops_registry import register_npu_flop\n";
  int count = 0;
  while (source.size() < 10U << 20) {
    source += "@register_npu_flop(target='torch_npu:op_" + std::to_string(count) + "', is_default=True)\ndef op_" +
              std::to_string(count) + "(x, **kwargs):\n    \"\"\"Generated.\"\"\"\n    return 2 * x.numel()\n\n\n";
    ++count;
  }
  const FormulaFile file = Parse(source);
  EXPECT_TRUE(file.parsed_cleanly());
  EXPECT_EQ(file.registrations.size(), static_cast<std::size_t>(count));
  EXPECT_EQ(file.registrations.back().resolved_op_name, "op_" + std::to_string(count - 1));
}

TEST(Targets, ResolveAndValidate) {
  EXPECT_EQ(ResolvedTargetPath("torch.nn.functional:linear"), "torch.nn.functional.linear");
  EXPECT_EQ(ResolvedTargetPath("torch:nn.functional.linear"), "torch.nn.functional.linear");
  EXPECT_EQ(ResolvedTargetPath("torch.mm"), std::nullopt);
  EXPECT_EQ(TargetProblem("torch_npu:npu_fusion_attention"), std::nullopt);
  EXPECT_EQ(TargetProblem("torch:nn.functional.linear"), std::nullopt);
  EXPECT_NE(TargetProblem("torch.mm"), std::nullopt);
  EXPECT_NE(TargetProblem("a:b:c"), std::nullopt);
  EXPECT_NE(TargetProblem(":mm"), std::nullopt);
  EXPECT_NE(TargetProblem("torch:"), std::nullopt);
  EXPECT_NE(TargetProblem("torch:1mm"), std::nullopt);
  EXPECT_NE(TargetProblem("torch..x:mm"), std::nullopt);
}

TEST(RenderListing, EveryFormatSaysWhenTheFileDidNotParse) {
  const FormulaFile file = Parse(
      "from torch_npu.profiler._flops_registry import register_npu_flop\n"
      "@register_npu_flop(target='torch:mm')\ndef mm(x, **kwargs):\n    return 1\n"
      "def broken(:\n");
  EXPECT_NE(RenderListing(file, ListFormat::kTable).find("incomplete: syntax error at f.py:5:"), std::string::npos);
  EXPECT_NE(RenderListing(file, ListFormat::kJson).find("\"complete\": false"), std::string::npos);
  EXPECT_NE(RenderListing(file, ListFormat::kMarkdown).find("> incomplete: syntax error"), std::string::npos);
}

TEST(RenderListing, CsvQuotesFieldsThatNeedIt) {
  const FormulaFile file = Parse(
      "from torch_npu.profiler._flops_registry import register_npu_flop\n"
      "@register_npu_flop(target='torch:mm')\ndef mm(a, b, **kwargs):\n    \"\"\"Say \"hi\", then count.\"\"\"\n"
      "    return 1\n");
  EXPECT_EQ(RenderListing(file, ListFormat::kCsv),
            "line,target,op_name,op_name_source,is_default,function,parameters,doc\n"
            "2,torch:mm,mm,target,false,mm,\"a, b, **kwargs\",\"Say \"\"hi\"\", then count.\"\n");
}

}  // namespace
}  // namespace opmfu::registry
