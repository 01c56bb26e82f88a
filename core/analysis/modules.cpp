#include "core/analysis/modules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/util/heartbeat.h"

namespace ks {

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";
// Modules nested deeper than this (only bad input does that) are cut off: the hierarchy and the
// .backward nodes are walked recursively, and a stack must not overflow on a hostile file.
constexpr int kMaxModuleDepth = 256;
constexpr std::string_view kPlModulePrefix = "[pl][module]";
constexpr std::string_view kBackwardPrefix = "autograd::engine::evaluate_function:";
constexpr std::string_view kAccumulateGrad = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad";

std::string strip_all(std::string_view s, std::string_view what) {
  std::string out;
  size_t i = 0;
  for (;;) {
    const size_t at = s.find(what, i);
    if (at == std::string_view::npos) break;
    out.append(s.substr(i, at - i));
    i = at + what.size();
  }
  out.append(s.substr(i));
  return out;
}

bool is_python_function(const TraceModel& m, const PythonFunctionRow& r) {
  return m.strings.get(r.s.cat) == "python_function";
}

// Whether tb_plugin would read the trace in its Lightning mode (spec §2.3).
bool lightning_framework(const TraceModel& m) { return m.framework == "pytorch-lightning"; }

template <class F>
void for_each_pl_module(const TraceModel& m, bool tb_plugin, F&& f) {
  if (tb_plugin && !lightning_framework(m)) return;
  for (const CpuOpRow& r : m.cpu_ops) {
    const std::string_view n = m.strings.get(r.s.name);
    if (n.starts_with(kPlModulePrefix)) f(r.s, n);
  }
  if (tb_plugin) return;  // tb_plugin's Lightning ranges are OPERATOR events only
  for (const CpuOpRow& r : m.user_annotations) {
    const std::string_view n = m.strings.get(r.s.name);
    if (n.starts_with(kPlModulePrefix)) f(r.s, n);
  }
}

// --- the hierarchy (spec §14.1) ------------------------------------------------------------------

struct HNode {
  std::string name;  // as in the trace ("nn.Module: Linear"; Lightning: without "[pl][module]")
  int64_t module_id = 0;
  std::vector<HNode> children;
};

// A text that is equal for equal trees: tb_plugin de-duplicates identical top-level trees.
void canon(const HNode& h, std::string& out) {
  out += h.name;
  out += '\x1f';
  out += std::to_string(h.module_id);
  out += '(';
  for (const HNode& c : h.children) canon(c, out);
  out += ')';
}

std::vector<HNode> dedupe_and_sort(std::vector<HNode> roots) {
  std::vector<HNode> out;
  std::unordered_set<std::string> seen;
  for (HNode& r : roots) {
    std::string c;
    canon(r, c);
    if (seen.insert(std::move(c)).second) out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const HNode& a, const HNode& b) {
    return strip_all(a.name, kModulePrefix) < strip_all(b.name, kModulePrefix);
  });
  return out;
}

// tb_plugin's walk (kept for --tb-plugin): from every leaf of the python call tree, walk up the
// `Python parent id` chain; each module frame met becomes the parent of the module met before it.
// A walk stops where an earlier walk went with the same module in hand.
std::vector<HNode> python_hierarchy(const TraceModel& m) {
  struct Ev {
    uint32_t row;
    int64_t id, parent;
    bool module;
  };
  std::vector<Ev> evs;
  for (uint32_t i = 0; i < m.python_functions.size(); ++i) {
    const PythonFunctionRow& r = m.python_functions[i];
    if (!is_python_function(m, r)) continue;
    evs.push_back({i, r.python_id, r.python_parent_id, r.python_module_id != kNoId});
  }
  // tb_plugin walks the events in time order (stable on file order).
  std::stable_sort(evs.begin(), evs.end(), [&](const Ev& a, const Ev& b) {
    return m.python_functions[a.row].s.ts_ns < m.python_functions[b.row].s.ts_ns;
  });
  std::unordered_map<int64_t, size_t> by_id;  // the last event with the id wins
  for (size_t k = 0; k < evs.size(); ++k) by_id[evs[k].id] = k;
  // Children lists keyed in first-appearance order (a Python dict's order).
  std::vector<int64_t> order;
  std::unordered_map<int64_t, size_t> child_count;
  auto touch = [&](int64_t id) {
    if (child_count.try_emplace(id, 0).second) order.push_back(id);
  };
  for (const Ev& e : evs) {
    touch(e.id);
    touch(e.parent);
    ++child_count[e.parent];
  }
  std::vector<int64_t> parent_order;                 // module ids in registration order
  std::unordered_map<int64_t, int64_t> module_parent;  // python id -> parent module's python id (kNoId: none)
  std::unordered_map<int64_t, bool> has_parent;
  std::unordered_set<int64_t> seen_plain;  // (event, no module yet) pairs
  std::map<std::pair<int64_t, int64_t>, bool> seen;  // (event id, current module's python id)
  for (int64_t leaf : order) {
    if (child_count[leaf] != 0) continue;
    auto it = by_id.find(leaf);
    if (it == by_id.end()) continue;
    const Ev* e = &evs[it->second];
    bool have_module = false;
    int64_t current = 0;
    while (e) {
      if (e->module) {
        if (have_module) {
          module_parent[current] = e->id;
          has_parent[current] = true;
        }
        current = e->id;
        have_module = true;
        if (module_parent.try_emplace(e->id, kNoId).second) {
          parent_order.push_back(e->id);
          has_parent[e->id] = false;
        }
      }
      if (have_module) {
        if (!seen.emplace(std::make_pair(e->id, current), true).second) break;
      } else if (!seen_plain.insert(e->id).second) {
        break;
      }
      auto p = by_id.find(e->parent);
      e = p == by_id.end() ? nullptr : &evs[p->second];
    }
  }
  // Children in registration order of the child.
  std::unordered_map<int64_t, std::vector<int64_t>> kids;
  std::vector<int64_t> roots;
  for (int64_t id : parent_order) {
    if (has_parent[id]) kids[module_parent[id]].push_back(id);
    else roots.push_back(id);
  }
  // Recursion depth = module nesting depth (small); a cycle in bad input is cut by `on_path`.
  std::unordered_set<int64_t> on_path;
  auto build = [&](auto&& self, int64_t id, int depth) -> HNode {
    const PythonFunctionRow& r = m.python_functions[evs[by_id[id]].row];
    HNode h{std::string(m.strings.get(r.s.name)), r.python_module_id, {}};
    on_path.insert(id);
    if (depth < kMaxModuleDepth)
      for (int64_t c : kids[id])
        if (!on_path.count(c)) h.children.push_back(self(self, c, depth + 1));
    on_path.erase(id);
    return h;
  };
  std::vector<HNode> out;
  for (int64_t r : roots) out.push_back(build(build, r, 0));
  return dedupe_and_sort(std::move(out));
}

