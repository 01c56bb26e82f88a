// The Operators view's schema and answer: core/analysis/operators.h's table as columns.
#include <cmath>
#include <unordered_map>

#include "core/analysis/device_peaks.h"
#include "core/analysis/operators.h"
#include "core/analysis/roofline.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kOperatorsSchema = {
    "operators",
    "Operators",
    "Operators grouped by name (or name and input shape, or name and call stack), with their calls, host and "
    "device self/total time and Tensor Core shares (`kinetoscope operators --json`). Rows: device self time "
    "descending when the trace has GPU work, else host self time.",
    {{"group_by", "op (default), op+shape or op+stack"},
     {"step", "a step's name as the steps view lists it: only the work that step issued; absent: the whole trace"},
     {"peak", "the FLOPs columns' peak row (docs/flops.md: h100-sxm, ...) instead of the one matched from deviceProperties"}},
    {
        {"name", ColumnType::kString, "", "the operator's name"},
        {"input_shape", ColumnType::kString, "", "Python repr of its Input Dims (\"[]\" when absent); null unless grouped by op+shape"},
        {"call_stack", ColumnType::kString, "", "op+stack only: the call stack, innermost frame first, ';' between frames (\"\": the calls without one)", true, true},
        {"calls", ColumnType::kCount, "count", "calls in the group"},
        {"host_self_us", ColumnType::kF64, "us", "host time not in child operators"},
        {"host_total_us", ColumnType::kF64, "us", "host time of the calls"},
        {"device_self_us", ColumnType::kF64, "us", "GPU time of the kernels and copies its own launches put on a device"},
        {"device_total_us", ColumnType::kF64, "us", "GPU time of its launches and its child operators'"},
        {"tc_eligible", ColumnType::kTri, "", "the group's first call could use Tensor Cores (unknown: a compiled region)"},
        {"tc_self_pct", ColumnType::kF64, "percent", "share of device self time on Tensor Cores"},
        {"tc_total_pct", ColumnType::kF64, "percent", "share of device total time on Tensor Cores"},
        {"has_call_stack", ColumnType::kBool, "", "some call of the group has a call stack"},
        // Issue 25: only when some call of the trace was counted (and not with --tb-plugin).
        {"flops", ColumnType::kCount, "flop", "FLOPs of the group's counted calls (docs/flops.md: mm, addmm, bmm, baddbmm, _scaled_mm, convolutions, attention; a call inside another counted call is not counted again); null: none counted", true, true},
        {"flop_dtype", ColumnType::kString, "", "the dtypes of those FLOPs, most first, joined by + (bf16, tf32, fp32+bf16); null: none counted", true, true},
        {"tflops_per_s", ColumnType::kF64, "TFLOP/s", "flops over the counted calls' device time; null: none counted, or no device time", true, true},
        {"pct_of_peak", ColumnType::kF64, "percent", "tflops_per_s as a share of the device's dense peak for its dtype (several dtypes: each dtype's FLOPs at its peak, over the time); null: no peak row", true, true},
        {"intensity", ColumnType::kF64, "flop/byte", "arithmetic intensity: flops over the bytes the counted calls read and write", true, true},
    },
    {
        {"group_by", "'op' | 'op+shape' | 'op+stack'", "the grouping of the rows"},
        {"show_gpu", "boolean", "the trace has kernels (other than collectives') or memcpy/memset: the device columns mean something"},
        {"linking",
         "{ launches: number; by_external_id: number; by_enclosing_op: number; to_thread_root: number; unattached: number; "
         "dropped_ranges: number; unlaunched_kernels: number; external_ids_are_correlations: boolean }",
         "how the launches found their operators (op_tree.h LinkStats)"},
    },
    {"name", "input_shape", "call_stack", "calls", "host_self_us", "host_total_us", "device_self_us", "device_total_us",
     "tc_eligible", "tc_self_pct", "tc_total_pct", "flops", "flop_dtype", "tflops_per_s", "pct_of_peak", "intensity"},
};

