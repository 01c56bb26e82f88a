// The Kernels view's detail of one row, three views of one computation (kernels.h kernel_detail,
// computed once for the three: Session::shared): the call stacks of the operators that launched
// it, with the row's own numbers as metadata (kernel_detail); its launching operators
// (kernel_operators); its distinct launch properties (kernel_launches). The CLI prints them as one
// object.
#include <cmath>
#include <cstdlib>

#include "core/analysis/kernels.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

const std::vector<ParamSpec> kDetailParams = {
    {"group_by", "name (default) or props: the table's grouping"},
    {"name", "the row's kernel name"},
    {"operator", "props: the row's launching operator"},
    {"grid", "props: the row's grid \"x,y,z\" (absent or 0,0,0: not recorded)"},
    {"block", "props: the row's block \"x,y,z\""},
    {"registers", "props: registers per thread (absent: 0)"},
    {"shared_memory", "props: shared memory in bytes (absent: 0)"},
    {"step", "a step's name as the steps view lists it: only the kernels that step issued; absent: the whole trace"}};

}  // namespace

const ViewSchema kKernelOperatorsSchema = {
    "kernel_operators",
    "KernelOperators",
    "The operators that launched one row of the Kernels table (\"N/A\": none took the launch), total time descending "
    "(`kinetoscope kernels --detail NAME --json`'s operators).",
    kDetailParams,
    {
        {"name", ColumnType::kString, "", "the launching operator"},
        {"calls", ColumnType::kCount, "count", "kernels of the row it launched"},
        {"total_us", ColumnType::kF64, "us", "their summed duration"},
    },
    {},
    {"name", "calls", "total_us"},
    "operators",
};

const ViewSchema kKernelLaunchesSchema = {
    "kernel_launches",
    "KernelLaunches",
    "The distinct launch properties of one row of the Kernels table, total time descending (`kinetoscope kernels "
    "--detail NAME --json`'s launches).",
    kDetailParams,
    {
        {"grid", ColumnType::kI32x3, "", "grid [x, y, z]; null: not recorded"},
        {"block", ColumnType::kI32x3, "", "block [x, y, z]; null: not recorded"},
        {"registers_per_thread", ColumnType::kI32, "count", "registers per thread (0: not recorded)"},
        {"shared_memory", ColumnType::kI32, "bytes", "shared memory (0: not recorded)"},
        {"blocks_per_sm", ColumnType::kF64, "", "duration-weighted mean blocks per SM; null when no kernel of the trace recorded it"},
        {"occupancy_pct", ColumnType::kF64, "percent", "duration-weighted est. achieved occupancy; null when none of these kernels has one"},
        {"calls", ColumnType::kCount, "count", "kernels launched so"},
        {"total_us", ColumnType::kF64, "us", "their summed duration"},
    },
    {},
    {"grid", "block", "registers_per_thread", "shared_memory", "blocks_per_sm", "occupancy_pct", "calls", "total_us"},
    "launches",
};

const ViewSchema kKernelDetailSchema = {
    "kernel_detail",
    "KernelDetail",
    "One row of the Kernels table (`kinetoscope kernels --detail NAME --json`, kernel_operators' and kernel_launches' "
    "rows before its own): the call stacks of the operators that launched it (rows, total time descending) and its "
    "calls and durations as the row counts them.",
    kDetailParams,
    {
        {"operator", ColumnType::kString, "", "the launching operator (\"N/A\": none took the launch)"},
        {"call_stack", ColumnType::kString, "", "its call stack, innermost frame first, ';' between frames"},
        {"calls", ColumnType::kCount, "count", "kernels of the row launched from this stack"},
        {"total_us", ColumnType::kF64, "us", "their summed duration"},
    },
    {
        {"group_by", "'name' | 'props'", "the table's grouping"},
        {"name", "string", "the kernel's name"},
        {"operator", "string | null", "props: the launching operator; null in name grouping"},
        {"calls", "number", "kernels in the row"},
        {"total_us", "number", "their summed duration"},
        {"mean_us", "number | null", "mean duration; null when the row has no kernel (in this step)"},
        {"min_us", "number | null", "shortest; null as mean_us"},
        {"max_us", "number | null", "longest; null as mean_us"},
        {"blocks_per_sm", "number | null", "duration-weighted mean blocks per SM; null when no kernel of the trace recorded it"},
        {"occupancy_pct", "number | null", "duration-weighted est. achieved occupancy; null when none of the row's kernels has one"},
        {"stacks_from_python_frames", "boolean", "the stacks are python_function frames (PyTorch 2.x), not \"Call stack\" args"},
    },
    {"operator", "call_stack", "calls", "total_us"},
    "stacks",
};

