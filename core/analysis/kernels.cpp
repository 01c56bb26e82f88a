#include "core/analysis/kernels.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/util/csv_writer.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

void add_kernel(KernelGroup& g, const KernelRow& k, int64_t d) {
  ++g.calls;
  g.total_ns += d;
  g.min_ns = std::min(g.min_ns, d);
  g.max_ns = std::max(g.max_ns, d);
  if (!std::isnan(k.blocks_per_sm)) g.blocks_weighted += double(k.blocks_per_sm) * double(d);
  if (!std::isnan(k.occupancy_pct)) g.occupancy_weighted += double(k.occupancy_pct) * double(d);
}

bool recorded(const std::array<int32_t, 3>& dims) { return dims[0] || dims[1] || dims[2]; }

std::string dims_text(const std::array<int32_t, 3>& d) {
  if (!recorded(d)) return "";
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
}

}  // namespace

bool parse_kernel_group_by(std::string_view s, KernelGroupBy& out) {
  if (s == "name") out = KernelGroupBy::kName;
  else if (s == "props") out = KernelGroupBy::kProps;
  else return false;
  return true;
}

KernelTable kernel_table(const OpTree& t, const TraceModel& m, KernelGroupBy group_by) {
  KernelTable table;
  table.group_by = group_by;
  table.tensor_cores = tc_kernel_share(m, t.tb_plugin);
  table.accelerator = trace_accelerator(m);
  for (const KernelRow& k : m.kernels) {
    if (k.device < 0) continue;
    if (!std::isnan(k.blocks_per_sm)) table.has_blocks_per_sm = true;
    if (!std::isnan(k.occupancy_pct)) table.has_occupancy = true;
  }
  TcKernelNames tc(m.strings, t.tb_plugin);
  if (group_by == KernelGroupBy::kName) {
    std::unordered_map<StringId, size_t> index;
    for (const KernelRow& k : m.kernels) {
      auto [it, fresh] = index.try_emplace(k.s.name, table.rows.size());
      if (fresh) {
        table.rows.emplace_back();
        table.rows.back().name = k.s.name;
        table.rows.back().tensor_cores = tc(k.s.name);
        table.rows.back().tc_rule = tc.rule(k.s.name);
      }
      add_kernel(table.rows[it->second], k, k.s.dur_ns);  // every kernel, its recorded dur
    }
  } else {
    std::unordered_map<std::string, size_t> index;
    std::string key;
    auto add = [&](uint32_t kernel, std::string_view op, TcState op_eligible) {
      const KernelRow& k = m.kernels[kernel];
      key.assign(reinterpret_cast<const char*>(&k.s.name), sizeof k.s.name);
      const int32_t props[8] = {k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                                std::max(k.registers_per_thread, 0), std::max(k.shared_memory, 0)};
      key.append(reinterpret_cast<const char*>(props), sizeof props);
      key += op;
      auto [it, fresh] = index.try_emplace(key, table.rows.size());
      if (fresh) {
        KernelGroup g;
        g.name = k.s.name;
        g.op = std::string(op);
        g.op_tc_eligible = op_eligible;
        g.grid = k.grid;
        g.block = k.block;
        g.registers_per_thread = props[6];
        g.shared_memory = props[7];
        g.tensor_cores = tc(k.s.name);
        g.tc_rule = tc.rule(k.s.name);
        table.rows.push_back(std::move(g));
      }
      add_kernel(table.rows[it->second], k, span_ns(k.s.ts_ns, k.s.dur_ns, t.tb_plugin));
    };
    std::vector<char> seen(t.tb_plugin ? 0 : m.kernels.size(), 0);
    walk_post_order(t, [&](uint32_t kernel, int32_t node) {
      // tb_plugin: a kernel's op_tc_eligible is the node's name-list eligibility.
      add(kernel, node_name(t, m, node), tc_eligible_op(node_name(t, m, node), t.tb_plugin));
      if (!seen.empty()) seen[kernel] = 1;
    }, [](int32_t) {});
    // Kernels no operator launched (launch missing, or on a thread without host ranges) still ran:
    // they are listed under "N/A" rather than dropped.
    for (size_t i = 0; i < seen.size(); ++i)
      if (!seen[i]) add(uint32_t(i), "N/A", TcState::kNo);
  }
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [](const KernelGroup& a, const KernelGroup& b) { return a.total_ns > b.total_ns; });
  return table;
}

