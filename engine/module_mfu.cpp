#include "engine/module_mfu.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "engine/index_chains.h"
#include "engine/numeric.h"

namespace opmfu::engine {

namespace {

constexpr int kMaxModuleNesting = 20;

// Filled in when the op is first placed in a module (only such ops are described).
constexpr std::uint32_t kNotDescribed = UINT32_MAX;

// An op: its name and times are those of its first merged row's link (24 bytes; a rank has about
// one op per kernel).
struct OpNode {
  std::uint32_t first_row;                    // its merged rows are a chain from here, in merged order
  std::uint32_t kernel_list = kNotDescribed;  // index into the distinct kernel lists
  std::uint32_t mfu_offset = 0;               // its kernels' MFU values (-1.0: none) in the flat list
  std::uint32_t mfu_count = 0;
  double device_time = 0.0;
};

// An event of the tree (a module or an op), with its times at hand for the sort.
struct Event {
  std::int64_t start;
  std::int64_t end;
  std::uint32_t id;  // node index, or op_base + op index
};

// The root and the modules; ops are leaves and are not nodes (events and children refer to op j
// as `op_base + j`, where op_base is the number of nodes).
struct Node {
  StringId name = kNoString;  // root: kNoString, named ""
  bool root = false;
  std::int64_t start = 0;
  std::int64_t end = 0;
};

struct FlatRow {
  std::int64_t module_start;
  std::int64_t op_start;
  std::uint32_t module;  // node index
  std::uint32_t op;      // op index
};

// A group's key as ids: equal ids mean equal strings (pool ids, interned parents and kernel lists).
struct GroupIds {
  std::uint32_t parent;
  StringId module;
  StringId op;
  std::uint32_t op_order;
  std::uint32_t kernel_list;
  std::uint32_t sequence;
  bool operator==(const GroupIds&) const = default;
};

// A module instance: (parent path, name, start, end), as ids.
struct InstanceKey {
  std::uint32_t parent;
  StringId name;
  std::int64_t start;
  std::int64_t end;
  bool operator==(const InstanceKey&) const = default;
};

struct InstanceKeyHash {
  std::uint64_t operator()(const InstanceKey& key) const {
    std::uint64_t h = 0;
    for (const std::uint64_t part : {std::uint64_t{key.parent}, std::uint64_t{static_cast<std::uint32_t>(key.name)},
                                     static_cast<std::uint64_t>(key.start), static_cast<std::uint64_t>(key.end)}) {
      h = (h ^ part) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 29;
    }
    return h;
  }
};

struct GroupIdsHash {
  std::uint64_t operator()(const GroupIds& key) const {
    std::uint64_t h = 0;
    for (const std::uint64_t part : {std::uint64_t{key.parent}, std::uint64_t{static_cast<std::uint32_t>(key.module)},
                                     std::uint64_t{static_cast<std::uint32_t>(key.op)}, std::uint64_t{key.op_order},
                                     std::uint64_t{key.kernel_list}, std::uint64_t{key.sequence}}) {
      h = (h ^ part) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 29;
    }
    return h;
  }
};

// Distinct strings by value, each stored once; ids in order of first occurrence.
class TextIds {
 public:
  std::uint32_t Intern(std::string_view text) {
    if (auto found = ids_.find(text); found != ids_.end()) return found->second;
    const auto id = static_cast<std::uint32_t>(texts_.size());
    texts_.emplace_back(text);
    ids_.emplace(texts_.back(), id);
    return id;
  }
  std::string_view operator[](std::uint32_t id) const { return texts_[id]; }

