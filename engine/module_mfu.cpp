#include "engine/module_mfu.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "engine/numeric.h"

namespace opmfu::engine {

namespace {

constexpr int kMaxDepth = 20;

struct OpNode {
  const std::string* name;  // NULL op names never reach here (STRING_IDS inner join)
  std::int64_t start;
  std::int64_t end;
  std::vector<std::size_t> kernel_rows;  // merged rows, in merged order
  std::vector<double> mfu_list;          // -1.0 where the kernel got no MFU
};

struct Node {
  bool is_module = true;
  const std::optional<std::string>* name = nullptr;  // modules; root has none (its name is "")
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::size_t op = 0;                 // ops: index into the op nodes
  std::vector<std::size_t> children;  // node indices
};

struct FlatRow {
  std::string module_parent;
  std::string module;
  std::int64_t module_start;
  std::int64_t module_end;
  std::size_t op;
  std::string kernel_list;
  double device_time;
};

std::string_view NameOf(const Node& node) {
  return node.name != nullptr && node.name->has_value() ? std::string_view(**node.name) : std::string_view();
}

std::string StripSlashes(const std::string& text) {
  const std::size_t first = text.find_first_not_of('/');
  if (first == std::string::npos) return {};
  const std::size_t last = text.find_last_not_of('/');
  return text.substr(first, last - first + 1);
}

}  // namespace

std::string AverageMfuText(const std::vector<const std::vector<double>*>& mfu_lists) {
  if (mfu_lists.empty()) return {};
  std::string text;
  std::vector<double> values;
  const std::size_t positions = mfu_lists.front()->size();
  for (std::size_t position = 0; position < positions; ++position) {
    values.clear();
    for (const std::vector<double>* list : mfu_lists) {
      if (position < list->size() && (*list)[position] > 0) values.push_back((*list)[position]);
    }
    if (values.empty()) continue;
    const double mean = PairwiseSum(values) / static_cast<double>(values.size());
    const double percent = Round2(mean * 100.0);
    text += (text.empty() ? "" : ",") + PythonFloatRepr(percent) + "%";
  }
  return text;
}

Result<std::vector<ModuleMfuRow>> ModuleRows(std::int64_t rank_id, const RankData& data,
                                             const MfuCalculation& calculation, const std::vector<MergedKernel>& merged,
                                             std::vector<RankNote>& notes) {
  std::vector<ModuleMfuRow> output;
  if (data.modules.empty() || merged.empty()) return output;

  // Op nodes: merged rows grouped by (op_name, op_ts, op_end), in order of first occurrence.
  std::vector<OpNode> ops;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> op_index;
  std::int64_t low = data.modules.front().start;
  std::int64_t high = data.modules.front().end;
  for (std::size_t row = 0; row < merged.size(); ++row) {
    const KernelLink& link = data.kernel_links[merged[row].link];
    low = std::min({low, link.kernel_ts, link.op_ts});
    high = std::max({high, link.kernel_end, link.op_end});
    if (!link.op_name) continue;
    auto [it, inserted] = op_index.try_emplace({*link.op_name, link.op_ts, link.op_end}, ops.size());
    if (inserted) ops.push_back({&*link.op_name, link.op_ts, link.op_end, {}, {}});
    OpNode& op = ops[it->second];
    op.kernel_rows.push_back(row);
    op.mfu_list.push_back(merged[row].mfu ? calculation.results[*merged[row].mfu].mfu : -1.0);
  }
  for (const ModuleRange& module : data.modules) {
    low = std::min(low, module.start);
    high = std::max(high, module.end);
  }

  // The tree: events sorted by (start, -end), modules before ops on ties; a stack of modules.
  std::vector<Node> nodes;
  nodes.push_back({true, nullptr, low, high, 0, {}});  // root
  std::vector<std::size_t> events;
  for (const ModuleRange& module : data.modules) {
    events.push_back(nodes.size());
    nodes.push_back({true, &module.name, module.start, module.end, 0, {}});
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    events.push_back(nodes.size());
    nodes.push_back({false, nullptr, ops[i].start, ops[i].end, i, {}});
  }
  std::stable_sort(events.begin(), events.end(), [&](std::size_t a, std::size_t b) {
    return nodes[a].start != nodes[b].start ? nodes[a].start < nodes[b].start : nodes[a].end > nodes[b].end;
  });
  std::vector<std::size_t> stack{0};
  for (std::size_t event : events) {
    while (stack.size() > 1) {
      const Node& top = nodes[stack.back()];
      if (top.start <= nodes[event].start && nodes[event].end <= top.end) break;
      stack.pop_back();
    }
    nodes[stack.back()].children.push_back(event);
    if (nodes[event].is_module) stack.push_back(event);
  }

  // Flatten: one row per (module, op) pair, depth-first in child order (an explicit stack, so deep
  // input cannot overflow ours); ops directly under the root are dropped.
  std::vector<FlatRow> rows;
  struct Frame {
    std::size_t node;
    int depth;
    std::string path;  // ancestor names joined with '/'
    std::size_t next_child = 0;
  };
  std::vector<Frame> stack_frames{{0, 0, "", 0}};
  bool warned = false;
  while (!stack_frames.empty()) {
    Frame& frame = stack_frames.back();
    const Node& module = nodes[frame.node];
    if (frame.next_child == module.children.size()) {
      stack_frames.pop_back();
      continue;
    }
    const std::size_t child = module.children[frame.next_child++];
    const bool null_name = frame.node != 0 && !module.name->has_value();
    const std::string module_name(NameOf(module));
    const Node& node = nodes[child];
    if (node.is_module) {
      if (null_name) return Error::Input("a Module range with no name (NULL message) contains other modules");
      if (frame.depth + 1 > kMaxDepth) {
        if (!warned) {
          notes.push_back({RankNote::Level::kWarning,
                           "Max traversal depth 20 reached, traversal stopped. Some information may be lost"});
          warned = true;
        }
        continue;
      }
      Frame next{child, frame.depth + 1, frame.path + "/" + module_name, 0};
      stack_frames.push_back(std::move(next));  // `frame` is invalid from here on
      continue;
    }
    const std::string module_parent = StripSlashes(frame.path);
    if ((module_name.empty() && module_parent.empty()) || null_name) continue;
    const OpNode& op = ops[node.op];
    FlatRow row{module_parent, module_name, module.start, module.end, node.op, {}, 0.0};
    for (std::size_t i = 0; i < op.kernel_rows.size(); ++i) {
      const KernelLink& link = data.kernel_links[merged[op.kernel_rows[i]].link];
      if (!link.kernel_name) {
        return Error::Input("a kernel with no name (NULL STRING_IDS entry) inside module '" + module_name + "'");
      }
      row.kernel_list += (i == 0 ? "" : ", ") + *link.kernel_name;
      row.device_time += static_cast<double>(link.kernel_end - link.kernel_ts);
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const FlatRow& a, const FlatRow& b) {
    return std::tie(a.module_start, ops[a.op].start) < std::tie(b.module_start, ops[b.op].start);
  });
  if (rows.empty()) return output;

  // Instances, positions and sequences.
  using InstanceKey = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
  std::map<InstanceKey, std::vector<std::size_t>> instance_rows;
  std::vector<InstanceKey> row_instance(rows.size());
  std::vector<std::size_t> op_order(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    row_instance[i] = {rows[i].module_parent, rows[i].module, rows[i].module_start, rows[i].module_end};
    auto& members = instance_rows[row_instance[i]];
    op_order[i] = members.size();
    members.push_back(i);
  }
  std::vector<std::size_t> seq_id(rows.size());
  std::map<std::string, std::size_t> sequence_ids;
  std::map<InstanceKey, std::size_t> instance_seq;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto found = instance_seq.find(row_instance[i]);
    if (found == instance_seq.end()) {
      std::string sequence;
      const auto& members = instance_rows[row_instance[i]];
      for (std::size_t j = 0; j < members.size(); ++j) sequence += (j == 0 ? "" : "/") + *ops[rows[members[j]].op].name;
      const std::size_t id = sequence_ids.try_emplace(sequence, sequence_ids.size()).first->second;
      found = instance_seq.emplace(row_instance[i], id).first;
    }
    seq_id[i] = found->second;
  }