std::string kernel_table_json(const KernelTable& table, const TraceModel& m) {
  JsonWriter w;
  const bool props = table.group_by == KernelGroupBy::kProps;
  auto dims = [&](const std::array<int32_t, 3>& d) {
    if (!props || !recorded(d)) {
      w.null();
      return;
    }
    w.begin_array().value(d[0]).value(d[1]).value(d[2]).end_array();
  };
  w.begin_object();
  w.key("group_by").value(props ? "props" : "name");
  w.key("rows").begin_array();
  for (const KernelGroup& g : table.rows) {
    w.begin_object();
    w.key("name").value(m.strings.get(g.name));
    w.key("operator");
    if (props) w.value(g.op); else w.null();
    w.key("grid");
    dims(g.grid);
    w.key("block");
    dims(g.block);
    w.key("registers_per_thread");
    if (props) w.value(g.registers_per_thread); else w.null();
    w.key("shared_memory");
    if (props) w.value(g.shared_memory); else w.null();
    w.key("calls").value(g.calls);
    w.key("tensor_cores");
    write_tc_state(w, g.tensor_cores);
    w.key("tensor_cores_rule");
    if (g.tc_rule) w.value(tc_rule_text(*g.tc_rule)); else w.null();
    w.key("op_tc_eligible");
    if (props) write_tc_state(w, g.op_tc_eligible); else w.null();
    w.key("total_us").value(double(g.total_ns) / 1e3);
    w.key("mean_us").value(g.mean_ns() / 1e3);
    w.key("min_us").value(double(g.min_ns) / 1e3);
    w.key("max_us").value(double(g.max_ns) / 1e3);
    w.key("blocks_per_sm");
    if (table.has_blocks_per_sm) w.value(g.blocks_per_sm()); else w.null();
    w.key("occupancy_pct");
    if (table.has_occupancy) w.value(g.occupancy_pct()); else w.null();
    w.end_object();
  }
  w.end_array();
  w.key("tensor_cores");
  if (m.kernels.size() == 0) {
    w.null();
  } else {
    w.begin_object();
    w.key("tc_us").value(double(table.tensor_cores.tc_ns) / 1e3);
    w.key("unknown_us").value(double(table.tensor_cores.unknown_ns) / 1e3);
    w.key("total_us").value(double(table.tensor_cores.total_ns) / 1e3);
    w.key("term").value(matrix_units_term(table.accelerator));
    w.key("scope").value(kernel_tc_scope(table.accelerator));
    w.end_object();
  }
  w.end_object();
  return w.take();
}

std::string kernel_table_csv(const KernelTable& table, const TraceModel& m) {
  CsvWriter c;
  const bool props = table.group_by == KernelGroupBy::kProps;
  c.field("name");
  if (props) c.field("operator").field("grid").field("block").field("registers_per_thread").field("shared_memory");
  c.field("calls").field("tensor_cores");
  if (props) c.field("op_tc_eligible");
  c.field("tensor_cores_rule");
  c.field("total_us").field("mean_us").field("min_us").field("max_us");
  if (table.has_blocks_per_sm) c.field("blocks_per_sm");
  if (table.has_occupancy) c.field("occupancy_pct");
  c.end_row();
  for (const KernelGroup& g : table.rows) {
    c.field(m.strings.get(g.name));
    if (props) {
      c.field(g.op).field(dims_text(g.grid)).field(dims_text(g.block));
      c.field(int64_t(g.registers_per_thread)).field(int64_t(g.shared_memory));
    }
    c.field(g.calls).field(tc_state_word(g.tensor_cores));
    if (props) c.field(tc_state_word(g.op_tc_eligible));
    c.field(g.tc_rule ? std::string_view(g.tc_rule->id) : std::string_view());
    c.field(double(g.total_ns) / 1e3).field(g.mean_ns() / 1e3).field(double(g.min_ns) / 1e3).field(double(g.max_ns) / 1e3);
    if (table.has_blocks_per_sm) c.field(g.blocks_per_sm());
    if (table.has_occupancy) c.field(g.occupancy_pct());
    c.end_row();
  }
  return c.take();
}

}  // namespace ks