// Default mode: the hierarchy from time containment. The module frames of one thread nest by
// time (a call's frame lies inside its caller's); each frame's parent is the innermost module
// frame holding it on its thread. `Python parent id` is no guide on its own: a ModuleList's
// blocks, called in a Python loop, can point at a frame outside any module (the training step)
// while they run inside the model's frame, and tb_plugin's walk then makes a second root of the
// model and puts the block's children at the top level. The parent ids only order
// frames with the same span (the one whose chain of parents is shorter is the outer one).
// Calls are merged into rows by their path of (name, module id): a module called twice by its
// parent, or once per step, is one row.
std::vector<HNode> timed_hierarchy(const TraceModel& m) {
  struct Frame {
    uint32_t row;
    uint64_t thread;  // pid and tid
    int64_t start, end;
    uint32_t depth;  // length of its chain of Python parents (the tie-break)
    int64_t id;
  };
  // Depth of each frame in the Python parent-id chain, for the frames with a module id only
  // (a chain longer than the events is a cycle in bad input: cut).
  std::unordered_map<int64_t, int64_t> parent_of;
  for (const PythonFunctionRow& r : m.python_functions)
    if (r.python_id != kNoId && is_python_function(m, r)) parent_of.try_emplace(r.python_id, r.python_parent_id);
  auto chain_depth = [&](int64_t id) {
    uint32_t d = 0;
    for (auto it = parent_of.find(id); it != parent_of.end() && d <= parent_of.size(); it = parent_of.find(it->second)) ++d;
    return d;
  };
  std::vector<Frame> frames;
  for (uint32_t i = 0; i < m.python_functions.size(); ++i) {
    const PythonFunctionRow& r = m.python_functions[i];
    if (r.python_module_id == kNoId || !is_python_function(m, r)) continue;
    frames.push_back({i, (uint64_t(r.s.pid) << 32) | r.s.tid, r.s.ts_ns, r.s.ts_ns + m.dur_ns(r.s), chain_depth(r.python_id), r.python_id});
  }
  std::stable_sort(frames.begin(), frames.end(), [](const Frame& a, const Frame& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    if (a.depth != b.depth) return a.depth < b.depth;
    return a.id < b.id;
  });
  // Rows keyed by (parent row, name, module id), children in order of their first call.
  struct Row {
    StringId name;
    int64_t module_id;
    int64_t first;
    std::vector<size_t> kids;
  };
  std::vector<Row> rows;
  std::vector<size_t> top;
  std::map<std::tuple<size_t, StringId, int64_t>, size_t> index;  // parent row + 1 (0: top)
  struct Open {
    int64_t end;
    size_t row;
  };
  std::vector<Open> open;
  uint64_t thread = ~uint64_t(0);
  for (const Frame& f : frames) {
    if (f.thread != thread) {
      open.clear();
      thread = f.thread;
    }
    while (!open.empty() && open.back().end < f.end) open.pop_back();  // not inside it: its caller's done
    if (open.size() >= size_t(kMaxModuleDepth)) continue;  // cut off, as in tb_plugin's walk
    const PythonFunctionRow& r = m.python_functions[f.row];
    const size_t parent = open.empty() ? 0 : open.back().row + 1;
    auto [it, fresh] = index.try_emplace({parent, r.s.name, r.python_module_id}, rows.size());
    if (fresh) {
      rows.push_back({r.s.name, r.python_module_id, f.start, {}});
      (parent ? rows[parent - 1].kids : top).push_back(it->second);
    }
    open.push_back({f.end, it->second});
  }
  // Children in the order of their first call (threads were walked one after another).
  auto by_first = [&](size_t a, size_t b) { return rows[a].first < rows[b].first; };
  for (Row& r : rows) std::stable_sort(r.kids.begin(), r.kids.end(), by_first);
  std::stable_sort(top.begin(), top.end(), by_first);
  auto build = [&](auto&& self, size_t i) -> HNode {
    HNode h{std::string(m.strings.get(rows[i].name)), rows[i].module_id, {}};
    for (size_t c : rows[i].kids) h.children.push_back(self(self, c));
    return h;
  };
  std::vector<HNode> out;
  for (size_t r : top) out.push_back(build(build, r));
  return dedupe_and_sort(std::move(out));
}

