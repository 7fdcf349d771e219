// Where a command's output and errors go: stdout with every write checked, JSON mode's one
// document, and the error and warning lines.

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <utility>

#include "cli/agent_output.h"
#include "cli/cli_support.h"
#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::cli {

namespace {

// Passes everything to stdout's buffer and remembers whether anything went through, so that an
// error in JSON mode knows whether stdout still lacks its one document.
class CountingStreambuf : public std::streambuf {
 public:
  explicit CountingStreambuf(std::streambuf* target) : target_(target) {}
  bool written() const { return written_; }
  std::streambuf* target() const { return target_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    written_ = true;
    return target_->sputc(traits_type::to_char_type(c));
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    if (count > 0) written_ = true;
    return target_->sputn(text, count);
  }
  int sync() override { return target_->pubsync(); }

 private:
  std::streambuf* target_;
  bool written_ = false;
};

// stdout with every write checked. std::cout's own buffer (through C stdio) lets a failed write
// pass unnoticed, so a full disk or `> /dev/full` exited 0; this one remembers the first errno,
// which ends the run with exit 2 and the cause (StdoutStatus).
class CheckedStdoutBuf : public std::streambuf {
 public:
  CheckedStdoutBuf() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  CheckedStdoutBuf(const CheckedStdoutBuf&) = delete;
  CheckedStdoutBuf& operator=(const CheckedStdoutBuf&) = delete;
  ~CheckedStdoutBuf() override = default;
  int failure() const { return failure_; }
  bool TakeUnreported() { return failure_ != 0 && !std::exchange(reported_, true); }

 protected:
  int_type overflow(int_type c) override {
    if (Flush() != 0) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    const auto size = static_cast<std::size_t>(count);
    if (size > static_cast<std::size_t>(epptr() - pptr())) {
      if (Flush() != 0) return 0;
      if (size >= buffer_.size()) return WriteOut(text, size) ? count : 0;
    }
    std::memcpy(pptr(), text, size);
    pbump(static_cast<int>(count));
    return count;
  }
  int sync() override { return Flush(); }

 private:
  int Flush() {
    const bool ok = WriteOut(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok ? 0 : -1;
  }
  bool WriteOut(const char* data, std::size_t size) {
    if (failure_ != 0) return false;  // the output is already incomplete: stop writing
    while (size > 0) {
      const ssize_t n = ::write(STDOUT_FILENO, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        failure_ = errno;
        return false;
      }
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  std::array<char, std::size_t{1} << 16> buffer_{};
  int failure_ = 0;
  bool reported_ = false;
};

// Owns the checked buffer and gives std::cout its own back before the buffer goes: the standard
// streams are flushed once more after every static object is destroyed.
struct CheckedStdout {
  CheckedStdout() : original(std::cout.rdbuf(&buffer)) {}
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;
  ~CheckedStdout() {
    std::cout.flush();
    std::cout.rdbuf(original);
  }
  CheckedStdoutBuf buffer;
  std::streambuf* original;
};

CheckedStdout& StdoutChecker() {
  static CheckedStdout checker;
  return checker;
}

struct JsonModeState {
  JsonModeState() = default;
  JsonModeState(const JsonModeState&) = delete;
  JsonModeState& operator=(const JsonModeState&) = delete;
  // Runs at exit before the standard streams are flushed for the last time: std::cout must not
  // be left pointing at a destroyed buffer.
  ~JsonModeState() {
    if (counter) {
      std::cout.flush();
      std::cout.rdbuf(counter->target());
    }
  }
  std::unique_ptr<CountingStreambuf> counter;
  std::optional<Error> first_error;  ///< for the error object at exit, when stdout stays empty
  bool agent = false;                ///< `analyze --agent`: the error is upstream's agent line
};

JsonModeState& JsonState() {
  static JsonModeState state;
  return state;
}

const char* KindName(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::kInput:
      return "input";
    case Error::Kind::kUsage:
      return "usage";
    case Error::Kind::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace

int ExitCodeFor(Error::Kind kind) { return kind == Error::Kind::kInternal ? kExitInternal : kExitUsage; }

std::string ErrorObjectJson(const Error& error) {
  const nlohmann::ordered_json object{
      {"error", {{"kind", KindName(error.kind)}, {"exit_code", ExitCodeFor(error.kind)}, {"message", error.message}}}};
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void SetJsonMode(bool on) {
  JsonModeState& state = JsonState();
  if (on && !state.counter) {
    state.counter = std::make_unique<CountingStreambuf>(std::cout.rdbuf());
    std::cout.rdbuf(state.counter.get());
  } else if (!on && state.counter) {
    std::cout.flush();
    std::cout.rdbuf(state.counter->target());
    state.counter.reset();
  }
}

bool JsonMode() { return JsonState().counter != nullptr; }

void SetAgentMode() {
  SetJsonMode(true);
  JsonState().agent = true;
}

int ReportError(const Error& error) {
  std::cerr << "opmfu: error: " << EscapeControlCharacters(error.message) << "\n";
  JsonModeState& state = JsonState();
  if (state.counter && !state.first_error) state.first_error = error;
  return ExitCodeFor(error.kind);
}

void FinishJsonOutput() {
  JsonModeState& state = JsonState();
  if (state.counter && state.first_error && !state.counter->written()) {
    std::cout << (state.agent ? AgentErrorLine(*state.first_error, ExitCodeFor(state.first_error->kind))
                              : ErrorObjectJson(*state.first_error))
              << "\n";
  }
  std::cout.flush();
}

void ReportWarning(std::string_view message) {
  std::cerr << "opmfu: warning: " << EscapeControlCharacters(message) << "\n";
}

void InstallCheckedStdout() { (void)StdoutChecker(); }

Status StdoutStatus() {
  std::cout.flush();
  CheckedStdoutBuf& buffer = StdoutChecker().buffer;
  if (!buffer.TakeUnreported()) return Ok();
  return Error::Input("stdout: cannot write: " + ErrnoMessage(buffer.failure()) + " (the output is incomplete)");
}

Status EmitOutput(std::string_view content, const std::string& output_path) {
  if (output_path.empty() || output_path == "-") {
    std::cout << content;
    return StdoutStatus();
  }
  return WriteFileAtomically(output_path, content);
}

Status EmitOutputInPieces(const std::string& output_path, const std::function<void(TextSink&)>& render) {
  if (output_path.empty() || output_path == "-") {
    TextSink out([](std::string_view piece) { std::cout << piece; });
    render(out);
    out.Flush();
    return StdoutStatus();
  }
  return WriteFileAtomicallyInPieces(output_path, [&](const PieceWriter& write) {
    TextSink out(write);
    render(out);
    out.Flush();
  });
}

}  // namespace opmfu::cli
