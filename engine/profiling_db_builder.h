#pragma once
// Writes synthetic Ascend PyTorch profiler databases with the tables and columns CANN writes:
// for `opmfu demo`, the tests and the benchmarks.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "common/sqlite.h"

namespace opmfu::engine {

class ProfilingDbBuilder {
 public:
  /// A framework op (PYTORCH_API row); returns its connection id for linking kernels.
  /// `input_shapes`: the op's logical input shapes as record_shapes gives them ("32768,4096;12288,4096"),
  /// which only the Text export's operator_details.csv carries.
  std::int64_t AddOp(std::string_view name, std::int64_t start, std::int64_t end,
                     std::optional<std::string_view> input_shapes = std::nullopt);

  struct Kernel {
    std::string name;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::optional<std::string> input_types = std::string("FLOAT16;FLOAT16");
    std::optional<std::string> input_shapes = std::string("\"16,16;16,16\"");
    std::optional<std::string> output_shapes = std::string("\"16,16\"");
    std::string op_type = "MatMulV2";
    /// COMPUTE_TASK_INFO's formats and output dtypes (NULL when absent): the derived section reads them.
    std::optional<std::string> input_formats = std::nullopt;
    std::optional<std::string> output_formats = std::nullopt;
    std::optional<std::string> output_types = std::string("FLOAT16");
  };
  /// A compute kernel (TASK + COMPUTE_TASK_INFO) launched by the given ops (CONNECTION_IDS rows).
  void AddKernel(const std::vector<std::int64_t>& op_connections, const Kernel& kernel);
  /// An HCCL op (COMMUNICATION_OP) linked to an op; returns its flow id (its connectionId).
  std::int64_t AddCommunication(std::int64_t op_connection, std::string_view op_type, std::int64_t start,
                                std::int64_t end);
  /// A device task of an HCCL op (a TASK row on the op's flow id) recorded in
  /// COMMUNICATION_SCHEDULE_TASK_INFO (newer CANN) or, with `older`, in COMMUNICATION_TASK_INFO
  /// (older CANN); `flow` is what AddCommunication returned.
  void AddCommunicationTask(std::int64_t flow, std::string_view name, std::string_view op_type, std::int64_t start,
                            std::int64_t end, bool older = false);
  /// An MSTX event; ranges have event type 2.
  void AddMstx(std::string_view domain, std::optional<std::string_view> message, std::int64_t start, std::int64_t end,
               int event_type = 2);
  void AddStep(std::int64_t id, std::int64_t start, std::int64_t end);
  /// One sample of the HBM table (bytes/s of one HBM unit, read or write), as `profile_memory`
  /// collects it.
  void AddHbmSample(std::int64_t timestamp, std::int64_t hbm_id, double bandwidth, bool write);
  /// A PYTORCH_API row no kernel links to, of the given type: 50002 (an Enqueue/Dequeue queue row)
  /// or 50003 (a Python-trace row), as real DBs hold beside the 50001 op rows.
  void AddApiRow(std::string_view name, std::int64_t start, std::int64_t end, std::int64_t type);
  /// A call the op at `op_connection` makes, which only the Text export's operator_details.csv
  /// records (the DB's ops stay as added): `runs_kernels` when the op's kernels are launched under
  /// it (its device time is then the op's), else it launches none (a view such as aten::t).
  void AddNestedOp(std::int64_t op_connection, std::string_view name, std::string_view input_shapes, bool runs_kernels);
  /// Writes the schema quirks of real CANN exports: PYTORCH_API times as TEXT, and an extra
  /// `depth` column on PYTORCH_API and TASK.
  void UseRealSchemaQuirks() { real_schema_quirks_ = true; }
  /// Leaves a table out of the written file (to build broken inputs).
  void OmitTable(std::string_view table) { omitted_.emplace_back(table); }

  /// Writes a new database at `path` (replacing a file there) in one transaction.
  Status Write(const std::filesystem::path& path) const;
  /// Writes the same run as torch_npu's Text export into `output_directory` (an
  /// ASCEND_PROFILER_OUTPUT): kernel_details.csv, operator_details.csv and trace_view.json
  /// (engine/text_export_writer.cpp).
  Status WriteText(const std::filesystem::path& output_directory) const;

  /// Compute kernels (COMPUTE_TASK_INFO rows); HCCL tasks are not counted.
  std::size_t kernel_count() const { return tasks_.size(); }

 private:
  /// Every table, in the transaction Write has open.
  Status Fill(Database& db) const;
  /// An interned string by its id, and an optional one ("" when absent).
  std::string_view StringOf(std::int64_t id) const { return strings_[static_cast<std::size_t>(id - 1)]; }
  std::string OptionalStringOf(const std::optional<std::int64_t>& id) const {
    return id ? std::string(StringOf(*id)) : std::string();
  }
  /// WriteText's operator_details.csv.
  Status WriteOperatorDetails(const std::filesystem::path& output_directory) const;
  std::int64_t Intern(std::string_view text);

  struct Op {
    std::int64_t start, end, connection, name;
    std::int64_t type = 50001;
    std::optional<std::int64_t> input_shapes = std::nullopt;
  };
  struct Task {
    std::int64_t start, end, connection, global_task_id, name, op_type;
    std::optional<std::int64_t> input_types, input_shapes, output_shapes, input_formats, output_formats, output_types;
  };
  struct HbmSample {
    std::int64_t timestamp, hbm_id;
    double bandwidth;
    std::int64_t type;
  };
  std::vector<HbmSample> hbm_;
  struct Communication {
    std::int64_t start, end, connection, op_type;
  };
  struct CommunicationTask {
    std::int64_t start, end, connection, index, name, op_type, op_id;  // index: 0, 1, ...
    bool older;
  };
  std::vector<CommunicationTask> communication_tasks_;
  struct Mstx {
    std::int64_t start, end, event_type;
    std::optional<std::int64_t> message;
    std::int64_t domain;
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, std::int64_t> string_ids_;
  std::vector<Op> ops_;
  struct NestedOp {
    std::int64_t name, input_shapes;
    bool runs_kernels;
  };
  std::unordered_map<std::int64_t, std::vector<NestedOp>> nested_ops_;  // by the op's connection
  std::vector<Task> tasks_;
  std::vector<std::pair<std::int64_t, std::int64_t>> connections_;  // (api id, flow id)
  std::vector<Communication> communications_;
  std::vector<Mstx> mstx_;
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> steps_;
  std::vector<std::string> omitted_;
  std::int64_t next_connection_ = 1;
  bool real_schema_quirks_ = false;
};

/// Writes `<rank_directory>/PROF_000001_demo/device_<device>/info.json.<device>`.
Status WriteDeviceInfo(const std::filesystem::path& rank_directory, int device, std::string_view ai_core_num_json,
                       std::string_view aic_frequency_json);

}  // namespace opmfu::engine