// Lightning (spec §14.4): `[pl][module]<type>: <name>`; the parent of `a.b.c` is the module whose
// name is `a.b`, if the trace has one.
std::vector<HNode> lightning_hierarchy(const TraceModel& m, bool tb_plugin) {
  std::vector<std::pair<int64_t, std::string>> seen;  // (first ts, name) for time order
  std::unordered_map<std::string, size_t> index;
  for_each_pl_module(m, tb_plugin, [&](const SliceRow& s, std::string_view n) {
    std::string name(n.substr(kPlModulePrefix.size()));
    auto [it, fresh] = index.try_emplace(name, seen.size());
    if (fresh) seen.emplace_back(s.ts_ns, std::move(name));
    else seen[it->second].first = std::min<int64_t>(seen[it->second].first, s.ts_ns);
  });
  std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto attr = [](const std::string& name) -> std::string_view {
    const size_t colon = name.rfind(": ");
    return colon == std::string::npos ? std::string_view(name) : std::string_view(name).substr(colon + 2);
  };
  std::unordered_map<std::string_view, size_t> by_attr;
  for (size_t i = 0; i < seen.size(); ++i) by_attr.try_emplace(attr(seen[i].second), i);
  std::vector<int64_t> parent(seen.size(), -1);
  for (size_t i = 0; i < seen.size(); ++i) {
    const std::string_view a = attr(seen[i].second);
    const size_t dot = a.rfind('.');
    if (dot == std::string_view::npos) continue;
    auto p = by_attr.find(a.substr(0, dot));
    if (p != by_attr.end() && p->second != i) parent[i] = int64_t(p->second);
  }
  std::vector<std::vector<size_t>> kids(seen.size());
  std::vector<size_t> roots;
  for (size_t i = 0; i < seen.size(); ++i) (parent[i] >= 0 ? kids[size_t(parent[i])] : roots).push_back(i);
  auto build = [&](auto&& self, size_t i, int depth) -> HNode {
    HNode h{seen[i].second, 0, {}};
    if (depth < kMaxModuleDepth)
      for (size_t c : kids[i]) h.children.push_back(self(self, c, depth + 1));
    return h;
  };
  std::vector<HNode> out;
  for (size_t r : roots) out.push_back(build(build, r, 0));
  std::stable_sort(out.begin(), out.end(), [](const HNode& a, const HNode& b) { return a.name < b.name; });
  return out;
}

// --- statistics (spec §14.2) ---------------------------------------------------------------------

struct Agg {
  uint64_t occurrences = 0, operators = 0;
  int64_t host_total = 0, host_self = 0, device_total = 0, device_self = 0;
};
using AggKey = std::pair<std::string, int64_t>;

// Module (or PL module) nodes of the trees, reached through step, module, plain operator,
// optimizer, PL module and DataLoader nodes only, aggregated by (name, module id). PL profile
// ranges (`[pl][profile]...training_step`) are passed through as well: Lightning runs the model
// inside them, so without it no Lightning module would be found.
std::map<AggKey, Agg> aggregate(const OpTree& t, const TraceModel& m, NodeClass want) {
  std::map<AggKey, Agg> out;
  auto passes = [](NodeClass c) {
    return c == NodeClass::kProfilerStep || c == NodeClass::kModule || c == NodeClass::kPlain ||
           c == NodeClass::kOptimizer || c == NodeClass::kPlModule || c == NodeClass::kDataLoader ||
           c == NodeClass::kPlProfile;
  };
  std::vector<int32_t> stack;
  for (int32_t root : t.roots) {
    for (int32_t c = t.nodes[size_t(root)].first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) stack.push_back(c);
    while (!stack.empty()) {
      const int32_t n = stack.back();
      stack.pop_back();
      const OpNode& node = t.nodes[size_t(n)];
      if (!passes(node.cls)) continue;
      if (node.cls == want) {
        std::string name(node_name(t, m, n));
        int64_t id = 0;
        if (want == NodeClass::kModule) id = m.python_functions[node.row].python_module_id;
        else name = name.substr(kPlModulePrefix.size());
        Agg& a = out[{std::move(name), id}];
        ++a.occurrences;
        for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling)
          if (t.nodes[size_t(c)].is_operator) ++a.operators;
        a.host_total += m.dur_ns(node_slice(m, node));
        a.host_self += node_host_self_ns(t, node);
        a.device_total += node_device_total_ns(t, node);
        a.device_self += node_device_self_ns(t, node);
      }
      for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) stack.push_back(c);
    }
  }
  return out;
}

