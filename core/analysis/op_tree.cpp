#include "core/analysis/op_tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "core/analysis/step_breakdown.h"
#include "core/analysis/tensor_core_rules.h"
#include "core/util/heartbeat.h"
#include "core/util/sort_runs.h"

namespace ks {

namespace {

double float_us(int64_t ns) { return double(ns / 1000) + double(ns % 1000) / 1000.0; }

constexpr int64_t kRootStart = INT64_MIN, kRootEnd = INT64_MAX;

bool is_step_name(std::string_view n) { return n.starts_with("ProfilerStep#"); }

NodeClass class_for(std::string_view name) {
  if (is_dataloader_op(name)) return NodeClass::kDataLoader;
  if (name.starts_with("Optimizer.step")) return NodeClass::kOptimizer;
  return NodeClass::kPlain;
}

class Builder {
 public:
  Builder(const TraceModel& m, const OpTreeOptions& o) : m_(m), tb_(o.tb_plugin), pl_(o.lightning), ranges_(o.user_ranges && !o.tb_plugin) { t_.tb_plugin = tb_; }

  OpTree build() {
    // Each stage walks every node: a sign of life after each (a 10 GB trace takes minutes in wasm).
    // The launches first: linking them to their device work holds 16 bytes per launch and per
    // device activity for a moment, best done before the nodes are there.
    make_launches();
    heartbeat(t_.launches.size());
    collect_nodes();
    heartbeat(t_.nodes.size());
    nest();
    heartbeat(t_.nodes.size());
    link();
    heartbeat(t_.nodes.size() + t_.launches.size());
    for (Thread& th : threads_) std::vector<int32_t>().swap(th.members);
    if (tb_) attach_unlaunched_kernels();
    collapse_duplicates();
    heartbeat(t_.nodes.size());
    fill_stats();
    heartbeat(t_.nodes.size());
    return std::move(t_);
  }

 private:
  // --- spec §3: which ranges become host nodes -------------------------------------------------
  // What a node's name says, worked out once per distinct name: the checks (a wrapper's name?
  // one of ~70 Tensor Core eligible ops?) ran for every node, ~5% of the trees' time in wasm.
  struct NameFacts {
    bool known = false;
    bool operator_name = false;  // may be an operator (not a DataParallel wrapper nor an Optimizer step)
    TcState tc = TcState::kNo;
  };
  std::vector<NameFacts> name_facts_;
  NameFacts facts(StringId id) {
    if (name_facts_.size() <= id) name_facts_.resize(m_.strings.size());
    NameFacts& f = name_facts_[id];
    if (!f.known) {
      const std::string_view name = m_.strings.get(id);
      f.known = true;
      f.operator_name = name != "DataParallel.forward" && name != "DistributedDataParallel.forward" && !name.starts_with("Optimizer.");
      f.tc = tc_eligible_op(name, tb_);
    }
    return f;
  }

  void add(const SliceRow& s, EventKind kind, uint32_t row, NodeType type, NodeClass cls) {
    if (counting_) {
      ++counted_tids_[s.tid];
      return;
    }
    OpNode n;
    n.kind = kind;
    n.row = row;
    n.type = type;
    n.cls = cls;
    const NameFacts f = facts(s.name);
    n.is_operator = cls == NodeClass::kPlain && type == NodeType::kOperator && f.operator_name;
    n.tc_eligible = f.tc;
    if (s.tid != last_tid_ || !last_thread_) {
      last_tid_ = s.tid;
      last_thread_ = &threads_[thread_index_.at(s.tid)];
    }
    Thread& th = *last_thread_;
    if (s.ts_ns < th.last_start) th.in_time_order = false;  // equal starts come in node order
    th.last_start = s.ts_ns;
    th.members.push_back(int32_t(t_.nodes.size()));
    if (cls == NodeClass::kProfilerStep) th.has_step = true;
    t_.nodes.push_back(n);
    heartbeat();
  }

