// The Kernels view's schema and answer: core/analysis/kernels.h's table as columns.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/analysis/device_peaks.h"
#include "core/analysis/roofline.h"

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
     {"step", "a step's name as the steps view lists it: only the kernels that step issued; absent: the whole trace"},
     {"peak", "the FLOPs columns' peak row (docs/flops.md: h100-sxm, ...) instead of the one matched from deviceProperties"}},
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
        // Issue 25: only when some call of the trace was counted (and not with --tb-plugin).
        {"flops", ColumnType::kCount, "flop", "FLOPs of the counted calls whose only kernel each of the group's kernels is (docs/flops.md); null unless every kernel of the group is one", true, true},
        {"flop_dtype", ColumnType::kString, "", "the dtypes of those FLOPs, most first, joined by +; null as flops", true, true},
        {"tflops_per_s", ColumnType::kF64, "TFLOP/s", "flops over the kernels' time; null as flops", true, true},
        {"pct_of_peak", ColumnType::kF64, "percent", "tflops_per_s as a share of the device's dense peak for its dtype; null as flops, or no peak row", true, true},
        {"intensity", ColumnType::kF64, "flop/byte", "arithmetic intensity of those calls: flops over the bytes they read and write", true, true},
    },
    {
        {"group_by", "'name' | 'props'", "the grouping of the rows"},
        {"tensor_cores",
         "{ tc_us: number; unknown_us: number; total_us: number; term: string; scope: string } | null",
         "kernel time on Tensor Cores, of unknown use and in all (of the step when one is chosen), the word for the "
         "units and the sentence saying which kernels these cover; null when the trace has no kernels"},
    },
    {"name", "operator", "grid", "block", "registers_per_thread", "shared_memory", "calls", "tensor_cores", "op_tc_eligible",
     "tensor_cores_rule_id", "total_us", "mean_us", "min_us", "max_us", "blocks_per_sm", "occupancy_pct", "flops", "flop_dtype",
     "tflops_per_s", "pct_of_peak", "intensity"},
};

namespace {

uint8_t tri(TcState s) { return s == TcState::kYes ? kTriYes : s == TcState::kNo ? kTriNo : kTriUnknown; }

// Each row's FLOPs: the counted calls whose only kernel a kernel of the row is (roofline.h
// sole_kernels), when every kernel of the row is one; a row with a kernel of no counted call, or
// of a call with several kernels, has none (its FLOPs are not its kernels' alone).
std::vector<FlopTotals> kernel_flops(const Session& s, const KernelTable& t, const StepFilter* step) {
  const TraceModel& m = s.model();
  const OpTree& tree = s.tree();
  const FlopsResult& fr = s.flops();
  std::vector<FlopTotals> out(t.rows.size());
  std::vector<uint64_t> kernels(t.rows.size(), 0);
  const bool props = t.group_by == KernelGroupBy::kProps;
  // A row by its identity: the name, and with props the launch properties and operator (kernels.cpp).
  auto key = [&](StringId name, const std::array<int32_t, 3>& grid, const std::array<int32_t, 3>& block, int32_t regs,
                 int32_t shared, std::string_view op) {
    std::string k(reinterpret_cast<const char*>(&name), sizeof name);
    if (!props) return k;
    for (int32_t v : {grid[0], grid[1], grid[2], block[0], block[1], block[2], std::max(regs, 0), std::max(shared, 0)})
      k.append(reinterpret_cast<const char*>(&v), sizeof v);
    k += op;
    return k;
  };
  std::unordered_map<std::string, size_t> row_of;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const KernelGroup& g = t.rows[r];
    row_of.emplace(key(g.name, g.grid, g.block, g.registers_per_thread, g.shared_memory, g.op), r);
  }
  for (const SoleKernel& k : sole_kernels(fr, tree)) {
    if (step && !step->has_kernel(k.kernel)) continue;
    const KernelRow& row = m.kernels[k.kernel];
    const auto it = row_of.find(key(row.s.name, row.grid, row.block, row.registers_per_thread, row.shared_memory,
                                    props ? node_name(tree, m, k.launcher) : std::string_view()));
    if (it == row_of.end()) continue;
    const FlopCall& c = fr.calls[k.call];
    FlopTotals& f = out[it->second];
    ++kernels[it->second];
    f.flops += double(c.count.flops);
    f.bytes += double(c.count.bytes);
    f.device_ns += double(m.dur_ns(row.s));
    f.by_dtype[c.count.dtype] += double(c.count.flops);
  }
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (kernels[r] != t.rows[r].calls) out[r] = FlopTotals();
  return out;
}

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
  const DevicePeak* peak = nullptr;
  std::string why;
  if (!chosen_peak(s.model(), param(params, "peak"), peak, why, error)) return error_answer(kKernelsSchema, error);
  const KernelTable t = kernel_table(s.tree(), s.model(), g, step ? &*step : nullptr);
  // As the operators answer: FLOPs columns only when the trace has counted calls, not with --tb-plugin.
  if (s.tb_plugin() || s.flops().calls.empty()) return kernel_table_answer(t, s.model());
  const std::vector<FlopTotals> flops = kernel_flops(s, t, step ? &*step : nullptr);
  return kernel_table_answer(t, s.model(), &flops, peak);
}

Answer kernel_table_answer(const KernelTable& t, const TraceModel& m, const std::vector<FlopTotals>* flops, const DevicePeak* peak) {
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
  if (flops) add_flop_columns(b, *flops, peak);
  return b.take();
}

}  // namespace ks