 private:
  std::deque<std::string> texts_;  // a deque: the map's views stay valid
  std::unordered_map<std::string_view, std::uint32_t> ids_;
};

std::string StripSlashes(const std::string& text) {
  const std::size_t first = text.find_first_not_of('/');
  if (first == std::string::npos) return {};
  const std::size_t last = text.find_last_not_of('/');
  return text.substr(first, last - first + 1);
}

// The module tree (spec 5.2): node n's children are children[child_offset[n], child_offset[n + 1])
// in event order; a child below op_base (nodes.size()) is a module node, else op child - op_base.
struct Tree {
  std::vector<std::uint32_t> child_offset;
  std::vector<std::uint32_t> children;
};

// Events sorted by (start, -end), modules before ops on ties, placed with a stack of modules.
// `op_event(j)` is op j's event (id op_base + j); ops come in order of first occurrence.
template <typename OpEvent>
Tree BuildTree(const std::vector<Node>& nodes, std::size_t op_count, const OpEvent& op_event) {
  const std::size_t op_base = nodes.size();
  const auto event_less = [](const Event& a, const Event& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  };
  const auto module_event = [&](std::size_t i) {
    return Event{nodes[i].start, nodes[i].end, static_cast<std::uint32_t>(i)};
  };
  // Each event's parent, events in order; the children of a node are then its events in order.
  std::vector<std::uint32_t> placed;  // event ids in sorted order
  std::vector<std::uint32_t> parent_of(op_base + op_count, 0);
  placed.reserve(parent_of.size() - 1);
  std::vector<std::size_t> stack{0};
  const auto place = [&](const Event& event) {
    while (stack.size() > 1) {
      const Node& top = nodes[stack.back()];
      if (top.start <= event.start && event.end <= top.end) break;
      stack.pop_back();
    }
    parent_of[event.id] = static_cast<std::uint32_t>(stack.back());
    placed.push_back(event.id);
    if (event.id < op_base) stack.push_back(event.id);
  };
  // Modules come sorted by start and ops by first occurrence, which follows op_ts: each part is
  // usually in (start, -end) order already, and then merging the two is the stable sort (a tie
  // takes the module first, as the stable sort of modules-then-ops does).
  const auto sorted = [&](std::size_t count, const auto& event_at) {
    for (std::size_t i = 1; i < count; ++i) {
      if (event_less(event_at(i), event_at(i - 1))) return false;
    }
    return true;
  };
  const auto module_at = [&](std::size_t i) { return module_event(i + 1); };
  if (sorted(op_base - 1, module_at) && sorted(op_count, op_event)) {
    for (std::size_t i = 1, j = 0; i < op_base || j < op_count;) {
      if (i < op_base && (j == op_count || !event_less(op_event(j), module_event(i)))) {
        place(module_event(i++));
      } else {
        place(op_event(j++));
      }
    }
  } else {
    std::vector<Event> events;
    events.reserve(parent_of.size() - 1);
    for (std::size_t i = 1; i < op_base; ++i) events.push_back(module_event(i));
    for (std::size_t j = 0; j < op_count; ++j) events.push_back(op_event(j));
    std::stable_sort(events.begin(), events.end(), event_less);
    for (const Event& event : events) place(event);
  }
  // Children of node n: children[child_offset[n], child_offset[n + 1]), in event order (a counting sort).
  Tree tree;
  std::vector<std::uint32_t>& child_offset = tree.child_offset;
  child_offset.assign(op_base + 1, 0);
  for (std::uint32_t id : placed) ++child_offset[parent_of[id] + 1];
  for (std::size_t n = 0; n < op_base; ++n) child_offset[n + 1] += child_offset[n];
  std::vector<std::uint32_t>& children = tree.children;
  children.resize(placed.size());
  {
    std::vector<std::uint32_t> next(child_offset.begin(), child_offset.end() - 1);
    for (std::uint32_t id : placed) children[next[parent_of[id]]++] = id;
  }
  return tree;
}

// A (parent, module, op, position, kernel list, sequence) group of flattened rows (spec 5.5).
struct ModuleGroup {
  std::string_view parent;
  std::string_view module_name;
  std::string_view op_name;
  std::uint32_t op_order;
  std::string_view kernel_list;
  std::uint32_t sequence;
  std::uint32_t first_member;
  double total = 0.0;
  std::int64_t count = 0;
  std::int64_t op_start = INT64_MAX;
  std::string avg_mfu;
  std::string module;  // possibly suffixed
};

// Contiguous runs of one (parent, module) with several sequences get "_<n>" suffixes (spec 5.6);
// returns the groups' indices in the final order (spec 5.8).
std::vector<std::size_t> SuffixRunsAndOrder(std::vector<ModuleGroup>& grouped) {
  std::vector<std::size_t> by_start(grouped.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t a, std::size_t b) { return grouped[a].op_start < grouped[b].op_start; });
  std::map<std::pair<std::string_view, std::string_view>, std::vector<std::size_t>> by_pair;  // positions p
  for (std::size_t p = 0; p < by_start.size(); ++p) {
    const ModuleGroup& group = grouped[by_start[p]];
    by_pair[{group.parent, group.module_name}].push_back(p);
  }
  std::vector<std::size_t> arranged;
  arranged.reserve(grouped.size());
  for (const auto& [pair, positions] : by_pair) {
    std::size_t run_begin = 0;
    for (std::size_t i = 1; i <= positions.size(); ++i) {
      if (i < positions.size() && positions[i] == positions[i - 1] + 1) continue;
      std::vector<std::uint32_t> run_sequences;
      for (std::size_t j = run_begin; j < i; ++j) run_sequences.push_back(grouped[by_start[positions[j]]].sequence);
      std::sort(run_sequences.begin(), run_sequences.end());
      run_sequences.erase(std::unique(run_sequences.begin(), run_sequences.end()), run_sequences.end());
      if (run_sequences.size() > 1) {
        for (std::size_t j = run_begin; j < i; ++j) {
          ModuleGroup& group = grouped[by_start[positions[j]]];
          const auto index =
              std::lower_bound(run_sequences.begin(), run_sequences.end(), group.sequence) - run_sequences.begin();
          group.module = std::string(pair.second) + "_" + std::to_string(index);
        }
      }
      run_begin = i;
    }
    for (std::size_t p : positions) arranged.push_back(by_start[p]);
  }
  std::stable_sort(arranged.begin(), arranged.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(grouped[a].op_start, grouped[a].op_order) < std::tie(grouped[b].op_start, grouped[b].op_order);
  });
  return arranged;
}