  void collect_nodes() {
    // The nodes go straight into their thread's list, each list allocated once at its size: a
    // first walk counts the nodes of each thread, the second makes them. (A list of every node
    // with its start and thread, sorted, held 16 bytes a node at the trees' peak: 12.6 MB of the
    // modern 480 MiB trace; the lists hold 4.)
    counting_ = true;
    collect_rows();
    counting_ = false;
    for (const auto& [tid, count] : counted_tids_) {
      thread_index_.emplace(tid, threads_.size());
      threads_.push_back({tid, {}, -1, false, INT64_MIN, true});
      threads_.back().members.reserve(count);
    }
    std::unordered_map<StringId, uint32_t>().swap(counted_tids_);
    collect_rows();
    std::unordered_map<StringId, size_t>().swap(thread_index_);
    // Within a thread, nodes in time order, (start, node): each table's rows come in file order,
    // nearly always that order already (checked as they came), so a thread is a few sorted runs
    // (its operators, then its annotations) merged in place; threads in the order their first
    // node starts (first appearance in time).
    auto before = [&](int32_t a, int32_t b) {
      const int64_t sa = start_of(a), sb = start_of(b);
      return sa != sb ? sa < sb : a < b;
    };
    for (Thread& th : threads_)
      if (!th.in_time_order) sort_runs(th.members.data(), th.members.data() + th.members.size(), before);
    std::sort(threads_.begin(), threads_.end(), [&](const Thread& a, const Thread& b) { return before(a.members[0], b.members[0]); });
  }

  void collect_rows() {
    for (uint32_t i = 0; i < m_.cpu_ops.size(); ++i) {
      const SliceRow& s = m_.cpu_ops[i].s;
      const std::string_view name = m_.strings.get(s.name);
      if (is_step_name(name)) add(s, EventKind::kCpuOp, i, NodeType::kProfilerStep, NodeClass::kProfilerStep);
      else if (!add_lightning(s, EventKind::kCpuOp, i, name)) add(s, EventKind::kCpuOp, i, NodeType::kOperator, class_for(name));
    }
    auto annotations = [&](const ChunkedTable<CpuOpRow>& table, EventKind kind) {
      for (uint32_t i = 0; i < table.size(); ++i) {
        const SliceRow& s = table[i].s;
        const std::string_view name = m_.strings.get(s.name);
        if (is_step_name(name)) {
          add(s, kind, i, NodeType::kProfilerStep, NodeClass::kProfilerStep);
          continue;
        }
        if (!tb_ && kind == EventKind::kUserAnnotation && add_lightning(s, kind, i, name)) continue;
        // Ordinary record_function ranges are not in the tree, unless asked for (user_ranges).
        const NodeClass cls = class_for(name);
        if (cls != NodeClass::kPlain || is_communication_op(name))
          add(s, kind, i, NodeType::kUserAnnotation, cls);
        else if (ranges_ && kind == EventKind::kUserAnnotation)
          add(s, kind, i, NodeType::kUserAnnotation, NodeClass::kUserRange);
      }
    };
    annotations(m_.user_annotations, EventKind::kUserAnnotation);
    // GPU-stream annotations are device work, not host ranges; tb_plugin makes nodes of them.
    if (tb_) annotations(m_.gpu_annotations, EventKind::kGpuAnnotation);
    for (uint32_t i = 0; i < m_.python_functions.size(); ++i) {
      const PythonFunctionRow& r = m_.python_functions[i];
      if (m_.strings.get(r.s.cat) == "python") {
        add(r.s, EventKind::kPythonFunction, i, NodeType::kPython, class_for(m_.strings.get(r.s.name)));
      } else if (r.python_module_id != kNoId && !(pl_ && tb_)) {
        add(r.s, EventKind::kPythonFunction, i, NodeType::kModule, NodeClass::kModule);
      }
    }
  }

  // A Lightning range as its node (only when asked for): true if `name` was one.
  bool add_lightning(const SliceRow& s, EventKind kind, uint32_t row, std::string_view name) {
    if (!pl_) return false;
    if (name.starts_with("[pl][module]")) add(s, kind, row, NodeType::kPlModule, NodeClass::kPlModule);
    else if (name.starts_with("[pl][profile]")) add(s, kind, row, NodeType::kPlProfile, NodeClass::kPlProfile);
    else return false;
    return true;
  }

