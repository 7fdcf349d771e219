#pragma once
// `opmfu registry list`: one row per registration, in file order.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "registry/formulas.h"

namespace opmfu::registry {

enum class ListFormat { kTable, kJson, kMarkdown, kCsv };
Result<ListFormat> ParseListFormat(std::string_view name);

/// A registration flattened to what a listing shows.
struct ListingRow {
  int line = 0;
  std::string target;          ///< "module:attr", "<expr: X>" for an expression, "" when absent
  std::string op_name;         ///< "<expr: X>" when it depends on an expression
  std::string op_name_source;  ///< explicit, target, function, unknown
  std::string is_default;      ///< "true", "false" or "<expr: X>"
  std::string function;
  std::string parameters;  ///< names, comma-separated, with * and ** kept
  std::string doc;
};
std::vector<ListingRow> ListingRows(const FormulaFile& file);

/// Renders the listing. `complete` is false when the file did not parse cleanly, and says so in
/// every format.
std::string RenderListing(const FormulaFile& file, ListFormat format);

}  // namespace opmfu::registry
