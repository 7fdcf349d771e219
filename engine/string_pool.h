#pragma once
// The rank's STRING_IDS, read once. Rows carry small ids instead of strings: equal strings share
// one id (joins and groupings compare by value), and a NULL or missing string is kNoString.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"

namespace opmfu {
class Database;
}

namespace opmfu::engine {

using StringId = std::int32_t;
inline constexpr StringId kNoString = -1;

class StringPool {
 public:
  /// Reads every STRING_IDS row (a missing table gives an empty pool).
  Status Load(Database& db);

  /// The canonical id of a STRING_IDS id, or kNoString for an unknown id or a NULL value.
  StringId FromDb(std::int64_t db_id) const;
  /// Whether STRING_IDS has a row with this id, even one whose value is NULL (what an inner
  /// join on the id needs).
  bool HasDbId(std::int64_t db_id) const;
  /// Adds a string that is not in the DB (a stripped shape); returns its canonical id.
  StringId Intern(std::string_view text);

  std::string_view View(StringId id) const { return id == kNoString ? std::string_view() : values_[id]; }
  std::optional<std::string_view> OptionalView(StringId id) const {
    if (id == kNoString) return std::nullopt;
    return std::string_view(values_[id]);
  }
  std::optional<std::string> Optional(StringId id) const {
    if (id == kNoString) return std::nullopt;
    return std::string(values_[id]);
  }

  /// STRING_IDS rows Load read whose value is not valid UTF-8 (msprof-analyze's pandas read loses
  /// them; opmfu keeps their bytes), and the first such row's id.
  std::size_t invalid_utf8_rows() const { return invalid_utf8_rows_; }
  std::int64_t first_invalid_utf8_id() const { return first_invalid_utf8_id_; }

 private:
  std::deque<std::string> values_;  // a deque: views and map keys stay valid as it grows
  std::unordered_map<std::string_view, StringId> by_value_;
  std::vector<StringId> by_db_id_;  // dense ids (the usual case)
  std::unordered_map<std::int64_t, StringId> sparse_by_db_id_;
  std::size_t invalid_utf8_rows_ = 0;
  std::int64_t first_invalid_utf8_id_ = 0;
  static constexpr StringId kNullValue = -2;  // in the two maps: a row whose value is NULL
};

}  // namespace opmfu::engine