  // --- spec §5.1: one tree per thread ---------------------------------------------------------
  // tb_plugin reads times as float µs: near 1.7e15 µs a double holds 0.25 µs, so on ns-resolution
  // traces a child can overrun its parent by rounding and be dropped. Its mode nests on those floats.

  void nest() {
    if (tb_) {
      nest_on([&](int32_t n) {
        const SliceRow& r = node_slice(m_, t_.nodes[size_t(n)]);
        const double start = float_us(r.ts_ns);
        return std::pair<double, double>{start, start + float_us(m_.dur_ns(r))};
      });
    } else {
      nest_on([&](int32_t n) {
        const SliceRow& r = node_slice(m_, t_.nodes[size_t(n)]);
        return std::pair<int64_t, int64_t>{r.ts_ns, r.ts_ns + m_.dur_ns(r)};
      });
    }
  }

  // `span(node)`: its (start, end) as this mode compares them, read from its row (arrays of them
  // for every node cost 16 bytes a node at the build's peak).
  template <class Span>
  void nest_on(Span span) {
    using T = decltype(span(0).first);
    for (Thread& th : threads_) {
      OpNode root;
      root.row = uint32_t(t_.roots.size());
      t_.root_spans.push_back({kRootStart, kRootEnd});
      root.type = NodeType::kRoot;
      root.cls = NodeClass::kRoot;
      th.root = int32_t(t_.nodes.size());
      t_.nodes.push_back(root);
      t_.roots.push_back(th.root);
      thread_of_tid_[th.tid] = th.root;

      // Members come in time order, which linking reads after; nesting wants (start, -end): only
      // runs of equal start need sorting, each in a copy of its own (a copy of every thread's
      // time order held 4 bytes a node through linking: 3.2 MB of the modern 480 MiB trace).
      // A node's last child, while children are appended, is kept with it on the stack of open
      // nodes (once closed, a node takes no more): not 4 bytes for every node.
      struct Open {
        int32_t node;
        T end;
        int32_t last_child;
      };
      std::vector<Open> stack;  // open nodes under the root (which spans everything)
      int32_t root_last = -1;
      auto place = [&](int32_t n) {
        const auto [start, end] = span(n);
        while (!stack.empty() && start >= stack.back().end) stack.pop_back();
        // A user range overlapping a node in part gives way to it (OpTreeOptions::user_ranges).
        while (ranges_ && !stack.empty() && end > stack.back().end && is_user_range(stack.back().node) && !is_user_range(n))
          stack.pop_back();
        if (stack.empty() || end <= stack.back().end) {
          if (stack.empty()) append_child(th.root, n, root_last);
          else append_child(stack.back().node, n, stack.back().last_child);
          stack.push_back({n, end, -1});
        } else {
          t_.nodes[size_t(n)].dropped = true;  // starts inside its parent but ends after it
          ++t_.stats.dropped_nodes;
        }
      };
      const std::vector<int32_t>& order = th.members;
      std::vector<int32_t> run;
      for (size_t i = 0; i < order.size();) {
        const T start = span(order[i]).first;
        size_t j = i + 1;
        while (j < order.size() && span(order[j]).first == start) ++j;
        if (j - i == 1) {
          place(order[i]);
        } else {
          run.assign(order.begin() + std::ptrdiff_t(i), order.begin() + std::ptrdiff_t(j));
          std::stable_sort(run.begin(), run.end(), [&](int32_t a, int32_t b) { return span(a).second > span(b).second; });
          for (int32_t n : run) place(n);
        }
        i = j;
      }
      if (!by_external_id_) std::vector<int32_t>().swap(th.members);  // linking by time needs no order
    }
  }

  void append_child(int32_t parent, int32_t child, int32_t& last) {
    OpNode& p = t_.nodes[size_t(parent)];
    OpNode& c = t_.nodes[size_t(child)];
    c.parent = parent;
    c.next_sibling = -1;
    if (last >= 0) t_.nodes[size_t(last)].next_sibling = child;
    else p.first_child = child;
    last = child;
  }

