#include <cstring>

#include "common/text.h"
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
  const auto error = context.file.tree.FirstError();
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

}  // namespace opmfu::rules
