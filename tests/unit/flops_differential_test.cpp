// `opmfu flops` against torch_npu's real formulas, call for call: tests/fixtures/flops/
// differential_cases.json holds calls (as the command line gives them) and what the real
// `_flops_formulas.py` of each release recorded for them, run outside the repo on fake tensors
// (docs/flops.md says how). Each case binds and evaluates exactly as the CLI does.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "registry/builtin_flops.h"

namespace opmfu::registry {
namespace {

using Json = nlohmann::json;

Json LoadTable() {
  std::ifstream in(std::string(OPMFU_SOURCE_DIR) + "/tests/fixtures/flops/differential_cases.json");
  return Json::parse(in, nullptr, false);
}

std::string Describe(const Json& row) {
  std::string text = row.at("op").get<std::string>();
  for (const Json& value : row.at("positional")) text += " " + value.get<std::string>();
  for (const Json& pair : row.at("named"))
    text += " --arg " + pair[0].get<std::string>() + "=" + pair[1].get<std::string>();
  return text;
}

// What opmfu says for one case: the range message, or why nothing is recorded.
struct Observed {
  bool recorded = false;
  std::string text;
  std::vector<std::string> not_given;  ///< unread required parameters opmfu filled with None
};

Observed RunCase(const Json& row, const FormulasVersion& version) {
  const BuiltinTarget* target = FindBuiltinTarget(row.at("op").get<std::string>());
  if (target == nullptr) return {false, "unknown target", {}};
  std::vector<Json> positional;
  for (const Json& value : row.at("positional"))
    positional.push_back(ParseFlopsArgumentValue(value.get<std::string>()));
  std::vector<std::pair<std::string, Json>> named;
  for (const Json& pair : row.at("named")) {
    named.emplace_back(pair[0].get<std::string>(), ParseFlopsArgumentValue(pair[1].get<std::string>()));
  }
  const auto bound = BindFlopsArguments(*target, positional, named);
  if (!bound.ok()) return {false, bound.error().message, {}};
  const auto outcome = EvaluateBuiltinFlops(*target, bound->arguments, version);
  if (!outcome.ok()) return {false, outcome.error().message, bound->not_given};
  return {true, outcome->decimal + "-" + std::string(target->op_name), bound->not_given};
}

// The one departure from Python's binding: a call that leaves out only parameters the formula
// never reads raises a TypeError in torch_npu, and opmfu answers it (a real call of the op
// always carries them, and their value does not change the FLOPs).
bool IsTheUnreadArgumentDeparture(const Json& expected, const Observed& observed, const BuiltinTarget& target) {
  if (expected.value("raises", "") != "TypeError" || !observed.recorded || observed.not_given.empty()) return false;
  for (const std::string& name : observed.not_given) {
    if (std::find(target.used.begin(), target.used.end(), name) != target.used.end()) return false;
  }
  return true;
}

TEST(FlopsDifferential, EveryCaseMatchesTheRealFormulasOfEachRelease) {
  const Json table = LoadTable();
  ASSERT_FALSE(table.is_discarded());
  std::size_t compared = 0;
  std::size_t departures = 0;
  std::vector<std::string> mismatches;
  for (const Json& version_name : table.at("versions")) {
    const FormulasVersion* version = FindFormulasVersion(version_name.get<std::string>());
    ASSERT_NE(version, nullptr) << version_name;
    for (const Json& row : table.at("cases")) {
      const Json& expected = row.at(version_name.get<std::string>());
      const Observed observed = RunCase(row, *version);
      ++compared;
      if (expected.contains("message")) {
        if (!observed.recorded || observed.text != expected["message"]) {
          mismatches.push_back(std::string(version->name) + ": " + Describe(row) + "\n    torch_npu: " +
                               expected["message"].get<std::string>() + "\n    opmfu:     " + observed.text);
        }
      } else if (IsTheUnreadArgumentDeparture(expected, observed,
                                              *FindBuiltinTarget(row.at("op").get<std::string>()))) {
        ++departures;
      } else if (observed.recorded) {
        mismatches.push_back(std::string(version->name) + ": " + Describe(row) + "\n    torch_npu: records nothing (" +
                             expected.dump() + ")\n    opmfu:     " + observed.text);
      } else if (expected.contains("not_recorded") && observed.text.find(">= 0") == std::string::npos) {
        mismatches.push_back(std::string(version->name) + ": " + Describe(row) +
                             "\n    torch_npu: a negative value, not recorded\n    opmfu:     " + observed.text);
      }
    }
  }
  EXPECT_GT(compared, 1800U);
  EXPECT_GT(departures, 0U);  // the table has such calls: the departure is exercised
  std::string report;
  for (const std::string& mismatch : mismatches) report += mismatch + "\n";
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " of " << compared << " differ:\n" << report;
}

// The table is only worth its size if it covers every target with the forms the issue names.
TEST(FlopsDifferential, CoversEveryTargetWithKwargsNoneAndBothOutcomes) {
  const Json table = LoadTable();
  ASSERT_FALSE(table.is_discarded());
  struct Coverage {
    std::size_t cases = 0;
    bool absorbed_keyword = false;
    bool explicit_none = false;
    bool recorded = false;
    bool refused = false;
  };
  std::map<std::string, Coverage> by_op;
  std::size_t differ_between_releases = 0;
  for (const Json& row : table.at("cases")) {
    Coverage& coverage = by_op[row.at("op").get<std::string>()];
    const BuiltinTarget* target = FindBuiltinTarget(row.at("op").get<std::string>());
    ASSERT_NE(target, nullptr) << row.at("op");
    ++coverage.cases;
    for (const Json& pair : row.at("named")) {
      const std::string name = pair[0].get<std::string>();
      const bool known = std::any_of(target->parameters.begin(), target->parameters.end(),
                                     [&name](const BuiltinParameter& p) { return p.name == name; });
      coverage.absorbed_keyword = coverage.absorbed_keyword || !known;
      coverage.explicit_none = coverage.explicit_none || pair[1] == "None";
    }
    for (const Json& value : row.at("positional")) coverage.explicit_none = coverage.explicit_none || value == "None";
    const bool recorded = row.at("v26.1.0").contains("message");
    coverage.recorded = coverage.recorded || recorded;
    coverage.refused = coverage.refused || !recorded;
    if (row.at("v26.1.0") != row.at("v26.1.0-beta.2")) ++differ_between_releases;
  }
  ASSERT_EQ(by_op.size(), BuiltinTargets().size());
  for (const auto& [op, coverage] : by_op) {
    EXPECT_GE(coverage.cases, 40U) << op;
    EXPECT_TRUE(coverage.absorbed_keyword) << op << ": no keyword that goes to **kwargs";
    EXPECT_TRUE(coverage.explicit_none) << op << ": no explicit None";
    EXPECT_TRUE(coverage.recorded) << op;
    EXPECT_TRUE(coverage.refused) << op;
  }
  EXPECT_GT(differ_between_releases, 0U);
}

}  // namespace
}  // namespace opmfu::registry