  // --- spec §4: launches to nodes -------------------------------------------------------------
  const SliceRow& launch_row(uint32_t index) const {
    return index < m_.runtimes.size() ? m_.runtimes[index] : m_.drivers[index - m_.runtimes.size()];
  }

  void attach(int32_t node, int32_t launch) {
    Launch& l = t_.launches[size_t(launch)];
    OpNode& n = t_.nodes[size_t(node)];
    l.next = n.first_launch;  // prepended; reversed into time order before the stats
    n.first_launch = launch;
  }

  void make_launches() {
    LaunchLinks links = link_launches(m_, !tb_);
    const size_t count = links.launches();
    t_.stats.launches = count;
    t_.launches.reserve(count);  // tb_plugin's dummies (one per thread with a step) come later
    for (uint32_t i = 0; i < count; ++i) {
      Launch l;
      l.device_begin = links.begin[i];  // its end: the next one's begin (launch_device_end)
      t_.launches.push_back(l);
    }
    t_.launched = std::move(links.refs);
    t_.unlaunched = std::move(links.unlaunched);
    std::vector<uint32_t>().swap(links.begin);  // in the launches now
    t_.stats.unlaunched_kernels = size_t(std::count_if(t_.unlaunched.begin(), t_.unlaunched.end(),
                                                       [](DeviceRef d) { return d.kind == EventKind::kKernel; }));

    // PyTorch 2.x traces may carry the correlation id as the runtime's External id: then it says
    // nothing about the operator.
    size_t both = 0, equal = 0;
    for (const SliceRow& r : m_.runtimes) {
      if (m_.id_value(r.external_id) == kNoId || m_.id_value(r.correlation) == kNoId || m_.id_value(r.external_id) == 0) continue;
      ++both;
      if (m_.id_value(r.external_id) == m_.id_value(r.correlation)) ++equal;
    }
    t_.stats.external_ids_are_correlations = both > 0 && equal == both;
    by_external_id_ = tb_ || !t_.stats.external_ids_are_correlations;
  }

  void link() {
    const size_t count = t_.launches.size();
    const bool by_external_id = by_external_id_;
    if (!by_external_id) {
      // Every launch is placed by time.
      std::vector<int32_t> loose(count);
      std::iota(loose.begin(), loose.end(), 0);
      attach_by_time(loose, true);
      return;
    }
    // Launches registered under their External id, then the rest in time order; the two lists
    // are made one after the other, not held together (4 bytes a launch less at the trees' peak).
    std::vector<char> owned(count, 0);
    std::vector<int32_t> loose;  // for the enclosing-range fallback
    if (by_external_id) {
      // Launches by External id (time order within an id): a sorted array of launch indices
      // (4 bytes each; the ids and times are read from the rows), no per-id allocation.
      std::vector<int32_t> by_id;
      auto id_of = [&](int32_t l) { return m_.id_value(launch_row(uint32_t(l)).external_id); };
      size_t registered = 0;
      for (int32_t l = 0; l < int32_t(count); ++l) registered += id_of(l) != 0 && (id_of(l) != kNoId || tb_);
      by_id.reserve(registered);
      for (int32_t l = 0; l < int32_t(count); ++l) {
        const int64_t id = id_of(l);
        if (id == 0) continue;  // "zero runtimes" go to their thread's root
        if (id == kNoId && !tb_) continue;
        by_id.push_back(l);
      }
      // (id, time, index): time order within an id.
      std::sort(by_id.begin(), by_id.end(), [&](int32_t a, int32_t b) {
        const int64_t ia = id_of(a), ib = id_of(b);
        if (ia != ib) return ia < ib;
        const int64_t ta = launch_row(uint32_t(a)).ts_ns, tb = launch_row(uint32_t(b)).ts_ns;
        return ta != tb ? ta < tb : a < b;
      });
      std::vector<char> taken(by_id.size(), 0);
      // Threads in first-appearance order, nodes in time order: the first node with an id takes
      // every launch registered under it.
      for (const Thread& th : threads_) {
        for (int32_t n : th.members) {
          const int64_t id = node_external_id(n);
          auto lo = std::lower_bound(by_id.begin(), by_id.end(), id, [&](int32_t l, int64_t v) { return id_of(l) < v; });
          if (lo == by_id.end() || id_of(*lo) != id || taken[size_t(lo - by_id.begin())]) continue;
          taken[size_t(lo - by_id.begin())] = 1;
          for (auto it = lo; it != by_id.end() && id_of(*it) == id; ++it) {
            const int32_t l = *it;
            owned[size_t(l)] = 1;
            if (t_.nodes[size_t(n)].dropped) {
              if (!tb_) loose.push_back(l);  // its node overran its parent: place it by time
              continue;
            }
            attach(n, l);
            ++t_.stats.by_external_id;
          }
        }
      }
    }
    std::vector<int32_t> order(count);  // launches in time order
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const int64_t ta = launch_row(uint32_t(a)).ts_ns, tb = launch_row(uint32_t(b)).ts_ns;
      return ta != tb ? ta < tb : a < b;
    });
    for (int32_t l : order) {
      if (owned[size_t(l)]) continue;
      const int64_t id = m_.id_value(launch_row(uint32_t(l)).external_id);
      if (!tb_) loose.push_back(l);
      else if (id == 0) to_root(l);
      else ++t_.stats.unattached;
    }
    std::vector<int32_t>().swap(order);
    std::vector<char>().swap(owned);
    if (!tb_) attach_by_time(loose, false);
  }

