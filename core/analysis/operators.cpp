#include "core/analysis/operators.h"

#include <algorithm>
#include <unordered_map>

#include "core/analysis/step_breakdown.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

namespace {

// Python repr of the "Input Dims" of each distinct raw text, computed once.
class ShapeReprs {
 public:
  explicit ShapeReprs(const TraceModel& m) : m_(m) {}
  const std::string& operator()(StringId raw) {
    auto [it, fresh] = cache_.try_emplace(raw);
    if (fresh) it->second = raw ? python_repr_of_json(m_.strings.get(raw)) : "[]";
    return it->second;
  }

 private:
  const TraceModel& m_;
  std::unordered_map<StringId, std::string> cache_;
};

void add_call(OperatorStats& s, const OpTree& t, const TraceModel& m, const OpNode& n) {
  ++s.calls;
  s.host_total_ns += node_host_total_ns(t, m, n);
  s.host_self_ns += node_host_self_ns(t, n);
  s.device_total_ns += node_device_total_ns(t, n);
  s.device_self_ns += node_device_self_ns(t, n);
  if (const OpTree::TcTime* tc = node_tc(t, n)) {
    s.tc_self_ns += tc->self_ns;
    s.tc_total_ns += tc->total_ns;
  }
}

// The operator nodes in tb_plugin's collection order (spec §5.3), of one step or all.
template <class F>
void for_each_operator(const OpTree& t, const StepFilter* step, F&& f) {
  walk_post_order(t, [](uint32_t, int32_t) {}, [&](int32_t n) {
    const OpNode& node = t.nodes[size_t(n)];
    if (node.is_operator && (!step || step->has_node(n))) f(node);
  });
}

// The calls of one group (a name, and with kNameAndShape an input shape).
template <class F>
void for_each_call_of(const OpTree& t, const TraceModel& m, OpGroupBy group_by, std::string_view name,
                      std::string_view input_shape, const StepFilter* step, F&& f) {
  ShapeReprs shapes(m);
  for_each_operator(t, step, [&](const OpNode& n) {
    const CpuOpRow& row = m.cpu_ops[n.row];
    if (m.strings.get(row.s.name) != name) return;
    if (group_by == OpGroupBy::kNameAndShape && shapes(row.input_dims) != input_shape) return;
    if (group_by == OpGroupBy::kNameAndStack && stack_text(t.stacks, m, row_stack(t.stacks, m, n.kind, n.row)) != input_shape) return;
    f(n, row);
  });
}

// tb_plugin's show_gpu_ops: kernels other than collectives', or memcpy/memset (runtimes alone don't count).
bool shows_gpu(const TraceModel& m) { return has_compute_kernels(m) || m.memcpys.size() > 0 || m.memsets.size() > 0; }

// Device self time descending when the trace shows GPU work, else host self; ties keep first-call order.
template <class Row>
void sort_by_self_time(std::vector<Row>& rows, bool show_gpu) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return show_gpu ? a.stats.device_self_ns > b.stats.device_self_ns : a.stats.host_self_ns > b.stats.host_self_ns;
  });
}

}  // namespace

const char* group_by_word(OpGroupBy g) {
  switch (g) {
    case OpGroupBy::kName: return "op";
    case OpGroupBy::kNameAndShape: return "op+shape";
    case OpGroupBy::kNameAndStack: return "op+stack";
  }
  return "op";
}

bool parse_op_group_by(std::string_view s, OpGroupBy& out) {
  if (s == "op") out = OpGroupBy::kName;
  else if (s == "op+shape") out = OpGroupBy::kNameAndShape;
  else if (s == "op+stack") out = OpGroupBy::kNameAndStack;
  else return false;
  return true;
}

OperatorTable operator_table(const OpTree& t, const TraceModel& m, OpGroupBy group_by, const StepFilter* step) {
  OperatorTable table;
  table.group_by = group_by;
  table.linking = t.stats;
  table.show_gpu = shows_gpu(m);
  ShapeReprs shapes(m);
  // Groups by name id, or by name id + shape text, in first-call order.
  std::unordered_map<std::string, size_t> index;
  std::string key;
  for_each_operator(t, step, [&](const OpNode& n) {
    const CpuOpRow& row = m.cpu_ops[n.row];
    const StackKey stack = row_stack(t.stacks, m, n.kind, n.row);
    key.assign(reinterpret_cast<const char*>(&row.s.name), sizeof row.s.name);
    if (group_by == OpGroupBy::kNameAndShape) key += shapes(row.input_dims);
    if (group_by == OpGroupBy::kNameAndStack) key.append(reinterpret_cast<const char*>(&stack), sizeof stack);
    auto [it, fresh] = index.try_emplace(key, table.rows.size());
    if (fresh) {
      OperatorGroup g;
      g.name = row.s.name;
      g.tc_eligible = n.tc_eligible;
      if (group_by == OpGroupBy::kNameAndShape) g.input_shape = shapes(row.input_dims);
      if (group_by == OpGroupBy::kNameAndStack) g.call_stack = stack_text(t.stacks, m, stack);
      table.rows.push_back(std::move(g));
    }
    OperatorGroup& g = table.rows[it->second];
    if (stack) g.has_call_stack = true;
    add_call(g.stats, t, m, n);
  });
  sort_by_self_time(table.rows, table.show_gpu);
  return table;
}

