#include "core/analysis/diff.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <unordered_map>


namespace ks {

namespace {

constexpr int kMaxDepth = 256;

// The node classes the lists are matched at (spec §16; tb_plugin's Backward nodes exist only in
// its §5.4 regrouping, which these trees do not do: docs/compatibility.md).
// The user's record_function ranges are anchors too when the trees hold them (user_ranges).
bool is_anchor(const OpNode& n) {
  return n.cls == NodeClass::kDataLoader || n.cls == NodeClass::kModule || n.cls == NodeClass::kOptimizer ||
         n.cls == NodeClass::kProfilerStep || n.cls == NodeClass::kUserRange;
}

std::vector<int32_t> children_of(const OpTree& t, int32_t n) {
  std::vector<int32_t> out;
  for (int32_t c = t.nodes[size_t(n)].first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) out.push_back(c);
  return out;
}

struct Tree {
  const OpTree& t;
  const TraceModel& m;
  std::string_view name(int32_t n) const { return node_name(t, m, n); }
};

// The thread root a node hangs under.
int32_t thread_root_of(const OpTree& t, int32_t n) {
  while (t.nodes[size_t(n)].parent >= 0) n = t.nodes[size_t(n)].parent;
  return n;
}

DiffSide side_of(const Tree& tree, const std::vector<int32_t>& nodes) {
  DiffSide s;
  s.nodes = uint32_t(nodes.size());
  {
    std::vector<int32_t> roots;
    for (int32_t n : nodes) roots.push_back(thread_root_of(tree.t, n));
    std::sort(roots.begin(), roots.end());
    s.threads = uint32_t(std::unique(roots.begin(), roots.end()) - roots.begin());
  }
  s.name = nodes.empty() ? "Blank" : nodes.size() == 1 ? std::string(tree.name(nodes[0])) : "CompositeNodes";
  std::unordered_map<std::string_view, size_t> index;
  std::vector<std::pair<int32_t, int32_t>> stack;  // (node, next child)
  for (int32_t top : nodes) {
    const OpNode& n = tree.t.nodes[size_t(top)];
    const int64_t host_total_ns = node_host_total_ns(tree.t, tree.m, n);
    s.host_ns += host_total_ns;
    const int64_t device_total_ns = node_device_total_ns(tree.t, n);
    s.device_ns += device_total_ns;
    s.total_ns += device_total_ns ? device_total_ns : host_total_ns;
    // Post-order below (and including) the node, as tb_plugin collects operators (spec §5.3).
    stack.push_back({top, n.first_child});
    while (!stack.empty()) {
      auto& [at, next] = stack.back();
      if (next >= 0) {
        const int32_t c = next;
        next = tree.t.nodes[size_t(c)].next_sibling;
        stack.push_back({c, tree.t.nodes[size_t(c)].first_child});
        continue;
      }
      const OpNode& op = tree.t.nodes[size_t(at)];
      stack.pop_back();
      if (!op.is_operator) continue;
      const std::string_view name = tree.m.strings.get(node_slice(tree.m, op).name);
      auto [it, fresh] = index.try_emplace(name, s.aggs.size());
      if (fresh) s.aggs.push_back({std::string(name)});
      DiffAgg& a = s.aggs[it->second];
      ++a.calls;
      a.host_total_ns += node_host_total_ns(tree.t, tree.m, op);
      a.device_total_ns += node_device_total_ns(tree.t, op);
      a.host_self_ns += node_host_self_ns(tree.t, op);
      a.device_self_ns += node_device_self_ns(tree.t, op);
    }
  }
  return s;
}

struct Builder {
  Tree base, exp;

  DiffNode node(const std::vector<int32_t>& l, const std::vector<int32_t>& r, std::string path, int depth) {
    DiffNode d;
    d.path = std::move(path);
    d.baseline = side_of(base, l);
    d.experiment = side_of(exp, r);
    d.name = l.empty() ? d.experiment.name : d.baseline.name;
    if (depth >= kMaxDepth) return d;
    if (l.size() == 1 && r.size() == 1) compare(children_of(base.t, l[0]), children_of(exp.t, r[0]), d, depth);
    else if (l.size() > 1 && r.size() > 1) compare(l, r, d, depth);
    return d;
  }

