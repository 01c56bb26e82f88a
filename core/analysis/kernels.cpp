#include "core/analysis/kernels.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/analysis/gpu_metrics.h"

namespace ks {

namespace {

void add_kernel(KernelGroup& g, const KernelRow& k, int64_t d, bool tb_plugin) {
  ++g.calls;
  g.total_ns += d;
  g.min_ns = std::min(g.min_ns, d);
  g.max_ns = std::max(g.max_ns, d);
  if (!std::isnan(k.blocks_per_sm)) g.blocks_weighted += double(k.blocks_per_sm) * double(d);
  const float o = kernel_occupancy(k, tb_plugin);
  if (!std::isnan(o)) g.occupancy_weighted += double(o) * double(d);
  if (tb_plugin || !std::isnan(o)) g.occupancy_ns += d;
  g.missing_occupancy_as_zero = tb_plugin;
}

}  // namespace

double KernelGroup::occupancy_pct() const {
  if (occupancy_ns) return occupancy_weighted / double(occupancy_ns);
  if (missing_occupancy_as_zero) return 0;
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {

// Whether some kernel recorded blocks per SM / occupancy: the table then has the column.
void recorded_values(const TraceModel& m, bool tb_plugin, bool& blocks_per_sm, bool& occupancy) {
  for (const KernelRow& k : m.kernels) {
    if (k.device < 0) continue;
    if (!std::isnan(k.blocks_per_sm)) blocks_per_sm = true;
    if (!std::isnan(kernel_occupancy(k, tb_plugin))) occupancy = true;
  }
}

// The launch properties that tell "props" groups apart; a register or shared-memory value not
// recorded counts as 0, as tb_plugin's str(regs or "0") makes it.
using LaunchProps = std::array<int32_t, 8>;
LaunchProps launch_props(const KernelRow& k) {
  return {k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
          std::max(k.registers_per_thread, 0), std::max(k.shared_memory, 0)};
}

// Every kernel as the "props" table counts it (the kernels of the operator trees, in tb_plugin's
// order), with the node whose launch put it on the GPU (-1: none). Of one step, or all.
template <class F>
void for_each_launched_kernel(const OpTree& t, const TraceModel& m, const StepFilter* step, F&& f) {
  std::vector<char> seen(t.tb_plugin ? 0 : m.kernels.size(), 0);
  walk_post_order(t, [&](uint32_t kernel, int32_t node) {
    if (!seen.empty()) seen[kernel] = 1;
    if (!step || step->has_kernel(kernel)) f(kernel, node);
  }, [](int32_t) {});
  // Kernels no operator launched (launch missing, or on a thread without host ranges) still ran:
  // they are listed under "N/A" rather than dropped.
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i] && (!step || step->has_kernel(uint32_t(i)))) f(uint32_t(i), -1);
}

std::string_view launcher_name(const OpTree& t, const TraceModel& m, int32_t node) {
  return node < 0 ? std::string_view("N/A") : node_name(t, m, node);
}

// A node's call stack (call_stacks.h: its "Call stack" arg, or the python_function frames around
// it; 0: none; only operator and annotation events have one).
StackKey call_stack_of(const OpTree& t, const TraceModel& m, int32_t node) {
  const OpNode& n = t.nodes[size_t(node)];
  if (n.type == NodeType::kRoot) return 0;
  return row_stack(t.stacks, m, n.kind, n.row);
}

template <class T>
void sort_by_total(std::vector<T>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const T& a, const T& b) { return a.total_ns > b.total_ns; });
}

}  // namespace

bool parse_launch_dims(std::string_view text, std::array<int32_t, 3>& out) {
  const std::string s(text);
  std::array<int32_t, 3> v{};
  const char* p = s.c_str();
  for (size_t i = 0; i < 3; ++i) {
    char* end = nullptr;
    const long x = std::strtol(p, &end, 10);
    if (end == p || x < INT32_MIN || x > INT32_MAX) return false;
    v[i] = int32_t(x);
    p = end;
    if (i < 2 && *p++ != ',') return false;
  }
  if (*p != '\0') return false;
  out = v;
  return true;
}

bool parse_launch_int(std::string_view text, int32_t& out) {
  const std::string s(text);
  char* end = nullptr;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || x < INT32_MIN || x > INT32_MAX) return false;
  out = int32_t(x);
  return true;
}

bool parse_kernel_group_by(std::string_view s, KernelGroupBy& out) {
  if (s == "name") out = KernelGroupBy::kName;
  else if (s == "props") out = KernelGroupBy::kProps;
  else return false;
  return true;
}

