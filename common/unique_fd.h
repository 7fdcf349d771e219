#pragma once
// The one owner of a file descriptor: closed when it goes out of scope, moved, never copied.

#include <unistd.h>

#include <utility>

namespace opmfu {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = other.Release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Gives the descriptor up: the caller closes it.
  int Release() { return std::exchange(fd_, -1); }
  /// Closes it, if open, ignoring what close() says (for descriptors only read from).
  void Reset() {
    if (fd_ >= 0) (void)::close(fd_);
    fd_ = -1;
  }
  /// Closes it now and returns what close() returned: a written file's delayed write error shows
  /// here (0 when nothing was open).
  int Close() { return fd_ < 0 ? 0 : ::close(std::exchange(fd_, -1)); }

 private:
  int fd_ = -1;
};

}  // namespace opmfu
