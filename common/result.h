#pragma once
// Errors as values: every fallible library function returns Result<T> (value or Error), and only
// the CLI turns an Error into a message and an exit code.

#include <string>
#include <utility>
#include <variant>

namespace opmfu {

/// Why something failed. `kind` picks the exit code at the CLI boundary: input and usage problems
/// are the user's to fix (exit 2); internal ones are ours (exit 3).
struct Error {
  enum class Kind { kInput, kUsage, kInternal };
  Kind kind = Kind::kInput;
  /// One line, already naming the file and the cause: "train.db: not a SQLite database".
  std::string message;

  static Error Input(std::string message) { return {Kind::kInput, std::move(message)}; }
  static Error Usage(std::string message) { return {Kind::kUsage, std::move(message)}; }
  static Error Internal(std::string message) { return {Kind::kInternal, std::move(message)}; }
};

/// A value or an Error; a small stand-in for C++23 std::expected.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(storage_); }
  const T& value() const& { return std::get<0>(storage_); }
  T&& value() && { return std::get<0>(std::move(storage_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(storage_); }
  Error&& take_error() { return std::get<1>(std::move(storage_)); }

 private:
  std::variant<T, Error> storage_;
};

/// Result of an operation that yields nothing but may fail.
struct Unit {};
using Status = Result<Unit>;
inline Status Ok() { return Unit{}; }

}  // namespace opmfu

#define OPMFU_CONCAT_INNER_(a, b) a##b
#define OPMFU_CONCAT_(a, b) OPMFU_CONCAT_INNER_(a, b)

/// `OPMFU_ASSIGN_OR_RETURN(auto file, ReadTextFile(path));` declares `file` from a Result, or
/// returns the Result's Error from the enclosing function (absl's ASSIGN_OR_RETURN, SerenityOS TRY).
#define OPMFU_ASSIGN_OR_RETURN(lhs, expr) \
  OPMFU_ASSIGN_OR_RETURN_IMPL_(OPMFU_CONCAT_(opmfu_result_, __COUNTER__), lhs, expr)
// `tmp` is a name to declare and `lhs` a declaration (`auto file`): neither can be parenthesized,
// which bugprone-macro-parentheses asks of every macro argument.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define OPMFU_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) {                                   \
    return tmp.take_error();                         \
  }                                                  \
  lhs = std::move(tmp).value()

/// Returns the Error of a Status-returning expression from the enclosing function.
#define OPMFU_RETURN_IF_ERROR(expr) OPMFU_RETURN_IF_ERROR_IMPL_(OPMFU_CONCAT_(opmfu_status_, __COUNTER__), expr)
#define OPMFU_RETURN_IF_ERROR_IMPL_(tmp, expr) \
  do {                                         \
    auto tmp = (expr);                         \
    if (!tmp.ok()) return tmp.take_error();    \
  } while (false)
// NOLINTEND(bugprone-macro-parentheses)
