#include "engine/torch_trace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <istream>
#include <streambuf>
#include <unordered_map>

#include "common/input_file.h"
#include "common/unique_fd.h"

namespace opmfu::engine {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct GzCloser {
  void operator()(gzFile file) const {
    if (file != nullptr) (void)gzclose(file);
  }
};
using GzHandle = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Opens `path` as zlib reads it (gzip or plain bytes), refusing a FIFO or device before reading.
Result<GzHandle> OpenTrace(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    OPMFU_RETURN_IF_ERROR(CheckRegularFile(path));
    return Error::Input(path.string() + ": cannot open: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    OPMFU_RETURN_IF_ERROR(CheckRegularFile(path));
    return Error::Input(path.string() + ": not a regular file");
  }
  (void)::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  gzFile file = gzdopen(fd.get(), "rb");
  if (file == nullptr) return Error::Input(path.string() + ": cannot open for reading (zlib)");
  (void)fd.Release();  // gzclose closes it now
  GzHandle handle(file);
  (void)gzbuffer(handle.get(), 1 << 17);
  return handle;
}

// The decompressed bytes for nlohmann's stream parser, checked as they arrive: the size limit,
// one token's length (a run without a quote: a string or number nlohmann would build whole), and
// where each line starts, so that a parse error can name its line.
class TraceStreamBuf : public std::streambuf {
 public:
  TraceStreamBuf(gzFile file, const TorchTraceLimits& limits) : file_(file), limits_(limits) {}

  std::uint64_t bytes() const { return bytes_; }
  const std::string& error() const { return error_; }
  /// The 1-based line of decompressed byte `offset` (within the chunk being read, or before it).
  std::uint64_t LineOf(std::uint64_t offset) const {
    std::uint64_t line = lines_before_chunk_ + 1;
    if (offset < chunk_start_) return line;
    const std::uint64_t upto = std::min<std::uint64_t>(offset - chunk_start_, chunk_size_);
    return line + static_cast<std::uint64_t>(std::count(buffer_.data(), buffer_.data() + upto, '\n'));
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!error_.empty()) return traits_type::eof();
    lines_before_chunk_ += static_cast<std::uint64_t>(std::count(buffer_.data(), buffer_.data() + chunk_size_, '\n'));
    chunk_start_ += chunk_size_;
    chunk_size_ = 0;
    const int read = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (read < 0) {
      int code = 0;
      const char* message = gzerror(file_, &code);
      error_ = std::string("cannot read: ") + (code == Z_ERRNO ? std::strerror(errno) : message) +
               (code == Z_DATA_ERROR ? " (a corrupt or truncated gzip stream)" : "");
      return traits_type::eof();
    }
    if (read == 0) return traits_type::eof();
    chunk_size_ = static_cast<std::size_t>(read);
    bytes_ += chunk_size_;
    if (bytes_ > limits_.max_bytes) {
      error_ =
          "more than " + DescribeBytes(limits_.max_bytes) + " of JSON, the most a trace may hold (a limit of opmfu)";
      return traits_type::eof();
    }
    for (std::size_t i = 0; i < chunk_size_; ++i) {
      if (buffer_[i] == '"') {
        run_ = 0;
      } else if (++run_ > limits_.max_token_bytes) {
        error_ = "line " + std::to_string(LineOf(chunk_start_ + i)) + ": a string or number longer than " +
                 DescribeBytes(limits_.max_token_bytes) + " (a limit of opmfu)";
        return traits_type::eof();
      }
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data() + chunk_size_);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  const TorchTraceLimits& limits_;
  std::array<char, 1 << 16> buffer_{};
  std::size_t chunk_size_ = 0;
  std::uint64_t chunk_start_ = 0;
  std::uint64_t lines_before_chunk_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t run_ = 0;
  std::string error_;
};

// "1428625731896.179" (microseconds) -> 1428625731896179 ns, exactly; other spellings through a
// double. nullopt for what is not a time.
std::optional<std::int64_t> MicrosToNanos(const std::string& text) {
  const std::size_t dot = text.find('.');
  const bool plain = text.find_first_of("eE") == std::string::npos && !text.empty();
  if (plain) {
    const std::string whole = text.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
    const bool negative = !whole.empty() && whole[0] == '-';
    const std::string digits = negative ? whole.substr(1) : whole;
    if (digits.size() <= 15 && std::all_of(digits.begin(), digits.end(), ::isdigit) &&
        std::all_of(fraction.begin(), fraction.end(), ::isdigit)) {
      std::int64_t nanos = 0;
      for (char c : digits) nanos = nanos * 10 + (c - '0');
      fraction.resize(3, '0');  // digits past the nanosecond are dropped (Kineto writes three)
      nanos = nanos * 1000 + std::stoll(fraction);
      return negative ? -nanos : nanos;
    }
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || std::fabs(value) > 9e15) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(value * 1000));
}