  void to_root(int32_t l) {
    auto it = thread_of_tid_.find(launch_row(uint32_t(l)).tid);
    if (it == thread_of_tid_.end()) {
      ++t_.stats.unattached;
      return;
    }
    attach(it->second, l);
    ++t_.stats.to_thread_root;
  }

  // Each launch goes to the innermost node of its thread's tree that is running when it starts
  // (the operator that made the call), or to the thread's root.
  // `in_index_order`: `loose` lists launches by index, so ties can be broken by it in place.
  void attach_by_time(std::vector<int32_t>& loose, bool in_index_order) {
    auto before = [&](int32_t a, int32_t b) {
      const SliceRow& x = launch_row(uint32_t(a));
      const SliceRow& y = launch_row(uint32_t(b));
      return x.tid != y.tid ? x.tid < y.tid : x.ts_ns < y.ts_ns;
    };
    if (in_index_order) std::sort(loose.begin(), loose.end(), [&](int32_t a, int32_t b) { return before(a, b) || (!before(b, a) && a < b); });
    else std::stable_sort(loose.begin(), loose.end(), before);
    size_t i = 0;
    while (i < loose.size()) {
      const StringId tid = launch_row(uint32_t(loose[i])).tid;
      size_t j = i;
      while (j < loose.size() && launch_row(uint32_t(loose[j])).tid == tid) ++j;
      auto th = thread_of_tid_.find(tid);
      if (th == thread_of_tid_.end()) {
        t_.stats.unattached += j - i;
        i = j;
        continue;
      }
      // Pre-order of the tree = nodes by (start, -end); a sweep keeps the open ranges.
      Preorder pre(t_, th->second);
      pre.next();  // the root
      std::vector<int32_t> open;
      for (size_t k = i; k < j; ++k) {
        const int64_t ts = launch_row(uint32_t(loose[k])).ts_ns;
        for (; !pre.done() && start_of(pre.node()) <= ts; pre.next()) {
          const int32_t n = pre.node();
          while (!open.empty() && end_of(open.back()) <= start_of(n)) open.pop_back();
          open.push_back(n);
        }
        while (!open.empty() && end_of(open.back()) <= ts) open.pop_back();
        if (open.empty()) {
          attach(th->second, loose[k]);
          ++t_.stats.to_thread_root;
        } else {
          attach(open.back(), loose[k]);
          ++t_.stats.by_enclosing_op;
        }
      }
      i = j;
    }
  }