std::vector<StackGroup> operator_stacks(const OpTree& t, const TraceModel& m, OpGroupBy group_by,
                                        std::string_view name, std::string_view input_shape, const StepFilter* step) {
  std::vector<StackGroup> out;
  std::unordered_map<StackKey, size_t> by_stack;
  for_each_call_of(t, m, group_by, name, input_shape, step, [&](const OpNode& n, const CpuOpRow&) {
    const StackKey stack = row_stack(t.stacks, m, n.kind, n.row);
    if (!stack) return;
    auto [it, fresh] = by_stack.try_emplace(stack, out.size());
    if (fresh) out.push_back({stack, stack_text(t.stacks, m, stack), {}});
    add_call(out[it->second].stats, t, m, n);
  });
  sort_by_self_time(out, shows_gpu(m));
  return out;
}

StacklessCalls operator_stackless_calls(const OpTree& t, const TraceModel& m, OpGroupBy group_by, std::string_view name,
                                        std::string_view input_shape, const StepFilter* step) {
  StacklessCalls out;
  for_each_call_of(t, m, group_by, name, input_shape, step, [&](const OpNode& n, const CpuOpRow&) {
    ++out.calls[size_t(no_stack_reason(t.stacks, m, n.kind, n.row))];
  });
  out.calls[0] = 0;  // those have one
  return out;
}

std::vector<OperatorKernel> operator_kernels(const OpTree& t, const TraceModel& m, OpGroupBy group_by,
                                             std::string_view name, std::string_view input_shape,
                                             const StepFilter* step) {
  std::vector<OperatorKernel> out;
  std::unordered_map<StringId, size_t> by_name;
  TcKernelNames tc(m.strings, t.tb_plugin);
  for_each_call_of(t, m, group_by, name, input_shape, step, [&](const OpNode& n, const CpuOpRow&) {
    for (int32_t l = n.first_launch; l >= 0; l = t.launches[size_t(l)].next) {
      const Launch& launch = t.launches[size_t(l)];
      for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d) {
        if (t.launched[d].kind != EventKind::kKernel) continue;
        const KernelRow& k = m.kernels[t.launched[d].row];
        auto [it, fresh] = by_name.try_emplace(k.s.name, out.size());
        if (fresh) out.push_back({k.s.name, 0, 0, tc(k.s.name)});
        OperatorKernel& g = out[it->second];
        ++g.calls;
        g.total_ns += span_ns(k.s.ts_ns, m.dur_ns(k.s), t.tb_plugin);  // as the node's device time counts it
      }
    }
  });
  std::stable_sort(out.begin(), out.end(), [](const OperatorKernel& a, const OperatorKernel& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::string python_repr_of_json(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 2);
  size_t i = 0;
  while (i < json.size()) {
    const char c = json[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == ',' || c == ':') {
      out += c;
      out += ' ';
      ++i;
    } else if (c == '"') {
      size_t j = i + 1;
      std::string s;
      while (j < json.size() && json[j] != '"') {
        if (json[j] == '\\' && j + 1 < json.size()) {
          const char e = json[++j];
          s += e == 'n' ? '\n' : e == 't' ? '\t' : e;  // other escapes kept as their character
        } else {
          s += json[j];
        }
        ++j;
      }
      const char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
      out += q;
      for (char ch : s) {
        if (ch == '\\' || ch == q) out += '\\';
        if (ch == '\n') out += "\\n";
        else if (ch == '\t') out += "\\t";
        else out += ch;
      }
      out += q;
      i = j + 1;
    } else if (json.substr(i, 4) == "null") {
      out += "None";
      i += 4;
    } else if (json.substr(i, 4) == "true") {
      out += "True";
      i += 4;
    } else if (json.substr(i, 5) == "false") {
      out += "False";
      i += 5;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace ks
