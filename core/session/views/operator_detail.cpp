// The Operators view's detail of one row, two views of the same parameters: its calls split by
// call stack (operator_detail; why calls have no stack in its metadata), and the kernels its calls
// launched themselves (operator_kernels). The CLI prints them as one object, the kernels first.
#include "core/analysis/call_stacks.h"
#include "core/analysis/operators.h"
#include "core/analysis/tensor_cores.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

const std::vector<ParamSpec> kDetailParams = {
    {"group_by", "op (default), op+shape or op+stack: the table's grouping"},
    {"name", "the row's operator name"},
    {"input_shape", "op+shape: the row's input shape; op+stack: its call stack"},
    {"step", "a step's name as the steps view lists it: only the calls that step issued; absent: the whole trace"}};

// The row a detail names, or the sentence why not.
struct DetailRow {
  OpGroupBy group_by = OpGroupBy::kName;
  std::optional<StepFilter> step;
  std::string_view name, shape;
  std::string error;
};

DetailRow detail_row(const Session& s, QueryParamsRef params) {
  DetailRow r;
  const std::string_view group_by = param(params, "group_by", "op");
  if (!parse_op_group_by(group_by, r.group_by)) {
    r.error = "unknown group_by: " + std::string(group_by);
    return r;
  }
  if (!s.step_filter(param(params, "step"), r.step, r.error)) return r;
  r.name = param(params, "name");
  r.shape = param(params, "input_shape");
  return r;
}

}  // namespace

const ViewSchema kOperatorKernelsSchema = {
    "operator_kernels",
    "OperatorKernels",
    "The kernels one row of the Operators table launched through its calls' own launches (not those of the operators "
    "they called: what its device self time counts), by name, total time descending (`kinetoscope operators --detail "
    "NAME --json`'s kernels).",
    kDetailParams,
    {
        {"name", ColumnType::kString, "", "the kernel's name"},
        {"calls", ColumnType::kCount, "count", "kernels of that name"},
        {"total_us", ColumnType::kF64, "us", "their summed duration"},
        {"tensor_cores", ColumnType::kTri, "", "ran on Tensor Cores (Matrix Cores on AMD); unknown: the name does not tell"},
    },
    {},
    {"name", "calls", "total_us", "tensor_cores"},
    "kernels",
};

const ViewSchema kOperatorDetailSchema = {
    "operator_detail",
    "OperatorDetail",
    "One row of the Operators table (`kinetoscope operators --detail NAME --json`, after operator_kernels' rows): its "
    "calls split by call stack (rows, device self time descending when the trace has GPU work, else host self) and "
    "the calls without a stack.",
    kDetailParams,
    {
        {"call_stack", ColumnType::kString, "", "the call stack, innermost frame first, ';' between frames"},
        {"calls", ColumnType::kCount, "count", "calls with this stack"},
        {"host_self_us", ColumnType::kF64, "us", "host time not in child operators"},
        {"host_total_us", ColumnType::kF64, "us", "host time of the calls"},
        {"device_self_us", ColumnType::kF64, "us", "GPU time of the kernels and copies its own launches put on a device"},
        {"device_total_us", ColumnType::kF64, "us", "GPU time of its launches and its child operators'"},
        {"tc_self_pct", ColumnType::kF64, "percent", "share of device self time on Tensor Cores"},
        {"tc_total_pct", ColumnType::kF64, "percent", "share of device total time on Tensor Cores"},
    },
    {
        {"stack_source", "'call_stack' | 'python_function' | 'none'",
         "where the stacks come from: the \"Call stack\" args (PyTorch 1.x), python_function frames (2.x), or none"},
        {"no_stack", "{ reason: string; text: string; calls: number }[]",
         "the calls without a stack, counted by why (no_stack_word, its sentence)"},
    },
    {"call_stack", "calls", "host_self_us", "host_total_us", "device_self_us", "device_total_us", "tc_self_pct", "tc_total_pct"},
    "stacks",
};

Answer operator_kernels_answer(const Session& s, QueryParamsRef params) {
  const DetailRow row = detail_row(s, params);
  if (!row.error.empty()) return error_answer(kOperatorKernelsSchema, row.error);
  const TraceModel& m = s.model();
  const std::vector<OperatorKernel> kernels =
      operator_kernels(s.tree(), m, row.group_by, row.name, row.shape, row.step ? &*row.step : nullptr);
  AnswerBuilder b(kOperatorKernelsSchema, kernels.size());
  AnswerColumn& name = b.add("name");
  for (const OperatorKernel& k : kernels) name.str.push_back(b.intern(m.strings.get(k.name)));
  AnswerColumn& calls = b.add("calls");
  for (const OperatorKernel& k : kernels) calls.f64.push_back(double(k.calls));
  AnswerColumn& total = b.add("total_us");
  for (const OperatorKernel& k : kernels) total.f64.push_back(double(k.total_ns) / 1e3);
  AnswerColumn& tc = b.add("tensor_cores");
  for (const OperatorKernel& k : kernels)
    tc.u8.push_back(k.tensor_cores == TcState::kYes ? kTriYes : k.tensor_cores == TcState::kNo ? kTriNo : kTriUnknown);
  return b.take();
}

Answer operator_detail_answer(const Session& s, QueryParamsRef params) {
  const DetailRow row = detail_row(s, params);
  if (!row.error.empty()) return error_answer(kOperatorDetailSchema, row.error);
  const StepFilter* step = row.step ? &*row.step : nullptr;
  const OpTree& t = s.tree();
  const TraceModel& m = s.model();
  const std::vector<StackGroup> stacks = operator_stacks(t, m, row.group_by, row.name, row.shape, step);
  const StacklessCalls stackless = operator_stackless_calls(t, m, row.group_by, row.name, row.shape, step);

  AnswerBuilder b(kOperatorDetailSchema, stacks.size());
  b.rows_here();
  bool args = false;
  for (const StackGroup& x : stacks) args |= x.key && !(x.key & kDerivedStack);
  b.meta("stack_source", args ? "\"call_stack\"" : t.stacks.derived() ? "\"python_function\"" : "\"none\"");
  {
    JsonWriter w;
    w.begin_array();
    for (size_t r = 1; r < stackless.calls.size(); ++r) {
      if (!stackless.calls[r]) continue;
      w.begin_object();
      w.key("reason").value(no_stack_word(NoStackReason(r)));
      w.key("text").value(no_stack_text(NoStackReason(r)));
      w.key("calls").value(stackless.calls[r]);
      w.end_object();
    }
    w.end_array();
    b.meta("no_stack", w.take());
  }
  AnswerColumn& stack = b.add("call_stack");
  for (const StackGroup& x : stacks) stack.str.push_back(b.intern(x.call_stack));
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (const StackGroup& x : stacks) c.f64.push_back(value(x.stats));
  };
  number("calls", [](const OperatorStats& x) { return double(x.calls); });
  number("host_self_us", [](const OperatorStats& x) { return double(x.host_self_ns) / 1e3; });
  number("host_total_us", [](const OperatorStats& x) { return double(x.host_total_ns) / 1e3; });
  number("device_self_us", [](const OperatorStats& x) { return double(x.device_self_ns) / 1e3; });
  number("device_total_us", [](const OperatorStats& x) { return double(x.device_total_ns) / 1e3; });
  number("tc_self_pct", [](const OperatorStats& x) { return x.tc_self_ratio() * 100; });
  number("tc_total_pct", [](const OperatorStats& x) { return x.tc_total_ratio() * 100; });
  return b.take();
}

}  // namespace ks