  // A tree's nodes in pre-order, one at a time: what is left to visit is each open level's next
  // sibling (a list of every node of a thread, 4 bytes each, was the trees' peak: up to the
  // whole tree's nodes, twice while it grew).
  class Preorder {
   public:
    Preorder(const OpTree& t, int32_t root) : t_(t), stack_{root} {}
    bool done() const { return stack_.empty(); }
    int32_t node() const { return stack_.back(); }
    void next() {
      const OpNode& n = t_.nodes[size_t(stack_.back())];
      const bool root = n.type == NodeType::kRoot;
      stack_.pop_back();
      if (!root && n.next_sibling >= 0) stack_.push_back(n.next_sibling);
      if (n.first_child >= 0) stack_.push_back(n.first_child);
    }

   private:
    const OpTree& t_;
    std::vector<int32_t> stack_;
  };

  // tb_plugin: kernels whose launch is missing hang from the root of every thread that has a
  // ProfilerStep (once per such thread).
  void attach_unlaunched_kernels() {
    std::vector<DeviceRef> kernels;
    for (DeviceRef d : t_.unlaunched)
      if (d.kind == EventKind::kKernel) kernels.push_back(d);
    // Only where a holder takes them: the last launch's work ends where `launched` ends.
    if (kernels.empty() || std::none_of(threads_.begin(), threads_.end(), [](const Thread& th) { return th.has_step; })) return;
    const uint32_t begin = uint32_t(t_.launched.size());
    t_.launched.insert(t_.launched.end(), kernels.begin(), kernels.end());
    t_.launches.reserve(t_.launches.size() + size_t(std::count_if(threads_.begin(), threads_.end(), [](const Thread& th) { return th.has_step; })));
    for (const Thread& th : threads_) {
      if (!th.has_step) continue;
      Launch l;
      l.device_begin = begin;  // every holder's work: launched[begin, end) (launch_device_end)
      t_.launches.push_back(l);
      attach(th.root, int32_t(t_.launches.size() - 1));
    }
  }

  // --- spec §5.1 step 4: aten::foo holding only aten::foo counts once --------------------------
  void collapse_duplicates() {
    for (int32_t root : t_.roots) {
      std::vector<int32_t> stack{root};
      while (!stack.empty()) {
        const int32_t n = stack.back();
        stack.pop_back();
        for (;;) {
          OpNode& node = t_.nodes[size_t(n)];
          const int32_t c = node.first_child;
          if (c < 0 || t_.nodes[size_t(c)].next_sibling >= 0) break;  // not an only child
          const OpNode& child = t_.nodes[size_t(c)];
          if (node.type != NodeType::kOperator || child.type != NodeType::kOperator || node_slice(m_, node).name != node_slice(m_, child).name) break;
          node.first_child = child.first_child;
          for (int32_t g = node.first_child; g >= 0; g = t_.nodes[size_t(g)].next_sibling) t_.nodes[size_t(g)].parent = n;
          if (tb_ || node.first_launch < 0) {
            node.first_launch = child.first_launch;  // tb_plugin keeps the child's launches only
          } else {
            int32_t last = node.first_launch;
            while (t_.launches[size_t(last)].next >= 0) last = t_.launches[size_t(last)].next;
            t_.launches[size_t(last)].next = child.first_launch;
          }
          t_.nodes[size_t(c)].parent = -2;  // merged away
        }
        for (int32_t c = t_.nodes[size_t(n)].first_child; c >= 0; c = t_.nodes[size_t(c)].next_sibling) stack.push_back(c);
      }
    }
  }

