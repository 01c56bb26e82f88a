// Operator trees (tb_plugin spec §4-5): the host ranges of each thread nested into a tree, each
// launch (runtime call) attached to the operator that made it, and per node the host self/total
// time, the device self/total time of the work its launches put on the GPU and the Tensor Core
// part of it. The Operator and Kernel views and the Tensor Core numbers are read from here.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/analysis/call_stacks.h"
#include "core/analysis/steps.h"
#include "core/analysis/tensor_core_rules.h"
#include "core/trace/trace_model.h"
#include "core/util/chunked_table.h"

namespace ks {

struct OpTreeOptions {
  // tb_plugin's linking, quirks included (spec §4): launches reach operators by External id only
  // (PyTorch 2.x traces whose runtime External ids are correlation ids then link nothing), driver
  // launches (cuLaunchKernel) are ignored, unlaunched kernels are counted under the root of every
  // thread holding a ProfilerStep, and ProfilerStep/annotation ranges on GPU streams are host
  // nodes. Off: see docs/compatibility.md.
  bool tb_plugin = false;
  // PyTorch Lightning's ranges become nodes of their own (spec §3): `[pl][module]<type>: <name>`
  // a PL module, `[pl][profile]<action>` a PL profile range. Only the Module view's Lightning
  // table asks for it; off, the trees are exactly what the other views always had. tb_plugin (its
  // "Lightning mode", Framework "pytorch-lightning") reads them from cpu_op ranges only and drops
  // python_function module frames; otherwise user_annotation ranges count too (record_function
  // writes them there since PyTorch 1.9).
  bool lightning = false;
  // Derive each operator's call stack from the python_function frames (OpTree::stacks); off for
  // trees that never show one (the Module view's).
  bool call_stacks = true;
  // The user's own record_function ranges become nodes (NodeClass::kUserRange): the Diff view's
  // trees ask for it, to match the two traces at them (docs/compatibility.md). They are
  // transparent to the operators' numbers: an operator holding a range counts the range's
  // operators and launches as its own children and launches, and a range that overlaps an
  // operator only in part gives way to it (FlopCounterMode's PythonDispatchMode does that). Not
  // with tb_plugin, whose trees leave them out.
  bool user_ranges = false;
};

// Whether a trace has ranges user_ranges would make nodes of (a scan of the annotation names).
bool has_user_ranges(const TraceModel& m);

// tb_plugin's event type of a node, and the class it becomes (spec §3).
enum class NodeType : uint8_t { kRoot, kOperator, kPython, kUserAnnotation, kProfilerStep, kModule, kPlModule, kPlProfile };
// kUserRange: a user's record_function range (OpTreeOptions::user_ranges).
enum class NodeClass : uint8_t { kRoot, kPlain, kProfilerStep, kDataLoader, kOptimizer, kModule, kPlModule, kPlProfile, kUserRange };

// One node per operator call: a 10 GB trace has ~15 M of them, so the fields are ordered to pack
// (36 bytes) and what only the build needs (each node's last child) lives in the builder. A node's
// name, start, end and host total are its row's (node_slice, node_start_ns, node_end_ns,
// node_host_total_ns), not repeated here (32 bytes a node, 11.4 B/event of the modern shape), and
// its Tensor Core times are kept apart for the few nodes that have any (node_tc_self_ns,
// node_tc_total_ns; 16 bytes a node, 5.7 B/event of the modern shape, when they were fields).
// Its three statistics are 4 bytes each, read through node_host_self_ns, node_device_total_ns and
// node_device_self_ns: a node with one beyond int32 (2.1 s: a root, a long step; a few per
// trace) has `wide` set and all three in OpTree::wide, exact either way (issue 21: 12 bytes a
// node, 9.5 MB of the modern 480 MiB trace's trees, when they were int64 fields).
struct OpNode {
  // Statistics (spec §5.2), ns; unless `wide` (then OpTree::wide holds them).
  int32_t host_self = 0, device_total = 0, device_self = 0;
  uint32_t row = 0;  // source table row, the table is `kind`; a root: its index in OpTree::roots
  int32_t parent = -1, first_child = -1, next_sibling = -1;
  int32_t first_launch = -1;  // list through Launch::next
  EventKind kind = EventKind::kCpuOp;
  NodeType type = NodeType::kOperator;
  NodeClass cls = NodeClass::kPlain;
  bool is_operator : 1 = false;  // counted in the operator tables (spec §3 is_operator_node)
  // Could run on Tensor Cores: by name, or because a child is or a launch used them (spec §5.2).
  TcState tc_eligible : 3 = TcState::kNo;
  bool has_tc : 1 = false;  // Tensor Core time in this node or below it: see OpTree::tc
  bool wide : 1 = false;    // a statistic beyond int32: all three in OpTree::wide
  bool dropped : 1 = false;  // started inside its parent but ended after it: not in the tree
};
static_assert(sizeof(OpNode) == 36, "issue 21: the node's size is measured (tests/core/op_tree_test.cpp)");

// A launch attached to a node: a runtime call, a driver call, or (tb_plugin) the dummy launch
// holding kernels whose launch was not recorded. Its start and duration are its row's
// (launch_slice), and the time of its device work is summed into its node's statistics when they
// are filled, not kept; its row is told by its place in OpTree::launches (launch i is
// link_launches' launch i: a runtime row, or runtimes.size() + a driver row; the dummies come
// after them all, from LinkStats::launches on); its device work ends where the next launch's
// begins (launch_device_end): 8 bytes, one per runtime call (40 with those two sums, the kind, the
// end and the row: 6.5 B/event of the modern shape; 12 with the row, issue 21: 2.0 MB of the
// modern 480 MiB trace).
struct Launch {  // 8 bytes
  int32_t next = -1;
  uint32_t device_begin = 0;  // its device work: OpTree::launched[begin, launch_device_end)
};
static_assert(sizeof(Launch) == 8, "issue 21: the launch's size is measured (tests/core/op_tree_test.cpp)");

// The model row a node stands for (not for roots, which have none).
inline const SliceRow& node_slice(const TraceModel& m, const OpNode& n) {
  switch (n.kind) {
    case EventKind::kCpuOp: return m.cpu_ops[n.row].s;
    case EventKind::kUserAnnotation: return m.user_annotations[n.row].s;
    case EventKind::kGpuAnnotation: return m.gpu_annotations[n.row].s;
    default: return m.python_functions[n.row].s;
  }
}

struct LinkStats {
  uint64_t launches = 0;              // runtime (and driver) calls in the trace
  uint64_t by_external_id = 0;        // attached through External id
  uint64_t by_enclosing_op = 0;       // attached to the innermost enclosing range on the thread
  uint64_t to_thread_root = 0;        // External id 0, or nothing enclosing: the thread's root
  uint64_t unattached = 0;            // no node took them (their kernels count as "N/A")
  uint64_t dropped_nodes = 0;         // ranges that overran their parent (tb_plugin drops them)
  uint64_t unlaunched_kernels = 0;    // kernels whose launch is not in the trace
  bool external_ids_are_correlations = false;  // PyTorch 2.x: runtime External id == correlation
};

struct OpTree {
  // In blocks of 4,096 nodes (144 KB), not one vector: the Overview computes the steps, the
  // breakdown and the GPU metrics first, and what they held for a moment leaves holes in the
  // heap (13 B/event of the modern shape) that blocks fill and one vector of 64 B/node could not.
  // Reading leaves holes too (9 MB in 27 pieces after reading the modern 480 MiB trace): blocks
  // of 16,384 nodes (576 KB) fitted fewer of them (issue 21: the heap with every view built
  // 136.4 → 135.3 MB).
  ChunkedTable<OpNode, 4096> nodes;
  std::vector<int32_t> roots;  // one CallTreeRoot per thread with host ranges, in first-appearance order
  // Per root (by its row): its first child's start and its last child's end; a root without
  // children spans everything (INT64_MIN, INT64_MAX).
  std::vector<std::pair<int64_t, int64_t>> root_spans;
  std::vector<Launch> launches;
  std::vector<DeviceRef> launched;     // device work of the launches
  std::vector<DeviceRef> unlaunched;   // device work of no launch, in time order
  // The Tensor Core time of the nodes that have some (OpNode::has_tc), by tc_key: a node's own
  // launches' Tensor Core kernels (self) and its subtree's (total), spec §5.2. Most nodes have
  // none (the ops above a matmul and the matmul itself do), so they are not fields of every node.
  struct TcTime {
    uint64_t key;
    int64_t self_ns, total_ns;
  };
  std::vector<TcTime> tc;  // sorted by key
  // The statistics of the nodes that have one beyond int32 (OpNode::wide), by tc_key.
  struct WideStats {
    uint64_t key;
    int64_t host_self_ns, device_total_ns, device_self_ns;
  };
  std::vector<WideStats> wide;  // sorted by key
  LinkStats stats;
  bool tb_plugin = false;
  // Each operator's call stack from the python_function frames around it (call_stacks.h): a stack
  // id per cpu_op/user_annotation row; empty in tb_plugin mode (it reads the "Call stack" arg only).
  CallStacks stacks;
};

// The end of a launch's device work in OpTree::launched (`l` one of t.launches): the next launch's
// begin; the last launch's and tb_plugin's holders' (which all hold the same kernels, the last
// part of `launched`): its end.
inline uint32_t launch_device_end(const OpTree& t, const Launch& l) {
  const size_t i = size_t(&l - t.launches.data());
  if (i >= t.stats.launches) return uint32_t(t.launched.size());
  return i + 1 < t.launches.size() ? t.launches[i + 1].device_begin : uint32_t(t.launched.size());
}

// A launch's row index (`l` one of t.launches, numbered as by link_launches): its place, below
// LinkStats::launches; kDummyLaunch for tb_plugin's holders of unlaunched kernels, after those.
constexpr uint32_t kDummyLaunch = UINT32_MAX;
inline uint32_t launch_index(const OpTree& t, const Launch& l) {
  const size_t i = size_t(&l - t.launches.data());
  return i < t.stats.launches ? uint32_t(i) : kDummyLaunch;
}
// kRuntime, kDriver, or kOther for the dummy.
inline EventKind launch_kind(const OpTree& t, const TraceModel& m, const Launch& l) {
  const uint32_t i = launch_index(t, l);
  return i == kDummyLaunch ? EventKind::kOther : i < m.runtimes.size() ? EventKind::kRuntime : EventKind::kDriver;
}
// The runtime or driver row of a launch (nullptr for the dummy).
inline const SliceRow* launch_slice(const OpTree& t, const TraceModel& m, const Launch& l) {
  const uint32_t i = launch_index(t, l);
  if (i == kDummyLaunch) return nullptr;
  if (i < m.runtimes.size()) return &m.runtimes[i];
  return &m.drivers[i - m.runtimes.size()];
}

// A node's key in OpTree::tc: its table and row (a root: its index in OpTree::roots).
inline uint64_t tc_key(const OpNode& n) {
  return uint64_t(n.type == NodeType::kRoot) << 40 | uint64_t(n.kind) << 32 | n.row;
}
inline const OpTree::TcTime* node_tc(const OpTree& t, const OpNode& n) {
  if (!n.has_tc) return nullptr;
  const uint64_t key = tc_key(n);
  size_t lo = 0, hi = t.tc.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (t.tc[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < t.tc.size() && t.tc[lo].key == key ? &t.tc[lo] : nullptr;
}
// Tensor Core time (spec §5.2), ns: of the kernels of the node's own launches, and of its subtree.
inline int64_t node_tc_self_ns(const OpTree& t, const OpNode& n) {
  const OpTree::TcTime* x = node_tc(t, n);
  return x ? x->self_ns : 0;
}
inline int64_t node_tc_total_ns(const OpTree& t, const OpNode& n) {
  const OpTree::TcTime* x = node_tc(t, n);
  return x ? x->total_ns : 0;
}

// A node's statistics (spec §5.2), ns: host self time, device total (its subtree's launches'
// device work) and device self (its own launches'; a module's: its operators' device total).
inline const OpTree::WideStats& node_wide(const OpTree& t, const OpNode& n) {
  const uint64_t key = tc_key(n);
  size_t lo = 0, hi = t.wide.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (t.wide[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return t.wide[lo];  // `wide` nodes are always there
}
inline int64_t node_host_self_ns(const OpTree& t, const OpNode& n) {
  return n.wide ? node_wide(t, n).host_self_ns : n.host_self;
}
inline int64_t node_device_total_ns(const OpTree& t, const OpNode& n) {
  return n.wide ? node_wide(t, n).device_total_ns : n.device_total;
}
inline int64_t node_device_self_ns(const OpTree& t, const OpNode& n) {
  return n.wide ? node_wide(t, n).device_self_ns : n.device_self;
}

OpTree build_op_tree(const TraceModel& m, const OpTreeOptions& options = {});

// tb_plugin's collection order (spec §5.3): a post-order walk of each tree; for every node, its
// children first, then each kernel its own launches put on the GPU (`on_kernel(kernel_row, node)`),
// then the node itself (`on_node(node)`).
template <class OnKernel, class OnNode>
void walk_post_order(const OpTree& t, OnKernel&& on_kernel, OnNode&& on_node) {
  struct Frame {
    int32_t node;
    int32_t next_child;
  };
  std::vector<Frame> stack;
  for (int32_t root : t.roots) {
    stack.push_back({root, t.nodes[size_t(root)].first_child});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next_child >= 0) {
        const int32_t c = f.next_child;
        f.next_child = t.nodes[size_t(c)].next_sibling;
        stack.push_back({c, t.nodes[size_t(c)].first_child});
        continue;
      }
      const int32_t n = f.node;
      stack.pop_back();
      for (int32_t l = t.nodes[size_t(n)].first_launch; l >= 0; l = t.launches[size_t(l)].next) {
        const Launch& launch = t.launches[size_t(l)];
        for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d)
          if (t.launched[d].kind == EventKind::kKernel) on_kernel(t.launched[d].row, n);
      }
      on_node(n);
    }
  }
}

// A range's duration as the trees count it: exact, or (tb_plugin) end - start in float µs, which
// near 1.7e15 µs moves each end by up to 0.25 µs.
int64_t span_ns(int64_t ts_ns, int64_t dur_ns, bool tb_plugin);

// A node's start and end, ns: its row's (a root: see OpTree::root_spans).
inline int64_t node_start_ns(const OpTree& t, const TraceModel& m, const OpNode& n) {
  return n.type == NodeType::kRoot ? t.root_spans[n.row].first : int64_t(node_slice(m, n).ts_ns);
}
inline int64_t node_end_ns(const OpTree& t, const TraceModel& m, const OpNode& n) {
  if (n.type == NodeType::kRoot) return t.root_spans[n.row].second;
  const SliceRow& s = node_slice(m, n);
  return s.ts_ns + m.dur_ns(s);
}
// Host total (spec §5.2): the row's duration as the trees count it (span_ns); 0 for a root.
inline int64_t node_host_total_ns(const OpTree& t, const TraceModel& m, const OpNode& n) {
  if (n.type == NodeType::kRoot) return 0;
  const SliceRow& s = node_slice(m, n);
  return span_ns(s.ts_ns, m.dur_ns(s), t.tb_plugin);
}

// The name of a node ("CallTreeRoot" for roots).
std::string_view node_name(const OpTree& t, const TraceModel& m, int32_t node);

}  // namespace ks
