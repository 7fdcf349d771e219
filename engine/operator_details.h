#pragma once
// operator_details.csv of torch_npu's Text export (record_shapes): one row per framework op call,
// with the op's logical input shapes and its device time. Nested ops repeat their children's
// device time, so a caller sums only the ops it knows to be leaves (report/framework_ops).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace opmfu::engine {

/// The calls of one op with one list of input shapes.
struct FrameworkOpCalls {
  std::string name;          ///< "aten::mm"
  std::string input_shapes;  ///< "32,4096;4096,9216": the file's list with its line breaks dropped
  std::size_t calls = 0;
  std::int64_t device_total = 0;  ///< ns, "Device Total Duration(us)" summed over the calls
};

struct OperatorDetails {
  std::vector<FrameworkOpCalls> groups;      ///< the kept ops, in the order first seen
  std::set<std::string, std::less<>> names;  ///< every op name in the file, kept or not
  std::size_t rows = 0;
};

/// Reads `path`, keeping the ops `keep` accepts (grouped by name and shapes). A file without the
/// Name, Input Shapes or Device Total Duration(us) column, or with a malformed row or duration, is
/// an Error naming the file, the line and the cause.
Result<OperatorDetails> ReadOperatorDetails(const std::filesystem::path& path,
                                            const std::function<bool(std::string_view)>& keep);

}  // namespace opmfu::engine