  // --- spec §5.2 --------------------------------------------------------------------------------
  void fill_stats() {
    TcKernelNames tc(m_.strings, tb_);
    // The self and subtree Tensor Core time of the nodes that have some, while their parent is
    // filled (children come first); few nodes have any, so a map, not 16 bytes for every node.
    std::unordered_map<int32_t, std::pair<int64_t, int64_t>> tc_times;
    // Children before their parent: a post-order walk, each level's next child on a stack.
    struct Frame {
      int32_t node, next_child;
    };
    std::vector<Frame> stack;
    for (int32_t root : t_.roots) {
      stack.push_back({root, t_.nodes[size_t(root)].first_child});
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next_child >= 0) {
          const int32_t c = f.next_child;
          f.next_child = t_.nodes[size_t(c)].next_sibling;
          stack.push_back({c, t_.nodes[size_t(c)].first_child});
          continue;
        }
        const int32_t n = f.node;
        stack.pop_back();
        OpNode& node = t_.nodes[size_t(n)];
        if (node.type == NodeType::kRoot && node.first_child >= 0) {
          int32_t last = node.first_child;
          while (t_.nodes[size_t(last)].next_sibling >= 0) last = t_.nodes[size_t(last)].next_sibling;
          t_.root_spans[node.row] = {start_of(node.first_child), end_of(last)};
        }
        // launches back into time order
        int32_t prev = -1;
        for (int32_t l = node.first_launch; l >= 0;) {
          const int32_t next = t_.launches[size_t(l)].next;
          t_.launches[size_t(l)].next = prev;
          prev = l;
          l = next;
        }
        node.first_launch = prev;
        const bool propagate = node.type == NodeType::kOperator || node.cls == NodeClass::kUserRange;
        int64_t host_self = node_host_total_ns(t_, m_, node), device_total = 0, device_self = 0;
        int64_t tc_self_ns = 0, tc_total_ns = 0;
        for (int32_t c = node.first_child; c >= 0; c = t_.nodes[size_t(c)].next_sibling) {
          const OpNode& child = t_.nodes[size_t(c)];
          const Stats cs = stats_of(c);
          if (child.cls == NodeClass::kUserRange) {
            // Transparent: its children and launches count as this node's (a range's self
            // numbers are what it passes up: its launches' and those its inner ranges pass).
            host_self -= node_host_total_ns(t_, m_, child) - cs.host_self;
            device_total += cs.device_total;
            device_self += cs.device_self;
            if (child.has_tc) {
              tc_self_ns += tc_times.at(c).first;
              tc_total_ns += tc_times.at(c).second;
            }
            if (propagate) node.tc_eligible = tc_either(node.tc_eligible, child.tc_eligible);
            continue;
          }
          host_self -= node_host_total_ns(t_, m_, child);
          device_total += cs.device_total;
          if (child.has_tc) tc_total_ns += tc_times.at(c).second;
          if (propagate) node.tc_eligible = tc_either(node.tc_eligible, child.tc_eligible);
          if ((node.cls == NodeClass::kModule || node.cls == NodeClass::kPlModule) && child.is_operator) device_self += cs.device_total;
        }
        for (int32_t l = node.first_launch; l >= 0; l = t_.launches[size_t(l)].next) {
          const Launch& launch = t_.launches[size_t(l)];
          if (const SliceRow* s = launch_slice(t_, m_, launch)) host_self -= span_ns(s->ts_ns, m_.dur_ns(*s), tb_);
          // Σ duration of the launch's device work, and of its Tensor Core kernels.
          int64_t device_ns = 0, tc_ns = 0;
          for (uint32_t d = launch.device_begin, end = launch_device_end(t_, launch); d < end; ++d) {
            const DeviceRef ref = t_.launched[d];
            const SliceRow& s = device_slice(m_, ref);
            const int64_t span = span_ns(s.ts_ns, m_.dur_ns(s), tb_);
            device_ns += span;
            if (ref.kind == EventKind::kKernel && tc(s.name) == TcState::kYes) tc_ns += span;
          }
          device_total += device_ns;
          device_self += device_ns;
          tc_self_ns += tc_ns;
          tc_total_ns += tc_ns;
          if (propagate && tc_ns > 0) node.tc_eligible = TcState::kYes;
        }
        if (node.type == NodeType::kRoot) host_self = 0;
        auto fits = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
        if (fits(host_self) && fits(device_total) && fits(device_self)) {
          node.host_self = int32_t(host_self);
          node.device_total = int32_t(device_total);
          node.device_self = int32_t(device_self);
        } else {
          node.wide = true;
          wide_stats.emplace(n, Stats{host_self, device_total, device_self});
          t_.wide.push_back({tc_key(node), host_self, device_total, device_self});
        }
        if (tc_self_ns != 0 || tc_total_ns != 0) {
          node.has_tc = true;
          tc_times.emplace(n, std::pair{tc_self_ns, tc_total_ns});
          t_.tc.push_back({tc_key(node), tc_self_ns, tc_total_ns});
        }
      }
    }
    std::sort(t_.tc.begin(), t_.tc.end(), [](const OpTree::TcTime& a, const OpTree::TcTime& b) { return a.key < b.key; });
    t_.tc.shrink_to_fit();
    std::sort(t_.wide.begin(), t_.wide.end(), [](const OpTree::WideStats& a, const OpTree::WideStats& b) { return a.key < b.key; });
    t_.wide.shrink_to_fit();
  }

  // A filled node's statistics (its children's, while their parent is filled).
  struct Stats {
    int64_t host_self, device_total, device_self;
  };
  std::unordered_map<int32_t, Stats> wide_stats;  // the `wide` nodes' (OpTree::wide by index)
  Stats stats_of(int32_t n) const {
    const OpNode& node = t_.nodes[size_t(n)];
    if (node.wide) return wide_stats.at(n);
    return {node.host_self, node.device_total, node.device_self};
  }

  struct Thread {
    StringId tid;
    std::vector<int32_t> members;  // in time order, (start, node); freed once linked
    int32_t root;
    bool has_step;
    int64_t last_start;  // while the nodes are made: the last one's start,
    bool in_time_order;  // and whether they came in time order
  };

  bool is_user_range(int32_t n) const { return t_.nodes[size_t(n)].cls == NodeClass::kUserRange; }

  const TraceModel& m_;
  const bool tb_;
  const bool pl_;
  const bool ranges_;
  OpTree t_;
  std::vector<Thread> threads_;
  std::unordered_map<StringId, int32_t> thread_of_tid_;
  bool by_external_id_ = false;  // launches reach nodes by External id (else by time only)
  bool counting_ = false;  // collect_rows only counts (collect_nodes' first walk)
  std::unordered_map<StringId, uint32_t> counted_tids_;  // nodes per thread (the counting walk)
  std::unordered_map<StringId, size_t> thread_index_;   // threads_ by tid while the nodes are made
  StringId last_tid_ = 0;
  Thread* last_thread_ = nullptr;

  // A node's start and end (not a root's): its row's.
  int64_t start_of(int32_t n) const { return node_slice(m_, t_.nodes[size_t(n)]).ts_ns; }
  int64_t end_of(int32_t n) const {
    const SliceRow& s = node_slice(m_, t_.nodes[size_t(n)]);
    return s.ts_ns + m_.dur_ns(s);
  }

  // The External id linking reads from a node's row (module frames link by time only).
  int64_t node_external_id(int32_t n) const {
    const OpNode& node = t_.nodes[size_t(n)];
    if (node.type == NodeType::kModule) return kNoId;
    return m_.id_value(node_slice(m_, node).external_id);
  }
};

}  // namespace

int64_t span_ns(int64_t ts_ns, int64_t dur_ns, bool tb_plugin) {
  if (!tb_plugin) return dur_ns;
  const double start = float_us(ts_ns);
  return std::llround((start + float_us(dur_ns) - start) * 1000.0);
}

bool has_user_ranges(const TraceModel& m) {
  for (const CpuOpRow& r : m.user_annotations) {
    const std::string_view name = m.strings.get(r.s.name);
    if (!is_step_name(name) && class_for(name) == NodeClass::kPlain && !is_communication_op(name)) return true;
  }
  return false;
}

OpTree build_op_tree(const TraceModel& m, const OpTreeOptions& options) {
  OpTree t = Builder(m, options).build();
  if (!options.tb_plugin && options.call_stacks) t.stacks = derive_call_stacks(m);
  return t;
}

std::string_view node_name(const OpTree& t, const TraceModel& m, int32_t node) {
  const OpNode& n = t.nodes[size_t(node)];
  if (n.type == NodeType::kRoot) return "CallTreeRoot";
  return m.strings.get(node_slice(m, n).name);
}

}  // namespace ks
