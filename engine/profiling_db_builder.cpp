#include "engine/profiling_db_builder.h"

#include <algorithm>

#include "common/file_io.h"
#include "common/sqlite.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

std::int64_t ProfilingDbBuilder::Intern(std::string_view text) {
  auto [it, inserted] = string_ids_.try_emplace(std::string(text), static_cast<std::int64_t>(strings_.size()) + 1);
  if (inserted) strings_.emplace_back(text);
  return it->second;
}

std::int64_t ProfilingDbBuilder::AddOp(std::string_view name, std::int64_t start, std::int64_t end,
                                       std::optional<std::string_view> input_shapes) {
  const std::int64_t connection = next_connection_++;
  ops_.push_back({start, end, connection, Intern(name)});
  if (input_shapes) ops_.back().input_shapes = Intern(*input_shapes);
  return connection;
}

void ProfilingDbBuilder::AddNestedOp(std::int64_t op_connection, std::string_view name, std::string_view input_shapes,
                                     bool runs_kernels) {
  nested_ops_[op_connection].push_back({Intern(name), Intern(input_shapes), runs_kernels});
}

void ProfilingDbBuilder::AddApiRow(std::string_view name, std::int64_t start, std::int64_t end, std::int64_t type) {
  ops_.push_back({start, end, next_connection_++, Intern(name), type});
}

void ProfilingDbBuilder::AddKernel(const std::vector<std::int64_t>& op_connections, const Kernel& kernel) {
  const std::int64_t flow = next_connection_++;
  Task task{kernel.start,
            kernel.end,
            flow,
            static_cast<std::int64_t>(tasks_.size()) + 1,
            Intern(kernel.name),
            Intern(kernel.op_type),
            std::nullopt,
            std::nullopt,
            std::nullopt,
            std::nullopt,
            std::nullopt,
            std::nullopt};
  if (kernel.input_types) task.input_types = Intern(*kernel.input_types);
  if (kernel.input_shapes) task.input_shapes = Intern(*kernel.input_shapes);
  if (kernel.output_shapes) task.output_shapes = Intern(*kernel.output_shapes);
  if (kernel.input_formats) task.input_formats = Intern(*kernel.input_formats);
  if (kernel.output_formats) task.output_formats = Intern(*kernel.output_formats);
  if (kernel.output_types) task.output_types = Intern(*kernel.output_types);
  tasks_.push_back(task);
  for (std::int64_t op : op_connections) connections_.emplace_back(op, flow);
}

void ProfilingDbBuilder::AddHbmSample(std::int64_t timestamp, std::int64_t hbm_id, double bandwidth, bool write) {
  hbm_.push_back({timestamp, hbm_id, bandwidth, Intern(write ? "write" : "read")});
}

std::int64_t ProfilingDbBuilder::AddCommunication(std::int64_t op_connection, std::string_view op_type,
                                                  std::int64_t start, std::int64_t end) {
  const std::int64_t flow = next_connection_++;
  communications_.push_back({start, end, flow, Intern(op_type)});
  connections_.emplace_back(op_connection, flow);
  return flow;
}

void ProfilingDbBuilder::AddCommunicationTask(std::int64_t flow, std::string_view name, std::string_view op_type,
                                              std::int64_t start, std::int64_t end, bool older) {
  const auto index = static_cast<std::int64_t>(communication_tasks_.size());
  communication_tasks_.push_back({start, end, flow, index, Intern(name), Intern(op_type),
                                  static_cast<std::int64_t>(communications_.size()), older});
}

void ProfilingDbBuilder::AddMstx(std::string_view domain, std::optional<std::string_view> message, std::int64_t start,
                                 std::int64_t end, int event_type) {
  Mstx event{start, end, event_type, std::nullopt, Intern(domain)};
  if (message) event.message = Intern(*message);
  mstx_.push_back(event);
}

void ProfilingDbBuilder::AddStep(std::int64_t id, std::int64_t start, std::int64_t end) {
  steps_.emplace_back(id, start, end);
}