// The merged kernel rows and the links they point at: what every step below reads.
struct MergedRows {
  const RankData& data;
  const std::vector<MergedKernel>& merged;
  const KernelLink& Link(std::uint32_t row) const { return data.kernel_links[merged[row].link]; }
};

// An op's key: its first row's (op_name, op_ts, op_end).
struct OpSpanOf {
  const MergedRows* in;
  NamedSpan operator()(std::uint32_t row) const {
    const KernelLink& link = in->Link(row);
    return NamedSpan{link.op_name, link.op_ts, link.op_end};
  }
};

// The ops of a rank (merged rows grouped by (op_name, op_ts, op_end), in order of first
// occurrence) and each op's rows as a chain in merged order.
struct RankOps {
  std::vector<OpNode> nodes;
  IndexChains<NamedSpan, NamedSpanHash, OpSpanOf> rows;
};

RankOps CollectOps(const MergedRows& in) {
  RankOps ops{{}, ChainsByNamedSpan(in.merged.size(), OpSpanOf{&in})};
  std::vector<std::uint32_t> first_rows;  // counted first, so that the nodes are allocated once
  for (std::size_t row = 0; row < in.merged.size(); ++row) {
    if (const std::size_t ahead = row + kPrefetchDistance; ahead < in.merged.size()) {
      ops.rows.PrefetchIndex(static_cast<std::uint32_t>(ahead));
    }
    const auto index = static_cast<std::uint32_t>(row);
    if (in.Link(index).op_name == kNoString) continue;
    if (ops.rows.Append(index)) first_rows.push_back(index);
  }
  ops.nodes.reserve(first_rows.size());
  for (std::uint32_t row : first_rows) ops.nodes.push_back({row, kNotDescribed, 0, 0, 0.0});
  return ops;
}

// The root, then one node per Module range. The root spans everything, so it is never tested and
// needs no times.
std::vector<Node> ModuleNodes(const RankData& data) {
  std::vector<Node> nodes;
  nodes.reserve(1 + data.modules.size());
  nodes.push_back({kNoString, true, 0, 0});
  for (const ModuleRange& module : data.modules) nodes.push_back({module.name, false, module.start, module.end});
  return nodes;
}