  // Matches the anchors of `l` in order against `r` (spec §16) and emits the pairs and the
  // stretches between them as children of `d`.
  void compare(const std::vector<int32_t>& l, const std::vector<int32_t>& r, DiffNode& d, int depth) {
    std::vector<std::pair<size_t, size_t>> pairs;
    size_t cursor = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      const OpNode& a = base.t.nodes[size_t(l[i])];
      if (!is_anchor(a)) continue;
      const std::string_view name = base.name(l[i]);
      for (size_t j = cursor; j < r.size(); ++j) {
        const OpNode& b = exp.t.nodes[size_t(r[j])];
        if (b.cls == a.cls && exp.name(r[j]) == name) {
          pairs.push_back({i, j});
          cursor = j + 1;
          break;
        }
      }
    }
    if (pairs.empty()) return;
    size_t li = 0, ri = 0;
    auto emit = [&](std::vector<int32_t> a, std::vector<int32_t> b) {
      d.children.push_back(node(a, b, d.path + "-" + std::to_string(d.children.size()), depth + 1));
    };
    auto slice = [](const std::vector<int32_t>& v, size_t from, size_t to) {
      return std::vector<int32_t>(v.begin() + ptrdiff_t(from), v.begin() + ptrdiff_t(to));
    };
    for (auto [i, j] : pairs) {
      if (i > li || j > ri) emit(slice(l, li, i), slice(r, ri, j));
      emit({l[i]}, {r[j]});
      li = i + 1;
      ri = j + 1;
    }
    if (li < l.size() || ri < r.size()) emit(slice(l, li, l.size()), slice(r, ri, r.size()));
  }
};

// The top-level list of a tree: the children of its ProfilerSteps, or its own children.
std::vector<int32_t> top_level(const OpTree& t, int32_t root) {
  std::vector<int32_t> out;
  bool steps = false;
  for (int32_t c : children_of(t, root)) {
    if (t.nodes[size_t(c)].cls != NodeClass::kProfilerStep) continue;
    steps = true;
    for (int32_t g : children_of(t, c)) out.push_back(g);
  }
  return steps ? out : children_of(t, root);
}

// --- every thread, merged by role (default mode) ------------------------------------------------
// tb_plugin compares one thread's tree. A PyTorch 2.x training step runs its backward pass on the
// autograd engine's thread and its collectives on the process group's threads (gloo's run loops),
// so one thread holds a fraction of the step's device time. Each thread is given a role, the
// threads of a role are merged (their top-level ranges in time order: rank 0's and rank 1's gloo
// threads are not the same threads, but they do the same calls), and the roles are compared side
// by side, each matched inside as tb_plugin matches the one tree.

bool contains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && (hay[i + k] | 0x20) == needle[k]) ++k;  // needle: lower case
    if (k == needle.size()) return true;
  }
  return false;
}

// An autograd function as the engine records it: PyTorch 2.x wraps each in
// `autograd::engine::evaluate_function: XBackward0`; PyTorch 1.x names it `XBackward[0]` or
// `torch::autograd::AccumulateGrad` at the thread's top level.
bool is_backward_name(std::string_view n) {
  if (n.starts_with("autograd::") || n.starts_with("torch::autograd::")) return true;
  while (!n.empty() && n.back() >= '0' && n.back() <= '9') n.remove_suffix(1);
  return n.ends_with("Backward");
}

bool is_collective_name(std::string_view n) {
  return n.starts_with("nccl:") || n.starts_with("gloo:") || n.starts_with("c10d::") || n == "record_param_comms";
}

// thread_name metadata by (pid, tid).
std::map<std::pair<StringId, StringId>, std::string_view> thread_names(const TraceModel& m) {
  std::map<std::pair<StringId, StringId>, std::string_view> out;
  for (const MetadataRow& r : m.metadata)
    if (m.strings.get(r.name) == "thread_name") out[{r.pid, r.tid}] = m.strings.get(r.value);
  return out;
}