namespace {

// A launch property's parameter: "" leaves `out` as it is (the row has none).
bool parse_dims(std::string_view text, std::array<int32_t, 3>& out) { return text.empty() || parse_launch_dims(text, out); }
bool parse_int(std::string_view text, int32_t& out) { return text.empty() || parse_launch_int(text, out); }

// The detail the parameters name (computed once for the three views), or the sentence why not.
struct Detail {
  KernelKey key;
  const KernelDetail* d = nullptr;
  std::string error;
};

Detail detail_of(const Session& s, QueryParamsRef params) {
  Detail out;
  KernelKey& key = out.key;
  const std::string_view group_by = param(params, "group_by", "name");
  if (!parse_kernel_group_by(group_by, key.group_by)) {
    out.error = "unknown group_by: " + std::string(group_by);
    return out;
  }
  key.name = std::string(param(params, "name"));
  if (key.group_by == KernelGroupBy::kProps) {
    key.op = std::string(param(params, "operator"));
    if (!parse_dims(param(params, "grid"), key.grid)) out.error = "grid takes X,Y,Z";
    else if (!parse_dims(param(params, "block"), key.block)) out.error = "block takes X,Y,Z";
    else if (!parse_int(param(params, "registers"), key.registers_per_thread)) out.error = "registers takes a whole number";
    else if (!parse_int(param(params, "shared_memory"), key.shared_memory)) out.error = "shared_memory takes a whole number";
    if (!out.error.empty()) return out;
  }
  std::optional<StepFilter> filter;
  const std::string_view step = param(params, "step");
  if (!s.step_filter(step, filter, out.error)) return out;
  // The key of the computation: every parameter that decides it, each ended by a 0 byte.
  std::string memo = "kernel_detail";
  for (const std::string_view part : {std::string_view(key.group_by == KernelGroupBy::kProps ? "props" : "name"),
                                      std::string_view(key.name), std::string_view(key.op), step})
    memo.append(1, '\0').append(part);
  for (const int32_t v : {key.grid[0], key.grid[1], key.grid[2], key.block[0], key.block[1], key.block[2],
                          key.registers_per_thread, key.shared_memory})
    memo.append(1, '\0').append(std::to_string(v));
  out.d = &s.shared<KernelDetail>("kernel-detail", memo, [&] { return kernel_detail(s.tree(), s.model(), key, filter ? &*filter : nullptr); });
  return out;
}

void push_dims(AnswerColumn& c, const std::array<int32_t, 3>& d) {
  if (d[0] || d[1] || d[2]) c.i32.insert(c.i32.end(), d.begin(), d.end());
  else c.i32.insert(c.i32.end(), {kNullI32, 0, 0});
}

}  // namespace

Answer kernel_operators_answer(const Session& s, QueryParamsRef params) {
  const Detail x = detail_of(s, params);
  if (!x.d) return error_answer(kKernelOperatorsSchema, x.error);
  const std::vector<KernelGroup>& ops = x.d->operators;
  AnswerBuilder b(kKernelOperatorsSchema, ops.size());
  AnswerColumn& name = b.add("name");
  for (const KernelGroup& g : ops) name.str.push_back(b.intern(g.op));
  AnswerColumn& calls = b.add("calls");
  for (const KernelGroup& g : ops) calls.f64.push_back(double(g.calls));
  AnswerColumn& total = b.add("total_us");
  for (const KernelGroup& g : ops) total.f64.push_back(double(g.total_ns) / 1e3);
  return b.take();
}

