#include "engine/string_pool.h"

#include "common/sqlite.h"
#include "common/text.h"

namespace opmfu::engine {

Status StringPool::Load(Database& db) {
  OPMFU_ASSIGN_OR_RETURN(bool present, db.HasTable("STRING_IDS"));
  if (!present) return Ok();
  OPMFU_ASSIGN_OR_RETURN(Statement statement, db.Prepare("SELECT id, value FROM STRING_IDS"));
  while (true) {
    OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
    if (!row) break;
    if (sqlite3_column_type(statement.handle(), 0) != SQLITE_INTEGER) continue;
    const std::int64_t db_id = statement.Int64(0);
    const StringId id = statement.IsNull(1) ? kNullValue : Intern(statement.Text(1));
    if (id != kNullValue && !IsValidUtf8(values_[static_cast<std::size_t>(id)]) && invalid_utf8_rows_++ == 0)
      first_invalid_utf8_id_ = db_id;
    if (db_id >= 0 && db_id < (std::int64_t{1} << 26)) {
      if (static_cast<std::size_t>(db_id) >= by_db_id_.size())
        by_db_id_.resize(static_cast<std::size_t>(db_id) + 1, kNoString);
      // The first row of a duplicated id wins, as a join's first match would.
      if (by_db_id_[static_cast<std::size_t>(db_id)] == kNoString) by_db_id_[static_cast<std::size_t>(db_id)] = id;
    } else {
      sparse_by_db_id_.try_emplace(db_id, id);
    }
  }
  return Ok();
}

StringId StringPool::FromDb(std::int64_t db_id) const {
  StringId id = kNoString;
  if (db_id >= 0 && static_cast<std::size_t>(db_id) < by_db_id_.size()) {
    id = by_db_id_[static_cast<std::size_t>(db_id)];
  } else if (auto found = sparse_by_db_id_.find(db_id); found != sparse_by_db_id_.end()) {
    id = found->second;
  }
  return id == kNullValue ? kNoString : id;
}

bool StringPool::HasDbId(std::int64_t db_id) const {
  if (db_id >= 0 && static_cast<std::size_t>(db_id) < by_db_id_.size())
    return by_db_id_[static_cast<std::size_t>(db_id)] != kNoString;
  return sparse_by_db_id_.contains(db_id);
}

StringId StringPool::Intern(std::string_view text) {
  if (auto found = by_value_.find(text); found != by_value_.end()) return found->second;
  const auto id = static_cast<StringId>(values_.size());
  values_.emplace_back(text);
  by_value_.emplace(values_.back(), id);
  return id;
}

}  // namespace opmfu::engine