KernelTable kernel_table(const OpTree& t, const TraceModel& m, KernelGroupBy group_by, const StepFilter* step) {
  KernelTable table;
  table.group_by = group_by;
  table.tensor_cores = tc_kernel_share(m, t.tb_plugin, step);
  table.accelerator = trace_accelerator(m);
  if (step) table.step = step->name;
  recorded_values(m, t.tb_plugin, table.has_blocks_per_sm, table.has_occupancy);
  TcKernelNames tc(m.strings, t.tb_plugin);
  if (group_by == KernelGroupBy::kName) {
    std::unordered_map<StringId, size_t> index;
    for (uint32_t i = 0; i < m.kernels.size(); ++i) {
      if (step && !step->has_kernel(i)) continue;
      const KernelRow& k = m.kernels[i];
      auto [it, fresh] = index.try_emplace(k.s.name, table.rows.size());
      if (fresh) {
        table.rows.emplace_back();
        table.rows.back().name = k.s.name;
        table.rows.back().tensor_cores = tc(k.s.name);
        table.rows.back().tc_rule = tc.rule(k.s.name);
      }
      add_kernel(table.rows[it->second], k, m.dur_ns(k.s), t.tb_plugin);  // every kernel, its recorded dur
    }
  } else {
    std::unordered_map<std::string, size_t> index;
    std::string key;
    for_each_launched_kernel(t, m, step, [&](uint32_t kernel, int32_t node) {
      const KernelRow& k = m.kernels[kernel];
      const std::string_view op = launcher_name(t, m, node);
      const LaunchProps props = launch_props(k);
      key.assign(reinterpret_cast<const char*>(&k.s.name), sizeof k.s.name);
      key.append(reinterpret_cast<const char*>(props.data()), sizeof props);
      key += op;
      auto [it, fresh] = index.try_emplace(key, table.rows.size());
      if (fresh) {
        KernelGroup g;
        g.name = k.s.name;
        g.op = std::string(op);
        // tb_plugin: a kernel's op_tc_eligible is the node's name-list eligibility.
        g.op_tc_eligible = node < 0 ? TcState::kNo : tc_eligible_op(op, t.tb_plugin);
        g.grid = k.grid;
        g.block = k.block;
        g.registers_per_thread = props[6];
        g.shared_memory = props[7];
        g.tensor_cores = tc(k.s.name);
        g.tc_rule = tc.rule(k.s.name);
        table.rows.push_back(std::move(g));
      }
      add_kernel(table.rows[it->second], k, span_ns(k.s.ts_ns, m.dur_ns(k.s), t.tb_plugin), t.tb_plugin);
    });
  }
  sort_by_total(table.rows);
  return table;
}

KernelDetail kernel_detail(const OpTree& t, const TraceModel& m, const KernelKey& key, const StepFilter* step) {
  KernelDetail d;
  // Interned: one comparison of text per distinct name.
  std::vector<int8_t> named(m.strings.size(), -1);
  auto is_named = [&](StringId id) {
    if (named[id] < 0) named[id] = m.strings.get(id) == key.name ? 1 : 0;
    return named[id] == 1;
  };
  const bool props_row = key.group_by == KernelGroupBy::kProps;
  const LaunchProps wanted = {key.grid[0], key.grid[1], key.grid[2], key.block[0], key.block[1], key.block[2],
                              std::max(key.registers_per_thread, 0), std::max(key.shared_memory, 0)};
  if (!props_row) {
    // The row's own numbers, as the table counts them: every kernel of that name, its recorded dur.
    for (uint32_t i = 0; i < m.kernels.size(); ++i)
      if (is_named(m.kernels[i].s.name) && (!step || step->has_kernel(i))) add_kernel(d.total, m.kernels[i], m.dur_ns(m.kernels[i].s), t.tb_plugin);
  }
  std::unordered_map<std::string_view, size_t> ops;
  std::map<LaunchProps, size_t> launches;
  std::map<std::pair<size_t, StackKey>, size_t> stacks;  // (operator, call stack)
  for_each_launched_kernel(t, m, step, [&](uint32_t kernel, int32_t node) {
    const KernelRow& k = m.kernels[kernel];
    if (!is_named(k.s.name)) return;
    const std::string_view op = launcher_name(t, m, node);
    const LaunchProps props = launch_props(k);
    if (props_row && (op != key.op || props != wanted)) return;
    const int64_t dur = span_ns(k.s.ts_ns, m.dur_ns(k.s), t.tb_plugin);
    if (props_row) add_kernel(d.total, k, dur, t.tb_plugin);
    auto [o, new_op] = ops.try_emplace(op, d.operators.size());
    if (new_op) {
      d.operators.emplace_back();
      d.operators.back().op = std::string(op);
    }
    add_kernel(d.operators[o->second], k, dur, t.tb_plugin);
    auto [l, new_props] = launches.try_emplace(props, d.launches.size());
    if (new_props) {
      KernelGroup g;
      g.grid = k.grid;
      g.block = k.block;
      g.registers_per_thread = props[6];
      g.shared_memory = props[7];
      d.launches.push_back(std::move(g));
    }
    add_kernel(d.launches[l->second], k, dur, t.tb_plugin);
    const StackKey stack = node < 0 ? 0 : call_stack_of(t, m, node);
    if (!stack) return;
    auto [s, new_stack] = stacks.try_emplace({o->second, stack}, d.stacks.size());
    if (new_stack) d.stacks.push_back({std::string(op), stack_text(t.stacks, m, stack), 0, 0});
    ++d.stacks[s->second].calls;
    d.stacks[s->second].total_ns += dur;
  });
  d.found = d.total.calls > 0;
  d.stacks_derived = t.stacks.derived();
  recorded_values(m, t.tb_plugin, d.has_blocks_per_sm, d.has_occupancy);
  sort_by_total(d.operators);
  sort_by_total(d.launches);
  sort_by_total(d.stacks);
  return d;
}

}  // namespace ks