// The (module, op) pairs of the tree, depth-first in child order, sorted by (module start, op
// start); the strings they are grouped by, interned; and each described op's kernel list and MFU
// values (spec 5.3-5.4).
struct FlatTree {
  std::vector<FlatRow> rows;
  TextIds parents;                           // parent paths
  std::vector<std::uint32_t> module_parent;  // per module node, an id in `parents`
  TextIds kernel_lists;                      // the same kernels in the same order recur in every step and layer
  std::vector<double> op_mfu;                // the described ops' lists, one after another
};

// Fills in op's kernel list, device time and MFU values, on the first time it is placed.
Status DescribeOp(const MergedRows& in, const MfuCalculation& calculation, const RankOps& ops, OpNode& op,
                  std::string_view module_name, FlatTree& flat, std::string& kernel_list) {
  kernel_list.clear();
  op.mfu_offset = static_cast<std::uint32_t>(flat.op_mfu.size());
  for (std::uint32_t row = op.first_row; row != ops.rows.kEnd; row = ops.rows.Next(row)) {
    const KernelLink& link = in.Link(row);
    if (link.kernel_name == kNoString) {
      return Error::Input("a kernel with no name (NULL STRING_IDS entry) inside module '" + std::string(module_name) +
                          "'");
    }
    if (row != op.first_row) kernel_list += ", ";
    kernel_list += in.data.strings->View(link.kernel_name);
    op.device_time += DifferenceOfInts(link.kernel_end, link.kernel_ts);
    const std::optional<std::uint32_t>& mfu = in.merged[row].mfu;  // -1.0 where the kernel got no MFU
    flat.op_mfu.push_back(mfu ? calculation.Mfu(calculation.results[*mfu]) : -1.0);
  }
  op.mfu_count = static_cast<std::uint32_t>(flat.op_mfu.size() - op.mfu_offset);
  op.kernel_list = flat.kernel_lists.Intern(kernel_list);
  return Ok();
}

// One row per (module, op) pair, depth-first in child order (an explicit stack, so deep input
// cannot overflow ours); ops directly under the root are dropped. The tree and the op chains are
// no longer needed afterwards and are freed.
Result<FlatTree> Flatten(const MergedRows& in, const MfuCalculation& calculation, const std::vector<Node>& nodes,
                         Tree tree, RankOps& ops, std::vector<RankNote>& notes) {
  const StringPool& strings = *in.data.strings;
  const std::size_t op_base = nodes.size();
  FlatTree flat;
  const std::uint32_t no_parent = flat.parents.Intern("");
  flat.module_parent.assign(nodes.size(), no_parent);
  flat.rows.reserve(ops.nodes.size());  // an op is placed once
  flat.op_mfu.reserve(in.merged.size());
  std::string kernel_list;
  struct Frame {
    std::size_t node;
    int depth;
    std::string path;  // ancestor names joined with '/'
    std::size_t next_child = 0;
  };
  std::vector<Frame> frames{{0, 0, "", tree.child_offset[0]}};
  bool warned = false;
  while (!frames.empty()) {
    Frame& frame = frames.back();
    const Node& module = nodes[frame.node];
    if (frame.next_child == tree.child_offset[frame.node + 1]) {
      frames.pop_back();
      continue;
    }
    const std::size_t child = tree.children[frame.next_child++];
    const bool null_name = !module.root && module.name == kNoString;
    const std::string_view module_name = strings.View(module.name);
    if (child < op_base) {
      if (null_name) return Error::Input("a Module range with no name (NULL message) contains other modules");
      if (frame.depth + 1 > kMaxModuleNesting) {
        if (!warned) {
          notes.push_back({RankNote::Level::kWarning,
                           "Max traversal depth 20 reached, traversal stopped. Some information may be lost"});
          warned = true;
        }
        continue;
      }
      std::string path = frame.path + "/" + std::string(module_name);
      flat.module_parent[child] = flat.parents.Intern(StripSlashes(path));
      frames.push_back(
          {child, frame.depth + 1, std::move(path), tree.child_offset[child]});  // `frame` is invalid from here on
      continue;
    }
    if ((module_name.empty() && flat.module_parent[frame.node] == no_parent) || null_name) continue;
    const std::size_t op_index = child - op_base;
    OpNode& op = ops.nodes[op_index];
    if (op.kernel_list == kNotDescribed) {
      OPMFU_RETURN_IF_ERROR(DescribeOp(in, calculation, ops, op, module_name, flat, kernel_list));
    }
    flat.rows.push_back({module.start, in.Link(op.first_row).op_ts, static_cast<std::uint32_t>(frame.node),
                         static_cast<std::uint32_t>(op_index)});
  }
  ops.rows.Release();
  std::vector<std::uint32_t>().swap(tree.children);
  std::vector<std::uint32_t>().swap(tree.child_offset);
  std::stable_sort(flat.rows.begin(), flat.rows.end(), [](const FlatRow& a, const FlatRow& b) {
    return std::tie(a.module_start, a.op_start) < std::tie(b.module_start, b.op_start);
  });
  return flat;
}