Answer kernel_launches_answer(const Session& s, QueryParamsRef params) {
  const Detail x = detail_of(s, params);
  if (!x.d) return error_answer(kKernelLaunchesSchema, x.error);
  const KernelDetail& d = *x.d;
  AnswerBuilder b(kKernelLaunchesSchema, d.launches.size());
  AnswerColumn& grid = b.add("grid");
  for (const KernelGroup& g : d.launches) push_dims(grid, g.grid);
  AnswerColumn& block = b.add("block");
  for (const KernelGroup& g : d.launches) push_dims(block, g.block);
  AnswerColumn& regs = b.add("registers_per_thread");
  for (const KernelGroup& g : d.launches) regs.i32.push_back(g.registers_per_thread);
  AnswerColumn& shared = b.add("shared_memory");
  for (const KernelGroup& g : d.launches) shared.i32.push_back(g.shared_memory);
  // As the detail's own numbers: null without the trace's values or without kernels.
  AnswerColumn& blocks = b.add("blocks_per_sm");
  for (const KernelGroup& g : d.launches) blocks.f64.push_back(d.has_blocks_per_sm && g.calls ? g.blocks_per_sm() : std::nan(""));
  AnswerColumn& occupancy = b.add("occupancy_pct");
  for (const KernelGroup& g : d.launches) occupancy.f64.push_back(d.has_occupancy && g.calls ? g.occupancy_pct() : std::nan(""));
  AnswerColumn& calls = b.add("calls");
  for (const KernelGroup& g : d.launches) calls.f64.push_back(double(g.calls));
  AnswerColumn& total = b.add("total_us");
  for (const KernelGroup& g : d.launches) total.f64.push_back(double(g.total_ns) / 1e3);
  return b.take();
}

Answer kernel_detail_answer(const Session& s, QueryParamsRef params) {
  const Detail x = detail_of(s, params);
  if (!x.d) return error_answer(kKernelDetailSchema, x.error);
  const KernelDetail& d = *x.d;
  const KernelKey& key = x.key;
  const bool props = key.group_by == KernelGroupBy::kProps;
  AnswerBuilder b(kKernelDetailSchema, d.stacks.size());
  auto json = [](auto write) {
    JsonWriter w;
    write(w);
    return w.take();
  };
  auto us_or_null = [&](bool has, double ns) { return json([&](JsonWriter& w) { has ? void(w.value(ns / 1e3)) : void(w.null()); }); };
  auto blocks = [&](JsonWriter& w, const KernelGroup& g) {
    if (d.has_blocks_per_sm && g.calls) w.value(g.blocks_per_sm());
    else w.null();
  };
  auto occupancy = [&](JsonWriter& w, const KernelGroup& g) {
    if (d.has_occupancy && g.calls && !std::isnan(g.occupancy_pct())) w.value(g.occupancy_pct());
    else w.null();
  };
  b.meta("group_by", props ? "\"props\"" : "\"name\"");
  b.meta("name", json([&](JsonWriter& w) { w.value(key.name); }));
  b.meta("operator", props ? json([&](JsonWriter& w) { w.value(key.op); }) : "null");
  b.meta("calls", std::to_string(d.total.calls));
  b.meta("total_us", json([&](JsonWriter& w) { w.value(double(d.total.total_ns) / 1e3); }));
  b.meta("mean_us", us_or_null(d.found, d.total.mean_ns()));
  b.meta("min_us", us_or_null(d.found, double(d.total.min_ns)));
  b.meta("max_us", us_or_null(d.found, double(d.total.max_ns)));
  b.meta("blocks_per_sm", json([&](JsonWriter& w) { blocks(w, d.total); }));
  b.meta("occupancy_pct", json([&](JsonWriter& w) { occupancy(w, d.total); }));
  b.rows_here();
  b.meta("stacks_from_python_frames", d.stacks_derived ? "true" : "false");
  AnswerColumn& op = b.add("operator");
  for (const KernelStack& st : d.stacks) op.str.push_back(b.intern(st.op));
  AnswerColumn& stack = b.add("call_stack");
  for (const KernelStack& st : d.stacks) stack.str.push_back(b.intern(st.call_stack));
  AnswerColumn& calls = b.add("calls");
  for (const KernelStack& st : d.stacks) calls.f64.push_back(double(st.calls));
  AnswerColumn& total = b.add("total_us");
  for (const KernelStack& st : d.stacks) total.f64.push_back(double(st.total_ns) / 1e3);
  return b.take();
}

}  // namespace ks
