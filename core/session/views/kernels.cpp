// The Kernels view's schema and answer: core/analysis/kernels.h's table as columns.
#include <cmath>

#include "core/analysis/kernels.h"
#include "core/analysis/tensor_core_rules.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kKernelsSchema = {
    "kernels",
    "Kernels",
    "Kernels grouped by name (every kernel of the trace) or by launch properties and launching operator "
    "(props), with calls, Tensor Core use and durations (`kinetoscope kernels --json`). Rows: total time descending.",
    {{"group_by", "name (default) or props"},
     {"step", "a step's name as the steps view lists it: only the kernels that step issued; absent: the whole trace"}},
    {
        {"name", ColumnType::kString, "", "the kernel's name"},
        {"operator", ColumnType::kString, "", "props only: the launching operator (\"N/A\": none took the launch); null in name grouping"},
        {"grid", ColumnType::kI32x3, "", "props only: the first kernel's grid [x, y, z]; null when not recorded or in name grouping"},
        {"block", ColumnType::kI32x3, "", "props only: the first kernel's block [x, y, z]; null as grid"},
        {"registers_per_thread", ColumnType::kI32, "count", "props only: registers per thread (0: not recorded); null in name grouping"},
        {"shared_memory", ColumnType::kI32, "bytes", "props only: shared memory (0: not recorded); null in name grouping"},
        {"calls", ColumnType::kCount, "count", "kernels in the group"},
        {"tensor_cores", ColumnType::kTri, "", "ran on Tensor Cores (Matrix Cores on AMD); unknown: the name does not tell"},
        {"tensor_cores_rule", ColumnType::kString, "", "the rule of the Tensor Core table that decided, as a sentence; null: none (tb_plugin's list)"},
        {"op_tc_eligible", ColumnType::kTri, "", "props only: the launching operator could use Tensor Cores; null in name grouping"},
        {"total_us", ColumnType::kF64, "us", "summed duration"},
        {"mean_us", ColumnType::kF64, "us", "mean duration"},
        {"min_us", ColumnType::kF64, "us", "shortest"},
        {"max_us", ColumnType::kF64, "us", "longest"},
        {"blocks_per_sm", ColumnType::kF64, "", "duration-weighted mean blocks per SM; null when no kernel of the trace recorded it"},
        {"occupancy_pct", ColumnType::kF64, "percent", "duration-weighted est. achieved occupancy; null when none of the group's kernels has one"},
        {"tensor_cores_rule_id", ColumnType::kString, "", "the deciding rule's id (the CSV's tensor_cores_rule); null: none", false, false,
         "tensor_cores_rule"},
    },
    {
        {"group_by", "'name' | 'props'", "the grouping of the rows"},
        {"tensor_cores",
         "{ tc_us: number; unknown_us: number; total_us: number; term: string; scope: string } | null",
         "kernel time on Tensor Cores, of unknown use and in all (of the step when one is chosen), the word for the "
         "units and the sentence saying which kernels these cover; null when the trace has no kernels"},
    },
    {"name", "operator", "grid", "block", "registers_per_thread", "shared_memory", "calls", "tensor_cores", "op_tc_eligible",
     "tensor_cores_rule_id", "total_us", "mean_us", "min_us", "max_us", "blocks_per_sm", "occupancy_pct"},
};

namespace {

uint8_t tri(TcState s) { return s == TcState::kYes ? kTriYes : s == TcState::kNo ? kTriNo : kTriUnknown; }

}  // namespace

Answer kernels_answer(const Session& s, QueryParamsRef params) {
  KernelGroupBy g;
  const std::string_view group_by = param(params, "group_by", "name");
  if (!parse_kernel_group_by(group_by, g)) {
    return error_answer(kKernelsSchema, "unknown group_by: " + std::string(group_by));
  }
  std::optional<StepFilter> step;
  std::string error;
  if (!s.step_filter(param(params, "step"), step, error)) {
    return error_answer(kKernelsSchema, error);
  }
  return kernel_table_answer(kernel_table(s.tree(), s.model(), g, step ? &*step : nullptr), s.model());
}

