// ProfilingDbBuilder::WriteText: the same synthetic run as Write, laid out as torch_npu's Text
// export (kernel_details.csv, operator_details.csv and trace_view.json), so tests and the demo can compare the two
// exports of one run. Column names, quoting and number formats follow real exports (MindStudio
// Insight's public samples); msTX ranges follow CANN's timeline assembler ("ph": "X", the message
// as name, args.domain).

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <streambuf>
#include <string>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/output_file.h"
#include "engine/profiling_db_builder.h"
#include "engine/text_export.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

// Nanoseconds as the Text export writes microseconds: three decimals.
std::string TextMicroseconds(std::int64_t ns) {
  const bool negative = ns < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  std::string text = negative ? "-" : "";
  text += std::to_string(magnitude / 1000);
  const auto thousandths = static_cast<unsigned>(magnitude % 1000);
  text += '.';
  text += static_cast<char>('0' + thousandths / 100);
  text += static_cast<char>('0' + thousandths / 10 % 10);
  text += static_cast<char>('0' + thousandths % 10);
  return text;
}

// A CSV field: quoted (quotes doubled) when it holds a quote, a comma or a line break.
std::string CsvField(std::string_view text) {
  if (text.find_first_of("\",\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string JsonText(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

// A file written through a stream by the one output writer (common/output_file.h: a hidden
// temporary opened beneath its directory without following a link, renamed into place by Commit;
// refused over a link, a directory or an input of the run), a MiB at a time: a trace of GBs is
// never held whole.
class StreamedFile : private std::streambuf {
 public:
  explicit StreamedFile(fs::path path) : path_(std::move(path)), out_(this) {}
  Status Open() {
    OPMFU_ASSIGN_OR_RETURN(file_, OutputFile::Begin(path_));
    buffer_.resize(std::size_t{1} << 20);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return Ok();
  }
  std::ostream& out() { return out_; }
  Status Commit() {
    if (!Flush() || !out_) {
      return Error::Input(path_.string() + ": cannot write: " + std::strerror(write_errno_ != 0 ? write_errno_ : EIO));
    }
    return file_->Commit();
  }

 private:
  int_type overflow(int_type c) override {
    if (!Flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Flush() ? 0 : -1; }

  // Writes what the buffer holds to the temporary file; false (errno kept) on a write error.
  bool Flush() {
    const char* data = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0) {
      const ssize_t written = ::write(file_->fd(), data, left);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        write_errno_ = written < 0 ? errno : EIO;
        return false;
      }
      data += written;
      left -= static_cast<std::size_t>(written);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }

  fs::path path_;
  std::unique_ptr<OutputFile> file_;
  std::vector<char> buffer_;
  int write_errno_ = 0;
  std::ostream out_;
};

constexpr std::int64_t kPythonPid = 1000;
constexpr std::int64_t kHardwarePid = 2000;
constexpr std::int64_t kHcclPid = 3000;
constexpr std::int64_t kStream = 2;

}  // namespace

// operator_details.csv: one row per framework op call, its shapes one per line inside the field
// and its device time the sum of the kernels it launched; rows end in LF alone, as real ones do.
Status ProfilingDbBuilder::WriteOperatorDetails(const fs::path& output_directory) const {
  std::unordered_map<std::int64_t, std::int64_t> kernel_time_of_flow;
  for (const Task& task : tasks_) kernel_time_of_flow[task.connection] += task.end - task.start;
  std::unordered_map<std::int64_t, std::int64_t> device_time_of_op;
  for (const auto& [api, flow] : connections_) {
    if (const auto time = kernel_time_of_flow.find(flow); time != kernel_time_of_flow.end()) {
      device_time_of_op[api] += time->second;
    }
  }
  StreamedFile file(output_directory / kOperatorDetailsFile);
  OPMFU_RETURN_IF_ERROR(file.Open());
  std::ostream& out = file.out();
  out << "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self Duration(us),"
         "Device Total Duration(us),Device Self Duration With AICore(us),Device Total Duration With AICore(us)\n";
  const auto row = [&](std::string_view name, std::string shapes, const std::string& host_us, std::int64_t device_self,
                       std::int64_t device_total) {
    for (std::size_t at = shapes.find(';'); at != std::string::npos; at = shapes.find(';', at + 2)) {
      shapes.insert(at + 1, "\n");
    }
    const std::string self_us = TextMicroseconds(device_self);
    const std::string total_us = TextMicroseconds(device_total);
    out << CsvField(name) << "," << CsvField(shapes) << ",," << host_us << "," << host_us << "," << self_us << ","
        << total_us << "," << self_us << "," << total_us << "\n";
  };
  for (const Op& op : ops_) {
    if (op.type != 50001) continue;
    const auto found = device_time_of_op.find(op.connection);
    const std::int64_t device = found == device_time_of_op.end() ? 0 : found->second;
    const std::string host_us = TextMicroseconds(op.end - op.start);
    const auto nested = nested_ops_.find(op.connection);
    if (nested == nested_ops_.end()) {
      row(StringOf(op.name), OptionalStringOf(op.input_shapes), host_us, device, device);
      continue;
    }
    // A composite op: its kernels run under the call that launches them.
    row(StringOf(op.name), OptionalStringOf(op.input_shapes), host_us, 0, device);
    for (const NestedOp& call : nested->second) {
      const std::int64_t time = call.runs_kernels ? device : 0;
      row(StringOf(call.name), std::string(StringOf(call.input_shapes)), host_us, time, time);
    }
  }
  return file.Commit();
}

Status ProfilingDbBuilder::WriteText(const fs::path& output_directory) const {
  std::error_code ec;
  fs::create_directories(output_directory, ec);
  if (ec) return Error::Input(output_directory.string() + ": cannot create: " + ec.message());

  // kernel_details.csv: compute kernels in the order they were added (COMPUTE_TASK_INFO's), then
  // the communication ops as CANN lists them (Accelerator Core HCCL).
  {
    StreamedFile file(output_directory / kKernelDetailsFile);
    OPMFU_RETURN_IF_ERROR(file.Open());
    std::ostream& out = file.out();
    out << "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
           "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,"
           "Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
           "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,"
           "aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,"
           "aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
           "aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
           "cube_utilization(%)\r\n";
    for (const Task& task : tasks_) {
      out << "1,4294967295," << task.global_task_id << "," << kStream << "," << CsvField(StringOf(task.name)) << ","
          << CsvField(StringOf(task.op_type)) << ",dynamic,AI_CORE," << TextMicroseconds(task.start) << "\t,"
          << TextMicroseconds(task.end - task.start) << ",0,24,0,NO," << CsvField(OptionalStringOf(task.input_shapes))
          << "," << CsvField(OptionalStringOf(task.input_types)) << ","
          << CsvField(OptionalStringOf(task.input_formats)) << "," << CsvField(OptionalStringOf(task.output_shapes))
          << "," << CsvField(OptionalStringOf(task.output_types)) << ","
          << CsvField(OptionalStringOf(task.output_formats)) << ",N/A";
      for (int counter = 0; counter < 25; ++counter) out << ",0";
      out << "\r\n";
    }
    for (std::size_t i = 0; i < communications_.size(); ++i) {
      const Communication& op = communications_[i];
      out << "1,4294967295,N/A,N/A," << CsvField(std::string(StringOf(op.op_type)) + "_" + std::to_string(i) + "_0_1")
          << "," << CsvField(StringOf(op.op_type)) << ",N/A,HCCL," << TextMicroseconds(op.start) << "\t,"
          << TextMicroseconds(op.end - op.start) << ",0,0";
      for (int column = 12; column < 46; ++column) out << ",N/A";
      out << "\r\n";
    }
    OPMFU_RETURN_IF_ERROR(file.Commit());
  }

  OPMFU_RETURN_IF_ERROR(WriteOperatorDetails(output_directory));

  // trace_view.json: one event per line, as a list.
  StreamedFile file(output_directory / kTraceViewFile);
  OPMFU_RETURN_IF_ERROR(file.Open());
  std::ostream& out = file.out();
  out << "[\n";
  const auto process = [&](std::int64_t pid, const char* name) {
    out << R"({"ph": "M", "name": "process_name", "pid": )" << pid << R"(, "tid": 0, "args": {"name": ")" << name
        << "\"}},\n";
  };
  process(kPythonPid, "Python");
  process(kHardwarePid, "Ascend Hardware");
  process(kHcclPid, "HCCL");
  std::map<std::int64_t, const Op*> op_of_connection;
  for (const Op& op : ops_) {
    op_of_connection.emplace(op.connection, &op);
    const char* category = op.type == 50001 ? "cpu_op" : op.type == 50002 ? "enqueue" : "python_function";
    out << R"({"ph": "X", "name": )" << JsonText(StringOf(op.name)) << R"(, "pid": )" << kPythonPid << R"(, "tid": )"
        << kPythonPid << R"(, "ts": ")" << TextMicroseconds(op.start) << R"(", "dur": )"
        << TextMicroseconds(op.end - op.start) << R"(, "cat": ")" << category
        << R"(", "args": {"Sequence number": -1, "Fwd thread id": 0}},)"
        << "\n";
  }
  std::map<std::int64_t, std::vector<std::int64_t>> ops_of_flow;
  for (const auto& [api, flow] : connections_) ops_of_flow[flow].push_back(api);
  std::uint64_t flow_id = 0;
  const auto flows = [&](std::int64_t flow, std::int64_t pid, std::int64_t tid, std::int64_t start) {
    const auto found = ops_of_flow.find(flow);
    if (found == ops_of_flow.end()) return;
    for (const std::int64_t api : found->second) {
      const auto op = op_of_connection.find(api);
      if (op == op_of_connection.end()) continue;
      ++flow_id;
      out << R"({"ph": "s", "bp": "e", "name": "torch_to_npu", "id": )" << flow_id << R"(, "pid": )" << kPythonPid
          << R"(, "tid": )" << kPythonPid << R"(, "ts": ")" << TextMicroseconds(op->second->start)
          << R"(", "cat": "async_npu"},)"
          << "\n";
      out << R"({"ph": "f", "bp": "e", "name": "torch_to_npu", "id": )" << flow_id << R"(, "pid": )" << pid
          << R"(, "tid": )" << tid << R"(, "ts": ")" << TextMicroseconds(start) << R"(", "cat": "async_npu"},)"
          << "\n";
    }
  };
  for (const Task& task : tasks_) {
    out << R"({"name": )" << JsonText(StringOf(task.name)) << R"(, "pid": )" << kHardwarePid << R"(, "tid": )"
        << kStream << R"(, "ts": ")" << TextMicroseconds(task.start) << R"(", "dur": )"
        << TextMicroseconds(task.end - task.start) << R"(, "args": {"Model Id": 4294967295, "Task Type": "AI_CORE", )"
        << R"("Physic Stream Id": )" << kStream << R"(, "Task Id": )" << task.global_task_id << R"(, "connection_id": )"
        << task.connection << R"(}, "ph": "X"},)"
        << "\n";
    flows(task.connection, kHardwarePid, kStream, task.start);
  }
  for (const Communication& op : communications_) {
    out << R"({"name": )" << JsonText(StringOf(op.op_type)) << R"(, "pid": )" << kHcclPid << R"(, "tid": 0, "ts": ")"
        << TextMicroseconds(op.start) << R"(", "dur": )" << TextMicroseconds(op.end - op.start)
        << R"(, "args": {"connection_id": )" << op.connection << R"(, "model id": 4294967295}, "ph": "X"},)"
        << "\n";
    flows(op.connection, kHcclPid, 0, op.start);
  }
  for (const CommunicationTask& task : communication_tasks_) {
    if (task.older) continue;  // COMMUNICATION_TASK_INFO: the analysis reads none of it
    out << R"({"name": )" << JsonText(StringOf(task.name)) << R"(, "pid": )" << kHcclPid << R"(, "tid": 1, "ts": ")"
        << TextMicroseconds(task.start) << R"(", "dur": )" << TextMicroseconds(task.end - task.start)
        << R"(, "args": {"notify_id": "0", "stream id": )" << kStream << R"(, "task id": )" << task.index
        << R"(, "task type": )" << JsonText(StringOf(task.name)) << R"(}, "ph": "X"},)"
        << "\n";
  }
  for (const Mstx& event : mstx_) {
    if (event.event_type != 2 || !event.message) continue;  // CANN writes a range as one complete event
    out << R"({"name": )" << JsonText(StringOf(*event.message)) << R"(, "pid": )" << kPythonPid << R"(, "tid": )"
        << kPythonPid << R"(, "ts": ")" << TextMicroseconds(event.start) << R"(", "dur": )"
        << TextMicroseconds(event.end - event.start) << R"(, "ph": "X", "cat": "mstx", "args": {"event_type": )"
        << R"("start/end", "domain": )" << JsonText(StringOf(event.domain)) << "}},\n";
  }
  out << R"({"name": "AI Core Freq", "ts": "0.000", "pid": 4000, "tid": 0, "args": {"MHz": 1800}, "ph": "C"})"
      << "\n]\n";
  return file.Commit();
}

}  // namespace opmfu::engine
