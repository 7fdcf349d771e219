#include "engine/mfu_columns.h"

namespace opmfu::engine {

namespace {

std::string CreateTable(std::string_view table, std::span<const MfuColumn> columns,
                        std::span<const std::string_view> types) {
  std::string sql = "CREATE TABLE \"" + std::string(table) + "\" (";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    sql += (i == 0 ? "\"" : ", \"") + std::string(columns[i].name) + "\" " + std::string(types[i]);
  }
  return sql + ")";
}

}  // namespace

std::span<const MfuColumn> ModuleColumns(bool with_avg_mfu) {
  return std::span(kModuleColumns).first(with_avg_mfu ? kModuleColumns.size() : kModuleColumns.size() - 1);
}

std::string OperatorTableSql(bool duration_integer, bool flops_integer) {
  std::array<std::string_view, kOperatorColumns.size()> types{};
  for (std::size_t i = 0; i < types.size(); ++i) types[i] = kOperatorColumns[i].sql_type;
  types[kOperatorDurationColumn] = duration_integer ? "INTEGER" : "REAL";
  types[kOperatorFlopsColumn] = flops_integer ? "INTEGER" : "REAL";
  return CreateTable(kOperatorTable, kOperatorColumns, types);
}

std::string ModuleTableSql() {
  std::array<std::string_view, kModuleColumns.size()> types{};
  for (std::size_t i = 0; i < types.size(); ++i) types[i] = kModuleColumns[i].sql_type;
  return CreateTable(kModuleTable, kModuleColumns, types);
}

std::string QuotedColumnList(std::span<const MfuColumn> columns) {
  std::string list;
  for (const MfuColumn& column : columns) list += (list.empty() ? "\"" : ", \"") + std::string(column.name) + "\"";
  return list;
}

}  // namespace opmfu::engine