namespace {

uint8_t tri(TcState s) { return s == TcState::kYes ? kTriYes : s == TcState::kNo ? kTriNo : kTriUnknown; }

// The counted calls of each row: which calls are the row's is worked out as the table groups
// them (operators.cpp): the name, and its input shape's repr or its call stack's text.
std::vector<FlopTotals> operator_flops(const Session& s, const OperatorTable& t, const StepFilter* step) {
  const TraceModel& m = s.model();
  const OpTree& tree = s.tree();
  std::vector<FlopTotals> out(t.rows.size());
  std::unordered_map<std::string, size_t> row_of;
  auto key = [](std::string_view name, std::string_view within) {
    std::string k(name);
    k += '\0';
    k += within;
    return k;
  };
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const OperatorGroup& g = t.rows[r];
    row_of.emplace(key(m.strings.get(g.name), t.group_by == OpGroupBy::kNameAndShape   ? std::string_view(g.input_shape)
                                              : t.group_by == OpGroupBy::kNameAndStack ? std::string_view(g.call_stack)
                                                                                       : std::string_view()),
                   r);
  }
  std::unordered_map<StringId, std::string> shapes;
  for (const FlopCall& c : s.flops().calls) {
    const OpNode& n = tree.nodes[size_t(c.node)];
    if (!n.is_operator || (step && !step->has_node(c.node))) continue;
    std::string within;
    if (t.group_by == OpGroupBy::kNameAndShape) {
      const StringId dims = m.cpu_ops[n.row].input_dims;
      auto [it, fresh] = shapes.try_emplace(dims);
      if (fresh) it->second = dims ? python_repr_of_json(m.strings.get(dims)) : "[]";
      within = it->second;
    } else if (t.group_by == OpGroupBy::kNameAndStack) {
      within = stack_text(tree.stacks, m, row_stack(tree.stacks, m, n.kind, n.row));
    }
    const auto it = row_of.find(key(m.strings.get(c.name), within));
    if (it == row_of.end()) continue;
    FlopTotals& f = out[it->second];
    f.flops += double(c.count.flops);
    f.bytes += double(c.count.bytes);
    f.device_ns += double(c.device_ns);
    f.by_dtype[c.count.dtype] += double(c.count.flops);
  }
  return out;
}

}  // namespace

void add_flop_columns(AnswerBuilder& b, const std::vector<FlopTotals>& rows, const DevicePeak* peak) {
  const double nan = std::nan("");
  AnswerColumn& flops = b.add("flops");
  AnswerColumn& dtype = b.add("flop_dtype");
  AnswerColumn& tflops = b.add("tflops_per_s");
  AnswerColumn& pct = b.add("pct_of_peak");
  AnswerColumn& intensity = b.add("intensity");
  for (const FlopTotals& f : rows) {
    const bool counted = !f.by_dtype.empty();
    flops.f64.push_back(counted ? f.flops : nan);
    dtype.str.push_back(counted ? b.intern(dtype_mix(f.by_dtype)) : kNullString);
    tflops.f64.push_back(counted && f.device_ns > 0 ? f.flops / f.device_ns / 1e3 : nan);
    pct.f64.push_back(counted && peak ? pct_of_peaks(f.by_dtype, *peak, f.device_ns) : nan);
    intensity.f64.push_back(counted && f.bytes > 0 ? f.flops / f.bytes : nan);
  }
}

