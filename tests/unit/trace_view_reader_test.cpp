// engine/trace_view_reader.h: the trace's events come out the same wherever the file is cut into
// windows (checked against nlohmann's DOM of the same text), and malformed JSON gives one line
// naming the file, the line and column, and the cause.

#include "engine/trace_view_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace opmfu::engine {
namespace {

namespace fs = std::filesystem;
using opmfu::testing::TempDir;

// Events that make a wrong cut easy: strings holding "}, {", quotes and backslashes before a
// quote, objects nested in a list inside args ("}, {" between them too), numbers with more
// digits than a double keeps, a non-object element, and blanks of every kind between events.
const char* const kTrickyTrace = R"([
{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Python"}},
{"ph": "X", "name": "aten::mm}, {\"x\": 1}", "pid": 7, "tid": 7, "ts": "1736408883704600.100", "dur": 12.5,
 "cat": "cpu_op", "args": {"Call stack": "a\\\\\"}, {b\\\\", "nested": [{"k": 1}, {"k": {"deep": [1, {}]}}]}},
 3,
{"ph": "s", "id": 1736408883704643212, "pid": "host", "tid": 7, "ts": 1736408883704600.1005, "cat": "async_npu"},	{"ph": "f",
"id": 1736408883704643212, "pid": 99, "tid": "stream 2", "ts": "1736408883704643.212", "cat": "async_npu"},
{"name": "1048576-mm", "ph": "X", "ts": "1736408883704600.000", "dur": 20,
 "args": {"event_type": "start/end", "domain": "mfu_flops"}, "pid": 7, "tid": 7},
{"name": "AI Core Freq", "ts": "1736408883573887.920", "pid": 98, "tid": 0, "args": {"MHz": 1800}, "ph": "C"},
{"name": "Notify_Wait", "ph": "X", "pid": 3000, "tid": 1, "ts": "5.000", "dur": 1, "args": {"task type": "Notify"}},
{"name": "\u00e9t\u00e9 \"q\"", "ph": "i", "pid": -4, "tid": 2}
]
)";

// One event as text, the same for both readers.
std::string Describe(const std::string& ph, const std::string& name, const std::string& ts, const std::string& dur,
                     const std::string& domain, const std::string& args_name, const std::string& id, bool task_type,
                     const std::string& mhz) {
  return ph + "|" + name + "|" + ts + "|" + dur + "|" + domain + "|" + args_name + "|" + id + "|" +
         (task_type ? "task" : "") + "|" + mhz;
}

std::vector<std::string> Read(const fs::path& path, std::size_t chunk) {
  std::vector<std::string> events;
  auto count = ReadTraceEvents(
      path,
      [&](const TraceEvent& e) {
        events.push_back(Describe(std::string(e.ph), std::string(e.name), std::string(e.ts), std::string(e.dur),
                                  std::string(e.domain), std::string(e.args_name), std::to_string(e.id),
                                  e.has_task_type, e.mhz ? std::to_string(*e.mhz) : ""));
      },
      chunk);
  EXPECT_TRUE(count.ok()) << "chunk " << chunk << ": " << count.error().message;
  if (count.ok()) {
    EXPECT_EQ(*count, events.size());
  }
  return events;
}

// The same through nlohmann's DOM: numbers as written (dumped from their text), strings unescaped.
std::vector<std::string> Expected(const std::string& text) {
  const auto json = nlohmann::json::parse(text);
  const auto& list = json.is_object() ? json.at("traceEvents") : json;
  std::vector<std::string> events;
  const auto field = [](const nlohmann::json& object, const char* key) -> std::string {
    if (!object.is_object() || !object.contains(key)) return "";
    const auto& value = object.at(key);
    return value.is_string() ? value.get<std::string>() : "";
  };
  for (const auto& e : list) {
    if (!e.is_object()) continue;
    const auto number = [&](const char* key) -> std::string {
      if (!e.contains(key)) return "";
      if (e.at(key).is_string()) return e.at(key).get<std::string>();
      // The one number with more digits than a double keeps: the reader gives its text.
      if (e.at(key).is_number_float() && e.at(key).get<double>() > 1e15) return "1736408883704600.1005";
      return e.at(key).dump();
    };
    std::string id = "0";
    if (e.contains("id")) id = std::to_string(e.at("id").get<std::uint64_t>());
    const nlohmann::json args = e.value("args", nlohmann::json::object());
    const bool task_type = args.is_object() && args.contains("task type");
    const std::string mhz =
        args.is_object() && args.contains("MHz") ? std::to_string(args.at("MHz").get<double>()) : "";
    events.push_back(Describe(field(e, "ph"), field(e, "name"), number("ts"), number("dur"), field(args, "domain"),
                              field(args, "name"), id, task_type, mhz));
  }
  return events;
}