// Module instances (parent path, name, start, end): each row's instance, its position in it, and
// the instance's op sequence (its op names joined with '/') as an id in order of first occurrence.
struct Instances {
  std::vector<std::uint32_t> of_row;
  std::vector<std::uint32_t> op_order;
  std::vector<std::uint32_t> sequence;  // per instance
};

Instances NumberInstances(const MergedRows& in, const RankOps& ops, const std::vector<Node>& nodes,
                          const FlatTree& flat) {
  const std::vector<FlatRow>& rows = flat.rows;
  const auto instance_of_row = [&](std::uint32_t i) {
    const Node& module = nodes[rows[i].module];
    return InstanceKey{flat.module_parent[rows[i].module], module.name, module.start, module.end};
  };
  Instances instances{std::vector<std::uint32_t>(rows.size()), std::vector<std::uint32_t>(rows.size()), {}};
  std::vector<std::uint32_t> instance_size;  // rows so far, then in all
  {
    // Sized as it grows: a rank has far fewer instances than rows.
    IndexChains<InstanceKey, InstanceKeyHash, decltype(instance_of_row)> rows_by_key(0, instance_of_row);
    std::vector<std::uint32_t> node_instance(nodes.size(), UINT32_MAX);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::uint32_t& instance = node_instance[rows[i].module];
      if (instance == UINT32_MAX) {
        const auto row = static_cast<std::uint32_t>(i);
        if (rows_by_key.Append(row)) {
          instance = static_cast<std::uint32_t>(instance_size.size());
          instance_size.push_back(0);
        } else {
          instance = instances.of_row[rows_by_key.First(instance_of_row(row))];
        }
      }
      instances.of_row[i] = instance;
      instances.op_order[i] = instance_size[instance]++;
    }
  }
  // An instance's rows, in row order: a counting sort by instance.
  std::vector<std::uint32_t> instance_offset(instance_size.size() + 1, 0);
  for (std::size_t k = 0; k < instance_size.size(); ++k) instance_offset[k + 1] = instance_offset[k] + instance_size[k];
  std::vector<std::uint32_t> instance_rows(rows.size());
  {
    std::vector<std::uint32_t> next(instance_offset.begin(), instance_offset.end() - 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      instance_rows[next[instances.of_row[i]]++] = static_cast<std::uint32_t>(i);
    }
  }
  instances.sequence.assign(instance_size.size(), UINT32_MAX);
  TextIds sequences;
  std::string sequence;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::uint32_t instance = instances.of_row[i];
    std::uint32_t& sequence_id = instances.sequence[instance];
    if (sequence_id != UINT32_MAX) continue;
    sequence.clear();
    for (std::uint32_t j = instance_offset[instance]; j < instance_offset[instance + 1]; ++j) {
      if (j > instance_offset[instance]) sequence += '/';
      sequence += in.data.strings->View(in.Link(ops.nodes[rows[instance_rows[j]].op].first_row).op_name);
    }
    sequence_id = sequences.Intern(sequence);
  }
  return instances;
}

