// The Operators view's schema and answer: core/analysis/operators.h's table as columns.
#include "core/analysis/operators.h"
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
     {"step", "a step's name as the steps view lists it: only the work that step issued; absent: the whole trace"}},
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
     "tc_eligible", "tc_self_pct", "tc_total_pct"},
};

namespace {

uint8_t tri(TcState s) { return s == TcState::kYes ? kTriYes : s == TcState::kNo ? kTriNo : kTriUnknown; }

}  // namespace

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
  return operator_table_answer(operator_table(s.tree(), s.model(), g, step ? &*step : nullptr), s.model());
}

Answer operator_table_answer(const OperatorTable& t, const TraceModel& m) {
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
  return b.take();
}

}  // namespace ks
