#include <algorithm>
#include <cstring>

#include "common/text.h"
#include "common/text_location.h"
#include "python/syntax.h"
#include "rules/meta_checks.h"
#include "rules/registry_checks.h"

namespace opmfu::rules {

void CheckSyntaxError(RuleCheckContext& context) {
  if (auto invalid = FirstInvalidUtf8(context.file.tree.source())) {
    const auto byte = static_cast<unsigned char>(context.file.tree.source()[*invalid]);
    static constexpr char kHex[] = "0123456789abcdef";
    context.ReportAtByte(static_cast<std::uint32_t>(*invalid),
                         std::string("the file is not valid UTF-8 (byte 0x") + kHex[byte >> 4] + kHex[byte & 0xF] +
                             "); Python refuses to import it without a matching coding declaration",
                         "save the file as UTF-8");
  }
  const auto error = python::FirstSyntaxError(context.file.tree);
  if (!error) return;
  std::string what = "syntax error";
  if (ts_node_is_missing(*error)) {
    what += ": missing '" + std::string(ts_node_type(*error)) + "'";
  } else {
    const std::string_view text = context.file.tree.Text(*error);
    if (!text.empty() && text.size() <= 40 && text.find('\n') == std::string_view::npos) {
      what += " near '" + std::string(text) + "'";
    }
  }
  context.Report(*error, what + "; the file did not parse cleanly, so findings after this point may be missing",
                 "fix the syntax error first; opmfu reads what parsed but cannot vouch for the rest");
}

namespace {

void CheckPythonParse(MetaCheckContext& context, const PythonParse& parse) {
  const auto error = python::FirstSyntaxError(parse.tree);
  if (!error) return;
  context.Report(parse.path, parse.tree.RangeOf(*error),
                 "syntax error: the file did not parse cleanly, so findings after this point may be missing",
                 std::string(parse.tree.LineOf(ts_node_start_byte(*error))));
}

void CheckJsonParse(MetaCheckContext& context, const JsonParse& parse) {
  const linter::DynamicConfig& config = parse.config;
  if (config.invalid) {
    const auto& [where, cause] = *config.invalid;
    context.Report(parse.path, where.range(),
                   "not valid JSON (" + cause + "): json.load fails, so torch_npu ignores the whole config",
                   std::string(where.snippet()));
  } else if (!config.top_is_object) {
    context.Report(parse.path, config.document.range(), "the config is not a JSON object, so torch_npu ignores it",
                   std::string(config.document.snippet()));
  }
}

// Only when bash agrees: the grammar rejects some valid bash, and a false syntax error is worse
// than a missed one. bash's own line and words are the finding. Without a bash to ask, a warning
// says the file could not be read whole (never a definite error).
void CheckLauncherParse(MetaCheckContext& context, const LauncherParse& parse) {
  const SyntaxTree& tree = parse.tree;
  const auto error = tree.FirstError();
  if (!error) return;
  const linter::BashVerdict verdict = parse.ask_bash();
  if (verdict.kind == linter::BashVerdict::Kind::kAccepted) return;
  if (verdict.kind == linter::BashVerdict::Kind::kUnavailable) {
    context
        .Report(parse.path, tree.RangeOf(*error),
                "possible syntax error: tree-sitter-bash could not parse this, and bash could not confirm it (" +
                    verdict.message + "); launches after this point may be missed",
                std::string(tree.LineOf(ts_node_start_byte(*error))), Severity::kWarning)
        .help = "check the file with `bash -n`";
    return;
  }
  SourceRange range = tree.RangeOf(*error);
  std::string snippet(tree.LineOf(ts_node_start_byte(*error)));
  const std::string_view text = tree.source();
  if (verdict.line > 0) {
    // bash's line; tree-sitter's first error can be far from it.
    std::size_t start = 0;
    for (int line = 1; line < verdict.line && start != std::string_view::npos; ++line) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start != std::string_view::npos && start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      range = {PositionInText(text, start), PositionInText(text, end)};
      snippet = std::string(text.substr(start, end - start));
    }
  }
  context
      .Report(parse.path, range, "bash: " + verdict.message + "; launches after this point may be missed",
              std::move(snippet))
      .help = "fix the syntax error first (`bash -n` shows it); opmfu reads what parsed but cannot vouch for the rest";
}

}  // namespace

void CheckLintSyntaxError(MetaCheckContext& context) {
  if (const auto* python = std::get_if<PythonParse>(&context.facts)) CheckPythonParse(context, *python);
  if (const auto* json = std::get_if<JsonParse>(&context.facts)) CheckJsonParse(context, *json);
  if (const auto* launcher = std::get_if<LauncherParse>(&context.facts)) CheckLauncherParse(context, *launcher);
}

}  // namespace opmfu::rules