ModuleTable make_table(const std::vector<HNode>& roots, const std::map<AggKey, Agg>& aggs, bool lightning) {
  ModuleTable t;
  std::unordered_map<std::string, int> used_keys;
  auto emit = [&](auto&& self, const HNode& h, int32_t parent) -> void {
    ModuleRow r;
    r.name = lightning ? h.name : strip_all(h.name, kModulePrefix);
    r.module_id = h.module_id;
    r.parent = parent;
    r.depth = parent < 0 ? 0 : t.rows[size_t(parent)].depth + 1;
    const std::string part = lightning ? r.name : r.name + "#" + std::to_string(h.module_id);
    r.path = parent < 0 ? r.name : t.rows[size_t(parent)].path + "/" + r.name;
    r.key = parent < 0 ? part : t.rows[size_t(parent)].key + "/" + part;
    const int n = ++used_keys[r.key];
    if (n > 1) r.key += "~" + std::to_string(n);
    auto it = aggs.find({h.name, h.module_id});
    if (it == aggs.end()) {
      r.in_trees = false;
    } else {
      const Agg& a = it->second;
      r.occurrences = a.occurrences;
      r.operators = a.operators;
      r.host_total_ns = a.host_total;
      r.host_self_ns = a.host_self;
      r.device_total_ns = a.device_total;
      r.device_self_ns = a.device_self;
    }
    const int32_t me = int32_t(t.rows.size());
    t.rows.push_back(std::move(r));
    for (const HNode& c : h.children) self(self, c, me);
  };
  for (const HNode& h : roots) emit(emit, h, -1);
  return t;
}

// --- the trees the page draws, and §5.4 ----------------------------------------------------------

struct MNode {
  int32_t op = -1;  // OpTree node, -1 for a backward node
  std::string name;
  ViewNodeKind kind = ViewNodeKind::kOperator;
  int64_t start = 0, end = 0;
  int64_t host_total = 0, host_self = 0, device_total = 0, device_self = 0;
  int32_t row = -1;
  int32_t parent = -1;
  std::vector<int32_t> kids;
};

ViewNodeKind kind_of(const OpNode& n) {
  switch (n.cls) {
    case NodeClass::kModule: return ViewNodeKind::kModule;
    case NodeClass::kPlModule: return ViewNodeKind::kPlModule;
    case NodeClass::kPlProfile: return ViewNodeKind::kPlProfile;
    case NodeClass::kProfilerStep: return ViewNodeKind::kStep;
    default: return n.is_operator ? ViewNodeKind::kOperator : ViewNodeKind::kOther;
  }
}

class TreeBuilder {
 public:
  TreeBuilder(const TraceModel& m, const OpTree& t, bool tb, const ModuleTable& modules, const ModuleTable& lightning)
      : m_(m), t_(t), tb_(tb) {
    for (size_t i = 0; i < modules.rows.size(); ++i) {
      // The first row of a module: a flame-graph click selects it.
      module_row_.try_emplace({modules.rows[i].name, modules.rows[i].module_id}, int32_t(i));
    }
    for (size_t i = 0; i < lightning.rows.size(); ++i) pl_row_.try_emplace(lightning.rows[i].name, int32_t(i));
  }

  void build(ModuleView& v) {
    if (!v.has_modules && !v.has_lightning) return;  // nothing for the view to draw
    copy_trees();
    regroup_backward(v);
    for (size_t k = 0; k < roots_.size(); ++k) {
      const MNode& root = n_[size_t(roots_[k])];
      if (root.kids.empty()) continue;  // §5.4 step 6: trees left empty are dropped
      ThreadTree tt;
      tt.tid = std::string(m_.strings.get(tids_[k]));
      tt.main = int32_t(k) == main_;
      flatten(roots_[k], tt);
      if (tt.modules == 0 && !tt.main) continue;
      v.threads.push_back(std::move(tt));
    }
  }

 private:
  void copy_trees() {
    for (int32_t r : t_.roots) {
      // The root's thread: that of any of its nodes.
      const int32_t c = t_.nodes[size_t(r)].first_child;
      tids_.push_back(c >= 0 ? tid_of(c) : 0);
      roots_.push_back(copy(r, -1));
    }
  }

