#include "engine/module_mfu.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "engine/index_chains.h"
#include "engine/numeric.h"

namespace opmfu::engine {

namespace {

constexpr int kMaxDepth = 20;

struct OpNode {
  StringId name;
  std::int64_t start;
  std::int64_t end;
  std::uint32_t first_row;  // its merged rows are a chain from here, in merged order
  std::string kernel_list;  // filled when the op is first placed in a module
  double device_time = 0.0;
  bool described = false;
};

// The root and the modules; ops are leaves and are not nodes (events and children refer to op j
// as `op_base + j`, where op_base is the number of nodes).
struct Node {
  StringId name = kNoString;  // root: kNoString, named ""
  bool root = false;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::vector<std::size_t> children;  // node indices, or op_base + op index
};

struct FlatRow {
  std::size_t module;  // node index
  std::size_t op;      // op index
};

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
  const StringPool& strings = *data.strings;

  // Op nodes: merged rows grouped by (op_name, op_ts, op_end), in order of first occurrence.
  std::vector<OpNode> ops;
  auto op_rows = ChainsByNamedSpan(merged.size(), [&](std::uint32_t row) {
    const KernelLink& link = data.kernel_links[merged[row].link];
    return NamedSpan{link.op_name, link.op_ts, link.op_end};
  });
  const auto mfu_of = [&](std::uint32_t row) {  // -1.0 where the kernel got no MFU
    return merged[row].mfu ? calculation.results[*merged[row].mfu].mfu : -1.0;
  };
  for (std::size_t row = 0; row < merged.size(); ++row) {
    const KernelLink& link = data.kernel_links[merged[row].link];
    if (link.op_name == kNoString) continue;
    const auto index = static_cast<std::uint32_t>(row);
    if (op_rows.Append(index)) ops.push_back({link.op_name, link.op_ts, link.op_end, index, {}, 0.0, false});
  }

  // The tree: events sorted by (start, -end), modules before ops on ties; a stack of modules.
  std::vector<Node> nodes;
  nodes.reserve(1 + data.modules.size());
  // The root spans everything, so it is never tested and needs no times.
  nodes.push_back({kNoString, true, 0, 0, {}});
  for (const ModuleRange& module : data.modules) nodes.push_back({module.name, false, module.start, module.end, {}});
  const std::size_t op_base = nodes.size();
  const auto start_of = [&](std::size_t e) { return e < op_base ? nodes[e].start : ops[e - op_base].start; };
  const auto end_of = [&](std::size_t e) { return e < op_base ? nodes[e].end : ops[e - op_base].end; };
  std::vector<std::size_t> events(data.modules.size() + ops.size());
  for (std::size_t i = 0; i < events.size(); ++i) events[i] = i + 1;  // modules, then ops (op_base + j)
  std::stable_sort(events.begin(), events.end(), [&](std::size_t a, std::size_t b) {
    return start_of(a) != start_of(b) ? start_of(a) < start_of(b) : end_of(a) > end_of(b);
  });
  std::vector<std::size_t> stack{0};
  for (std::size_t event : events) {
    while (stack.size() > 1) {
      const Node& top = nodes[stack.back()];
      if (top.start <= start_of(event) && end_of(event) <= top.end) break;
      stack.pop_back();
    }
    nodes[stack.back()].children.push_back(event);
    if (event < op_base) stack.push_back(event);
  }

  // Flatten: one row per (module, op) pair, depth-first in child order (an explicit stack, so deep
  // input cannot overflow ours); ops directly under the root are dropped.
  std::vector<std::string> module_parent(nodes.size());  // per module node
  std::vector<FlatRow> rows;
  struct Frame {
    std::size_t node;
    int depth;
    std::string path;  // ancestor names joined with '/'
    std::size_t next_child = 0;
  };
  std::vector<Frame> frames{{0, 0, "", 0}};
  bool warned = false;
  while (!frames.empty()) {
    Frame& frame = frames.back();
    const Node& module = nodes[frame.node];
    if (frame.next_child == module.children.size()) {
      frames.pop_back();
      continue;
    }
    const std::size_t child = module.children[frame.next_child++];
    const bool null_name = !module.root && module.name == kNoString;
    const std::string_view module_name = strings.View(module.name);
    if (child < op_base) {
      if (null_name) return Error::Input("a Module range with no name (NULL message) contains other modules");
      if (frame.depth + 1 > kMaxDepth) {
        if (!warned) {
          notes.push_back({RankNote::Level::kWarning,
                           "Max traversal depth 20 reached, traversal stopped. Some information may be lost"});
          warned = true;
        }
        continue;
      }
      std::string path = frame.path + "/" + std::string(module_name);
      module_parent[child] = StripSlashes(path);
      frames.push_back({child, frame.depth + 1, std::move(path), 0});  // `frame` is invalid from here on
      continue;
    }
    if ((module_name.empty() && module_parent[frame.node].empty()) || null_name) continue;
    const std::size_t op_index = child - op_base;
    OpNode& op = ops[op_index];
    if (!op.described) {
      for (std::uint32_t row = op.first_row; row != op_rows.kEnd; row = op_rows.Next(row)) {
        const KernelLink& link = data.kernel_links[merged[row].link];
        if (link.kernel_name == kNoString) {
          return Error::Input("a kernel with no name (NULL STRING_IDS entry) inside module '" +
                              std::string(module_name) + "'");
        }
        if (row != op.first_row) op.kernel_list += ", ";
        op.kernel_list += strings.View(link.kernel_name);
        op.device_time += static_cast<double>(link.kernel_end - link.kernel_ts);
      }
      op.described = true;
    }
    rows.push_back({frame.node, op_index});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const FlatRow& a, const FlatRow& b) {
    return std::tie(nodes[a.module].start, ops[a.op].start) < std::tie(nodes[b.module].start, ops[b.op].start);
  });
  if (rows.empty()) return output;

