#include "core/analysis/diff.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "core/util/json_writer.h"

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

DiffSide side_of(const Tree& tree, const std::vector<int32_t>& nodes) {
  DiffSide s;
  s.nodes = uint32_t(nodes.size());
  s.name = nodes.empty() ? "Blank" : nodes.size() == 1 ? std::string(tree.name(nodes[0])) : "CompositeNodes";
  std::unordered_map<std::string_view, size_t> index;
  std::vector<std::pair<int32_t, int32_t>> stack;  // (node, next child)
  for (int32_t top : nodes) {
    const OpNode& n = tree.t.nodes[size_t(top)];
    const int64_t host_total_ns = node_host_total_ns(tree.t, tree.m, n);
    s.host_ns += host_total_ns;
    s.device_ns += n.device_total_ns;
    s.total_ns += n.device_total_ns ? n.device_total_ns : host_total_ns;
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
      a.device_total_ns += op.device_total_ns;
      a.host_self_ns += op.host_self_ns;
      a.device_self_ns += op.device_self_ns;
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

void write_side(JsonWriter& w, const DiffSide& s) {
  w.begin_object();
  w.key("name").value(s.name);
  w.key("nodes").value(uint64_t(s.nodes));
  w.key("duration_us").value(double(s.host_ns) / 1e3);
  w.key("device_duration_us").value(double(s.device_ns) / 1e3);
  w.key("total_duration_us").value(double(s.total_ns) / 1e3);
  w.key("aggs").begin_array();
  for (const DiffAgg& a : s.aggs) {
    w.begin_object();
    w.key("name").value(a.name);
    w.key("calls").value(a.calls);
    w.key("host_duration_us").value(double(a.host_total_ns) / 1e3);
    w.key("device_duration_us").value(double(a.device_total_ns) / 1e3);
    w.key("self_host_duration_us").value(double(a.host_self_ns) / 1e3);
    w.key("self_device_duration_us").value(double(a.device_self_ns) / 1e3);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_node(JsonWriter& w, const DiffNode& d) {
  w.begin_object();
  w.key("path").value(d.path);
  w.key("name").value(d.name);
  w.key("baseline");
  write_side(w, d.baseline);
  w.key("experiment");
  write_side(w, d.experiment);
  w.key("children").begin_array();
  for (const DiffNode& c : d.children) write_node(w, c);
  w.end_array();
  w.end_object();
}

std::string change_text(int64_t from, int64_t to) {
  char buf[64];
  if (from == 0) std::snprintf(buf, sizeof buf, "%s", to == 0 ? "0.0 %" : "new");
  else std::snprintf(buf, sizeof buf, "%+.1f %%", (double(to) - double(from)) / double(from) * 100);
  return buf;
}

void text_node(std::string& out, const DiffNode& d, int depth) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-9s %12.1f %12.1f %9s %12.1f %12.1f %9s  %*s", d.path.c_str(),
                d.baseline.host_ns / 1e3, d.experiment.host_ns / 1e3, change_text(d.baseline.host_ns, d.experiment.host_ns).c_str(),
                d.baseline.device_ns / 1e3, d.experiment.device_ns / 1e3,
                change_text(d.baseline.device_ns, d.experiment.device_ns).c_str(), depth * 2, "");
  out += buf;
  out += d.name;
  if (d.experiment.name != d.name) out += " | " + d.experiment.name;
  out += '\n';
  for (const DiffNode& c : d.children) text_node(out, c, depth + 1);
}

}  // namespace

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
  out.root = builder.node(top_level(baseline, a), top_level(experiment, b), "0", 0);
  out.compared = true;
  return out;
}

std::string diff_json(const DiffResult& d, std::string_view baseline_name, std::string_view experiment_name) {
  JsonWriter w;
  w.begin_object();
  w.key("baseline").value(baseline_name);
  w.key("experiment").value(experiment_name);
  if (!d.compared) {
    w.key("error").value(d.error);
    w.key("tree").null();
  } else {
    w.key("tree");
    write_node(w, d.root);
  }
  w.end_object();
  return w.take();
}

std::string diff_text(const DiffResult& d, std::string_view baseline_name, std::string_view experiment_name) {
  std::string out = "baseline " + std::string(baseline_name) + ", experiment " + std::string(experiment_name) + "\n";
  if (!d.compared) return out + "  " + d.error + "\n";
  char buf[200];
  std::snprintf(buf, sizeof buf, "  %-9s %12s %12s %9s %12s %12s %9s  %s\n", "path", "host base", "host exp", "change",
                "device base", "device exp", "change", "node (us)");
  out += buf;
  text_node(out, d.root, 0);
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