  StringId tid_of(int32_t op) const {
    const OpNode& n = t_.nodes[size_t(op)];
    switch (n.kind) {
      case EventKind::kCpuOp: return m_.cpu_ops[n.row].s.tid;
      case EventKind::kUserAnnotation: return m_.user_annotations[n.row].s.tid;
      case EventKind::kGpuAnnotation: return m_.gpu_annotations[n.row].s.tid;
      case EventKind::kPythonFunction: return m_.python_functions[n.row].s.tid;
      default: return 0;
    }
  }

  int32_t copy(int32_t root, int32_t parent) {
    // Iterative pre-order copy: trees can be deep.
    const int32_t top = int32_t(n_.size());
    std::vector<std::pair<int32_t, int32_t>> stack{{root, parent}};
    while (!stack.empty()) {
      auto [op, par] = stack.back();
      stack.pop_back();
      const OpNode& o = t_.nodes[size_t(op)];
      MNode x;
      x.op = op;
      x.name = std::string(node_name(t_, m_, op));
      x.kind = o.type == NodeType::kRoot ? ViewNodeKind::kOther : kind_of(o);
      x.start = node_start_ns(t_, m_, o);
      x.end = node_end_ns(t_, m_, o);
      x.host_total = node_host_total_ns(t_, m_, o);
      x.host_self = node_host_self_ns(t_, o);
      x.device_total = node_device_total_ns(t_, o);
      x.device_self = node_device_self_ns(t_, o);
      x.parent = par;
      if (x.kind == ViewNodeKind::kModule) {
        auto it = module_row_.find({strip_all(x.name, kModulePrefix), m_.python_functions[o.row].python_module_id});
        if (it != module_row_.end()) x.row = it->second;
      } else if (x.kind == ViewNodeKind::kPlModule) {
        auto it = pl_row_.find(x.name.substr(kPlModulePrefix.size()));
        if (it != pl_row_.end()) x.row = it->second;
      }
      const int32_t me = int32_t(n_.size());
      n_.push_back(std::move(x));
      if (par >= 0) n_[size_t(par)].kids.push_back(me);
      std::vector<int32_t> kids;
      for (int32_t c = o.first_child; c >= 0; c = t_.nodes[size_t(c)].next_sibling) kids.push_back(c);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, me});
    }
    return top;
  }

  // §5.4 step 1.
  int32_t main_thread() const {
    int32_t last_step = -1;
    for (size_t k = 0; k < roots_.size(); ++k) {
      for (const int32_t c : n_[size_t(roots_[k])].kids)
        if (n_[size_t(c)].kind == ViewNodeKind::kStep) last_step = int32_t(k);
    }
    if (last_step >= 0) return last_step;
    if (roots_.size() == 1) return 0;
    int32_t excluded = -1;
    for (size_t k = 0; k < roots_.size() && excluded < 0; ++k)
      for (const int32_t c : n_[size_t(roots_[k])].kids)
        if (std::string_view(n_[size_t(c)].name).starts_with(kBackwardPrefix)) {
          excluded = int32_t(k);
          break;
        }
    int32_t best = -1;
    int64_t best_span = -1;
    for (size_t k = 0; k < roots_.size(); ++k) {
      if (int32_t(k) == excluded) continue;
      const MNode& r = n_[size_t(roots_[k])];
      if (r.kids.empty()) continue;
      const int64_t span = n_[size_t(r.kids.back())].end - n_[size_t(r.kids.front())].start;
      if (span > best_span) {
        best_span = span;
        best = int32_t(k);
      }
    }
    return best;
  }

  void regroup_backward(ModuleView& v) {
    main_ = main_thread();
    // fwdbwd flows: forward ts -> backward ts (the `s` and `f` ends of each flow id).
    std::unordered_map<FlowId, int64_t> start_of;
    std::vector<std::pair<int64_t, int64_t>> fwd_bwd;
    std::unordered_map<FlowId, int64_t> finish_of;
    std::vector<FlowId> ids;
    for (const FlowRow& f : m_.flows) {
      if (m_.strings.get(m_.flow_cat(f)) != "fwdbwd") continue;
      if (f.phase == 's') {
        if (start_of.try_emplace(f.id, f.ts_ns).second) ids.push_back(f.id);
      } else if (f.phase == 'f') {
        finish_of.try_emplace(f.id, f.ts_ns);
      }
    }
    for (FlowId id : ids) {
      auto f = finish_of.find(id);
      if (f != finish_of.end()) fwd_bwd.emplace_back(start_of[id], f->second);
    }
    v.backward_flows = fwd_bwd.size();
    if (fwd_bwd.empty()) return;
    v.flows_no_pass = fwd_bwd.size();  // until charged or told apart below
    if (main_ < 0) {
      v.backward_none_why = "no thread holds a step or the model's forward pass";
      return;
    }

    // Step 2: top-level modules and backward roots (under a root or a step).
    std::vector<int32_t> modules, backward;
    for (int32_t r : roots_) {
      std::vector<int32_t> stack(n_[size_t(r)].kids.rbegin(), n_[size_t(r)].kids.rend());
      while (!stack.empty()) {
        const int32_t n = stack.back();
        stack.pop_back();
        const MNode& x = n_[size_t(n)];
        if (x.kind == ViewNodeKind::kModule) modules.push_back(n);
        else if (x.kind == ViewNodeKind::kStep) stack.insert(stack.end(), x.kids.rbegin(), x.kids.rend());
        else if (std::string_view(x.name).starts_with(kBackwardPrefix)) backward.push_back(n);
      }
    }
    if (modules.empty() || backward.empty()) {
      v.backward_none_why = modules.empty() ? "no module frame directly under a thread or a step (with_modules off, or the modules ran inside other ranges)"
                                            : "no backward pass recorded (autograd::engine::evaluate_function ranges)";
      return;
    }
    // Out of their parents, each parent's list filtered once (a root can hold 100k of them).
    {
      std::vector<char> gone(n_.size(), 0);
      std::vector<int32_t> parents;
      for (int32_t b : backward) {
        gone[size_t(b)] = 1;
        parents.push_back(n_[size_t(b)].parent);
        n_[size_t(b)].parent = -1;
      }
      std::sort(parents.begin(), parents.end());
      parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
      for (int32_t p : parents) {
        std::vector<int32_t>& sib = n_[size_t(p)].kids;
        sib.erase(std::remove_if(sib.begin(), sib.end(), [&](int32_t c) { return gone[size_t(c)] != 0; }), sib.end());
      }
    }
    // Step 3: AccumulateGrad joins the group before it.
    std::unordered_map<int32_t, std::vector<int32_t>> group;  // head -> its nodes
    int32_t head = -1;
    for (int32_t b : backward) {
      if (n_[size_t(b)].name == kAccumulateGrad && head >= 0) {
        group[head].push_back(b);
      } else {
        head = b;
        group[b].push_back(b);
      }
    }
    // Step 4: the node starting at each backward ts (the deepest, as a later write wins), climbed
    // up to its backward root.
    std::unordered_map<int64_t, int32_t> at;
    for (int32_t b : backward) {
      std::vector<int32_t> stack{b};
      while (!stack.empty()) {
        const int32_t n = stack.back();
        stack.pop_back();
        at[n_[size_t(n)].start] = n;
        stack.insert(stack.end(), n_[size_t(n)].kids.rbegin(), n_[size_t(n)].kids.rend());
      }
    }
    std::unordered_map<int64_t, std::vector<int32_t>> fwd_groups;  // forward ts -> backward nodes
    std::unordered_map<int64_t, uint64_t> fwd_flows;                // forward ts -> flows into its groups
    std::unordered_set<int32_t> heads;
    for (const auto& [h, nodes] : group) heads.insert(h);
    for (auto [fwd, bwd] : fwd_bwd) {
      auto it = at.find(bwd);
      if (it == at.end()) continue;
      int32_t n = n_[size_t(it->second)].parent;
      while (n >= 0 && !std::string_view(n_[size_t(n)].name).starts_with(kBackwardPrefix)) n = n_[size_t(n)].parent;
      if (n < 0) continue;
      auto g = group.find(n);
      if (g == group.end()) {  // consumed, or not a group's head
        if (heads.count(n)) {
          ++v.flows_shared_pass;
          --v.flows_no_pass;
        }
        continue;
      }
      auto& dst = fwd_groups[fwd];
      dst.insert(dst.end(), g->second.begin(), g->second.end());
      ++fwd_flows[fwd];
      --v.flows_no_pass;
      group.erase(g);
    }
    // Step 5: a `<module>.backward` node per module frame, holding the backward passes of the
    // forward operators it ran.
    std::vector<int32_t> top;
    for (int32_t mod : modules) walk_module(mod, fwd_groups, top);
    // What walk_module left: flows whose forward operator ran outside every module.
    for (const auto& [fwd, nodes] : fwd_groups) v.flows_outside_modules += fwd_flows[fwd];
    v.flows_charged = v.backward_flows - v.flows_outside_modules - v.flows_shared_pass - v.flows_no_pass;
    for (int32_t b : top) finish_backward(b);
    if (!tb_) {
      // A .backward node that received no backward pass would claim its forward time as backward
      // time (tb_plugin keeps it): left out.
      top.erase(std::remove_if(top.begin(), top.end(), [&](int32_t b) { return n_[size_t(b)].kids.empty(); }), top.end());
    }
    std::stable_sort(top.begin(), top.end(), [&](int32_t a, int32_t b) {
      const MNode& x = n_[size_t(a)];
      const MNode& y = n_[size_t(b)];
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    // Step 6: into the main thread's tree.
    for (int32_t b : top) insert(roots_[size_t(main_)], b);
    for (int32_t b : top) v.backward_regrouped += count_regrouped(b);
    for (int32_t b : top) charge(b, v.modules);
  }

  // Each .backward node that received work adds its time to its module's row.
  void charge(int32_t b, ModuleTable& t) const {
    const MNode& x = n_[size_t(b)];
    if (x.kids.empty()) return;
    if (x.row >= 0 && size_t(x.row) < t.rows.size()) {
      t.rows[size_t(x.row)].backward_host_ns += x.host_total;
      t.rows[size_t(x.row)].backward_device_ns += x.device_total;
    }
    for (int32_t c : x.kids)
      if (n_[size_t(c)].kind == ViewNodeKind::kBackward) charge(c, t);
  }

  uint64_t count_regrouped(int32_t b) const {
    uint64_t k = 0;
    for (int32_t c : n_[size_t(b)].kids) k += n_[size_t(c)].kind == ViewNodeKind::kBackward ? count_regrouped(c) : 1;
    return k;
  }

  void walk_module(int32_t mod, std::unordered_map<int64_t, std::vector<int32_t>>& fwd_groups, std::vector<int32_t>& top) {
    struct Item {
      int32_t node, bw, depth;  // depth: of the .backward node bw
    };
    std::vector<Item> stack{{mod, -1, -1}};
    while (!stack.empty()) {
      auto [n, bw, depth] = stack.back();
      stack.pop_back();
      const MNode x = n_[size_t(n)];  // a copy: n_ grows below
      if (x.kind == ViewNodeKind::kModule && depth + 1 < kMaxModuleDepth) {
        MNode b;
        b.name = x.name + ".backward";
        b.kind = ViewNodeKind::kBackward;
        b.start = x.start;
        b.end = x.end;
        b.row = x.row;
        b.parent = bw;
        const int32_t me = int32_t(n_.size());
        n_.push_back(std::move(b));
        if (bw >= 0) n_[size_t(bw)].kids.push_back(me);
        else top.push_back(me);
        bw = me;
        ++depth;
      } else if (bw >= 0) {
        auto it = fwd_groups.find(x.start);
        if (it != fwd_groups.end()) {
          for (int32_t g : it->second) {
            n_[size_t(g)].parent = bw;
            n_[size_t(bw)].kids.push_back(g);
          }
          fwd_groups.erase(it);
        }
      }
      for (auto it = x.kids.rbegin(); it != x.kids.rend(); ++it) stack.push_back({*it, bw, depth});
    }
  }

  // Spans and statistics of a .backward node from what it received (bottom-up).
  void finish_backward(int32_t b) {
    for (int32_t c : n_[size_t(b)].kids)
      if (n_[size_t(c)].kind == ViewNodeKind::kBackward) finish_backward(c);
    MNode& x = n_[size_t(b)];
    if (!tb_) {
      x.kids.erase(std::remove_if(x.kids.begin(), x.kids.end(),
                                  [&](int32_t c) { return n_[size_t(c)].kind == ViewNodeKind::kBackward && n_[size_t(c)].kids.empty(); }),
                   x.kids.end());
    }
    if (x.kids.empty()) return;  // tb_plugin: keeps the forward span and zero statistics
    std::stable_sort(x.kids.begin(), x.kids.end(), [&](int32_t a, int32_t c) {
      const MNode& p = n_[size_t(a)];
      const MNode& q = n_[size_t(c)];
      return p.start != q.start ? p.start < q.start : p.end > q.end;
    });
    x.start = n_[size_t(x.kids.front())].start;
    x.end = x.start;
    int64_t children = 0, device = 0;
    for (int32_t c : x.kids) {
      const MNode& k = n_[size_t(c)];
      x.end = std::max(x.end, k.end);
      children += k.end - k.start;
      device += k.device_total;
    }
    if (tb_) x.end = n_[size_t(x.kids.back())].end;
    x.host_total = x.end - x.start;
    x.host_self = x.host_total - children;
    x.device_total = device;
    x.device_self = 0;
  }

  // Into `parent`'s children: down into a child that holds it (a step, a module, a range that is
  // not an operator), else before the first child that starts at or after it. Children are in
  // start order and do not overlap, so only the child starting last before it (or with it) can
  // hold it: a binary search, not a scan (a root can hold one step per training iteration).
  void insert(int32_t parent, int32_t b) {
    const MNode& x = n_[size_t(b)];
    auto holds = [&](int32_t k) {
      const MNode& c = n_[size_t(k)];
      return c.start <= x.start && x.end <= c.end && c.kind != ViewNodeKind::kOperator && c.kind != ViewNodeKind::kBackward;
    };
    for (;;) {
      std::vector<int32_t>& kids = n_[size_t(parent)].kids;
      const auto at = std::lower_bound(kids.begin(), kids.end(), x.start,
                                       [&](int32_t k, int64_t t) { return n_[size_t(k)].start < t; });
      int32_t into = -1;
      if (at != kids.begin() && holds(*(at - 1))) into = *(at - 1);
      for (auto it = at; into < 0 && it != kids.end() && n_[size_t(*it)].start == x.start; ++it)
        if (holds(*it)) into = *it;
      if (into >= 0) {
        parent = into;
        continue;
      }
      n_[size_t(b)].parent = parent;
      kids.insert(at, b);
      return;
    }
  }

  void flatten(int32_t root, ThreadTree& tt) {
    struct Item {
      int32_t n, parent, depth;
    };
    std::vector<Item> stack;
    const auto& top = n_[size_t(root)].kids;
    for (auto it = top.rbegin(); it != top.rend(); ++it) stack.push_back({*it, -1, 0});
    while (!stack.empty()) {
      auto [n, parent, depth] = stack.back();
      stack.pop_back();
      const MNode& x = n_[size_t(n)];
      ViewNode v;
      v.name = x.name;
      v.kind = x.kind;
      v.start_ns = x.start;
      v.end_ns = x.end;
      v.parent = parent;
      v.depth = depth;
      v.row = x.row;
      v.host_total_ns = x.host_total;
      v.host_self_ns = x.host_self;
      v.device_total_ns = x.device_total;
      v.device_self_ns = x.device_self;
      if (x.kind == ViewNodeKind::kModule || x.kind == ViewNodeKind::kBackward || x.kind == ViewNodeKind::kPlModule) ++tt.modules;
      const int32_t me = int32_t(tt.nodes.size());
      tt.nodes.push_back(std::move(v));
      for (auto it = x.kids.rbegin(); it != x.kids.rend(); ++it) stack.push_back({*it, me, depth + 1});
    }
  }

  const TraceModel& m_;
  const OpTree& t_;
  const bool tb_;
  std::map<std::pair<std::string, int64_t>, int32_t> module_row_;
  std::unordered_map<std::string, int32_t> pl_row_;
  std::vector<MNode> n_;
  std::vector<int32_t> roots_;
  std::vector<StringId> tids_;
  int32_t main_ = -1;
};

}  // namespace