void AppendEscaped(std::string& out, const std::string& text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '"';
}

enum class Category { kOther, kCpuOp, kRuntime, kKernel };

// The SAX handler: keeps what one event says until its object closes, then stores it by category.
class TraceHandler {
 public:
  TraceHandler(TorchTrace& trace, const TorchTraceLimits& limits) : trace_(trace), limits_(limits) {}

  const std::string& error() const { return error_; }
  bool saw_events() const { return saw_events_; }
  std::optional<std::size_t> error_position;
  std::string parse_message;

  // --- scalars ---
  bool null() { return Scalar("null", false); }
  bool boolean(bool value) { return Scalar(value ? "true" : "false", false); }
  bool number_integer(Json::number_integer_t value) { return Scalar(std::to_string(value), false); }
  bool number_unsigned(Json::number_unsigned_t value) { return Scalar(std::to_string(value), false); }
  bool number_float(Json::number_float_t, const Json::string_t& text) { return Scalar(text, false); }
  bool string(Json::string_t& value) { return Scalar(value, true); }
  bool binary(Json::binary_t&) { return Scalar("null", false); }

  // --- containers ---
  bool start_object(std::size_t) { return Open(false); }
  bool start_array(std::size_t) { return Open(true); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(Json::string_t& name) {
    if (capturing()) {
      Separate();
      AppendEscaped(capture_, name);
      capture_ += ':';
      capture_needs_comma_.back() = false;
      after_key_ = true;
      return true;
    }
    key_ = std::move(name);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    error_position = position;
    parse_message = ex.what();
    return false;
  }

 private:
  // Depths: 1 the top object (or a top-level event array), 2 its values, 3 an event, 4 its args.
  std::size_t event_depth() const { return top_is_array_ ? 2 : 3; }
  bool capturing() const { return capture_depth_ != 0; }

  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (capture_needs_comma_.back()) capture_ += ',';
    capture_needs_comma_.back() = true;
  }

  bool Open(bool array) {
    ++depth_;
    if (depth_ > limits_.max_depth) {
      error_ = "JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels (a limit of opmfu)";
      return false;
    }
    if (capturing()) {
      Separate();
      capture_ += array ? '[' : '{';
      capture_needs_comma_.push_back(false);
      capture_closers_ += array ? ']' : '}';
      return CheckCapture();
    }
    if (depth_ == 1) {
      top_is_array_ = array;
      if (array) in_events_ = true;
      return true;
    }
    if (depth_ == 2 && !top_is_array_) {
      in_events_ = array && key_ == "traceEvents";
      in_devices_ = array && key_ == "deviceProperties";
      in_distributed_ = !array && key_ == "distributedInfo";
      return true;
    }
    if (in_events_ && depth_ == event_depth() && !array) {
      event_ = Event{};
      in_event_ = true;
      saw_events_ = true;
      if (++trace_.events > limits_.max_events) {
        error_ = "more than " + std::to_string(limits_.max_events) + " trace events (a limit of opmfu)";
        return false;
      }
      return true;
    }
    if (in_event_ && depth_ == event_depth() + 1 && !array && key_ == "args") {
      in_args_ = true;
      return true;
    }
    if (in_args_ && depth_ == event_depth() + 2 && array &&
        (key_ == "Input Dims" || key_ == "Input type" || key_ == "Concrete Inputs")) {
      capture_depth_ = depth_;
      capture_.clear();
      capture_ += '[';
      capture_needs_comma_.assign(1, false);
      capture_closers_ = "]";
      capture_key_ = key_;
      return true;
    }
    if (in_devices_ && depth_ == 3 && !array) {
      device_ = TorchDevice{};
      in_device_ = true;
    }
    return true;
  }