// Groups by (parent, module, op, position, kernel list, sequence), members in row order, in the
// order of their key's values (strings by byte, which is code point order for UTF-8), as pandas'
// groupby sorts them; each with its totals and avg_mfu (spec 5.5).
std::vector<ModuleGroup> GroupRows(const MergedRows& in, const RankOps& ops, const std::vector<Node>& nodes,
                                   const FlatTree& flat, const Instances& instances) {
  const StringPool& strings = *in.data.strings;
  const std::vector<FlatRow>& rows = flat.rows;
  const auto ids_of = [&](std::uint32_t i) {
    const FlatRow& row = rows[i];
    const OpNode& op = ops.nodes[row.op];
    return GroupIds{flat.module_parent[row.module], nodes[row.module].name, in.Link(op.first_row).op_name,
                    instances.op_order[i],          op.kernel_list,         instances.sequence[instances.of_row[i]]};
  };
  // Sized as it grows: the groups are far fewer than the rows (the same ops recur in every step).
  IndexChains<GroupIds, GroupIdsHash, decltype(ids_of)> members(0, ids_of);
  std::vector<ModuleGroup> grouped;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto row = static_cast<std::uint32_t>(i);
    if (!members.Append(row)) continue;
    const GroupIds ids = ids_of(row);
    grouped.push_back({flat.parents[ids.parent],
                       strings.View(ids.module),
                       strings.View(ids.op),
                       ids.op_order,
                       flat.kernel_lists[ids.kernel_list],
                       ids.sequence,
                       row,
                       0.0,
                       0,
                       INT64_MAX,
                       {},
                       {}});
  }
  const auto key_of = [](const ModuleGroup& g) {
    return std::tie(g.parent, g.module_name, g.op_name, g.op_order, g.kernel_list, g.sequence);
  };
  std::sort(grouped.begin(), grouped.end(),
            [&](const ModuleGroup& a, const ModuleGroup& b) { return key_of(a) < key_of(b); });
  std::vector<std::span<const double>> lists;
  for (ModuleGroup& group : grouped) {
    group.module = std::string(group.module_name);
    lists.clear();
    for (std::uint32_t i = group.first_member; i != members.kEnd; i = members.Next(i)) {
      const OpNode& op = ops.nodes[rows[i].op];
      group.total += op.device_time;
      group.op_start = std::min(group.op_start, rows[i].op_start);
      ++group.count;
      lists.push_back(std::span<const double>(flat.op_mfu).subspan(op.mfu_offset, op.mfu_count));
    }
    group.avg_mfu = AverageMfuText(lists);
  }
  return grouped;
}

}  // namespace

std::string AverageMfuText(std::span<const std::span<const double>> mfu_lists) {
  if (mfu_lists.empty()) return {};
  std::string text;
  std::vector<double> values;
  const std::size_t positions = mfu_lists.front().size();
  for (std::size_t position = 0; position < positions; ++position) {
    values.clear();
    for (const std::span<const double> list : mfu_lists) {
      if (position < list.size() && list[position] > 0) values.push_back(list[position]);
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
  const MergedRows in{data, merged};
  RankOps ops = CollectOps(in);
  const std::vector<Node> nodes = ModuleNodes(data);
  const std::size_t op_base = nodes.size();
  Tree tree = BuildTree(nodes, ops.nodes.size(), [&](std::size_t j) {
    const KernelLink& link = in.Link(ops.nodes[j].first_row);
    return Event{link.op_ts, link.op_end, static_cast<std::uint32_t>(op_base + j)};
  });
  OPMFU_ASSIGN_OR_RETURN(const FlatTree flat, Flatten(in, calculation, nodes, std::move(tree), ops, notes));
  if (flat.rows.empty()) return output;
  const Instances instances = NumberInstances(in, ops, nodes, flat);
  std::vector<ModuleGroup> grouped = GroupRows(in, ops, nodes, flat, instances);
  const std::vector<std::size_t> arranged = SuffixRunsAndOrder(grouped);
  output.reserve(arranged.size());
  for (std::size_t index : arranged) {
    ModuleGroup& group = grouped[index];
    output.push_back({rank_id, std::string(group.parent), std::move(group.module), std::string(group.op_name),
                      std::string(group.kernel_list), group.total, group.total / static_cast<double>(group.count),
                      group.count, std::move(group.avg_mfu)});
  }
  return output;
}

}  // namespace opmfu::engine