const char* view_node_kind_name(ViewNodeKind k) {
  switch (k) {
    case ViewNodeKind::kModule: return "module";
    case ViewNodeKind::kBackward: return "backward";
    case ViewNodeKind::kPlModule: return "pl_module";
    case ViewNodeKind::kPlProfile: return "pl_profile";
    case ViewNodeKind::kStep: return "step";
    case ViewNodeKind::kOperator: return "operator";
    case ViewNodeKind::kOther: return "other";
  }
  return "other";
}

ModulePresence module_presence(const TraceModel& m) {
  ModulePresence p;
  for (const PythonFunctionRow& r : m.python_functions) {
    if (r.python_module_id != kNoId && is_python_function(m, r)) {
      p.modules = true;
      break;
    }
  }
  for_each_pl_module(m, false, [&](const SliceRow&, std::string_view) { p.lightning = true; });
  return p;
}

ModuleView module_view(const TraceModel& m, const ModuleOptions& options) {
  const bool tb = options.tb_plugin;
  ModuleView v;
  // tb_plugin's Lightning mode drops the python_function frames altogether.
  const bool tb_lightning = tb && lightning_framework(m);
  bool any_pl = false;
  for_each_pl_module(m, tb, [&](const SliceRow&, std::string_view) { any_pl = true; });

  OpTreeOptions plain;
  plain.tb_plugin = tb;
  plain.lightning = tb_lightning;
  plain.call_stacks = false;
  const OpTree tree = build_op_tree(m, plain);
  if (!tb_lightning) {
    const std::map<AggKey, Agg> aggs = aggregate(tree, m, NodeClass::kModule);
    heartbeat(tree.nodes.size());  // a sign of life between long passes (core/util/heartbeat.h)
    const std::vector<HNode> roots = tb ? python_hierarchy(m) : timed_hierarchy(m);
    heartbeat(m.python_functions.size());
    // tb_plugin offers the view only when the trees hold module frames and a hierarchy was built.
    if (!aggs.empty() && !roots.empty()) {
      v.has_modules = true;
      v.modules = make_table(roots, aggs, false);
    }
  }
  std::optional<OpTree> pl_tree;
  if (any_pl) {
    if (!tb_lightning) {
      OpTreeOptions o = plain;
      o.lightning = true;
      pl_tree = build_op_tree(m, o);
    }
    const OpTree& t = pl_tree ? *pl_tree : tree;
    const std::map<AggKey, Agg> aggs = aggregate(t, m, NodeClass::kPlModule);
    const std::vector<HNode> roots = lightning_hierarchy(m, tb);
    if (!aggs.empty() && !roots.empty()) {
      v.has_lightning = true;
      v.lightning = make_table(roots, aggs, true);
    }
  }
  if (tb) {
    for (const ModuleRow& r : v.modules.rows)
      if (!r.in_trees) {
        v.error = "module " + r.name + " (id " + std::to_string(r.module_id) +
                  ") of the hierarchy has no call in the operator trees: tb_plugin shows no Module view for this trace";
        break;
      }
  }
  // The page's trees: with the Lightning ranges when there are any, so they show in the flame graph.
  TreeBuilder(m, pl_tree ? *pl_tree : tree, tb, v.modules, v.lightning).build(v);
  return v;
}

}  // namespace ks