  bool Close() {
    if (capturing()) {
      capture_needs_comma_.pop_back();
      capture_ += capture_closers_.back();
      capture_closers_.pop_back();
      if (depth_ == capture_depth_) {
        capture_depth_ = 0;
        StoreCapture();
      }
      --depth_;
      return CheckCapture();
    }
    if (in_event_ && depth_ == event_depth()) {
      in_event_ = false;
      StoreEvent();
    } else if (in_args_ && depth_ == event_depth() + 1) {
      in_args_ = false;
    } else if (in_device_ && depth_ == 3) {
      in_device_ = false;
      trace_.devices.push_back(std::move(device_));
    } else if (depth_ == 2) {
      in_events_ = in_devices_ = in_distributed_ = false;
    } else if (depth_ == 1 && top_is_array_) {
      in_events_ = false;
    }
    --depth_;
    return true;
  }

  bool CheckCapture() {
    if (capture_.size() > limits_.max_argument_bytes) {
      error_ = "an op's \"" + capture_key_ + "\" is longer than " + DescribeBytes(limits_.max_argument_bytes) +
               " (a limit of opmfu)";
      return false;
    }
    return true;
  }

  void StoreCapture() {
    if (capture_key_ == "Input Dims") event_.input_dims = capture_;
    if (capture_key_ == "Input type") event_.input_types = capture_;
    if (capture_key_ == "Concrete Inputs") event_.concrete = capture_;
  }

