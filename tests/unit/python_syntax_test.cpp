#include "python/syntax.h"

#include <gtest/gtest.h>

namespace opmfu::python {
namespace {

SyntaxTree Parse(const std::string& source) {
  auto tree = ParseSource(Grammar::kPython, source);
  EXPECT_TRUE(tree.ok());
  return std::move(tree).value();
}

// The value of `x = <literal>` on the first line.
TSNode FirstAssignedValue(const SyntaxTree& tree) {
  TSNode statement = ts_node_named_child(tree.root(), 0);
  return ChildByField(ts_node_named_child(statement, 0), "right");
}

// An item is added as the container is laid out: on the same line, or one per line with the last
// item's indentation (keeping a trailing comma), or inside an empty container.
TEST(AppendItemEdit, FollowsTheContainersLayout) {
  struct Case {
    const char* source;
    const char* after;
  };
  const Case cases[] = {
      {"x = [a, b]\n", "x = [a, b, c]\n"},
      {"x = []\n", "x = [c]\n"},
      {"x = [  # note\n]\n", "x = [c  # note\n]\n"},
      {"x = [\n    a,\n    b\n]\n", "x = [\n    a,\n    b,\n    c\n]\n"},
      {"x = [\n    a,\n    b,\n]\n", "x = [\n    a,\n    b,\n    c,\n]\n"},
      {"x = [\n    a,\n    b,  # last\n]\n", "x = [\n    a,\n    b,  # last\n    c,\n]\n"},
      {"x = [\n    a,\n    b  # last\n]\n", "x = [\n    a,\n    b,  # last\n    c\n]\n"},
      {"x = [a,\n     b]\n", "x = [a,\n     b,\n     c]\n"},
      {"x = f(a, b,\n      d)\n", "x = f(a, b,\n      d,\n      c)\n"},
  };
  for (const Case& c : cases) {
    const SyntaxTree tree = Parse(c.source);
    TSNode container = FirstAssignedValue(tree);
    if (IsType(container, "call")) container = ChildByField(container, "arguments");
    const TextEdit edit = AppendItemEdit(tree, container, "c");
    auto fixed = ApplyEdits(tree.source(), {edit});
    ASSERT_TRUE(fixed.ok()) << c.source;
    EXPECT_EQ(*fixed, c.after) << c.source;
  }
}

// tree-sitter-python reads a format spec that starts with `=` as an assignment expression; Python
// reads a format spec. Only errors Python would also report remain.
TEST(FirstSyntaxError, ConfirmsTreeSitterErrorsAsPythonReadsFStrings) {
  const char* valid[] = {
      "print(f\"{title:=^40}\")\n",
      "x = f'{a:=<{w}} {b!r:=>20} {c:=}'\n",
      "x = f\"\"\"{a:=^{len(a) + 4}.3}\"\"\"\n",
  };
  for (const char* source : valid) {
    const SyntaxTree tree = Parse(source);
    EXPECT_TRUE(tree.has_error()) << source << ": tree-sitter now parses it; the confirmation may be obsolete";
    EXPECT_FALSE(FirstSyntaxError(tree)) << source;
  }
  const char* invalid[] = {
      "def broken(:\n    pass\n",
      "x = f\"{a:=^{}}\"\n",           // an empty nested field
      "x = f\"{a:=^40}\"\ndef f(:\n",  // a real error after a misread spec
      "x = f\"{a:=^{b c}}\"\n",        // a nested field that is no expression
  };
  for (const char* source : invalid) {
    const SyntaxTree tree = Parse(source);
    EXPECT_TRUE(FirstSyntaxError(tree)) << source;
  }
  EXPECT_FALSE(FirstSyntaxError(Parse("x = f\"{a:>10}\"\n")));
}

TEST(StringLiteralValue, DecodesPlainRawAndConcatenatedStrings) {
  struct Case {
    const char* source;
    std::optional<std::string> value;
  };
  const Case cases[] = {
      {"x = 'torch:mm'\n", "torch:mm"},
      {"x = \"a\\tb\\\\c\\\"\"\n", "a\tb\\c\""},
      {"x = r'a\\tb'\n", "a\\tb"},
      {"x = 'torch' ':mm'\n", "torch:mm"},
      {"x = ('torch_npu:'\n     'npu_op')\n", "torch_npu:npu_op"},
      {"x = '''multi\nline'''\n", "multi\nline"},
      {"x = '\\x41'\n", "A"},
      {"x = f'{a}:mm'\n", std::nullopt},
      {"x = f'plain'\n", "plain"},
      {"x = b'bytes'\n", std::nullopt},
      {"x = name\n", std::nullopt},
  };
  for (const Case& c : cases) {
    const SyntaxTree tree = Parse(c.source);
    EXPECT_EQ(StringLiteralValue(tree, FirstAssignedValue(tree)), c.value) << c.source;
  }
}

TEST(ClassifyLiteral, KnowsPythonLiterals) {
  const std::pair<const char*, LiteralKind> cases[] = {
      {"x = True\n", LiteralKind::kTrue},  {"x = False\n", LiteralKind::kFalse}, {"x = None\n", LiteralKind::kNone},
      {"x = 12\n", LiteralKind::kInteger}, {"x = 1.5e3\n", LiteralKind::kFloat}, {"x = 's'\n", LiteralKind::kString},
      {"x = f(1)\n", LiteralKind::kOther},
  };
  for (const auto& [source, kind] : cases) {
    const SyntaxTree tree = Parse(source);
    EXPECT_EQ(ClassifyLiteral(tree, FirstAssignedValue(tree)), kind) << source;
  }
}

TEST(CollectImports, BindsEveryImportForm) {
  const SyntaxTree tree = Parse(
      "import torch_npu\n"
      "import torch_npu.profiler as prof\n"
      "from torch_npu.profiler import profile as P, ProfilerLevel\n"
      "from ._flops_registry import register_npu_flop as reg\n"
      "try:\n    from torch_npu.profiler import _ExperimentalConfig\nexcept ImportError:\n    pass\n"
      "def f():\n    import os as hidden\n");
  const ImportBindings imports = CollectImports(tree);
  EXPECT_EQ(imports.at("torch_npu"), "torch_npu");
  EXPECT_EQ(imports.at("prof"), "torch_npu.profiler");
  EXPECT_EQ(imports.at("P"), "torch_npu.profiler.profile");
  EXPECT_EQ(imports.at("ProfilerLevel"), "torch_npu.profiler.ProfilerLevel");
  EXPECT_EQ(imports.at("reg"), "._flops_registry.register_npu_flop");
  EXPECT_EQ(imports.at("_ExperimentalConfig"), "torch_npu.profiler._ExperimentalConfig");
  EXPECT_EQ(imports.count("hidden"), 0U);  // function-local
}

TEST(QualifiedName, ResolvesTheFirstPartThroughImports) {
  const SyntaxTree tree = Parse("import torch_npu.profiler as prof\nx = prof.ProfilerLevel.Level1\n");
  const ImportBindings imports = CollectImports(tree);
  TSNode value = ChildByField(ts_node_named_child(ts_node_named_child(tree.root(), 1), 0), "right");
  EXPECT_EQ(QualifiedName(tree, value, imports), "torch_npu.profiler.ProfilerLevel.Level1");
  EXPECT_EQ(LastComponent("a.b.c"), "c");
  EXPECT_EQ(LastComponent("plain"), "plain");
}

TEST(DocstringFirstLine, SkipsLeadingBlankLines) {
  const SyntaxTree tree = Parse("def f():\n    \"\"\"\n    First line.\n    More.\n    \"\"\"\n    return 1\n");
  EXPECT_EQ(DocstringFirstLine(tree, ts_node_named_child(tree.root(), 0)), "First line.");
  const SyntaxTree none = Parse("def g():\n    return 1\n");
  EXPECT_EQ(DocstringFirstLine(none, ts_node_named_child(none.root(), 0)), std::nullopt);
}

}  // namespace
}  // namespace opmfu::python
