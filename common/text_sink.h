#pragma once
// Text written in pieces: a renderer appends to a TextSink, which hands its buffer to `write`
// whenever it passes a megabyte, so that a large output (hundreds of thousands of findings) never
// stands whole in memory. Collect() is the sink that keeps everything, for a caller that wants one
// string.

#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace opmfu {

class TextSink {
 public:
  explicit TextSink(std::function<void(std::string_view)> write) : write_(std::move(write)) {}
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  TextSink& operator+=(std::string_view text) {
    buffer_ += text;
    if (buffer_.size() >= kFlushBytes) Flush();
    return *this;
  }
  TextSink& operator+=(char c) {
    buffer_ += c;
    if (buffer_.size() >= kFlushBytes) Flush();
    return *this;
  }
  /// Hands what is buffered to `write`. The renderer's caller calls it once at the end.
  void Flush() {
    if (buffer_.empty()) return;
    write_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 20;
  std::function<void(std::string_view)> write_;
  std::string buffer_;
};

}  // namespace opmfu