  static std::optional<std::int64_t> Integer(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str()) return std::nullopt;
    if (*end == '.' || *end == 'e' || *end == 'E') {
      const double number = std::strtod(text.c_str(), nullptr);
      if (!std::isfinite(number) || number != std::trunc(number) || std::fabs(number) > 9e18) return std::nullopt;
      return static_cast<std::int64_t>(number);
    }
    return value;
  }

  // `text`: a number or literal as written, a string unquoted (quoted only inside a capture, the one
  // place that keeps JSON text: most scalars of a trace are read past without a copy).
  bool Scalar(const std::string& text, bool is_string) {
    if (capturing()) {
      Separate();
      if (is_string) {
        AppendEscaped(capture_, text);
      } else {
        capture_ += text;
      }
      return CheckCapture();
    }
    const std::size_t value_depth = depth_ + 1;
    if (depth_ == 1 && !top_is_array_) {
      if (key_ == "record_shapes") record_shapes_ = text != "0" && text != "false" && text != "null" && !text.empty();
      if (key_ == "roctracer_version" || key_ == "hip_runtime_version") trace_.runtime = "ROCm";
      if (key_ == "cuda_runtime_version" || key_ == "cupti_version") {
        if (trace_.runtime.empty()) trace_.runtime = "CUDA";
      }
      return true;
    }
    if (in_distributed_ && depth_ == 2 && key_ == "rank" && !is_string) {
      trace_.rank = Integer(text);
      return true;
    }
    if (in_device_ && depth_ == 3) {
      if (key_ == "name") device_.name = text;
      if (key_ == "id") device_.id = Integer(text).value_or(0);
      if (key_ == "numSms") device_.sms = Integer(text).value_or(0);
      return true;
    }
    if (in_event_ && value_depth == event_depth() + 1) {
      if (key_ == "ph") event_.ph = text;
      if (key_ == "cat") event_.cat = text;
      if (key_ == "name") event_.name = text;
      if (key_ == "pid") event_.pid = text;
      if (key_ == "tid") event_.tid = text;
      if (key_ == "ts") event_.ts = MicrosToNanos(text);
      if (key_ == "dur") event_.dur = MicrosToNanos(text);
      return true;
    }
    if (in_args_ && value_depth == event_depth() + 2 && !is_string) {
      if (key_ == "External id") event_.external_id = Integer(text);
      if (key_ == "correlation") event_.correlation = Integer(text);
      if (key_ == "device") event_.device = Integer(text);
      if (key_ == "stream") event_.stream = Integer(text);
    }
    return true;
  }

  std::uint32_t Thread(const std::string& pid, const std::string& tid) {
    const StringId id = trace_.strings->Intern(pid + "/" + tid);
    auto [it, added] = thread_index_.try_emplace(id, static_cast<std::uint32_t>(trace_.threads.size()));
    if (added) trace_.threads.push_back(id);
    return it->second;
  }

  StringId Intern(const std::optional<std::string>& text) { return text ? trace_.strings->Intern(*text) : kNoString; }

  void StoreEvent() {
    if (event_.ph != "X" || !event_.ts) return;
    const std::int64_t ts = *event_.ts;
    const std::int64_t dur = std::max<std::int64_t>(0, event_.dur.value_or(0));
    if (event_.cat == "cpu_op") {
      TorchOp op;
      op.ts = ts;
      op.end = ts + dur;
      op.external_id = event_.external_id.value_or(-1);
      op.thread = Thread(event_.pid, event_.tid);
      op.name = trace_.strings->Intern(event_.name);
      op.input_dims = Intern(event_.input_dims);
      op.input_types = Intern(event_.input_types);
      op.concrete_inputs = Intern(event_.concrete);
      trace_.ops.push_back(op);
    } else if ((event_.cat == "cuda_runtime" || event_.cat == "cuda_driver") && event_.correlation) {
      TorchLaunch launch;
      launch.ts = ts;
      launch.end = ts + dur;
      launch.correlation = *event_.correlation;
      launch.external_id = event_.external_id.value_or(-1);
      launch.thread = Thread(event_.pid, event_.tid);
      launch.name = trace_.strings->Intern(event_.name);
      if (trace_.runtime.empty() && event_.name.starts_with("hip")) trace_.runtime = "ROCm";
      trace_.launches.push_back(launch);
    } else if (event_.cat == "kernel") {
      TorchKernel kernel;
      kernel.ts = ts;
      kernel.duration = dur;
      kernel.external_id = event_.external_id.value_or(-1);
      kernel.correlation = event_.correlation.value_or(-1);
      kernel.device = static_cast<std::int32_t>(event_.device.value_or(-1));
      kernel.stream = static_cast<std::int32_t>(event_.stream.value_or(-1));
      kernel.name = trace_.strings->Intern(event_.name);
      trace_.kernels.push_back(kernel);
    }
  }

 public:
  std::optional<bool> record_shapes_;

 private:
  struct Event {
    std::string ph;
    std::string cat;
    std::string name;
    std::string pid;
    std::string tid;
    std::optional<std::int64_t> ts;
    std::optional<std::int64_t> dur;
    std::optional<std::int64_t> external_id;
    std::optional<std::int64_t> correlation;
    std::optional<std::int64_t> device;
    std::optional<std::int64_t> stream;
    std::optional<std::string> input_dims;
    std::optional<std::string> input_types;
    std::optional<std::string> concrete;
  };

  TorchTrace& trace_;
  const TorchTraceLimits& limits_;
  std::string error_;
  std::size_t depth_ = 0;
  std::string key_;
  bool top_is_array_ = false;
  bool in_events_ = false;
  bool in_devices_ = false;
  bool in_distributed_ = false;
  bool in_event_ = false;
  bool in_args_ = false;
  bool in_device_ = false;
  bool saw_events_ = false;
  Event event_;
  TorchDevice device_;
  std::size_t capture_depth_ = 0;
  std::string capture_;
  std::string capture_key_;
  std::vector<bool> capture_needs_comma_;
  std::string capture_closers_;
  bool after_key_ = false;
  std::unordered_map<StringId, std::uint32_t> thread_index_;
};