Status ProfilingDbBuilder::Write(const fs::path& path) const {
  // Built under a temporary name and renamed (WriteDatabaseAtomically): a full disk leaves no
  // truncated database under the name a later analysis reads as a damaged rank.
  return WriteDatabaseAtomically(path, AtomicDatabaseStart::kEmpty, [&](Database& db) { return Fill(db); });
}

Status ProfilingDbBuilder::Fill(Database& db) const {
  const auto wanted = [&](std::string_view table) {
    return std::find(omitted_.begin(), omitted_.end(), table) == omitted_.end();
  };
  struct Table {
    const char* name;
    const char* columns;
  };
  // Column lists as CANN's msprof export writes them (only some are read by the analysis).
  // Real exports (MindStudio Insight's public test data) declare PYTORCH_API's times TEXT and add
  // a `depth` column to PYTORCH_API and TASK.
  const bool quirks = real_schema_quirks_;
  const Table tables[] = {
      {"STRING_IDS", "id INTEGER PRIMARY KEY, value TEXT"},
      {"PYTORCH_API", quirks ? "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                               "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
                               "callchainId INTEGER, type INTEGER, depth integer"
                             : "startNs INTEGER, endNs INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                               "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
                               "callchainId INTEGER, type INTEGER"},
      {"CONNECTION_IDS", "id INTEGER, connectionId INTEGER"},
      {"TASK", quirks ? "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
                        "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, "
                        "modelId INTEGER, depth integer"
                      : "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
                        "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, "
                        "modelId INTEGER"},
      {"COMPUTE_TASK_INFO",
       "name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, "
       "inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, "
       "outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER"},
      {"COMMUNICATION_OP",
       "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, opId INTEGER, "
       "relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER"},
      {"COMMUNICATION_SCHEDULE_TASK_INFO", "name INTEGER, globalTaskId INTEGER, taskType INTEGER, opType INTEGER"},
      {"COMMUNICATION_TASK_INFO",
       "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, groupName INTEGER, notifyId INTEGER, "
       "rdmaType INTEGER, srcRank INTEGER, dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
       "linkType INTEGER, opId INTEGER"},
      {"MSTX_EVENTS",
       "startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER, message INTEGER, "
       "globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER, connectionId INTEGER"},
      {"STEP_TIME", "id INTEGER, startNs INTEGER, endNs INTEGER"},
      {"HBM", "deviceId INTEGER, timestampNs INTEGER, bandwidth NUMERIC, hbmId INTEGER, type INTEGER"},
  };
  // A DB has the HCCL task table of its CANN version, and none without HCCL tasks.
  const auto has_tasks = [&](bool older) {
    return std::any_of(communication_tasks_.begin(), communication_tasks_.end(),
                       [&](const CommunicationTask& task) { return task.older == older; });
  };
  for (const Table& table : tables) {
    if (!wanted(table.name)) continue;
    if (std::string_view(table.name) == "HBM" && hbm_.empty()) continue;  // only with profile_memory
    if (std::string_view(table.name) == "COMMUNICATION_SCHEDULE_TASK_INFO" && !has_tasks(false)) continue;
    if (std::string_view(table.name) == "COMMUNICATION_TASK_INFO" && !has_tasks(true)) continue;
    OPMFU_RETURN_IF_ERROR(db.Execute(std::string("CREATE TABLE ") + table.name + " (" + table.columns + ")"));
  }
  const auto insert = [&](std::string_view table, const std::string& sql, auto&& bind_rows) -> Status {
    if (!wanted(table)) return Ok();
    OPMFU_ASSIGN_OR_RETURN(Statement statement, db.Prepare(sql));
    return bind_rows(statement);
  };
  const auto bind_optional = [](Statement& statement, int index, const std::optional<std::int64_t>& value) {
    return value ? statement.Bind(index, *value) : statement.BindNull(index);
  };
  // HCCL tasks' globalTaskIds follow every compute kernel's (1..kernels, numbered as added).
  const auto communication_task_id = [&](const CommunicationTask& task) {
    return static_cast<std::int64_t>(tasks_.size()) + 1 + task.index;
  };
  const auto step = [](Statement& statement) -> Status {
    OPMFU_ASSIGN_OR_RETURN(bool row, statement.Step());
    (void)row;
    return statement.Reset();
  };
  OPMFU_RETURN_IF_ERROR(insert("STRING_IDS", "INSERT INTO STRING_IDS VALUES (?1, ?2)", [&](Statement& s) -> Status {
    for (std::size_t i = 0; i < strings_.size(); ++i) {
      OPMFU_RETURN_IF_ERROR(s.Bind(1, static_cast<std::int64_t>(i) + 1));
      OPMFU_RETURN_IF_ERROR(s.Bind(2, std::string_view(strings_[i])));
      OPMFU_RETURN_IF_ERROR(step(s));
    }
    return Ok();
  }));
  OPMFU_RETURN_IF_ERROR(insert("PYTORCH_API",
                               "INSERT INTO PYTORCH_API (startNs, endNs, globalTid, connectionId, name, type) "
                               "VALUES (?1, ?2, 1, ?3, ?4, ?5)",
                               [&](Statement& s) -> Status {
                                 for (const Op& op : ops_) {
                                   if (quirks) {
                                     OPMFU_RETURN_IF_ERROR(s.Bind(1, std::string_view(std::to_string(op.start))));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(2, std::string_view(std::to_string(op.end))));
                                   } else {
                                     OPMFU_RETURN_IF_ERROR(s.Bind(1, op.start));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(2, op.end));
                                   }
                                   OPMFU_RETURN_IF_ERROR(s.Bind(5, op.type));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, op.connection));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(4, op.name));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 return Ok();
                               }));
  OPMFU_RETURN_IF_ERROR(
      insert("CONNECTION_IDS", "INSERT INTO CONNECTION_IDS VALUES (?1, ?2)", [&](Statement& s) -> Status {
        for (const auto& [api, flow] : connections_) {
          OPMFU_RETURN_IF_ERROR(s.Bind(1, api));
          OPMFU_RETURN_IF_ERROR(s.Bind(2, flow));
          OPMFU_RETURN_IF_ERROR(step(s));
        }
        return Ok();
      }));
  OPMFU_RETURN_IF_ERROR(insert("TASK",
                               "INSERT INTO TASK (startNs, endNs, deviceId, connectionId, globalTaskId, streamId, "
                               "taskType) VALUES (?1, ?2, 0, ?3, ?4, 1, 0)",
                               [&](Statement& s) -> Status {
                                 for (const Task& task : tasks_) {
                                   OPMFU_RETURN_IF_ERROR(s.Bind(1, task.start));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(2, task.end));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, task.connection));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(4, task.global_task_id));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 for (const CommunicationTask& task : communication_tasks_) {
                                   OPMFU_RETURN_IF_ERROR(s.Bind(1, task.start));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(2, task.end));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, task.connection));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(4, communication_task_id(task)));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 return Ok();
                               }));
  OPMFU_RETURN_IF_ERROR(insert("COMPUTE_TASK_INFO",
                               "INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, opType, inputDataTypes, "
                               "inputShapes, outputShapes, inputFormats, outputFormats, outputDataTypes) "
                               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                               [&](Statement& s) -> Status {
                                 for (const Task& task : tasks_) {
                                   OPMFU_RETURN_IF_ERROR(s.Bind(1, task.name));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(2, task.global_task_id));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, task.op_type));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 4, task.input_types));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 5, task.input_shapes));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 6, task.output_shapes));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 7, task.input_formats));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 8, task.output_formats));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 9, task.output_types));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 return Ok();
                               }));
  OPMFU_RETURN_IF_ERROR(insert("COMMUNICATION_OP",
                               "INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, connectionId, opType, opId) "
                               "VALUES (?4, ?1, ?2, ?3, ?4, ?5)",
                               [&](Statement& s) -> Status {
                                 std::int64_t op_id = 0;
                                 for (const Communication& c : communications_) {
                                   OPMFU_RETURN_IF_ERROR(s.Bind(5, ++op_id));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(1, c.start));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(2, c.end));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, c.connection));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(4, c.op_type));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 return Ok();
                               }));
  if (has_tasks(false)) {
    OPMFU_RETURN_IF_ERROR(insert("COMMUNICATION_SCHEDULE_TASK_INFO",
                                 "INSERT INTO COMMUNICATION_SCHEDULE_TASK_INFO VALUES (?1, ?2, 0, ?3)",
                                 [&](Statement& s) -> Status {
                                   for (const CommunicationTask& task : communication_tasks_) {
                                     if (task.older) continue;
                                     OPMFU_RETURN_IF_ERROR(s.Bind(1, task.name));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(2, communication_task_id(task)));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(3, task.op_type));
                                     OPMFU_RETURN_IF_ERROR(step(s));
                                   }
                                   return Ok();
                                 }));
  }
  if (has_tasks(true)) {
    OPMFU_RETURN_IF_ERROR(insert("COMMUNICATION_TASK_INFO",
                                 "INSERT INTO COMMUNICATION_TASK_INFO (name, globalTaskId, taskType, planeId, opId) "
                                 "VALUES (?1, ?2, ?1, 0, ?3)",
                                 [&](Statement& s) -> Status {
                                   for (const CommunicationTask& task : communication_tasks_) {
                                     if (!task.older) continue;
                                     OPMFU_RETURN_IF_ERROR(s.Bind(1, task.name));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(2, communication_task_id(task)));
                                     OPMFU_RETURN_IF_ERROR(s.Bind(3, task.op_id));
                                     OPMFU_RETURN_IF_ERROR(step(s));
                                   }
                                   return Ok();
                                 }));
  }
  OPMFU_RETURN_IF_ERROR(insert("MSTX_EVENTS",
                               "INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, domainId, "
                               "connectionId) VALUES (?1, ?2, ?3, ?4, ?5, 4294967295)",
                               [&](Statement& s) -> Status {
                                 for (const Mstx& e : mstx_) {
                                   OPMFU_RETURN_IF_ERROR(s.Bind(1, e.start));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(2, e.end));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(3, e.event_type));
                                   OPMFU_RETURN_IF_ERROR(bind_optional(s, 4, e.message));
                                   OPMFU_RETURN_IF_ERROR(s.Bind(5, e.domain));
                                   OPMFU_RETURN_IF_ERROR(step(s));
                                 }
                                 return Ok();
                               }));
  OPMFU_RETURN_IF_ERROR(insert("STEP_TIME", "INSERT INTO STEP_TIME VALUES (?1, ?2, ?3)", [&](Statement& s) -> Status {
    for (const auto& [id, start, end] : steps_) {
      OPMFU_RETURN_IF_ERROR(s.Bind(1, id));
      OPMFU_RETURN_IF_ERROR(s.Bind(2, start));
      OPMFU_RETURN_IF_ERROR(s.Bind(3, end));
      OPMFU_RETURN_IF_ERROR(step(s));
    }
    return Ok();
  }));
  if (!hbm_.empty()) {
    OPMFU_RETURN_IF_ERROR(insert("HBM", "INSERT INTO HBM VALUES (0, ?1, ?2, ?3, ?4)", [&](Statement& s) -> Status {
      for (const HbmSample& sample : hbm_) {
        OPMFU_RETURN_IF_ERROR(s.Bind(1, sample.timestamp));
        OPMFU_RETURN_IF_ERROR(s.Bind(2, sample.bandwidth));
        OPMFU_RETURN_IF_ERROR(s.Bind(3, sample.hbm_id));
        OPMFU_RETURN_IF_ERROR(s.Bind(4, sample.type));
        OPMFU_RETURN_IF_ERROR(step(s));
      }
      return Ok();
    }));
  }
  return Ok();
}

Status WriteDeviceInfo(const fs::path& rank_directory, int device, std::string_view ai_core_num_json,
                       std::string_view aic_frequency_json) {
  const std::string id = std::to_string(device);
  const fs::path directory = rank_directory / "PROF_000001_demo" / ("device_" + id);
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) return Error::Input(directory.string() + ": " + ec.message());
  return WriteFileAtomically(directory / ("info.json." + id),
                             "{\"DeviceInfo\":[{\"id\":" + id + ",\"ai_core_num\":" + std::string(ai_core_num_json) +
                                 ",\"aic_frequency\":" + std::string(aic_frequency_json) + "}]}");
}

}  // namespace opmfu::engine
