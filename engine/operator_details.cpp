#include "engine/operator_details.h"

#include <map>
#include <utility>

#include "engine/csv_reader.h"

namespace opmfu::engine {

namespace {

// "32,3,224,224;\n64,3,11,11;\n64;\n;\n" -> "32,3,224,224;64,3,11,11;64;;": torch_npu breaks the
// list after each ';' (CRLF in trace_view.json, LF here); the dims themselves hold no blank.
std::string JoinShapeLines(std::string_view text) {
  std::string joined;
  joined.reserve(text.size());
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t' && c != '"') joined.push_back(c);
  }
  return joined;
}

}  // namespace

Result<OperatorDetails> ReadOperatorDetails(const std::filesystem::path& path,
                                            const std::function<bool(std::string_view)>& keep) {
  OPMFU_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  const auto name = reader.Column("Name");
  const auto shapes = reader.Column("Input Shapes");
  const auto device_total = reader.Column("Device Total Duration(us)");
  for (const auto& [found, label] : {std::pair{name, "Name"},
                                     {shapes, "Input Shapes (collected without record_shapes?)"},
                                     {device_total, "Device Total Duration(us)"}}) {
    if (!found) return Error::Input(path.string() + ":1: no '" + label + "' column");
  }
  OperatorDetails details;
  std::map<std::pair<std::string, std::string>, std::size_t, std::less<>> index;
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool more, reader.Next());
    if (!more) break;
    ++details.rows;
    const std::string_view op = reader.Field(*name);
    if (details.names.find(op) == details.names.end()) details.names.emplace(op);
    if (!keep(op)) continue;
    const auto ns = MicrosecondsToNs(reader.Field(*device_total));
    if (!ns) {
      return Error::Input(reader.Where() + "'Device Total Duration(us)' is '" +
                          std::string(reader.Field(*device_total).substr(0, 40)) + "', not a duration in microseconds");
    }
    std::pair<std::string, std::string> key{std::string(op), JoinShapeLines(reader.Field(*shapes))};
    auto [it, added] = index.try_emplace(key, details.groups.size());
    if (added) details.groups.push_back({std::move(key.first), std::move(key.second), 0, 0});
    FrameworkOpCalls& group = details.groups[it->second];
    ++group.calls;
    group.device_total += *ns;
  }
  return details;
}

}  // namespace opmfu::engine