TEST(TraceViewReader, EventsAreTheSameWhereverTheWindowsAreCut) {
  TempDir dir;
  for (const bool object_form : {false, true}) {
    const std::string text = object_form ? std::string(R"({"schemaVersion": 1, "traceEvents": )") + kTrickyTrace +
                                               R"(, "deviceProperties": [{"name": "}, {"}]})"
                                         : std::string(kTrickyTrace);
    const fs::path path = dir.Write(object_form ? "object.json" : "list.json", text);
    const std::vector<std::string> expected = Expected(text);
    ASSERT_EQ(expected.size(), 8U);
    for (std::size_t chunk = 1; chunk <= text.size() + 1; ++chunk) {
      EXPECT_EQ(Read(path, chunk), expected) << "chunk " << chunk;
    }
  }
}

TEST(TraceViewReader, NumbersKeepTheirDigitsAndStringIdsAreStable) {
  TempDir dir;
  const fs::path path = dir.Write("t.json", kTrickyTrace);
  std::vector<TraceEvent> flows;
  std::vector<std::int64_t> pids;
  std::vector<std::string> dur;
  ASSERT_TRUE(ReadTraceEvents(path, [&](const TraceEvent& e) {
                pids.push_back(e.pid);
                dur.emplace_back(e.dur);
              }).ok());
  ASSERT_EQ(pids.size(), 8U);
  EXPECT_EQ(dur[1], "12.5");
  EXPECT_LT(pids[2], 0);  // "host": a negative id
  EXPECT_EQ(pids[3], 99);
  EXPECT_EQ(pids[7], -4);       // a negative number stays itself
  EXPECT_NE(pids[2], pids[7]);  // and differs from the string's id
}

TEST(TraceViewReader, MalformedJsonGivesOneLineNamingFileLineAndCause) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"[{\"ph\": \"X\"},\n{\"ph\": \"X\", \"name\": \"abc", "line 2, column 25: the file ends inside a string"},
      {"[{\"ph\": \"X\"},\n{\"ph\": \"X\"}", "line 2, column 12: the file ends before the list of events closes"},
      {"[{\"ph\": \"X\"}]\n{\"ph\": 1}", "line 2, column 1: content after the list of trace events"},
      {"[{\"ph\": \"X\", \"dur\": NaN}]", "parse error at line 1"},
      {"[{\"ph\": \"X\", \"args\": {\"a\": [1}}]", "parse error at line 1"},
      {"{\"ph\": \"X\"}", "not a list of trace events"},
      {"\"just a string\"", "not a list of trace events"},
      {"", "the file holds no '['"},
  };
  TempDir dir;
  for (const Case& c : cases) {
    for (const std::size_t chunk : {std::size_t{3}, kTraceChunkBytes}) {
      const fs::path path = dir.Write("bad.json", c.text);
      std::size_t events = 0;
      auto result = ReadTraceEvents(
          path, [&](const TraceEvent&) { ++events; }, chunk);
      ASSERT_FALSE(result.ok()) << c.text;
      EXPECT_NE(result.error().message.find(path.string() + ": "), std::string::npos) << result.error().message;
      EXPECT_NE(result.error().message.find(c.expected), std::string::npos) << result.error().message;
      EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
    }
  }
}

}  // namespace
}  // namespace opmfu::engine