  // Groups, ordered by their key.
  using GroupKey = std::tuple<std::string, std::string, std::string, std::size_t, std::string, std::size_t>;
  std::map<GroupKey, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    groups[{rows[i].module_parent, rows[i].module, *ops[rows[i].op].name, op_order[i], rows[i].kernel_list, seq_id[i]}]
        .push_back(i);
  }
  struct Group {
    const GroupKey* key;
    double total;
    std::int64_t count;
    std::int64_t op_start;
    std::string avg_mfu;
    std::string module;  // possibly suffixed
  };
  std::vector<Group> grouped;
  for (const auto& [key, members] : groups) {
    Group group{&key, 0.0, static_cast<std::int64_t>(members.size()), INT64_MAX, {}, std::get<1>(key)};
    std::vector<const std::vector<double>*> lists;
    for (std::size_t i : members) {
      group.total += rows[i].device_time;
      group.op_start = std::min(group.op_start, ops[rows[i].op].start);
      lists.push_back(&ops[rows[i].op].mfu_list);
    }
    group.avg_mfu = AverageMfuText(lists);
    grouped.push_back(std::move(group));
  }

  // Contiguous runs of one (parent, module) with several sequences get "_<n>" suffixes.
  std::vector<std::size_t> by_start(grouped.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t a, std::size_t b) { return grouped[a].op_start < grouped[b].op_start; });
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_pair;  // positions p, ascending
  for (std::size_t p = 0; p < by_start.size(); ++p) {
    const GroupKey& key = *grouped[by_start[p]].key;
    by_pair[{std::get<0>(key), std::get<1>(key)}].push_back(p);
  }
  std::vector<std::size_t> arranged;
  for (const auto& [pair, positions] : by_pair) {
    std::size_t run_begin = 0;
    for (std::size_t i = 1; i <= positions.size(); ++i) {
      if (i < positions.size() && positions[i] == positions[i - 1] + 1) continue;
      std::vector<std::size_t> sequences;
      for (std::size_t j = run_begin; j < i; ++j)
        sequences.push_back(std::get<5>(*grouped[by_start[positions[j]]].key));
      std::sort(sequences.begin(), sequences.end());
      sequences.erase(std::unique(sequences.begin(), sequences.end()), sequences.end());
      if (sequences.size() > 1) {
        for (std::size_t j = run_begin; j < i; ++j) {
          Group& group = grouped[by_start[positions[j]]];
          const auto index =
              std::lower_bound(sequences.begin(), sequences.end(), std::get<5>(*group.key)) - sequences.begin();
          group.module = pair.second + "_" + std::to_string(index);
        }
      }
      run_begin = i;
    }
    for (std::size_t p : positions) arranged.push_back(by_start[p]);
  }
  std::stable_sort(arranged.begin(), arranged.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(grouped[a].op_start, std::get<3>(*grouped[a].key)) <
           std::tie(grouped[b].op_start, std::get<3>(*grouped[b].key));
  });
  for (std::size_t index : arranged) {
    const Group& group = grouped[index];
    const GroupKey& key = *group.key;
    output.push_back({rank_id, std::get<0>(key), group.module, std::get<2>(key), std::get<4>(key), group.total,
                      group.total / static_cast<double>(group.count), group.count, group.avg_mfu});
  }
  return output;
}

}  // namespace opmfu::engine