bool EndsWith(const std::string& text, std::string_view suffix) { return text.ends_with(suffix); }

bool HasTraceName(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name == "trace_view.json" || name == "trace_view.json.gz") return false;
  return EndsWith(name, ".json") || EndsWith(name, ".json.gz");
}

}  // namespace

Result<TorchTrace> ReadTorchTrace(const fs::path& path, const TorchTraceLimits& limits) {
  OPMFU_ASSIGN_OR_RETURN(GzHandle file, OpenTrace(path));
  TorchTrace trace;
  trace.path = path;
  TraceStreamBuf buffer(file.get(), limits);
  std::istream stream(&buffer);
  TraceHandler handler(trace, limits);
  bool parsed = false;
  try {
    parsed = Json::sax_parse(stream, &handler);
  } catch (const std::exception& error) {  // nlohmann reports through parse_error; this is a backstop
    return Error::Input(path.string() + ": not a trace: " + error.what());
  }
  trace.bytes = buffer.bytes();
  if (!buffer.error().empty()) return Error::Input(path.string() + ": " + buffer.error());
  if (!handler.error().empty()) {
    const std::uint64_t at = handler.error_position.value_or(buffer.bytes());
    return Error::Input(path.string() + ": line " + std::to_string(buffer.LineOf(at)) + ": " + handler.error());
  }
  if (!parsed) {
    if (buffer.bytes() == 0) return Error::Input(path.string() + ": empty file, not a PyTorch profiler trace");
    const std::uint64_t at = handler.error_position.value_or(buffer.bytes());
    std::string cause = handler.parse_message;
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> the cause alone.
    if (const auto colon = cause.find(": "); colon != std::string::npos) cause = cause.substr(colon + 2);
    if (const auto at_line = cause.find("at line "); at_line != std::string::npos) {
      if (const auto comma = cause.find(": ", at_line); comma != std::string::npos) cause = cause.substr(comma + 2);
    }
    return Error::Input(path.string() + ": line " + std::to_string(buffer.LineOf(at)) + ": malformed JSON (" + cause +
                        ")");
  }
  if (!handler.saw_events()) {
    return Error::Input(path.string() +
                        ": no \"traceEvents\" array, so not a PyTorch profiler trace (torch.profiler's "
                        "export_chrome_trace or tensorboard_trace_handler writes one)");
  }
  trace.record_shapes = handler.record_shapes_;
  if (trace.runtime.empty()) trace.runtime = "CUDA";
  return trace;
}

bool LooksLikeTorchTrace(const fs::path& path) {
  if (!HasTraceName(path)) return false;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  auto file = OpenTrace(path);
  if (!file.ok()) return false;
  std::string head(4096, '\0');
  const int read = gzread(file->get(), head.data(), static_cast<unsigned>(head.size()));
  if (read <= 0) return false;
  head.resize(static_cast<std::size_t>(read));
  return head.find("\"traceEvents\"") != std::string::npos || head.find("\"deviceProperties\"") != std::string::npos ||
         head.find("\"schemaVersion\"") != std::string::npos;
}

std::vector<fs::path> FindTorchTraces(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return HasTraceName(path) ? std::vector<fs::path>{path} : std::vector<fs::path>{};
  std::vector<fs::path> traces;
  if (!fs::is_directory(path, ec)) return traces;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    if (entry.is_directory(ec)) {
      const std::string name = entry.path().filename().string();
      if (it.depth() >= 2 || name.ends_with("_ascend_pt") || name == "ASCEND_PROFILER_OUTPUT") {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (LooksLikeTorchTrace(entry.path())) traces.push_back(entry.path());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

}  // namespace opmfu::engine