ThreadRole role_of(const OpTree& t, const TraceModel& m, int32_t root,
                   const std::map<std::pair<StringId, StringId>, std::string_view>& names) {
  const int32_t first = t.nodes[size_t(root)].first_child;
  if (first < 0) return ThreadRole::kOther;
  const SliceRow& row = node_slice(m, t.nodes[size_t(first)]);
  const auto it = names.find({row.pid, row.tid});
  const std::string_view name = it == names.end() ? std::string_view() : it->second;
  bool loader = false;
  int64_t host_ns = 0, collective_ns = 0, backward_ns = 0;
  for (int32_t c : children_of(t, root)) {
    const OpNode& n = t.nodes[size_t(c)];
    const std::string_view op = node_name(t, m, c);
    const int64_t ns = node_host_total_ns(t, m, n);
    loader |= n.cls == NodeClass::kDataLoader;
    if (is_collective_name(op)) collective_ns += ns;
    if (is_backward_name(op)) backward_ns += ns;
    host_ns += ns;
  }
  if (contains(name, "autograd") || (host_ns > 0 && 2 * backward_ns >= host_ns)) return ThreadRole::kAutograd;
  if (contains(name, "gloo") || contains(name, "nccl") || (host_ns > 0 && 2 * collective_ns >= host_ns))
    return ThreadRole::kCommunication;
  if (loader || contains(name, "dataloader") || contains(name, "pin_memory")) return ThreadRole::kDataLoader;
  return ThreadRole::kOther;
}

// The top-level nodes a side compares, per role: the main thread's as top_level has them; each
// other thread's top-level ranges that start in one of the main thread's ProfilerSteps (all of them
// when it has none: the same steps the main thread's list covers, as step_scope.h assigns work to
// steps), the threads of a role merged in time order.
std::array<std::vector<int32_t>, size_t(ThreadRole::kCount)> role_lists(const OpTree& t, const TraceModel& m, int32_t main) {
  std::array<std::vector<int32_t>, size_t(ThreadRole::kCount)> out;
  out[size_t(ThreadRole::kMain)] = top_level(t, main);
  std::vector<std::pair<int64_t, int64_t>> steps;
  for (int32_t c : children_of(t, main))
    if (t.nodes[size_t(c)].cls == NodeClass::kProfilerStep)
      steps.push_back({node_start_ns(t, m, t.nodes[size_t(c)]), node_end_ns(t, m, t.nodes[size_t(c)])});
  auto in_steps = [&](int64_t ts) {
    if (steps.empty()) return true;
    for (auto [a, b] : steps)
      if (ts >= a && ts < b) return true;
    return false;
  };
  for (const DiffThread& th : diff_threads(t, m)) {
    if (th.role == ThreadRole::kMain) continue;
    std::vector<int32_t>& list = out[size_t(th.role)];
    for (int32_t c : children_of(t, th.root))
      if (in_steps(node_start_ns(t, m, t.nodes[size_t(c)]))) list.push_back(c);
  }
  for (size_t r = 1; r < out.size(); ++r)
    std::stable_sort(out[r].begin(), out[r].end(), [&](int32_t a, int32_t b) {
      return node_start_ns(t, m, t.nodes[size_t(a)]) < node_start_ns(t, m, t.nodes[size_t(b)]);
    });
  return out;
}

}  // namespace

const char* thread_role_name(ThreadRole r) {
  static constexpr const char* kNames[] = {"main", "autograd", "communication", "dataloader", "other"};
  return r < ThreadRole::kCount ? kNames[size_t(r)] : "other";
}

const char* thread_role_label(ThreadRole r) {
  static constexpr const char* kLabels[] = {"Main thread", "Autograd (backward)", "Communication", "DataLoader", "Other threads"};
  return r < ThreadRole::kCount ? kLabels[size_t(r)] : "Other threads";
}

std::vector<DiffThread> diff_threads(const OpTree& t, const TraceModel& m) {
  std::vector<DiffThread> out;
  const int32_t main = diff_tree_root(t, m, false);
  if (main < 0) return out;
  out.push_back({main, ThreadRole::kMain});
  const auto names = thread_names(m);
  for (int32_t root : t.roots)
    if (root != main) out.push_back({root, role_of(t, m, root, names)});
  return out;
}