  // Instances (parent path, name, start, end), positions in them and their op sequences.
  using InstanceKey = std::tuple<std::string_view, std::string_view, std::int64_t, std::int64_t>;
  std::map<InstanceKey, std::size_t> instance_ids;
  std::vector<std::size_t> node_instance(nodes.size(), SIZE_MAX);
  std::vector<std::size_t> row_instance(rows.size());
  std::vector<std::vector<std::size_t>> instance_rows;
  std::vector<std::size_t> op_order(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t& instance = node_instance[rows[i].module];
    if (instance == SIZE_MAX) {
      const Node& module = nodes[rows[i].module];
      const InstanceKey key{module_parent[rows[i].module], strings.View(module.name), module.start, module.end};
      instance = instance_ids.try_emplace(key, instance_ids.size()).first->second;
      if (instance == instance_rows.size()) instance_rows.emplace_back();
    }
    row_instance[i] = instance;
    op_order[i] = instance_rows[instance].size();
    instance_rows[instance].push_back(i);
  }
  std::vector<std::size_t> instance_seq(instance_rows.size(), SIZE_MAX);
  std::map<std::string, std::size_t> sequence_ids;
  std::vector<std::size_t> seq_id(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t& sequence_id = instance_seq[row_instance[i]];
    if (sequence_id == SIZE_MAX) {
      std::string sequence;
      const auto& members = instance_rows[row_instance[i]];
      for (std::size_t j = 0; j < members.size(); ++j) {
        if (j > 0) sequence += '/';
        sequence += strings.View(ops[rows[members[j]].op].name);
      }
      sequence_id = sequence_ids.try_emplace(std::move(sequence), sequence_ids.size()).first->second;
    }
    seq_id[i] = sequence_id;
  }

  // Groups, ordered by their key (strings by byte, which is code point order for UTF-8).
  using GroupKey =
      std::tuple<std::string_view, std::string_view, std::string_view, std::size_t, std::string_view, std::size_t>;
  std::map<GroupKey, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Node& module = nodes[rows[i].module];
    const OpNode& op = ops[rows[i].op];
    groups[{module_parent[rows[i].module], strings.View(module.name), strings.View(op.name), op_order[i],
            op.kernel_list, seq_id[i]}]
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
  grouped.reserve(groups.size());
  for (const auto& [key, members] : groups) {
    Group group{&key, 0.0, static_cast<std::int64_t>(members.size()), INT64_MAX, {}, std::string(std::get<1>(key))};
    std::vector<std::vector<double>> lists;
    lists.reserve(members.size());
    for (std::size_t i : members) {
      const OpNode& op = ops[rows[i].op];
      group.total += op.device_time;
      group.op_start = std::min(group.op_start, op.start);
      std::vector<double>& list = lists.emplace_back();
      for (std::uint32_t row = op.first_row; row != op_rows.kEnd; row = op_rows.Next(row)) list.push_back(mfu_of(row));
    }
    std::vector<const std::vector<double>*> list_pointers;
    for (const auto& list : lists) list_pointers.push_back(&list);
    group.avg_mfu = AverageMfuText(list_pointers);
    grouped.push_back(std::move(group));
  }

  // Contiguous runs of one (parent, module) with several sequences get "_<n>" suffixes.
  std::vector<std::size_t> by_start(grouped.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t a, std::size_t b) { return grouped[a].op_start < grouped[b].op_start; });
  std::map<std::pair<std::string_view, std::string_view>, std::vector<std::size_t>> by_pair;  // positions p
  for (std::size_t p = 0; p < by_start.size(); ++p) {
    const GroupKey& key = *grouped[by_start[p]].key;
    by_pair[{std::get<0>(key), std::get<1>(key)}].push_back(p);
  }
  std::vector<std::size_t> arranged;
  arranged.reserve(grouped.size());
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
          group.module = std::string(pair.second) + "_" + std::to_string(index);
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
  output.reserve(arranged.size());
  for (std::size_t index : arranged) {
    const Group& group = grouped[index];
    const GroupKey& key = *group.key;
    output.push_back({rank_id, std::string(std::get<0>(key)), group.module, std::string(std::get<2>(key)),
                      std::string(std::get<4>(key)), group.total, group.total / static_cast<double>(group.count),
                      group.count, group.avg_mfu});
  }
  return output;
}

}  // namespace opmfu::engine