Answer kernel_table_answer(const KernelTable& t, const TraceModel& m) {
  const KernelGroupBy g = t.group_by;
  const bool props = g == KernelGroupBy::kProps;
  AnswerBuilder b(kKernelsSchema, t.rows.size());
  b.meta("group_by", props ? "\"props\"" : "\"name\"");
  b.rows_here();
  if (m.kernels.size() == 0) {
    b.meta("tensor_cores", "null");
  } else {
    JsonWriter w;
    w.begin_object();
    w.key("tc_us").value(double(t.tensor_cores.tc_ns) / 1e3);
    w.key("unknown_us").value(double(t.tensor_cores.unknown_ns) / 1e3);
    w.key("total_us").value(double(t.tensor_cores.total_ns) / 1e3);
    w.key("term").value(matrix_units_term(t.accelerator));
    w.key("scope").value(t.step.empty() ? kernel_tc_scope(t.accelerator) : kernel_tc_step_scope(t.accelerator, t.step));
    w.end_object();
    b.meta("tensor_cores", w.take());
  }
  AnswerColumn& name = b.add("name");
  for (const KernelGroup& r : t.rows) name.str.push_back(b.intern(m.strings.get(r.name)));
  AnswerColumn& op = b.add("operator", props);
  for (const KernelGroup& r : t.rows) op.str.push_back(props ? b.intern(r.op) : kNullString);
  auto dims = [&](std::string_view col, auto get) {
    AnswerColumn& c = b.add(col, props);
    for (const KernelGroup& r : t.rows) {
      const std::array<int32_t, 3>& d = get(r);
      const bool recorded = d[0] || d[1] || d[2];
      if (props && recorded) c.i32.insert(c.i32.end(), d.begin(), d.end());
      else c.i32.insert(c.i32.end(), {kNullI32, 0, 0});
    }
  };
  dims("grid", [](const KernelGroup& r) -> const std::array<int32_t, 3>& { return r.grid; });
  dims("block", [](const KernelGroup& r) -> const std::array<int32_t, 3>& { return r.block; });
  AnswerColumn& regs = b.add("registers_per_thread", props);
  for (const KernelGroup& r : t.rows) regs.i32.push_back(props ? r.registers_per_thread : kNullI32);
  AnswerColumn& shared = b.add("shared_memory", props);
  for (const KernelGroup& r : t.rows) shared.i32.push_back(props ? r.shared_memory : kNullI32);
  AnswerColumn& calls = b.add("calls");
  for (const KernelGroup& r : t.rows) calls.f64.push_back(double(r.calls));
  AnswerColumn& tc = b.add("tensor_cores");
  for (const KernelGroup& r : t.rows) tc.u8.push_back(tri(r.tensor_cores));
  AnswerColumn& rule = b.add("tensor_cores_rule");
  for (const KernelGroup& r : t.rows) rule.str.push_back(r.tc_rule ? b.intern(tc_rule_text(*r.tc_rule)) : kNullString);
  AnswerColumn& op_tc = b.add("op_tc_eligible", props);
  for (const KernelGroup& r : t.rows) op_tc.u8.push_back(props ? tri(r.op_tc_eligible) : kTriUnknown);
  auto number = [&](std::string_view col, bool present, auto value) {
    AnswerColumn& c = b.add(col, present);
    for (const KernelGroup& r : t.rows) c.f64.push_back(value(r));
  };
  number("total_us", true, [](const KernelGroup& r) { return double(r.total_ns) / 1e3; });
  number("mean_us", true, [](const KernelGroup& r) { return r.mean_ns() / 1e3; });
  number("min_us", true, [](const KernelGroup& r) { return double(r.min_ns) / 1e3; });
  number("max_us", true, [](const KernelGroup& r) { return double(r.max_ns) / 1e3; });
  number("blocks_per_sm", t.has_blocks_per_sm,
         [&](const KernelGroup& r) { return t.has_blocks_per_sm ? r.blocks_per_sm() : std::nan(""); });
  number("occupancy_pct", t.has_occupancy, [&](const KernelGroup& r) { return t.has_occupancy ? r.occupancy_pct() : std::nan(""); });
  AnswerColumn& rule_id = b.add("tensor_cores_rule_id");
  for (const KernelGroup& r : t.rows) rule_id.str.push_back(r.tc_rule ? b.intern(r.tc_rule->id) : kNullString);
  return b.take();
}

}  // namespace ks