int32_t diff_tree_root(const OpTree& t, const TraceModel& m, bool tb_plugin) {
  if (t.roots.empty()) return -1;
  if (tb_plugin) return t.roots[0];
  for (int32_t root : t.roots)
    for (int32_t c : children_of(t, root))
      if (t.nodes[size_t(c)].cls == NodeClass::kProfilerStep) return root;
  int32_t best = t.roots[0];
  int64_t best_ns = -1;
  for (int32_t root : t.roots) {
    int64_t ns = 0;
    for (int32_t c : children_of(t, root)) ns += node_host_total_ns(t, m, t.nodes[size_t(c)]);
    if (ns > best_ns) best = root, best_ns = ns;
  }
  return best;
}

DiffResult diff_trees(const OpTree& baseline, const TraceModel& baseline_model, const OpTree& experiment,
                      const TraceModel& experiment_model, bool tb_plugin) {
  DiffResult out;
  const int32_t a = diff_tree_root(baseline, baseline_model, tb_plugin),
                b = diff_tree_root(experiment, experiment_model, tb_plugin);
  if (a < 0 || b < 0) {
    out.error = std::string(a < 0 ? "the baseline" : "the experiment") + " has no host operators to compare";
    return out;
  }
  Builder builder{{baseline, baseline_model}, {experiment, experiment_model}};
  if (tb_plugin) {
    out.root = builder.node(top_level(baseline, a), top_level(experiment, b), "0", 0);
    out.compared = true;
    return out;
  }
  const auto l = role_lists(baseline, baseline_model, a), r = role_lists(experiment, experiment_model, b);
  std::vector<size_t> roles;  // those with work on either side
  for (size_t k = 0; k < l.size(); ++k)
    if (!l[k].empty() || !r[k].empty()) roles.push_back(k);
  if (roles.size() <= 1) {
    // One thread's work (or one role's): the tree as it always was, with no level of roles.
    out.root = builder.node(l[0], r[0], "0", 0);
    out.compared = true;
    return out;
  }
  // The root: every role's nodes; below it one node per role, each compared as the root would be.
  std::vector<int32_t> all_l, all_r;
  for (size_t k : roles) {
    all_l.insert(all_l.end(), l[k].begin(), l[k].end());
    all_r.insert(all_r.end(), r[k].begin(), r[k].end());
  }
  out.root.path = "0";
  out.root.baseline = side_of(builder.base, all_l);
  out.root.experiment = side_of(builder.exp, all_r);
  out.root.name = out.root.baseline.name;
  for (size_t k : roles) {
    DiffNode n;
    n.path = "0-" + std::to_string(out.root.children.size());
    n.role = ThreadRole(k);
    n.baseline = side_of(builder.base, l[k]);
    n.experiment = side_of(builder.exp, r[k]);
    // A role node is named after its role on each side that has its threads.
    const std::string label = thread_role_label(ThreadRole(k));
    if (!l[k].empty()) n.baseline.name = label;
    if (!r[k].empty()) n.experiment.name = label;
    n.name = label;
    builder.compare(l[k], r[k], n, 1);
    out.root.children.push_back(std::move(n));
  }
  out.compared = true;
  return out;
}

const std::vector<std::string>& diff_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v{"step"};
    for (size_t r = 0; r < kRoleCount; ++r) v.push_back(role_name(Role(r)));
    return v;
  }();
  return names;
}

bool diff_metric_ns(const StepBreakdown& b, std::string_view metric, double& out_ns) {
  if (metric == "step") {
    out_ns = b.average_total_ns;
    return true;
  }
  for (size_t r = 0; r < kRoleCount; ++r) {
    if (metric != role_name(Role(r))) continue;
    out_ns = b.average_ns[r];
    return true;
  }
  return false;
}

std::string diff_gate_line(std::string_view metric, double baseline_ns, double experiment_ns, double pct, bool& slower) {
  char change[48];
  if (baseline_ns > 0) {
    const double p = (experiment_ns - baseline_ns) / baseline_ns * 100;
    slower = p > pct;
    std::snprintf(change, sizeof change, "%+.1f %%", p);
  } else {
    slower = experiment_ns > 0;
    std::snprintf(change, sizeof change, "%s", slower ? "from 0" : "+0.0 %");
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.*s per step: baseline %.1f us, experiment %.1f us, %s (%s %g %%)", int(metric.size()),
                metric.data(), baseline_ns / 1e3, experiment_ns / 1e3, change, slower ? "more than" : "within", pct);
  std::string out = buf;
  if (slower) out.insert(out.size() - 1, " slower");
  return out;
}

}  // namespace ks