Answer operators_answer(const Session& s, QueryParamsRef params) {
  OpGroupBy g;
  const std::string_view group_by = param(params, "group_by", "op");
  if (!parse_op_group_by(group_by, g)) {
    return error_answer(kOperatorsSchema, "unknown group_by: " + std::string(group_by));
  }
  std::optional<StepFilter> step;
  std::string error;
  if (!s.step_filter(param(params, "step"), step, error)) {
    return error_answer(kOperatorsSchema, error);
  }
  const DevicePeak* peak = nullptr;
  std::string why;
  if (!chosen_peak(s.model(), param(params, "peak"), peak, why, error)) return error_answer(kOperatorsSchema, error);
  const OperatorTable t = operator_table(s.tree(), s.model(), g, step ? &*step : nullptr);
  // The FLOPs columns are there when the trace has counted calls: a trace without shapes, and
  // tb_plugin's mode (whose table has none), print the table they always printed.
  if (s.tb_plugin() || s.flops().calls.empty()) return operator_table_answer(t, s.model());
  const std::vector<FlopTotals> flops = operator_flops(s, t, step ? &*step : nullptr);
  return operator_table_answer(t, s.model(), &flops, peak);
}

Answer operator_table_answer(const OperatorTable& t, const TraceModel& m, const std::vector<FlopTotals>* flops,
                             const DevicePeak* peak) {
  const OpGroupBy g = t.group_by;
  const size_t n = t.rows.size();
  AnswerBuilder b(kOperatorsSchema, n);
  {
    JsonWriter w;
    w.value(group_by_word(g));
    b.meta("group_by", w.take());
  }
  b.meta("show_gpu", t.show_gpu ? "true" : "false");
  b.rows_here();
  {
    const LinkStats& l = t.linking;
    JsonWriter w;
    w.begin_object();
    w.key("launches").value(l.launches);
    w.key("by_external_id").value(l.by_external_id);
    w.key("by_enclosing_op").value(l.by_enclosing_op);
    w.key("to_thread_root").value(l.to_thread_root);
    w.key("unattached").value(l.unattached);
    w.key("dropped_ranges").value(l.dropped_nodes);
    w.key("unlaunched_kernels").value(l.unlaunched_kernels);
    w.key("external_ids_are_correlations").value(l.external_ids_are_correlations);
    w.end_object();
    b.meta("linking", w.take());
  }
  AnswerColumn& name = b.add("name");
  for (const OperatorGroup& r : t.rows) name.str.push_back(b.intern(m.strings.get(r.name)));
  const bool shape = g == OpGroupBy::kNameAndShape;
  AnswerColumn& input_shape = b.add("input_shape", shape);
  for (const OperatorGroup& r : t.rows) input_shape.str.push_back(shape ? b.intern(r.input_shape) : kNullString);
  if (g == OpGroupBy::kNameAndStack) {
    AnswerColumn& stack = b.add("call_stack");
    for (const OperatorGroup& r : t.rows) stack.str.push_back(b.intern(r.call_stack));
  }
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (const OperatorGroup& r : t.rows) c.f64.push_back(value(r.stats));
  };
  number("calls", [](const OperatorStats& x) { return double(x.calls); });
  number("host_self_us", [](const OperatorStats& x) { return double(x.host_self_ns) / 1e3; });
  number("host_total_us", [](const OperatorStats& x) { return double(x.host_total_ns) / 1e3; });
  number("device_self_us", [](const OperatorStats& x) { return double(x.device_self_ns) / 1e3; });
  number("device_total_us", [](const OperatorStats& x) { return double(x.device_total_ns) / 1e3; });
  AnswerColumn& eligible = b.add("tc_eligible");
  for (const OperatorGroup& r : t.rows) eligible.u8.push_back(tri(r.tc_eligible));
  number("tc_self_pct", [](const OperatorStats& x) { return x.tc_self_ratio() * 100; });
  number("tc_total_pct", [](const OperatorStats& x) { return x.tc_total_ratio() * 100; });
  AnswerColumn& has_stack = b.add("has_call_stack");
  for (const OperatorGroup& r : t.rows) has_stack.u8.push_back(r.has_call_stack ? 1 : 0);
  if (flops) add_flop_columns(b, *flops, peak);
  return b.take();
}

}  // namespace ks
